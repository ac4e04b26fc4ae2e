package profile

import (
	"fmt"
	"io"

	pprof "github.com/google/pprof/profile"
)

// pprof export.
//
// Each dispatch becomes one sample with two values, its duration
// ("dispatch_time", nanoseconds) and its bytes touched ("bytes_touched",
// bytes), and a stack of up to three frames, leaf first: the op (dispatch
// label), its group, and the graph. `go tool pprof -top` then lists the
// slowest ops flat, and `-peek`, `-tree` or the flame graph roll them up
// per group and for the whole graph. Samples carry the op kind as a string
// label and the dispatch index and lane as numeric labels, so
// `-tagfocus kind=conv` keeps only convolutions.

// PprofTimeType and PprofBytesType are the sample types of WritePprof.
const (
	PprofTimeType  = "dispatch_time"
	PprofBytesType = "bytes_touched"
)

// Pprof builds the pprof profile of the recorded dispatches (see
// WritePprof). The result passes CheckValid.
func (p *Profiler) Pprof() *pprof.Profile {
	s := p.snapshot()
	prof := &pprof.Profile{
		SampleType: []*pprof.ValueType{
			{Type: PprofTimeType, Unit: "nanoseconds"},
			{Type: PprofBytesType, Unit: "bytes"},
		},
		DefaultSampleType: PprofTimeType,
		PeriodType:        &pprof.ValueType{Type: PprofTimeType, Unit: "nanoseconds"},
		Period:            1,
	}
	if sp, ok := s.extent(); ok {
		prof.DurationNanos = sp.EndNs - sp.StartNs
	}
	// One function and one location per (role, name), ids in first-use
	// order so the output is deterministic.
	type key struct{ role, name string }
	locs := map[key]*pprof.Location{}
	loc := func(role, name string) *pprof.Location {
		k := key{role, name}
		if l := locs[k]; l != nil {
			return l
		}
		id := uint64(len(prof.Function) + 1)
		f := &pprof.Function{ID: id, Name: name, SystemName: name, Filename: role}
		l := &pprof.Location{ID: id, Line: []pprof.Line{{Function: f}}}
		prof.Function = append(prof.Function, f)
		prof.Location = append(prof.Location, l)
		locs[k] = l
		return l
	}
	root := loc("graph", s.graph)
	for _, d := range s.dispatches {
		label := d.Label
		if label == "" {
			label = fmt.Sprintf("dispatch %d", d.Index)
		}
		stack := []*pprof.Location{loc("op", label)}
		if d.Group >= 0 {
			stack = append(stack, loc("group", s.groupLabel(d.Group)))
		}
		stack = append(stack, root)
		prof.Sample = append(prof.Sample, &pprof.Sample{
			Location: stack,
			Value:    []int64{d.DurationNs(), d.Bytes},
			Label:    map[string][]string{"kind": {kindName(d.Kind)}},
			NumLabel: map[string][]int64{"dispatch": {int64(d.Index)}, "lane": {int64(d.Lane)}},
		})
	}
	return prof
}

// WritePprof writes the gzipped pprof protobuf of Pprof to w; read it with
// `go tool pprof -top FILE`.
func (p *Profiler) WritePprof(w io.Writer) error {
	prof := p.Pprof()
	if err := prof.CheckValid(); err != nil {
		return fmt.Errorf("profile: pprof export of %q is invalid: %w", prof.Function[0].Name, err)
	}
	if err := prof.Write(w); err != nil {
		return fmt.Errorf("profile: %w: pprof: %w", ErrWrite, err)
	}
	return nil
}

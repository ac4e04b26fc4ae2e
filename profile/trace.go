package profile

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Trace export.
//
// WriteTrace writes the Chrome trace-event format (JSON object form), which
// Perfetto (ui.perfetto.dev) and chrome://tracing open. Track (tid) 0,
// "schedule", holds the recorded runs and, nested inside them, one slice
// per group, so each concurrent group is a visible span; every lane gets its
// own track ("lane N", tid N+1) holding that lane's dispatches, so
// dispatches of one group that overlapped in time sit side by side on
// different tracks. Barriers are instant events ("ph":"i") on the schedule
// track. Times are microseconds from the earliest recorded time.

// TraceEvent is one event of the Chrome trace-event format as WriteTrace
// emits it.
type TraceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Trace is the JSON object WriteTrace writes.
type Trace struct {
	TraceEvents     []TraceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
}

// Trace categories of the events WriteTrace emits besides dispatches, whose
// category is their op kind.
const (
	TraceCatRun     = "run"
	TraceCatGroup   = "group"
	TraceCatBarrier = "barrier"
)

// laneTid is the track id of a lane: 0 is the schedule track.
func laneTid(lane int) int {
	if lane >= 0 {
		return lane + 1
	}
	return lane
}

// Trace builds the trace events of everything recorded: metadata naming
// the tracks, then runs, groups, dispatches (one "X" event each, in arrival
// order) and barriers.
func (p *Profiler) Trace() Trace {
	s := p.snapshot()
	origin, ok := int64(0), false
	first := func(t int64) {
		if !ok || t < origin {
			origin, ok = t, true
		}
	}
	for _, d := range s.dispatches {
		first(d.StartNs)
	}
	for _, g := range s.groups {
		first(g.StartNs)
	}
	for _, r := range s.runs {
		first(r.StartNs)
	}
	for _, b := range s.barriers {
		first(b.AtNs)
	}
	us := func(ns int64) float64 { return float64(ns-origin) / 1e3 }
	dur := func(ns int64) *float64 { v := float64(ns) / 1e3; return &v }

	ev := []TraceEvent{
		{Name: "process_name", Ph: "M", Pid: 1, Args: map[string]any{"name": s.graph}},
		{Name: "thread_name", Ph: "M", Pid: 1, Tid: 0, Args: map[string]any{"name": "schedule"}},
		{Name: "thread_sort_index", Ph: "M", Pid: 1, Tid: 0, Args: map[string]any{"sort_index": 0}},
	}
	seen := map[int]bool{}
	var lanes []int
	for _, d := range s.dispatches {
		if !seen[d.Lane] {
			seen[d.Lane] = true
			lanes = append(lanes, d.Lane)
		}
	}
	sort.Ints(lanes)
	for i, l := range lanes {
		ev = append(ev,
			TraceEvent{Name: "thread_name", Ph: "M", Pid: 1, Tid: laneTid(l), Args: map[string]any{"name": "lane " + strconv.Itoa(l)}},
			TraceEvent{Name: "thread_sort_index", Ph: "M", Pid: 1, Tid: laneTid(l), Args: map[string]any{"sort_index": i + 1}})
	}
	for i, r := range s.runs {
		ev = append(ev, TraceEvent{Name: "run " + strconv.Itoa(i), Cat: TraceCatRun, Ph: "X",
			Ts: us(r.StartNs), Dur: dur(r.EndNs - r.StartNs), Pid: 1, Tid: 0})
	}
	for _, g := range s.groups {
		ev = append(ev, TraceEvent{Name: s.groupLabel(g.Index), Cat: TraceCatGroup, Ph: "X",
			Ts: us(g.StartNs), Dur: dur(g.EndNs - g.StartNs), Pid: 1, Tid: 0,
			Args: map[string]any{"group": g.Index}})
	}
	for _, d := range s.dispatches {
		name := d.Label
		if name == "" {
			name = "dispatch " + strconv.Itoa(d.Index)
		}
		ev = append(ev, TraceEvent{Name: name, Cat: kindName(d.Kind), Ph: "X",
			Ts: us(d.StartNs), Dur: dur(d.DurationNs()), Pid: 1, Tid: laneTid(d.Lane),
			Args: map[string]any{"dispatch": d.Index, "group": d.Group, "bytes": d.Bytes, "kind": kindName(d.Kind)}})
	}
	for _, b := range s.barriers {
		name := "barrier before #" + strconv.Itoa(b.Before)
		args := map[string]any{"before": b.Before}
		if b.Label != "" {
			args["label"] = b.Label
		}
		ev = append(ev, TraceEvent{Name: name, Cat: TraceCatBarrier, Ph: "i", S: "p",
			Ts: us(b.AtNs), Pid: 1, Tid: 0, Args: args})
	}
	return Trace{TraceEvents: ev, DisplayTimeUnit: "ns"}
}

// WriteTrace writes Trace as JSON to w.
func (p *Profiler) WriteTrace(w io.Writer) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(p.Trace()); err != nil {
		return fmt.Errorf("profile: %w: trace: %w", ErrWrite, err)
	}
	return nil
}

package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/memplan/memplan/planner"
)

func init() {
	loaders[".csv"] = loadCSV
	outputFormats["text"] = renderText
	outputFormats["json"] = renderJSON
	outputFormats["csv"] = renderCSV
}

// loadCSV reads a DSA instance.
func loadCSV(path string) (*input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bufs, err := planner.ReadCSV(f)
	if err != nil {
		return nil, err
	}
	if bufs == nil {
		bufs = []planner.Buffer{}
	}
	return &input{Buffers: bufs}, nil
}

// row is one buffer of a report.
type row struct {
	Offset int64   `json:"offset"`
	Size   int64   `json:"size"`
	ID     int64   `json:"id"`
	Name   string  `json:"name"`
	Start  int64   `json:"start"`
	End    int64   `json:"end"`
	Align  int64   `json:"align,omitempty"`
	Fixed  bool    `json:"fixed,omitempty"`
	Values []int32 `json:"values,omitempty"`
	Pinned string  `json:"pinned,omitempty"`
}

// rows returns the plan's buffers sorted by offset (ties: start, index).
func rows(s *session) []row {
	p := s.Plan
	// By offset, then start, then input order (a stable sort, without
	// sort.SliceStable's cost on a million rows); the rows are built in
	// that order, once.
	idx := make([]int, len(p.Buffers))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(p.Offsets[a], p.Offsets[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(p.Buffers[a].Start, p.Buffers[b].Start); c != 0 {
			return c
		}
		return a - b
	})
	out := make([]row, len(p.Buffers))
	for k, i := range idx {
		b := &p.Buffers[i]
		r := row{Offset: p.Offsets[i], Size: b.Size, ID: b.ID, Name: b.Name, Start: b.Start, End: b.End, Fixed: b.Fixed}
		if b.Align > 1 {
			r.Align = b.Align
		}
		if g := s.Input.Graph; g != nil && i < len(p.Values) {
			var names []string
			for _, v := range p.Values[i] {
				r.Values = append(r.Values, int32(v))
				if val := g.Value(v); val != nil {
					names = append(names, val.Name)
					if val.PinReason != "" && r.Pinned == "" {
						r.Pinned = val.PinReason
					}
				}
			}
			r.Name = strings.Join(names, "+")
		}
		out[k] = r
	}
	return out
}

// renderText writes the header line and one tab-separated row per buffer,
// sorted by offset. It omits the planning time so the output is stable.
func renderText(w io.Writer, s *session) error {
	p := s.Plan
	fmt.Fprintf(w, "# arena_bytes=%d lower_bound_bytes=%d unshared_bytes=%d fragmentation=%.2f%%\n",
		p.ArenaBytes, p.LowerBoundBytes, p.UnsharedBytes, p.FragmentationPercent())
	fmt.Fprintf(w, "# input=%s buffers=%d strategy=%s\n", displayName(s.Input), len(p.Buffers), p.Strategy)
	fmt.Fprintf(w, "# offset\tsize\tid\tname\tlifespan\n")
	// offset, size, id, name, [start,end), pinned: appended, not
	// formatted (fmt was a fifth of a million-row report).
	var line []byte
	for _, r := range rows(s) {
		name := r.Name
		if name == "" {
			name = "-"
		}
		line = strconv.AppendInt(line[:0], r.Offset, 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, r.Size, 10)
		line = append(line, '\t')
		line = strconv.AppendInt(line, r.ID, 10)
		line = append(line, '\t')
		line = append(line, name...)
		line = append(line, "\t["...)
		line = strconv.AppendInt(line, r.Start, 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, r.End, 10)
		line = append(line, ')')
		if r.Pinned != "" {
			line = append(line, "\tpinned: "...)
			line = append(line, r.Pinned...)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// summary is the JSON report.
type summary struct {
	Input           string  `json:"input"`
	Buffers         int     `json:"buffers"`
	ArenaBytes      int64   `json:"arena_bytes"`
	LowerBoundBytes int64   `json:"lower_bound_bytes"`
	UnsharedBytes   int64   `json:"unshared_bytes"`
	Fragmentation   float64 `json:"fragmentation_percent"`
	Strategy        string  `json:"strategy"`
	PlanSeconds     float64 `json:"plan_seconds"`
	Steps           int64   `json:"steps,omitempty"`
	Placements      []row   `json:"placements"`
}

func makeSummary(s *session) summary {
	p := s.Plan
	return summary{
		Input: displayName(s.Input), Buffers: len(p.Buffers),
		ArenaBytes: p.ArenaBytes, LowerBoundBytes: p.LowerBoundBytes, UnsharedBytes: p.UnsharedBytes,
		Fragmentation: p.FragmentationPercent(), Strategy: p.Strategy, PlanSeconds: p.PlanSeconds,
		Steps: p.Steps, Placements: rows(s),
	}
}

// renderJSON writes the summary object with a per-buffer placements array.
func renderJSON(w io.Writer, s *session) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(makeSummary(s))
}

// renderCSV writes the buffers in the DSA format with an offset column.
func renderCSV(w io.Writer, s *session) error {
	return planner.WriteCSV(w, s.Plan.Buffers, s.Plan.Offsets)
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
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
	out := make([]row, len(p.Buffers))
	for i, b := range p.Buffers {
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
		out[i] = r
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ra, rb := &out[idx[a]], &out[idx[b]]
		if ra.Offset != rb.Offset {
			return ra.Offset < rb.Offset
		}
		return ra.Start < rb.Start
	})
	sorted := make([]row, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted
}

// renderText writes the header line and one tab-separated row per buffer,
// sorted by offset. It omits the planning time so the output is stable.
func renderText(w io.Writer, s *session) error {
	p := s.Plan
	fmt.Fprintf(w, "# arena_bytes=%d lower_bound_bytes=%d unshared_bytes=%d fragmentation=%.2f%%\n",
		p.ArenaBytes, p.LowerBoundBytes, p.UnsharedBytes, p.FragmentationPercent())
	fmt.Fprintf(w, "# input=%s buffers=%d strategy=%s\n", displayName(s.Input), len(p.Buffers), p.Strategy)
	fmt.Fprintf(w, "# offset\tsize\tid\tname\tlifespan\n")
	for _, r := range rows(s) {
		name := r.Name
		if name == "" {
			name = "-"
		}
		extra := ""
		if r.Pinned != "" {
			extra = "\tpinned: " + r.Pinned
		}
		if _, err := fmt.Fprintf(w, "%d\t%d\t%d\t%s\t[%d,%d)%s\n", r.Offset, r.Size, r.ID, name, r.Start, r.End, extra); err != nil {
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

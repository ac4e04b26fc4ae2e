package memranges

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// AnalyzeOptions tunes Analyze.
type AnalyzeOptions struct {
	// Reorder applies Reorder before placing barriers.
	Reorder bool
	// Window bounds how far Reorder moves a dispatch (0: unbounded).
	Window int
}

// Summary is the machine-readable outcome of Analyze; the JSON keys are
// the ones planreport prints.
type Summary struct {
	Dispatches int `json:"dispatches"`
	Barriers   int `json:"barriers"`
	Groups     int `json:"groups"`
	// CriticalPath is the number of dispatches on the longest conflict
	// chain; no order needs fewer than CriticalPath-1 barriers.
	CriticalPath int `json:"critical_path"`
	// DataChain is the number of dispatches on the longest chain of data
	// dependencies (planner.DataChain): the shortest critical path any
	// plan of the graph can have.
	DataChain int `json:"data_chain"`
	// SharingBarriers is CriticalPath - DataChain: the barriers that memory
	// sharing costs a fully reordered run (0 for a concurrency plan; also
	// 0 when the critical path is the shorter, as when a link of the data
	// chain carries no bytes: a keep-alive entry or an empty tensor).
	SharingBarriers int `json:"sharing_barriers"`
	// BarriersGGML is what the ggml-compatible mode (off-by-one test, whole
	// root windows) emits for the same plan and the same order.
	BarriersGGML int `json:"barriers_ggml"`
	// BarriersGGMLWindow is what ggml-metal's own reorder pass (greedy,
	// look-ahead GGMLWindow, whole-root ranges; GGMLWindowOrder) followed
	// by its barriers reaches on the same plan from the schedule order.
	BarriersGGMLWindow int  `json:"barriers_ggml_window"`
	Reordered          bool `json:"reordered"`
	// Edges is the number of dependency edges (transitive reduction).
	Edges int `json:"edges"`
}

// Analysis is a plan's dispatches in the order they run, their barriers
// and the summary.
type Analysis struct {
	Stream   *Stream
	Perm     []int // Stream.Dispatches[k] is dispatch Perm[k] of the schedule order
	Barriers []Barrier
	Summary  Summary
}

// Analyze derives the dispatches of g under plan p (order as for FromPlan),
// optionally reorders them, places barriers in exact and ggml-compatible
// modes, and checks the result with Verify and VerifyOrder. Its cost is
// dominated by the O(n^2) conflict DAG and verifiers.
func Analyze(g *ir.Graph, order []ir.NodeID, p *planner.Plan, opts AnalyzeOptions) (*Analysis, error) {
	st, err := FromPlan(g, order, p, BuildOptions{})
	if err != nil {
		return nil, err
	}
	wide, err := FromPlan(g, order, p, BuildOptions{WholeRoot: true})
	if err != nil {
		return nil, err
	}
	ds, gds := st.Dispatches, wide.Dispatches
	gperm, _, err := GGMLWindowOrder(GGML, gds, GGMLWindow)
	if err != nil {
		return nil, err
	}
	if err := VerifyOrder(ds, gperm); err != nil {
		return nil, fmt.Errorf("memranges: ggml window order: %w", err)
	}
	gwin, _ := Permute(gds, gperm)
	perm := make([]int, len(ds))
	for i := range perm {
		perm[i] = i
	}
	if opts.Reorder {
		if perm, _, err = Reorder(ds, ReorderOptions{Window: opts.Window}); err != nil {
			return nil, err
		}
		if err := VerifyOrder(ds, perm); err != nil {
			return nil, err
		}
		ds, _ = Permute(ds, perm)
		gds, _ = Permute(gds, perm)
	}
	bs := PlaceBarriers(Exact, ds)
	if err := Verify(ds, bs); err != nil {
		return nil, err
	}
	chain, err := planner.DataChain(g)
	if err != nil {
		return nil, err
	}
	cp := CriticalPath(ds)
	a := &Analysis{
		Stream:   &Stream{Dispatches: ds, Buffers: st.Buffers},
		Perm:     perm,
		Barriers: bs,
		Summary: Summary{
			Dispatches:         len(ds),
			Barriers:           len(bs),
			Groups:             len(GroupSizes(len(ds), bs)),
			CriticalPath:       cp,
			DataChain:          chain,
			SharingBarriers:    cp - chain,
			BarriersGGML:       len(PlaceBarriers(GGML, gds)),
			BarriersGGMLWindow: len(PlaceBarriers(GGML, gwin)),
			Reordered:          opts.Reorder,
			Edges:              len(Edges(ds)),
		},
	}
	return a, nil
}

// GroupHistogram returns (group size, number of groups of that size)
// pairs, ascending by size.
func (a *Analysis) GroupHistogram() [][2]int {
	count := map[int]int{}
	for _, s := range GroupSizes(len(a.Stream.Dispatches), a.Barriers) {
		count[s]++
	}
	out := make([][2]int, 0, len(count))
	for s, c := range count {
		out = append(out, [2]int{s, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// WriteText prints the barrier report: the summary, the group-size
// histogram and one line per barrier with its cause.
func (a *Analysis) WriteText(w io.Writer) error {
	s := a.Summary
	var b strings.Builder
	order := "schedule order"
	if s.Reordered {
		order = "reordered"
	}
	fmt.Fprintf(&b, "barriers (%s): %d dispatches, %d barriers, %d groups, critical path %d, %d dependency edges\n",
		order, s.Dispatches, s.Barriers, s.Groups, s.CriticalPath, s.Edges)
	fmt.Fprintf(&b, "data chain %d: memory sharing costs %d barriers (critical path %d - data chain; a reordered run needs critical path - 1)\n",
		s.DataChain, s.SharingBarriers, s.CriticalPath)
	fmt.Fprintf(&b, "ggml-compatible mode: %d barriers (%+d); after ggml's own reorder (look-ahead %d): %d barriers\n", s.BarriersGGML, s.BarriersGGML-s.Barriers, GGMLWindow, s.BarriersGGMLWindow)
	b.WriteString("group sizes (size:groups):")
	for _, h := range a.GroupHistogram() {
		fmt.Fprintf(&b, " %d:%d", h[0], h[1])
	}
	b.WriteString("\n")
	for _, br := range a.Barriers {
		b.WriteString(a.CauseString(br))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// CauseString describes one barrier: where it sits, the hazard, and the
// conflicting pair with their buffer and byte ranges.
func (a *Analysis) CauseString(br Barrier) string { return a.Stream.Describe(br) }

// Describe prints one barrier of the stream's dispatch list: where it sits,
// the hazard, the buffer by name, and the conflicting pair with their byte
// ranges.
func (st *Stream) Describe(br Barrier) string {
	c := br.Cause
	name := func(i int) string {
		if i < 0 || i >= len(st.Dispatches) {
			return fmt.Sprintf("#%d", i)
		}
		return fmt.Sprintf("#%d %s", i, st.Dispatches[i].Name)
	}
	buf := fmt.Sprintf("buf%d", c.SecondUse.Buf)
	if c.SecondUse.Buf >= 0 && int(c.SecondUse.Buf) < len(st.Buffers) {
		buf = st.Buffers[c.SecondUse.Buf].Name
	}
	return fmt.Sprintf("barrier before %s: %v on %s: %s %s [%d,%d) -> %s [%d,%d)",
		name(br.Before), c.Hazard, buf, name(c.First), c.FirstUse.Access, c.FirstUse.Off, c.FirstUse.End(),
		c.SecondUse.Access, c.SecondUse.Off, c.SecondUse.End())
}

// CauseRecord is one barrier and its cause as plain data, for JSON
// reports. Positions index the analysed (possibly reordered) dispatch list;
// ranges are half-open [start, end) byte offsets in Buffer.
type CauseRecord struct {
	Before      int      `json:"before"`
	Hazard      string   `json:"hazard"`
	Buffer      string   `json:"buffer"`
	First       int      `json:"first"`
	FirstName   string   `json:"first_name"`
	FirstRange  [2]int64 `json:"first_range"`
	Second      int      `json:"second"`
	SecondName  string   `json:"second_name"`
	SecondRange [2]int64 `json:"second_range"`
}

// Causes returns one CauseRecord per barrier, in barrier order.
func (a *Analysis) Causes() []CauseRecord {
	ds := a.Stream.Dispatches
	name := func(i int) string {
		if i < 0 || i >= len(ds) {
			return ""
		}
		return ds[i].Name
	}
	out := make([]CauseRecord, 0, len(a.Barriers))
	for _, b := range a.Barriers {
		c := b.Cause
		buf := fmt.Sprintf("buf%d", c.SecondUse.Buf)
		if c.SecondUse.Buf >= 0 && int(c.SecondUse.Buf) < len(a.Stream.Buffers) {
			buf = a.Stream.Buffers[c.SecondUse.Buf].Name
		}
		out = append(out, CauseRecord{
			Before: b.Before, Hazard: c.Hazard.String(), Buffer: buf,
			First: c.First, FirstName: name(c.First), FirstRange: [2]int64{c.FirstUse.Off, c.FirstUse.End()},
			Second: c.Second, SecondName: name(c.Second), SecondRange: [2]int64{c.SecondUse.Off, c.SecondUse.End()},
		})
	}
	return out
}

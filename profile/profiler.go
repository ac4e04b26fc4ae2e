package profile

import (
	"sort"
	"strconv"
	"sync"
)

// Dispatch is one kernel launch as the driver saw it: the half-open time
// span [StartNs, EndNs) in host nanoseconds (any common origin), what ran
// and where. A record whose EndNs is before StartNs is stored with
// EndNs = StartNs.
type Dispatch struct {
	Label   string // what ran, usually the node name ("conv1")
	Kind    string // op kind ("conv", "elementwise"); "" prints as "?"
	Index   int    // dispatch index in the schedule
	Group   int    // index of the group it ran in (see RecordGroup); -1 for none
	Lane    int    // worker, queue or lane that ran it (0 when serial)
	StartNs int64
	EndNs   int64
	Bytes   int64 // bytes the dispatch read and wrote
}

// DurationNs is EndNs - StartNs.
func (d Dispatch) DurationNs() int64 { return d.EndNs - d.StartNs }

// Group is the span [StartNs, EndNs) of a group of dispatches (a command
// buffer, or a set of dispatches allowed to run concurrently). Index is the
// group's arrival number: the first RecordGroup call makes group 0.
type Group struct {
	Index   int
	Label   string
	StartNs int64
	EndNs   int64
}

// Barrier is a synchronisation point: it sits before dispatch index Before
// in the schedule and was passed at host time AtNs.
type Barrier struct {
	Before int
	AtNs   int64
	Label  string // optional: what the barrier waits for
}

// Span is a half-open interval of host time [StartNs, EndNs).
type Span struct {
	StartNs int64
	EndNs   int64
}

// acc accumulates durations of one label.
type acc struct {
	count, total, min, max int64
}

func (a *acc) add(d int64) {
	if a.count == 0 || d < a.min {
		a.min = d
	}
	if d > a.max {
		a.max = d
	}
	a.count++
	a.total += d
}

// Profiler collects timings. The zero value is not usable; call New. A nil
// *Profiler is the disabled profiler: every method returns at once (record
// methods do nothing, queries return empty results, writers write an empty
// but valid document). Methods are safe for concurrent use.
type Profiler struct {
	mu         sync.Mutex
	graph      string
	labels     map[string]*acc
	dispatches []Dispatch
	groups     []Group
	barriers   []Barrier
	runs       []Span
}

// New returns an empty, enabled profiler.
func New() *Profiler {
	return &Profiler{labels: make(map[string]*acc)}
}

// Enabled reports whether p records anything (p is not nil). Drivers test
// it before doing work that only feeds the profiler, such as reading clocks.
func (p *Profiler) Enabled() bool { return p != nil }

// SetGraph names the graph that was run; exports use it as the root frame.
func (p *Profiler) SetGraph(name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.graph = name
	p.mu.Unlock()
}

// Graph returns the name set by SetGraph, or "graph".
func (p *Profiler) Graph() string {
	if p == nil {
		return "graph"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.graphName()
}

func (p *Profiler) graphName() string {
	if p.graph == "" {
		return "graph"
	}
	return p.graph
}

// RecordDispatch stores one dispatch entry, in arrival order.
//
// Like every record method it is a nil check that the compiler inlines,
// around an out-of-line body, so a nil profiler costs one branch.
func (p *Profiler) RecordDispatch(d Dispatch) {
	if p != nil {
		p.recordDispatch(d)
	}
}

func (p *Profiler) recordDispatch(d Dispatch) {
	if d.EndNs < d.StartNs {
		d.EndNs = d.StartNs
	}
	p.mu.Lock()
	p.dispatches = append(p.dispatches, d)
	p.mu.Unlock()
}

// RecordGroup stores the span of the next group (its index is the number of
// groups recorded before it) and adds its duration to the accumulator of
// label. It returns the group's index; -1 when p is nil.
func (p *Profiler) RecordGroup(label string, startNs, endNs int64) int {
	if p == nil {
		return -1
	}
	return p.recordGroup(label, startNs, endNs)
}

func (p *Profiler) recordGroup(label string, startNs, endNs int64) int {
	if endNs < startNs {
		endNs = startNs
	}
	p.mu.Lock()
	i := len(p.groups)
	p.groups = append(p.groups, Group{Index: i, Label: label, StartNs: startNs, EndNs: endNs})
	p.addLocked(label, endNs-startNs)
	p.mu.Unlock()
	return i
}

// RecordBarrier stores one barrier mark.
func (p *Profiler) RecordBarrier(b Barrier) {
	if p != nil {
		p.recordBarrier(b)
	}
}

func (p *Profiler) recordBarrier(b Barrier) {
	p.mu.Lock()
	p.barriers = append(p.barriers, b)
	p.mu.Unlock()
}

// RecordRun stores the wall-clock span of one run of the graph. The wall
// time of a profile is the total length of its runs; when no run was
// recorded it is the span from the first start to the last end of anything
// recorded.
func (p *Profiler) RecordRun(startNs, endNs int64) {
	if p != nil {
		p.recordRun(startNs, endNs)
	}
}

func (p *Profiler) recordRun(startNs, endNs int64) {
	if endNs < startNs {
		endNs = startNs
	}
	p.mu.Lock()
	p.runs = append(p.runs, Span{startNs, endNs})
	p.mu.Unlock()
}

// Add adds one duration to the accumulator of label. Negative durations
// count as 0.
func (p *Profiler) Add(label string, durNs int64) {
	if p != nil {
		p.add(label, durNs)
	}
}

func (p *Profiler) add(label string, durNs int64) {
	p.mu.Lock()
	p.addLocked(label, durNs)
	p.mu.Unlock()
}

func (p *Profiler) addLocked(label string, d int64) {
	if d < 0 {
		d = 0
	}
	a := p.labels[label]
	if a == nil {
		a = &acc{}
		p.labels[label] = a
	}
	a.add(d)
}

// Reset forgets everything recorded, keeping the graph name.
func (p *Profiler) Reset() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.labels = make(map[string]*acc)
	p.dispatches, p.groups, p.barriers, p.runs = nil, nil, nil, nil
	p.mu.Unlock()
}

// Dispatches returns a copy of the dispatch entries in arrival order.
func (p *Profiler) Dispatches() []Dispatch {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Dispatch(nil), p.dispatches...)
}

// Groups returns a copy of the group spans in arrival (index) order.
func (p *Profiler) Groups() []Group {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Group(nil), p.groups...)
}

// Barriers returns a copy of the barrier marks in arrival order.
func (p *Profiler) Barriers() []Barrier {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Barrier(nil), p.barriers...)
}

// Runs returns a copy of the recorded run spans in arrival order.
func (p *Profiler) Runs() []Span {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Span(nil), p.runs...)
}

// Stat is the accumulated timing of one label: Count durations summing to
// TotalNs, the smallest MinNs and the largest MaxNs.
type Stat struct {
	Label   string
	Count   int64
	TotalNs int64
	MinNs   int64
	MaxNs   int64
}

// MeanNs is TotalNs/Count rounded down, 0 when Count is 0.
func (s Stat) MeanNs() int64 {
	if s.Count == 0 {
		return 0
	}
	return s.TotalNs / s.Count
}

// Stats returns the accumulators fed by Add and RecordGroup, sorted by
// total time (largest first), then by label.
func (p *Profiler) Stats() []Stat {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	out := make([]Stat, 0, len(p.labels))
	for l, a := range p.labels {
		out = append(out, Stat{Label: l, Count: a.count, TotalNs: a.total, MinNs: a.min, MaxNs: a.max})
	}
	p.mu.Unlock()
	sortStats(out)
	return out
}

// DispatchStats accumulates the dispatch entries by label, sorted like
// Stats: the slowest kernels first.
func (p *Profiler) DispatchStats() []Stat {
	return statsBy(p.Dispatches(), func(d Dispatch) string { return d.Label })
}

func statsBy(ds []Dispatch, key func(Dispatch) string) []Stat {
	m := make(map[string]*acc)
	for _, d := range ds {
		k := key(d)
		a := m[k]
		if a == nil {
			a = &acc{}
			m[k] = a
		}
		a.add(d.DurationNs())
	}
	out := make([]Stat, 0, len(m))
	for l, a := range m {
		out = append(out, Stat{Label: l, Count: a.count, TotalNs: a.total, MinNs: a.min, MaxNs: a.max})
	}
	sortStats(out)
	return out
}

func sortStats(s []Stat) {
	sort.Slice(s, func(i, j int) bool {
		if s[i].TotalNs != s[j].TotalNs {
			return s[i].TotalNs > s[j].TotalNs
		}
		return s[i].Label < s[j].Label
	})
}

// snapshot is a consistent copy of everything recorded, for the writers.
type snapshot struct {
	graph      string
	dispatches []Dispatch
	groups     []Group
	barriers   []Barrier
	runs       []Span
}

func (p *Profiler) snapshot() snapshot {
	if p == nil {
		return snapshot{graph: "graph"}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return snapshot{
		graph:      p.graphName(),
		dispatches: append([]Dispatch(nil), p.dispatches...),
		groups:     append([]Group(nil), p.groups...),
		barriers:   append([]Barrier(nil), p.barriers...),
		runs:       append([]Span(nil), p.runs...),
	}
}

// groupLabel names group i: its recorded label, else "group i".
func (s *snapshot) groupLabel(i int) string {
	if i >= 0 && i < len(s.groups) && s.groups[i].Label != "" {
		return s.groups[i].Label
	}
	return "group " + strconv.Itoa(i)
}

func kindName(k string) string {
	if k == "" {
		return "?"
	}
	return k
}

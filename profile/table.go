package profile

import (
	"fmt"
	"io"
	"strconv"
)

// WriteTable writes the accumulators of Stats (groups and Add labels) as a
// text table sorted by total time, then label, keeping the first topN rows
// (all when topN <= 0) and a line counting the rest.
func (p *Profiler) WriteTable(w io.Writer, topN int) error {
	return writeStats(w, "label", p.Stats(), topN)
}

// WriteDispatchTable writes DispatchStats (dispatches accumulated by label)
// like WriteTable: the slowest kernels first.
func (p *Profiler) WriteDispatchTable(w io.Writer, topN int) error {
	return writeStats(w, "dispatch", p.DispatchStats(), topN)
}

func writeStats(w io.Writer, head string, stats []Stat, topN int) error {
	var sum, n int64
	for _, s := range stats {
		sum += s.TotalNs
		n += s.Count
	}
	shown := stats
	if topN > 0 && len(shown) > topN {
		shown = shown[:topN]
	}
	width := len(head)
	for _, s := range shown {
		width = max(width, len(s.Label))
	}
	more := "(" + strconv.Itoa(len(stats)-len(shown)) + " more)"
	if len(stats) > len(shown) {
		width = max(width, len(more))
	}
	ew := &errWriter{w: w}
	ew.printf("%-*s %8s %10s %10s %10s %10s %7s\n", width, head, "count", "total", "mean", "min", "max", "share")
	for _, s := range shown {
		ew.printf("%-*s %8d %10s %10s %10s %10s %7s\n", width, s.Label, s.Count,
			FormatNs(s.TotalNs), FormatNs(s.MeanNs()), FormatNs(s.MinNs), FormatNs(s.MaxNs), percent(s.TotalNs, sum))
	}
	if len(stats) > len(shown) {
		var restNs int64
		for _, s := range stats[len(shown):] {
			restNs += s.TotalNs
		}
		ew.printf("%-*s %8s %10s %10s %10s %10s %7s\n", width, more, "",
			FormatNs(restNs), "", "", "", percent(restNs, sum))
	}
	ew.printf("%-*s %8d %10s\n", width, "total", n, FormatNs(sum))
	return ew.err
}

// WriteKindTable writes KindStats: one row per op kind with its dispatch
// count, busy time and share of wall time, the idle/driver row, and a total
// line whose share column is the wall time the rows add up to.
func (p *Profiler) WriteKindTable(w io.Writer) error {
	rows, wall := p.KindStats()
	width := len("kind")
	for _, r := range rows {
		width = max(width, len(r.Kind))
	}
	ew := &errWriter{w: w}
	ew.printf("%-*s %8s %10s %10s %7s\n", width, "kind", "count", "busy", "wall", "share")
	var n, busy, share int64
	for _, r := range rows {
		ew.printf("%-*s %8d %10s %10s %7s\n", width, r.Kind, r.Count, FormatNs(r.BusyNs), FormatNs(r.ShareNs), percent(r.ShareNs, wall))
		n += r.Count
		busy += r.BusyNs
		share += r.ShareNs
	}
	ew.printf("%-*s %8d %10s %10s %7s\n", width, "total", n, FormatNs(busy), FormatNs(share), percent(share, wall))
	ew.printf("%-*s %8s %10s %10s\n", width, "wall", "", "", FormatNs(wall))
	return ew.err
}

// WriteDispatches writes every dispatch in arrival order, under a header
// line each time the group changes:
//
//	group 0 "g0" [0ns, 900ns) 900ns
//	  #0 conv1 conv lane 0 [0ns, 600ns) 600ns 4096 B
func (p *Profiler) WriteDispatches(w io.Writer) error {
	s := p.snapshot()
	ew := &errWriter{w: w}
	last := -2
	for _, d := range s.dispatches {
		if d.Group != last {
			last = d.Group
			if d.Group < 0 {
				ew.printf("no group\n")
			} else if d.Group < len(s.groups) {
				g := s.groups[d.Group]
				ew.printf("group %d %q [%s, %s) %s\n", d.Group, g.Label, FormatNs(g.StartNs), FormatNs(g.EndNs), FormatNs(g.EndNs-g.StartNs))
			} else {
				ew.printf("group %d\n", d.Group)
			}
		}
		ew.printf("  #%d %s %s lane %d [%s, %s) %s %d B\n", d.Index, d.Label, kindName(d.Kind), d.Lane,
			FormatNs(d.StartNs), FormatNs(d.EndNs), FormatNs(d.DurationNs()), d.Bytes)
	}
	return ew.err
}

// FormatNs prints a nanosecond count with a unit that keeps 3 to 4
// significant digits: "850ns", "12.35us", "1.234ms", "2.500s".
func FormatNs(ns int64) string {
	a := ns
	if a < 0 {
		a = -a
	}
	switch {
	case a < 1_000:
		return strconv.FormatInt(ns, 10) + "ns"
	case a < 1_000_000:
		return strconv.FormatFloat(float64(ns)/1e3, 'f', 2, 64) + "us"
	case a < 1_000_000_000:
		return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) + "ms"
	}
	return strconv.FormatFloat(float64(ns)/1e9, 'f', 3, 64) + "s"
}

func percent(part, whole int64) string {
	if whole <= 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
}

// errWriter keeps the first write error and skips later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	if _, err := fmt.Fprintf(e.w, format, args...); err != nil {
		e.err = fmt.Errorf("profile: %w: %w", ErrWrite, err)
	}
}

package arenamap

import (
	"errors"
	"fmt"
	"sort"
)

// Block is one buffer as the picture shows it: a rectangle spanning the
// half-open step range [Start, End) on x and the byte range
// [Offset, Offset+Size) on y, labelled for the hover box.
type Block struct {
	ID       int64  // unique per map; written as data-buf
	Name     string // value name(s) held by the buffer
	Start    int64  // first step the buffer is live
	End      int64  // first step after its last one (End > Start)
	Offset   int64  // arena byte offset
	Size     int64  // bytes (> 0)
	Kind     string // producer op kind: the colour key ("conv", "matmul")
	Producer string // producer op, for the hover box ("conv1 (Conv)")
}

// Map is everything the renderer draws, as plain data: blocks, the arena
// and lower-bound sizes and barrier positions. Zero sizes are derived from
// the blocks.
type Map struct {
	Title string
	// Steps is the x extent [0, Steps); 0 means the largest block End.
	Steps int64
	// ArenaBytes is the arena size; 0 means the largest Offset+Size.
	ArenaBytes int64
	// LowerBoundBytes is drawn as a dashed line; 0 means the peak of the
	// live-bytes curve, which the renderer computes from the blocks.
	LowerBoundBytes int64
	Blocks          []Block
	// Barriers are the steps before which a barrier sits, drawn as
	// vertical marks at the left edge of that step.
	Barriers []int64
	// Frontier, when set, adds the memory/concurrency frontier plot under
	// the HTML map (frontier.go); SVG ignores it.
	Frontier []FrontierPoint
}

// Validate reports every block that cannot be drawn, joined: an empty
// lifespan, a negative size, a negative offset or start, a duplicate
// id. Barriers outside [0, Steps] are reported too. A nil Map is an error,
// so SVG and HTML reject it too.
func (m *Map) Validate() error {
	if m == nil {
		return fmt.Errorf("arenamap: nil map: %w", ErrMap)
	}
	var errs []error
	seen := make(map[int64]bool, len(m.Blocks))
	for i, b := range m.Blocks {
		switch {
		case b.End <= b.Start:
			errs = append(errs, fmt.Errorf("arenamap: block %d (id %d %q): empty lifespan [%d,%d): %w", i, b.ID, b.Name, b.Start, b.End, ErrMap))
		case b.Start < 0:
			errs = append(errs, fmt.Errorf("arenamap: block %d (id %d %q): negative start %d: %w", i, b.ID, b.Name, b.Start, ErrMap))
		}
		if b.Size < 0 {
			errs = append(errs, fmt.Errorf("arenamap: block %d (id %d %q): negative size %d: %w", i, b.ID, b.Name, b.Size, ErrMap))
		}
		if b.Offset < 0 {
			errs = append(errs, fmt.Errorf("arenamap: block %d (id %d %q): negative offset %d: %w", i, b.ID, b.Name, b.Offset, ErrMap))
		}
		if seen[b.ID] {
			errs = append(errs, fmt.Errorf("arenamap: block %d: duplicate id %d: %w", i, b.ID, ErrMap))
		}
		seen[b.ID] = true
	}
	steps := m.steps()
	for _, s := range m.Barriers {
		if s < 0 || s > steps {
			errs = append(errs, fmt.Errorf("arenamap: barrier at step %d outside [0,%d]: %w", s, steps, ErrMap))
		}
	}
	if m.Steps < 0 || m.ArenaBytes < 0 || m.LowerBoundBytes < 0 {
		errs = append(errs, fmt.Errorf("arenamap: negative extent (steps %d, arena %d, lower bound %d): %w", m.Steps, m.ArenaBytes, m.LowerBoundBytes, ErrMap))
	}
	return errors.Join(errs...)
}

func (m *Map) steps() int64 {
	s := m.Steps
	for _, b := range m.Blocks {
		s = max(s, b.End)
	}
	return s
}

// LiveSegment is a piece of the live-bytes curve: Bytes are live during the
// steps [Start, End).
type LiveSegment struct {
	Start, End int64
	Bytes      int64
}

// Live returns the live-bytes curve of the blocks (the sum of the sizes of
// the blocks live at each step) as maximal constant segments covering
// [0, steps). Its peak is the lower bound of any placement.
func (m *Map) Live() []LiveSegment {
	type ev struct{ t, d int64 }
	evs := make([]ev, 0, 2*len(m.Blocks))
	for _, b := range m.Blocks {
		if b.End > b.Start && b.Size > 0 {
			evs = append(evs, ev{b.Start, b.Size}, ev{b.End, -b.Size})
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].t < evs[j].t })
	var out []LiveSegment
	var cur, at int64
	push := func(end int64) {
		if end <= at {
			return
		}
		if n := len(out); n > 0 && out[n-1].Bytes == cur && out[n-1].End == at {
			out[n-1].End = end
		} else {
			out = append(out, LiveSegment{at, end, cur})
		}
		at = end
	}
	for _, e := range evs {
		push(e.t)
		cur += e.d
	}
	push(m.steps())
	return out
}

// peakLive is the largest Bytes of the curve.
func peakLive(live []LiveSegment) int64 {
	var p int64
	for _, s := range live {
		p = max(p, s.Bytes)
	}
	return p
}

package planner

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/memplan/memplan/ir"
)

// Plan is the result of planning: one offset per buffer in a single arena,
// and for graph plans the slot of every value.
type Plan struct {
	// Buffers are the blocks placed in the arena (for graph plans, one per
	// root value or in-place chain; Start/End in groups, which are schedule
	// steps when Groups is nil).
	Buffers []Buffer
	// Offsets is index-aligned with Buffers.
	Offsets []int64
	// ArenaBytes is the arena size: the largest offset+size.
	ArenaBytes int64
	// LowerBoundBytes is LowerBound(Buffers): no placement does better.
	LowerBoundBytes int64
	// UnsharedBytes is the sum of the buffer sizes: the arena without reuse.
	UnsharedBytes int64
	// Strategy names the placer that produced the offsets; a portfolio
	// reports its winning member as "portfolio/size", auto the stage and
	// method that found the plan ("auto/peak/firstfit",
	// "auto/search/exact").
	Strategy string
	// PlanSeconds is the wall time of liveness and placement.
	PlanSeconds float64

	// Graph plans only.

	// Slots is indexed by ir.ValueID: where every value lives.
	Slots []Slot
	// Values lists, per buffer, the root values it holds in order: more than
	// one when outputs were computed in place over their inputs.
	Values [][]ir.ValueID
	// Order is the schedule the lifespans refer to.
	Order []ir.NodeID
	// Groups, index-aligned with Order, gives each scheduled node's group:
	// the dispatches between two barriers of a concurrent encoder. It is
	// nondecreasing from 0 in steps of at most 1, and no dispatch depends
	// (directly or through pure view nodes) on a dispatch of its own group
	// (CheckGroups). nil means the serial plan: node k of Order is group k.
	//
	// Lifespans (Buffer.Start/End) and Steps are measured in groups. A
	// buffer lives from the group of the node that produces its first value
	// to one past the last group of a node that reads, writes or keeps one
	// of its values (a pure view node touches its root in its own group);
	// so two values share bytes only when every node touching one is in an
	// earlier group than every node touching the other, and each hazard
	// that sharing creates runs from an earlier group to a later one. In
	// place within a grouping: a node may write its output into an input's
	// buffer only when every other node touching that input is in an
	// earlier group (and the serial rules hold: see liveness.go).
	Groups []int
	// Steps is the number of groups: len(Order) for a serial plan.
	Steps int64
	// Objective is the objective that chose the grouping ("memory",
	// "concurrency" or "balanced"; "" for PlanGrouped and DSA plans).
	Objective string
}

// GroupOf returns the group of position k of Order (k itself for a serial
// plan), or -1 when k is outside Groups.
func (p *Plan) GroupOf(k int) int64 {
	if p.Groups == nil {
		return int64(k)
	}
	if k < 0 || k >= len(p.Groups) {
		return -1
	}
	return int64(p.Groups[k])
}

// Slot says where one value lives.
type Slot struct {
	// Buffer indexes Plan.Buffers, or is -1 for an external value.
	Buffer int
	// Root is the value that owns the storage (the value itself unless it is
	// a view).
	Root ir.ValueID
	// Offset is the absolute arena byte offset of the value's first element
	// (buffer offset + accumulated view offset); for external values, the byte
	// offset inside the root's own buffer.
	Offset int64
	// Bytes is the addressable extent: the dense size, or for a strided view
	// the window from its lowest to one past its highest addressed byte.
	Bytes int64
	// Low is how far below Offset the window starts (non-zero only for
	// views with negative strides): the value addresses
	// [Offset-Low, Offset-Low+Bytes).
	Low int64
	// External is set for values outside the arena (inputs, weights and
	// constants unless Options.PlaceInputs, and views of them).
	External bool
}

// FragmentationBytes returns ArenaBytes - LowerBoundBytes.
func (p *Plan) FragmentationBytes() int64 { return p.ArenaBytes - p.LowerBoundBytes }

// FragmentationPercent returns the arena's excess over the lower bound as a
// percentage of the lower bound (0 when the bound is 0).
func (p *Plan) FragmentationPercent() float64 {
	if p.LowerBoundBytes == 0 {
		return 0
	}
	return 100 * float64(p.ArenaBytes-p.LowerBoundBytes) / float64(p.LowerBoundBytes)
}

// PlanBuffers places a DSA instance with the strategy named in opts. Buffers
// whose Align is 0 get opts.Align when it is set (not the graph default:
// DSA instances carry their own alignment). The input is not mutated; when
// no alignment changes, Plan.Buffers is bufs itself, not a copy (a million
// buffers are 72 MB), so the caller must not change bufs while it uses the
// plan.
func PlanBuffers(ctx context.Context, bufs []Buffer, opts Options) (*Plan, error) {
	t0 := time.Now()
	own := bufs
	if opts.Align > 0 && slices.ContainsFunc(bufs, func(b Buffer) bool { return b.Align == 0 }) {
		own = slices.Clone(bufs)
		for i := range own {
			if own[i].Align == 0 {
				own[i].Align = opts.Align
			}
		}
	}
	p := &Plan{Buffers: own}
	if err := p.place(ctx, opts); err != nil {
		return nil, err
	}
	p.PlanSeconds = time.Since(t0).Seconds()
	return p, nil
}

// place fills Offsets, the sizes and Strategy from Buffers.
func (p *Plan) place(ctx context.Context, opts Options) error {
	pl, err := PlacerByName(opts.Strategy, opts)
	if err != nil {
		return err
	}
	p.Strategy = pl.Name()
	// The bound first, while the placer's index does not exist yet: its
	// events (32 bytes a buffer) then never add to the index's peak.
	// auto's split placement (above AutoSplitAbove buffers) does not use
	// the bound, and its first steps (the order, the cuts' layout) run on
	// one core: the bound is computed beside them.
	ap, isAuto := pl.(autoPlacer)
	lb := int64(0) // what auto is told: 0 only where it does not use it
	var lbDone sync.WaitGroup
	defer lbDone.Wait()
	if isAuto && len(p.Buffers) > AutoSplitAbove {
		lbDone.Go(func() { p.LowerBoundBytes = LowerBound(p.Buffers) })
	} else {
		p.LowerBoundBytes = LowerBound(p.Buffers)
		lb = p.LowerBoundBytes
	}
	if pf, ok := pl.(*portfolio); ok {
		off, win, err := pf.placeBest(ctx, p.Buffers)
		if err != nil {
			return err
		}
		p.Offsets = off
		p.Strategy = "portfolio/" + pf.members[win].Name()
	} else if isAuto {
		off, method, err := ap.placeNamed(ctx, p.Buffers, lb)
		if err != nil {
			return err
		}
		p.Offsets = off
		p.Strategy = "auto/" + method
	} else {
		off, err := pl.Place(ctx, p.Buffers)
		if err != nil {
			return err
		}
		if len(off) != len(p.Buffers) {
			return fmt.Errorf("planner: strategy %q returned %d offsets for %d buffers: %w", p.Strategy, len(off), len(p.Buffers), ErrLength)
		}
		p.Offsets = off
	}
	for i, b := range p.Buffers {
		if off := p.Offsets[i]; b.Size > 0 && off >= 0 && off > math.MaxInt64-b.Size {
			return fmt.Errorf("planner: buffer %d (id %d): %d bytes at offset %d end past the largest int64 (alignment %d): %w", i, b.ID, b.Size, off, b.Align, ErrOutsideArena)
		}
	}
	lbDone.Wait()
	p.ArenaBytes = ArenaSize(p.Buffers, p.Offsets)
	p.UnsharedBytes = UnsharedSize(p.Buffers)
	return nil
}

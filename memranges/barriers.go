package memranges

// Barrier placement for a fixed order.
//
// Dispatches are issued in order into a concurrent encoder; a barrier makes
// every dispatch after it wait for every dispatch before it. A run of
// dispatches between two barriers is a group and may execute in any
// interleaving, so no two dispatches of one group may conflict (overlap in
// bytes with at least one write). The greedy rule extends the current group
// until the next dispatch conflicts with some member, then places a barrier
// before it:
//
//	#0 write A     group 1
//	#1 write B     group 1
//	#2 read A      conflicts with #0 (RAW): barrier before #2
//	#3 write C     group 2
//	#4 read C      conflicts with #3 (RAW): barrier before #4
//
// Optimality (interval stabbing). A conflicting pair i < j is satisfied iff
// some barrier sits at a position p with i < p <= j: the pair is the integer
// interval (i, j], and a barrier set is valid iff it stabs every such
// interval. Scanning j upward, greedy places a point at j exactly when some
// interval (i, j] is not yet stabbed (no barrier since i, that is i lies in
// the open group): each point goes at the right end of the earliest-ending
// unstabbed interval, the classic rule for minimum interval stabbing.
// Exchange argument: move an optimal set's first point right to greedy's
// first point; it still stabs everything it did, because no interval ending
// before that point is unstabbed; induct on the rest. So the greedy count is
// the minimum for this order. It is at least the longest conflict chain
// minus one, since each link of a chain needs its own barrier.
//
// The tracker answers each check in O(log n); when a check fails, the cause
// is found by scanning the group once, which costs O(group size) per barrier
// and so O(total uses) over the whole stream.

// Barrier sits before position Before of a dispatch list: every dispatch at
// positions < Before completes before any at positions >= Before starts.
// Cause is one conflicting pair the barrier separates (First is the earliest
// member of the closed group that conflicts with Second == Before).
type Barrier struct {
	Before int
	Cause  Pair
}

// PlaceBarriers returns the minimum set of barriers for ds in the given
// order under mode m, ascending by position, each with its cause.
func PlaceBarriers(m Mode, ds []Dispatch) []Barrier { return placeBarriers(m, ds, 0) }

// placeBarriers is PlaceBarriers with the tracker's write-filter page size
// (0: the default), so tests can exercise the filter on small ranges.
func placeBarriers(m Mode, ds []Dispatch, pageShift uint8) []Barrier {
	t := &Tracker{mode: m, pageShift: pageShift}
	var out []Barrier
	start := 0 // first position of the open group
	for j := range ds {
		if bad, at := t.Check(ds[j].Uses); bad {
			out = append(out, Barrier{Before: j, Cause: findCause(m, ds, start, j, at)})
			t.Reset()
			start = j
		}
		t.Add(ds[j].Uses)
	}
	return out
}

// findCause returns the earliest dispatch of the group [start, j) whose
// uses conflict with use at of dispatch j.
func findCause(m Mode, ds []Dispatch, start, j, at int) Pair {
	ub := ds[j].Uses[at]
	for i := start; i < j; i++ {
		for _, ua := range ds[i].Uses {
			if h := Conflict(m, ua, ub); h != NoHazard {
				return Pair{First: i, Second: j, FirstUse: ua, SecondUse: ub, Hazard: h}
			}
		}
	}
	// Unreachable while the tracker and Conflict agree; report the use alone.
	return Pair{First: -1, Second: j, SecondUse: ub}
}

// GroupSizes returns the number of dispatches in each group that barriers
// bs cut a list of n dispatches into (empty for n == 0).
func GroupSizes(n int, bs []Barrier) []int {
	if n == 0 {
		return nil
	}
	sizes := make([]int, 0, len(bs)+1)
	prev := 0
	for _, b := range bs {
		sizes = append(sizes, b.Before-prev)
		prev = b.Before
	}
	return append(sizes, n-prev)
}

package memranges

// A lazyset is an ivset whose additions wait in an unsorted log until a
// query needs them, optionally behind a pageset filter. The tracker keeps
// the bytes a group reads in one, and the bytes it writes in a filtered
// one.
//
// The log remembers the span [minLo, maxHi) of its ranges; a query outside
// the span cannot overlap any of them and consults only the sorted set,
// while a query inside it first moves the log into the set. Reads are
// added by every dispatch but queried only by writes, and a group commonly
// writes one region while reading another (a layer reads the previous
// layer's outputs), so most read logs are never sorted:
//
//	add read [8192,12192)   log: [8192,12192)           span [8192,12192)
//	add read [4096,8096)    log: + [4096,8096)          span [4096,12192)
//	query write [0,4000)    outside the span: sorted set only, log kept
//	query write [5000,5008) inside the span: the log is scanned (or, past
//	                        the scan budget below, sorted into the set)
//
// Writes are queried by every dispatch, and when a group writes its slots
// out of address order they lie inside each other's span, so the span
// alone does not help them. The filter does: a query inside the span of a
// log of at least filterMinLog ranges first marks the pages of the ranges
// logged since the last such query, and a query that meets no marked page
// is answered "no overlap" at once (ranges leave the log for the sorted
// set only marked, so the filter covers both). A
// group's writes never overlap each other (that would be a barrier), so in
// a group of page-disjoint writes nothing is ever sorted; and a group whose
// queries all fall outside the span never marks a page.
//
// A query that passes the filter and falls inside the span first scans
// the log linearly, while the scans so far have compared at most
// scanBudget log entries per range added: the common case is the single
// query that finds the conflict ending a group, which a scan answers
// without sorting anything. Past the budget the log is merged into the
// sorted set and queries binary-search it.
//
// Costs: add is O(1); each range is marked at most once, in a bounded
// number of word operations; linear scans cost O(1) amortised per add (the
// budget); each logged range is merged at most once, at the cost of an
// ivset add. So a lazyset does at most what an eager ivset does, plus O(1)
// per add.
type lazyset struct {
	set          ivset
	log          []int64 // lo, hi pairs in arrival order
	minLo, maxHi int64
	// logged counts ranges added since reset, scanned the log entries
	// compared by linear scans; scans stop once scanned > scanBudget*logged.
	logged, scanned int
	filtered        bool
	filter          pageset
	marked          int // log[:marked] is in the filter
}

const (
	// scanBudget is how many log comparisons per added range linear scans
	// may spend before queries sort the log instead.
	scanBudget = 4
	// filterMinLog is the log length (in ranges) from which a query
	// consults the filter; shorter logs are cheaper to scan than to mark.
	filterMinLog = 8
)

// add records the non-empty range [lo,hi).
func (s *lazyset) add(lo, hi int64) {
	if len(s.log) == 0 {
		s.minLo, s.maxHi = lo, hi
	} else {
		s.minLo, s.maxHi = min(s.minLo, lo), max(s.maxHi, hi)
	}
	s.log = append(s.log, lo, hi)
	s.logged++
}

// overlaps answers like ivset.overlaps. The filter and span tests use the
// ggml form (a recorded [a,b) can matter only if a <= hi && b > lo), which
// is conservative for the exact mode too.
func (s *lazyset) overlaps(m Mode, lo, hi int64) bool {
	if len(s.log) > 0 && s.minLo <= hi && s.maxHi > lo {
		if s.filtered && len(s.log) >= 2*filterMinLog {
			// Pages are marked on the first query that needs them, so a
			// set that is never queried inside its span never marks.
			s.markLog()
			if !s.filter.maybe(lo, hi) {
				return false // every recorded range, logged or sorted, is marked
			}
		}
		if n := len(s.log) / 2; s.scanned+n <= scanBudget*s.logged {
			// Scan the log: cheap while the budget lasts, and the usual
			// case is one scan that finds the conflict ending the group.
			s.scanned += n
			for i := 0; i < len(s.log); i += 2 {
				if a, b := s.log[i], s.log[i+1]; lo < b && (a < hi || m == GGML && a == hi) {
					return true
				}
			}
			return s.set.overlaps(m, lo, hi)
		}
		if s.filtered {
			s.markLog() // the filter must cover the sorted set too
		}
		for i := 0; i < len(s.log); i += 2 {
			s.set.add(s.log[i], s.log[i+1])
		}
		s.log, s.marked = s.log[:0], 0
	}
	return s.set.overlaps(m, lo, hi)
}

// markLog marks the pages of the logged ranges not yet marked.
func (s *lazyset) markLog() {
	for ; s.marked < len(s.log); s.marked += 2 {
		s.filter.mark(s.log[s.marked], s.log[s.marked+1])
	}
}

// reset empties the set, the log and the filter, keeping their storage.
func (s *lazyset) reset() {
	s.set.reset()
	s.log = s.log[:0]
	s.logged, s.scanned, s.marked = 0, 0, 0
	s.filter.reset()
}

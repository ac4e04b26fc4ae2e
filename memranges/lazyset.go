package memranges

// A lazyset is an ivset whose additions wait in an unsorted log until a
// query needs them. The tracker keeps the bytes a group reads in one: reads
// are added by every dispatch but queried only by writes, and a group
// commonly writes one region while reading another (a layer reads the
// previous layer's outputs). The log remembers the span [minLo, maxHi) of
// its ranges; a query outside the span cannot overlap any of them and
// consults only the sorted set, while a query inside it first moves the
// log into the set.
//
//	add read [8192,12192)   log: [8192,12192)           span [8192,12192)
//	add read [4096,8096)    log: + [4096,8096)          span [4096,12192)
//	query write [0,4000)    outside the span: sorted set only, log kept
//	query write [5000,5008) inside the span: log merged into the set, then
//	                        one binary search
//
// Costs: add is O(1). Each logged range is merged at most once, at the cost
// of an ivset add, so a lazyset never does more work than an eager ivset,
// and a group whose writes stay outside its read span never sorts its reads.
type lazyset struct {
	set          ivset
	log          []int64 // lo, hi pairs in arrival order
	minLo, maxHi int64
}

// add records the non-empty range [lo,hi).
func (s *lazyset) add(lo, hi int64) {
	if len(s.log) == 0 {
		s.minLo, s.maxHi = lo, hi
	} else {
		s.minLo, s.maxHi = min(s.minLo, lo), max(s.maxHi, hi)
	}
	s.log = append(s.log, lo, hi)
}

// overlaps answers like ivset.overlaps. The span test is ggml's (a logged
// [a,b) can matter only if a <= hi && b > lo), which is conservative for
// the exact mode too.
func (s *lazyset) overlaps(m Mode, lo, hi int64) bool {
	if len(s.log) > 0 && s.minLo <= hi && s.maxHi > lo {
		for i := 0; i < len(s.log); i += 2 {
			s.set.add(s.log[i], s.log[i+1])
		}
		s.log = s.log[:0]
	}
	return s.set.overlaps(m, lo, hi)
}

// reset empties the set and the log, keeping their storage.
func (s *lazyset) reset() {
	s.set.reset()
	s.log = s.log[:0]
}

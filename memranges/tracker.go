package memranges

// Tracker answers, for a stream of dispatches issued into one concurrent
// group, "does this dispatch conflict with anything already in the group?".
// It is the incremental form of the conflict relation: the caller checks a
// dispatch, emits a barrier and calls Reset when the check fails, then adds
// the dispatch.
//
// Per buffer it keeps two coalescing interval sets (see ivset): the bytes
// the group has read and the bytes it has written, each behind an unsorted
// log that is sorted only when a query needs it, and the writes behind a
// page filter as well (see lazyset and pageset). A new read conflicts iff
// it overlaps a recorded write (RAW); a new write conflicts iff it overlaps
// a recorded read (WAR) or write (WAW). Read-read never conflicts. A check
// costs O(log n) amortised per use, where n is the number of disjoint
// intervals of that buffer and access kind: a log is scanned linearly only
// while the scans stay within scanBudget comparisons per recorded range
// (O(1) amortised per add), and a group is never rescanned per check. Most
// checks cost O(1), when the filter or a log's span rules an overlap out.
//
//	#0 write buf0[0,64)    write set buf0: [0,64)
//	#1 read  buf0[128,192) read set buf0:  [128,192)
//	#2 write buf0[64,128)  write set buf0: [0,128)   (coalesced with #0)
//	#3 read  buf0[96,100)  overlaps the write set [0,128): RAW, so the
//	                       caller places a barrier, calls Reset, adds #3
//
// Invalid ranges ([Range.Valid]) are handled conservatively: a new one
// conflicts with any recorded access it could hazard with (anything, for a
// write; any write, for a read), and once recorded it makes every later
// write (and, if it was a write, every later read) conflict until Reset.
//
// A Tracker is not safe for concurrent use. The zero value is an Exact
// tracker ready to use.
type Tracker struct {
	mode    Mode
	bufs    []bufSets
	touched []BufferID
	// pageShift is log2 of the write filter's page size; 0 means
	// defaultPageShift (tests use small pages to exercise the filter).
	pageShift uint8
	// Counts of recorded uses in the group, and recorded out-of-index uses.
	nRead, nWrite       int
	wildRead, wildWrite bool
	checks, barriers    int64
}

type bufSets struct {
	read    lazyset // unsorted until a write queries its span: see lazyset
	write   lazyset // the same, behind a page filter
	touched bool
}

// MaxBufferID bounds buffer IDs: the tracker indexes buffers in a slice
// (about 100 bytes per entry), so a range with a larger ID is invalid (and
// conservatively conflicting) rather than a reason to allocate without
// bound.
const MaxBufferID BufferID = 1 << 16

// NewTracker returns an empty tracker using overlap test m.
func NewTracker(m Mode) *Tracker { return &Tracker{mode: m} }

// Mode returns the tracker's overlap test.
func (t *Tracker) Mode() Mode { return t.mode }

// Check reports whether any use of a new dispatch conflicts with the uses
// recorded since the last Reset, and if so the index of the first
// conflicting use in uses. It counts one check. Check does not record the
// uses; call Add for that.
func (t *Tracker) Check(uses []Use) (conflict bool, at int) {
	t.checks++
	for i, u := range uses {
		if t.conflicts(u) {
			return true, i
		}
	}
	return false, -1
}

func (t *Tracker) conflicts(u Use) bool {
	if !u.Valid() {
		if u.Access == Write {
			return t.nRead+t.nWrite > 0
		}
		return t.nWrite > 0
	}
	if t.wildWrite || (u.Access == Write && t.wildRead) {
		return true
	}
	if u.Len == 0 || int(u.Buf) >= len(t.bufs) {
		return false
	}
	b := &t.bufs[u.Buf]
	lo, hi := u.Off, u.End()
	if b.write.overlaps(t.mode, lo, hi) {
		return true
	}
	return u.Access == Write && b.read.overlaps(t.mode, lo, hi)
}

// Add records the uses of a dispatch in the current group.
func (t *Tracker) Add(uses []Use) {
	for _, u := range uses {
		if u.Access == Write {
			t.nWrite++
		} else {
			t.nRead++
		}
		if !u.Valid() {
			if u.Access == Write {
				t.wildWrite = true
			} else {
				t.wildRead = true
			}
			continue
		}
		if u.Len == 0 {
			continue
		}
		if int(u.Buf) >= len(t.bufs) {
			n := max(int(u.Buf)+1, 2*len(t.bufs))
			t.bufs = append(t.bufs, make([]bufSets, n-len(t.bufs))...)
		}
		b := &t.bufs[u.Buf]
		if !b.touched {
			b.touched = true
			t.touched = append(t.touched, u.Buf)
			b.write.filtered = true
			b.write.filter.shift = defaultPageShift
			if t.pageShift > 0 {
				b.write.filter.shift = uint(t.pageShift)
			}
		}
		if u.Access == Write {
			b.write.add(u.Off, u.End())
		} else {
			b.read.add(u.Off, u.End())
		}
	}
}

// Reset closes the group: it forgets every recorded use and counts one
// barrier. Its cost is proportional to the number of buffers the group
// touched.
func (t *Tracker) Reset() {
	for _, id := range t.touched {
		b := &t.bufs[id]
		b.read.reset()
		b.write.reset()
		b.touched = false
	}
	t.touched = t.touched[:0]
	t.nRead, t.nWrite = 0, 0
	t.wildRead, t.wildWrite = false, false
	t.barriers++
}

// Checks returns the number of Check calls so far.
func (t *Tracker) Checks() int64 { return t.checks }

// Barriers returns the number of Reset calls so far.
func (t *Tracker) Barriers() int64 { return t.barriers }

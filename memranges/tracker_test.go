package memranges

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func use(buf BufferID, off, length int64, a Access) Use {
	return Use{Range: Range{Buf: buf, Off: off, Len: length}, Access: a, Value: -1}
}

func TestTrackerTable(t *testing.T) {
	tests := []struct {
		name      string
		mode      Mode
		old, new  Use
		conflict  bool
		hazardRaw Hazard
	}{
		{"read-read same bytes", Exact, use(0, 0, 64, Read), use(0, 0, 64, Read), false, NoHazard},
		{"read-read ggml", GGML, use(0, 0, 64, Read), use(0, 0, 64, Read), false, NoHazard},
		{"RAW", Exact, use(0, 0, 64, Write), use(0, 32, 64, Read), true, RAW},
		{"WAR", Exact, use(0, 0, 64, Read), use(0, 63, 1, Write), true, WAR},
		{"WAW", Exact, use(0, 10, 5, Write), use(0, 0, 64, Write), true, WAW},
		{"adjacent after, exact", Exact, use(0, 0, 64, Write), use(0, 64, 64, Write), false, NoHazard},
		{"adjacent after, ggml", GGML, use(0, 0, 64, Write), use(0, 64, 64, Write), false, NoHazard},
		{"adjacent before, exact", Exact, use(0, 64, 64, Write), use(0, 0, 64, Write), false, NoHazard},
		{"adjacent before, ggml: new ends at old start", GGML, use(0, 64, 64, Write), use(0, 0, 64, Write), true, WAW},
		{"adjacent before read, ggml", GGML, use(0, 64, 64, Write), use(0, 0, 64, Read), true, RAW},
		{"different buffers", Exact, use(0, 0, 64, Write), use(1, 0, 64, Write), false, NoHazard},
		{"different buffers ggml", GGML, use(0, 0, 64, Write), use(1, 0, 64, Write), false, NoHazard},
		{"sub-range views disjoint", Exact, use(0, 0, 32, Write), use(0, 32, 32, Read), false, NoHazard},
		{"sub-range views intersect", Exact, use(0, 0, 33, Write), use(0, 32, 32, Read), true, RAW},
		{"sub-range view inside", Exact, use(0, 100, 8, Read), use(0, 96, 16, Write), true, WAR},
		{"zero length never", Exact, use(0, 0, 64, Write), use(0, 10, 0, Write), false, NoHazard},
		{"zero length never ggml", GGML, use(0, 0, 64, Write), use(0, 10, 0, Write), false, NoHazard},
		{"invalid conservative", Exact, use(0, 0, 64, Read), use(-1, 0, 8, Write), true, WAR},
		{"invalid read-read", Exact, use(0, 0, 64, Read), use(-1, 0, 8, Read), false, NoHazard},
		{"buffer id too large", Exact, use(0, 0, 64, Write), use(MaxBufferID, 0, 8, Read), true, RAW},
		{"recorded invalid write", Exact, use(3, -8, 8, Write), use(0, 0, 8, Read), true, RAW},
		{"recorded invalid read, new write", GGML, use(3, 0, -1, Read), use(5, 0, 8, Write), true, WAR},
		{"recorded invalid read, new read", Exact, use(3, 0, -1, Read), use(5, 0, 8, Read), false, NoHazard},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(tc.mode)
			tr.Add([]Use{tc.old})
			got, at := tr.Check([]Use{tc.new})
			require.Equalf(t, tc.conflict, got, "tracker conflict = %v, want %v", got, tc.conflict)
			require.Falsef(t, got && at != 0, "conflict at %d, want 0", at)
			h := Conflict(tc.mode, tc.old, tc.new)
			require.Equalf(t, tc.hazardRaw, h, "Conflict = %v, want %v", h, tc.hazardRaw)
			tr.Reset()
			if got, _ := tr.Check([]Use{tc.new}); got && tc.new.Valid() {
				t.Fatalf("conflict after Reset")
			}
			if tr.Checks() != 2 || tr.Barriers() != 1 {
				t.Fatalf("counters checks=%d barriers=%d, want 2 and 1", tr.Checks(), tr.Barriers())
			}
		})
	}
}

// TestTrackerMatchesPairwise checks the indexed tracker against the pairwise
// definition on random groups: after adding any uses, a check conflicts iff
// some recorded use conflicts with some new use.
func TestTrackerMatchesPairwise(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := Mode(rapid.IntRange(0, 1).Draw(t, "mode"))
		ds := genDispatches(t, 12)
		tr := &Tracker{mode: m, pageShift: uint8(rapid.IntRange(0, 4).Draw(t, "shift"))}
		for j := range ds {
			want := false
			for i := range j {
				if _, ok := Conflicts(m, &ds[i], &ds[j]); ok {
					want = true
				}
			}
			got, at := tr.Check(ds[j].Uses)
			require.Equalf(t, want, got, "dispatch %d: tracker says %v, pairwise %v", j, got, want)
			if got {
				// the reported use must itself conflict with something recorded
				found := false
				for i := range j {
					for _, u := range ds[i].Uses {
						if Conflict(m, u, ds[j].Uses[at]) != NoHazard {
							found = true
						}
					}
				}
				require.Truef(t, found, "dispatch %d: reported use %d conflicts with nothing", j, at)
			}
			tr.Add(ds[j].Uses)
		}
	})
}

// TestIvsetMatchesBytes checks the coalescing set against a byte bitmap.
func TestIvsetMatchesBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s ivset
		lz := lazyset{scanned: 1 << 40} // must answer exactly like s; no budget: always merges
		// and so must a filtered one, with small pages so that queries
		// both hit and miss marked pages
		shift := uint(rapid.IntRange(1, 4).Draw(t, "shift"))
		fl := lazyset{filtered: true, filter: pageset{shift: shift}}
		// a pre-spent scan budget makes it alternate between scanning and
		// merging, so the filter must cover ranges already merged
		fb := lazyset{filtered: true, filter: pageset{shift: shift}, scanned: rapid.IntRange(0, 60).Draw(t, "spent")}
		var bytes [80]bool
		for range rapid.IntRange(0, 60).Draw(t, "ops") {
			lo := int64(rapid.IntRange(0, 60).Draw(t, "lo"))
			hi := lo + int64(rapid.IntRange(1, 12).Draw(t, "len"))
			for _, m := range []Mode{Exact, GGML} {
				want := false
				last := hi - 1
				if m == GGML {
					last = hi // ggml also flags a recorded byte at hi
				}
				for x := lo; x <= last; x++ {
					want = want || bytes[x]
				}
				got := s.overlaps(m, lo, hi)
				require.Equalf(t, want, got, "%v overlaps [%d,%d) = %v, want %v (set %v %v)", m, lo, hi, got, want, s.off, s.end)
				got = lz.overlaps(m, lo, hi)
				require.Equalf(t, want, got, "lazy: %v overlaps [%d,%d) = %v, want %v (log %v)", m, lo, hi, got, want, lz.log)
				got = fl.overlaps(m, lo, hi)
				require.Equalf(t, want, got, "filtered: %v overlaps [%d,%d) = %v, want %v (log %v, words %b)", m, lo, hi, got, want, fl.log, fl.filter.words)
				got = fb.overlaps(m, lo, hi)
				require.Equalf(t, want, got, "filtered, budget spent: %v overlaps [%d,%d) = %v, want %v (log %v, set %v %v, words %b)", m, lo, hi, got, want, fb.log, fb.set.off, fb.set.end, fb.filter.words)
			}
			if rapid.Bool().Draw(t, "add") {
				s.add(lo, hi)
				lz.add(lo, hi)
				fl.add(lo, hi)
				fb.add(lo, hi)
				for x := lo; x < hi; x++ {
					bytes[x] = true
				}
				for i := 0; i < s.len(); i++ {
					require.Falsef(t, s.off[i] >= s.end[i] || (i > 0 && s.end[i-1] >= s.off[i]), "set not sorted, disjoint and non-touching: %v %v", s.off, s.end)
				}
			}
		}
	})
}

// TestPagesetTable: marking and testing pages across word boundaries, the
// width bound, and reset.
func TestPagesetTable(t *testing.T) {
	tests := []struct {
		name      string
		marks     [][2]int64 // [lo,hi) ranges marked
		lo, last  int64      // closed query
		want      bool
		saturated bool
	}{
		{"empty", nil, 0, 100, false, false},
		{"same page", [][2]int64{{0, 1}}, 1023, 1023, true, false},
		{"next page", [][2]int64{{0, 1024}}, 1024, 2047, false, false},
		{"spans a word boundary", [][2]int64{{63 * 1024, 65 * 1024}}, 64 * 1024, 64 * 1024, true, false},
		{"after a boundary range", [][2]int64{{63 * 1024, 65 * 1024}}, 65 * 1024, 70 * 1024, false, false},
		{"query past the bitmap", [][2]int64{{0, 10}}, 1 << 40, 1<<40 + 5, false, false},
		{"widest markable", [][2]int64{{0, maxMarkWords * 64 * 1024}}, 1 << 30, 1 << 30, false, false},
		{"too wide to mark", [][2]int64{{0, maxMarkWords*64*1024 + 1024}}, 1 << 30, 1 << 30, true, true},
		{"past capacity", [][2]int64{{maxPageWords * 64 * 1024, maxPageWords*64*1024 + 1}}, 0, 0, true, true},
		{"too wide to test", [][2]int64{{0, 1}, {200 * 64 * 1024, 200*64*1024 + 1}}, 64 * 1024, (64 + maxMarkWords*64) * 1024, true, false},
		{"wide but testable", [][2]int64{{0, 1}, {200 * 64 * 1024, 200*64*1024 + 1}}, 64 * 1024, (64+maxMarkWords*64)*1024 - 1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pageset{shift: 10}
			for _, m := range tc.marks {
				p.mark(m[0], m[1])
			}
			got := p.maybe(tc.lo, tc.last)
			require.Falsef(t, got != tc.want || p.saturated != tc.saturated, "maybe(%d,%d) = %v (saturated %v), want %v (%v)", tc.lo, tc.last, got, p.saturated, tc.want, tc.saturated)
			p.reset()
			require.Falsef(t, p.maybe(0, 1<<20) || p.saturated, "marks survive reset")
			for _, w := range p.words {
				require.Equalf(t, uint64(0), w, "reset left a word set")
			}
		})
	}
}

// TestLazysetFilterCoversMerged: a range merged into the sorted set while
// the log was too short to use the filter must still be marked, or a later
// query inside a long log's span would be told "no overlap" by the filter.
func TestLazysetFilterCoversMerged(t *testing.T) {
	s := lazyset{filtered: true, filter: pageset{shift: 1}, scanned: 1 << 40} // never scans: always merges
	s.add(10, 12)
	require.Truef(t, s.overlaps(Exact, 10, 12), "recorded range not found")
	require.Falsef(t, len(s.log) != 0 || s.set.len() != 1, "expected a merge: log %v, set %v", s.log, s.set.off)
	for _, lo := range []int64{0, 4, 14, 18, 22, 26, 30, 34} {
		s.add(lo, lo+2)
	}
	require.Truef(t, s.overlaps(Exact, 10, 12), "filter hid a merged range")
}

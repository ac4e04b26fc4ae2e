package memranges

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// decodeDispatches turns fuzz bytes into a dispatch list, four bytes per
// use: buffer (0..2, or -1 for an invalid range), offset, length, and a
// flags byte whose bit 0 is the access and bit 1 starts a new dispatch.
func decodeDispatches(data []byte) []Dispatch {
	var ds []Dispatch
	for i := 0; i+4 <= len(data) && len(ds) < 24; i += 4 {
		buf := BufferID(data[i] % 4)
		if buf == 3 {
			buf = -1
		}
		u := Use{Range: Range{Buf: buf, Off: int64(data[i+1] % 48), Len: int64(data[i+2] % 20)}, Access: Access(data[i+3] & 1), Value: -1}
		if len(ds) == 0 || data[i+3]&2 != 0 {
			ds = append(ds, Dispatch{Node: -1})
		}
		ds[len(ds)-1].Uses = append(ds[len(ds)-1].Uses, u)
	}
	return ds
}

// FuzzPlaceBarriers: for any dispatch list, the tracker agrees with the
// pairwise definition in both modes, the greedy barriers verify, exact
// needs no more than ggml, and reorder reaches the critical path bound.
func FuzzPlaceBarriers(f *testing.F) {
	f.Add([]byte{0, 0, 16, 1, 0, 16, 16, 3, 0, 12, 8, 2, 1, 0, 8, 3})
	f.Add([]byte{0, 16, 16, 1, 0, 0, 16, 3, 0, 0, 16, 2})
	f.Add([]byte{3, 0, 4, 1, 0, 0, 4, 2, 1, 5, 5, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		ds := decodeDispatches(data)
		for _, m := range []Mode{Exact, GGML} {
			// One open group: the tracker must agree with the pairwise
			// definition up to and including the first conflict.
			tr := &Tracker{mode: m, pageShift: 2} // 4-byte pages exercise the filter
			for j := range ds {
				want := false
				for i := range j {
					if _, ok := Conflicts(m, &ds[i], &ds[j]); ok {
						want = true
					}
				}
				got, _ := tr.Check(ds[j].Uses)
				require.Equalf(t, want, got, "%v dispatch %d: tracker %v, pairwise %v", m, j, got, want)
				if want {
					break
				}
				tr.Add(ds[j].Uses)
			}
		}
		exact, ggml := placeBarriers(Exact, ds, 1), placeBarriers(GGML, ds, 3)
		if err := Verify(ds, exact); err != nil {
			t.Fatal(err)
		}
		require.LessOrEqualf(t, len(exact), len(ggml), "exact %d > ggml %d", len(exact), len(ggml))
		perm, _, err := Reorder(ds, ReorderOptions{})
		require.NoErrorf(t, err, "%v", err)
		re, err := Permute(ds, perm)
		require.NoErrorf(t, err, "%v", err)
		got, want := len(PlaceBarriers(Exact, re)), max(CriticalPath(ds)-1, 0)
		require.Equalf(t, want, got, "reordered %d barriers, critical path bound %d", got, want)
	})
}

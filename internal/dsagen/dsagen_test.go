package dsagen

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPackableTiles: the blocks tile the rectangle: at every step the live
// sizes sum to the capacity, and no two blocks live together share a byte
// (checked pairwise), so the tiling is a placement of arena = capacity.
func TestPackableTiles(t *testing.T) {
	for _, n := range []int{1, 2, 10, 250, 1000} {
		const capacity = 1 << 20
		bs := Packable(n, capacity, 7)
		require.Lenf(t, bs, n, "n=%d: %d blocks", n, len(bs))
		steps := int64(n/2 + 1)
		live := make([]int64, steps)
		for _, b := range bs {
			require.Falsef(t, b.End <= b.Start || b.Size <= 0 || b.Size%PackableGranule != 0 || b.Offset+b.Size > capacity, "n=%d: bad block %+v", n, b)
			for s := b.Start; s < b.End; s++ {
				live[s] += b.Size
			}
		}
		for s, v := range live {
			require.Equalf(t, int64(capacity), v, "n=%d: step %d has %d bytes live, want %d", n, s, v, capacity)
		}
		for i, a := range bs {
			for _, b := range bs[i+1:] {
				require.Falsef(t, a.Start < b.End && b.Start < a.End && a.Offset < b.Offset+b.Size && b.Offset < a.Offset+a.Size, "n=%d: %+v and %+v overlap", n, a, b)
			}
		}
	}
}

// TestPackableCorrupted: the tiling check above fails once one block grows.
func TestPackableCorrupted(t *testing.T) {
	bs := Packable(20, 1<<20, 7)
	bs[3].Size += PackableGranule
	var live int64
	for _, b := range bs {
		if b.Start <= bs[3].Start && bs[3].Start < b.End {
			live += b.Size
		}
	}
	require.NotEqualf(t, int64(1<<20), live, "a grown block still sums to the capacity")
}

// TestDeterministic: the same arguments give the same blocks.
func TestDeterministic(t *testing.T) {
	a, b := Packable(300, 1<<20, 3), Packable(300, 1<<20, 3)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("block %d differs: %+v %+v", i, a[i], b[i])
		}
	}
	s, u := Synthetic(100), Synthetic(100)
	for i := range s {
		require.Equalf(t, u[i], s[i], "synthetic block %d differs", i)
	}
}

// TestRows: rows start in the first n/10 steps, live 1 to 100 steps and
// take 64 B to 64 KiB in multiples of 64; the same seed gives the same
// rows, another seed others, and every lifespan and size class is drawn
// (the extremes included) on 200,000 rows.
func TestRows(t *testing.T) {
	const n = 200_000
	bs := Rows(n, 1)
	require.Len(t, bs, n)
	lives, sizes := map[int64]bool{}, map[int64]bool{}
	for i, b := range bs {
		life := b.End - b.Start
		require.Falsef(t, b.Start < 0 || b.Start >= n/10 || life < 1 || life > 100 || b.Size < 64 || b.Size > 64<<10 || b.Size%64 != 0,
			"row %d out of range: %+v", i, b)
		lives[life], sizes[b.Size] = true, true
	}
	require.Len(t, lives, 100, "lifespans drawn")
	require.Len(t, sizes, 1024, "sizes drawn")
	require.Equal(t, Rows(1000, 5), Rows(1000, 5), "one seed, two draws")
	require.NotEqual(t, Rows(1000, 5), Rows(1000, 6), "two seeds, one draw")
}

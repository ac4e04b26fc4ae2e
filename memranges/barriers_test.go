package memranges

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPlaceBarriersOptimal: for fixed orders of up to 8 dispatches, the
// greedy count equals the exhaustive optimum, in both modes; the result
// verifies; removing any one barrier makes Verify fail; exact mode never
// needs more barriers than ggml mode.
func TestPlaceBarriersOptimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := genDispatches(t, 8)
		shift := uint8(rapid.IntRange(0, 4).Draw(t, "shift")) // write-filter pages
		exact := placeBarriers(Exact, ds, shift)
		ggml := placeBarriers(GGML, ds, shift)
		got, want := len(exact), bruteMinBarriers(Exact, ds)
		require.Equalf(t, want, got, "exact greedy %d barriers, optimum %d", got, want)
		got, want = len(ggml), bruteMinBarriers(GGML, ds)
		require.Equalf(t, want, got, "ggml greedy %d barriers, optimum %d", got, want)
		require.LessOrEqualf(t, len(exact), len(ggml), "exact %d barriers > ggml %d", len(exact), len(ggml))
		for _, bs := range [][]Barrier{exact, ggml} {
			err := Verify(ds, bs)
			require.NoErrorf(t, err, "Verify: %v", err)
		}
		for k := range exact {
			cut := append(append([]Barrier{}, exact[:k]...), exact[k+1:]...)
			if err := Verify(ds, cut); !errors.Is(err, ErrBarrier) {
				t.Fatalf("Verify accepted the schedule without barrier %d (%v): %v", k, exact[k], err)
			}
		}
		for _, b := range exact {
			c := b.Cause
			require.Falsef(t, c.Second != b.Before || c.First >= c.Second || c.First < 0 || c.Hazard == NoHazard, "bad cause %+v for barrier at %d", c, b.Before)
			require.Equalf(t, c.Hazard, Conflict(Exact, c.FirstUse, c.SecondUse), "cause uses do not conflict: %v", c)
		}
	})
}

func TestPlaceBarriersCause(t *testing.T) {
	ds := []Dispatch{
		{Name: "a", Uses: []Use{use(0, 0, 64, Write)}},
		{Name: "b", Uses: []Use{use(0, 64, 64, Write)}},
		{Name: "c", Uses: []Use{use(0, 0, 64, Read), use(0, 128, 64, Write)}},
		{Name: "d", Uses: []Use{use(0, 100, 8, Write), use(0, 140, 8, Read)}},
	}
	bs := PlaceBarriers(Exact, ds)
	want := []Barrier{
		{Before: 2, Cause: Pair{First: 0, Second: 2, FirstUse: use(0, 0, 64, Write), SecondUse: use(0, 0, 64, Read), Hazard: RAW}},
		{Before: 3, Cause: Pair{First: 2, Second: 3, FirstUse: use(0, 128, 64, Write), SecondUse: use(0, 140, 8, Read), Hazard: RAW}},
	}
	require.Lenf(t, bs, len(want), "got %d barriers %v, want %v", len(bs), bs, want)
	for i := range bs {
		if bs[i] != want[i] {
			t.Errorf("barrier %d = %+v, want %+v", i, bs[i], want[i])
		}
	}
	got := GroupSizes(len(ds), bs)
	assert.Falsef(t, len(got) != 2+1 || got[0] != 2 || got[1] != 1 || got[2] != 1, "group sizes %v, want [2 1 1]", got)
}

func TestVerifyRejectsCorrupt(t *testing.T) {
	ds := []Dispatch{
		{Name: "a", Uses: []Use{use(0, 0, 64, Write)}},
		{Name: "b", Uses: []Use{use(0, 0, 64, Read)}},
		{Name: "c", Uses: []Use{use(0, 0, 64, Write)}},
	}
	good := PlaceBarriers(Exact, ds)
	err := Verify(ds, good)
	require.NoErrorf(t, err, "good schedule rejected: %v", err)
	tests := []struct {
		name string
		bs   []Barrier
	}{
		{"none", nil},
		{"first only", good[:1]},
		{"position 0", []Barrier{{Before: 0}, {Before: 1}, {Before: 2}}},
		{"past the end", []Barrier{{Before: 1}, {Before: 2}, {Before: 3}}},
		{"repeated", []Barrier{{Before: 1}, {Before: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(ds, tc.bs)
			require.ErrorIsf(t, err, ErrBarrier, "Verify(%v) = %v, want ErrBarrier", tc.bs, err)
		})
	}
}

package arenamap

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRenderEdgeCases(t *testing.T) {
	one := &Map{Blocks: []Block{{ID: 7, Name: "only", Start: 0, End: 1, Size: 1}}}
	cases := []struct {
		name       string
		m          *Map
		opt        Options
		rects      int // data-buf rectangles
		merged     int // blocks inside merged paths
		hover      int // <title> tooltips on blocks
		wantInText string
	}{
		{"empty map", &Map{Title: "nothing"}, Options{}, 0, 0, 0, "0 buffers"},
		{"one block", one, Options{}, 1, 0, 1, "1 buffers"},
		{"no hover", small(), Options{MaxHover: -1}, 6, 0, 0, "6 buffers"},
		{"hover capped at 2", small(), Options{MaxHover: 2}, 6, 0, 2, "6 buffers"},
		{"everything merged", small(), Options{MinPx: 1e9}, 0, 6, 0, "6 buffers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			err := SVG(&b, c.m, c.opt)
			require.NoErrorf(t, err, "%v", err)
			ids, merged := checkXML(t, b.Bytes())
			require.Falsef(t, len(ids) != c.rects || merged != c.merged, "%d rectangles, %d merged; want %d and %d", len(ids), merged, c.rects, c.merged)
			n := strings.Count(b.String(), "</title></rect>")
			require.Equalf(t, c.hover, n, "%d tooltips, want %d", n, c.hover)
			require.Containsf(t, b.String(), c.wantInText, "summary lacks %q", c.wantInText)
		})
	}
}

// TestBitmapPathMergesRuns checks the run merging of tiny blocks on a
// hand-drawn bitmap (the example of layout.go).
func TestBitmapPathMergesRuns(t *testing.T) {
	l := &layout{}
	bm := newBitmap(10, 2)
	set := func(x, y int) { i := y*bm.w + x; bm.bits[i>>6] |= 1 << (i & 63) }
	for x := 2; x < 6; x++ {
		set(x, 0)
		set(x, 1)
	}
	set(8, 1)
	set(9, 1)
	got := bm.path(l)
	want := "M2 0h4v2h-4zM8 1h2v1h-2z"
	require.Equalf(t, want, got, "path %q, want %q", got, want)
}

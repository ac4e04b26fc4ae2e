package arenamap

import (
	"bytes"
	"strings"
	"testing"
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
			if err := SVG(&b, c.m, c.opt); err != nil {
				t.Fatal(err)
			}
			ids, merged := checkXML(t, b.Bytes())
			if len(ids) != c.rects || merged != c.merged {
				t.Fatalf("%d rectangles, %d merged; want %d and %d", len(ids), merged, c.rects, c.merged)
			}
			if n := strings.Count(b.String(), "</title></rect>"); n != c.hover {
				t.Fatalf("%d tooltips, want %d", n, c.hover)
			}
			if !strings.Contains(b.String(), c.wantInText) {
				t.Fatalf("summary lacks %q", c.wantInText)
			}
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
	if got != want {
		t.Fatalf("path %q, want %q", got, want)
	}
}

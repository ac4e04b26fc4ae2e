package arenamap

// Layout and aggregation.
//
// The plot maps steps linearly onto x (step s at x0 + s*sx) and arena bytes
// onto y, offset 0 at the bottom. A block becomes a rectangle of
// (End-Start)*sx by Size*sy pixels. At the default 1200x560 plot, a model
// with 20 buffers gives rectangles tens of pixels across; a trace with
// 20,000 buffers gives thousands that are narrower or lower than a pixel.
// Drawing those one element each costs DOM nodes and hover targets without
// showing anything, so the renderer splits blocks in two:
//
//   - visible blocks (both sides >= MinPx pixels) become one <rect> each,
//     carrying data-buf; the MaxHover largest of them get hover details;
//   - tiny blocks are rasterised onto the plot's pixel grid, one bitmap per
//     colour, and each bitmap is written as a single <path> of merged
//     pixel runs, with data-count saying how many blocks it holds.
//
// Merging runs: each bitmap row is cut into maximal runs of set pixels; a
// run that repeats exactly on the next row extends the rectangle it opened,
// so a block 0.3 px high and 900 px long costs one rectangle and a solid
// patch of many tiny blocks costs one rectangle per distinct row pattern.
//
//	row 0: ..####....    ->  M2 0h4v2h-4z  (rows 0-1 share the run 2..6)
//	row 1: ..####..##    ->  M8 1h2v1h-2z
//
// Every block is therefore drawn exactly once: as its own rectangle or
// inside exactly one merged path.

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Options size and style the picture. Zero fields take the defaults.
type Options struct {
	Width    int     // plot width in pixels (default 1200)
	Height   int     // plot height in pixels (default 560)
	ColorBy  ColorBy // ByKind (default; BySize when no block has a Kind) or BySize
	MaxHover int     // most blocks with hover details (default 4000; < 0 none)
	MinPx    float64 // blocks narrower or lower than this are merged (default 1)
}

func (o Options) withDefaults() Options {
	if o.Width <= 0 {
		o.Width = 1200
	}
	if o.Height <= 0 {
		o.Height = 560
	}
	if o.MaxHover == 0 {
		o.MaxHover = 4000
	}
	if o.MinPx <= 0 {
		o.MinPx = 1
	}
	return o
}

// Margins around the plot, in pixels.
const (
	marginLeft   = 84
	marginRight  = 24
	marginTop    = 44
	marginBottom = 44
	legendRow    = 18
)

type layout struct {
	opt        Options
	steps      int64
	arena      int64 // y extent in bytes
	sx, sy     float64
	x0, y0     float64 // top-left of the plot
	pw, ph     float64
	width      int // whole picture
	height     int
	legendRows int
}

func newLayout(m *Map, opt Options, live []LiveSegment, legendItems int) *layout {
	l := &layout{opt: opt, steps: max(m.steps(), 1)}
	top := max(m.ArenaBytes, m.LowerBoundBytes, peakLive(live))
	for _, b := range m.Blocks {
		top = max(top, b.Offset+b.Size)
	}
	l.arena = max(top, 1)
	l.pw, l.ph = float64(opt.Width), float64(opt.Height)
	l.sx, l.sy = l.pw/float64(l.steps), l.ph/float64(l.arena)
	l.x0, l.y0 = marginLeft, marginTop
	perRow := max(1, (opt.Width+marginLeft)/150)
	l.legendRows = (legendItems + perRow - 1) / perRow
	l.width = marginLeft + opt.Width + marginRight
	l.height = marginTop + opt.Height + marginBottom + l.legendRows*legendRow
	if denseBarriers(len(m.Barriers), l.pw) {
		l.y0 += stripRoom // room for the barrier density strip (barriers.go)
		l.height += stripRoom
	}
	return l
}

func (l *layout) px(step int64) float64 { return l.x0 + float64(step)*l.sx }
func (l *layout) py(off int64) float64  { return l.y0 + l.ph - float64(off)*l.sy }

func (l *layout) isTiny(b *Block) bool {
	return float64(b.End-b.Start)*l.sx < l.opt.MinPx || float64(b.Size)*l.sy < l.opt.MinPx
}

// bitmap is one colour's tiny blocks on the pixel grid of the plot.
type bitmap struct {
	w, h  int
	bits  []uint64
	count int // blocks drawn into it
}

func newBitmap(w, h int) *bitmap {
	return &bitmap{w: w, h: h, bits: make([]uint64, (w*h+63)/64)}
}

// cells returns the pixel cells [c0, c1) covered by [a, b) at scale s,
// at least one cell, clamped to [0, n).
func cells(a, b int64, s float64, n int) (int, int) {
	c0 := int(math.Floor(float64(a) * s))
	c1 := int(math.Ceil(float64(b) * s))
	c0 = min(max(c0, 0), n-1)
	c1 = min(max(c1, c0+1), n)
	return c0, c1
}

func (bm *bitmap) add(l *layout, b *Block) {
	bm.count++
	x0, x1 := cells(b.Start, b.End, l.sx, bm.w)
	// Rows count from the top: offset arena-(Offset+Size) .. arena-Offset.
	y0, y1 := cells(l.arena-(b.Offset+b.Size), l.arena-b.Offset, l.sy, bm.h)
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			i := y*bm.w + x
			bm.bits[i>>6] |= 1 << (i & 63)
		}
	}
}

func (bm *bitmap) get(x, y int) bool {
	i := y*bm.w + x
	return bm.bits[i>>6]&(1<<(i&63)) != 0
}

// path writes the bitmap as merged rectangles in plot coordinates.
func (bm *bitmap) path(l *layout) string {
	type run struct{ x0, x1 int }
	type open struct{ y0 int }
	var sb strings.Builder
	emit := func(r run, y0, y1 int) {
		sb.WriteString("M")
		sb.WriteString(num(l.x0 + float64(r.x0)))
		sb.WriteString(" ")
		sb.WriteString(num(l.y0 + float64(y0)))
		sb.WriteString("h")
		sb.WriteString(strconv.Itoa(r.x1 - r.x0))
		sb.WriteString("v")
		sb.WriteString(strconv.Itoa(y1 - y0))
		sb.WriteString("h-")
		sb.WriteString(strconv.Itoa(r.x1 - r.x0))
		sb.WriteString("z")
	}
	opened := map[run]open{}
	for y := 0; y <= bm.h; y++ {
		cur := map[run]bool{}
		if y < bm.h {
			for x := 0; x < bm.w; {
				if !bm.get(x, y) {
					x++
					continue
				}
				s := x
				for x < bm.w && bm.get(x, y) {
					x++
				}
				cur[run{s, x}] = true
			}
		}
		// Close runs that do not continue, in a fixed order.
		var done []run
		for r := range opened {
			if !cur[r] {
				done = append(done, r)
			}
		}
		sort.Slice(done, func(i, j int) bool { return done[i].x0 < done[j].x0 })
		for _, r := range done {
			emit(r, opened[r].y0, y)
			delete(opened, r)
		}
		for r := range cur {
			if _, ok := opened[r]; !ok {
				opened[r] = open{y}
			}
		}
	}
	return sb.String()
}

// num prints a coordinate with at most two decimals and no trailing zeros.
func num(f float64) string {
	s := strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// formatBytes prints a byte count in IEC units with up to 3 significant
// decimals: "512 B", "1.5 KiB", "24 MiB".
func formatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f := float64(n)
	u := 0
	for math.Abs(f) >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatInt(n, 10) + " B"
	}
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) + " " + units[u]
}

// niceTicks returns about n round tick values in [0, hi]: multiples of 1,
// 2 or 5 times a power of ten (or of 1024 for bytes).
func niceTicks(hi int64, n int, binary bool) []int64 {
	if hi <= 0 {
		return []int64{0}
	}
	raw := float64(hi) / float64(n)
	base := 10.0
	if binary {
		base = 1024
	}
	p := 1.0
	for p*base <= raw {
		p *= base
	}
	var step float64
	for _, m := range []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		if p*m >= raw {
			step = p * m
			break
		}
	}
	if step == 0 {
		step = p * base
	}
	st := int64(math.Max(1, math.Round(step)))
	var out []int64
	for v := int64(0); v <= hi; v += st {
		out = append(out, v)
		if len(out) > 4*n {
			break
		}
	}
	return out
}

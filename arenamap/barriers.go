package arenamap

import "math"

// Barrier marks.
//
// A barrier is a thin vertical tick at the step it precedes, from just
// above the plot down through it. Ticks stay readable while they stand
// tickGap pixels apart on average; with more barriers than that (300 on
// the default 1200-pixel plot is 4 px apart) they merge into one red band.
// Such a map is dense, and draws instead:
//
//   - at full view, a density strip above the plot: one cell per
//     stripCell pixels, its opacity rising with the share of the cell's
//     steps that have a barrier (opaque: every step), with a tooltip giving
//     the count and the step range;
//   - the ticks, hidden until the HTML page's zoom spreads them tickGap
//     pixels apart again: the group's data-zoom is that zoom factor, and the
//     page's script drops the group's "dense" class beyond it. Zoomed ticks
//     keep their one-pixel stroke (non-scaling).
//
//	sparse: |    |      |   |          dense: ▓▓░ ▒▓█▓░  ░▒▒   (strip)
//	        |    |      |   |                 (ticks hidden at full view)

const (
	tickGap   = 8.0  // px between ticks, on average, below which a map is dense
	stripCell = 4.0  // px per density-strip cell
	stripRoom = 12.0 // px the strip adds above the plot
)

// denseBarriers reports whether n barriers on a plot pw pixels wide are too
// many for ticks at full view.
func denseBarriers(n int, pw float64) bool { return float64(n)*tickGap > pw }

// writeBarriers draws m's barriers (see above); sparse maps get plain ticks.
func writeBarriers(ew *errWriter, l *layout, bars []int64) {
	if !denseBarriers(len(bars), l.pw) {
		ew.printf(`<g class="barriers">` + "\n")
		for _, s := range bars {
			x := num(l.px(s))
			ew.printf(`<line class="bar" data-step="%d" x1="%s" x2="%s" y1="%s" y2="%s"/>`+"\n", s, x, x, num(l.y0-6), num(l.y0+l.ph))
		}
		ew.printf("</g>\n")
		return
	}
	zoom := float64(len(bars)) * tickGap / l.pw
	ew.printf(`<g class="barriers dense" data-zoom="%s">`+"\n", num(math.Ceil(zoom*100)/100))
	ew.printf("<style>g.dense line.bar{display:none}line.bar{vector-effect:non-scaling-stroke}rect.bd{fill:#d62728}</style>\n")
	n := int(math.Ceil(l.pw / stripCell))
	count := make([]int, n)
	lo, hi := make([]int64, n), make([]int64, n)
	for _, s := range bars {
		c := min(max(int(float64(s)*l.sx/stripCell), 0), n-1)
		if count[c] == 0 || s < lo[c] {
			lo[c] = s
		}
		if count[c] == 0 || s > hi[c] {
			hi[c] = s
		}
		count[c]++
	}
	ew.printf(`<g class="bardensity">` + "\n")
	for c, k := range count {
		if k == 0 {
			continue
		}
		// The steps whose barrier position falls in cell c: the cell's
		// share of steps with a barrier, not its raw count, sets the
		// opacity, so evenly spread barriers draw an even strip however
		// the steps fall on the pixel grid.
		first := int64(math.Ceil(float64(c) * stripCell / l.sx))
		last := int64(math.Ceil(float64(c+1)*stripCell/l.sx)) - 1
		if c == n-1 {
			last = l.steps
		}
		share := min(float64(k)/float64(max(last-first+1, 1)), 1)
		ew.printf(`<rect class="bd" data-barriers="%d" x="%s" y="%s" width="%s" height="%s" fill-opacity="%s"><title>%d barriers at steps %d-%d (%d%% of the steps there)</title></rect>`+"\n",
			k, num(l.x0+float64(c)*stripCell), num(l.y0-stripRoom+1), num(stripCell), num(stripRoom-3), num(0.15+0.85*share), k, lo[c], hi[c], int(math.Round(100*share)))
	}
	ew.printf("</g>\n")
	for _, s := range bars {
		x := num(l.px(s))
		ew.printf(`<line class="bar" data-step="%d" x1="%s" x2="%s" y1="%s" y2="%s"/>`+"\n", s, x, x, num(l.y0), num(l.y0+l.ph))
	}
	ew.printf("</g>\n")
}

package arenamap

import (
	"fmt"
	"strings"
)

// The frontier plot
//
// With Map.Frontier set, HTML adds a small plot under the map: arena bytes
// (y, from 0) against barriers (x), one dot per frontier point joined by a
// staircase (a plan is worth its arena until the next point's barriers),
// the current plan's point filled. It shows the price of each barrier
// saved: a flat staircase is concurrency for free.
//
//	arena
//	 37 KB |o
//	       | |
//	 30 KB | +-----o----------o
//	       +------------------- barriers
//	        80    86         96

// FrontierPoint is one point of the plot: a plan's barriers after
// reordering and its arena.
type FrontierPoint struct {
	Barriers   int
	ArenaBytes int64
	Label      string // shown on hover ("concurrency", "memory", ...)
	Current    bool   // the plan the map draws
}

// frontierSVG draws the plot as an inline SVG, or "" for no points.
func frontierSVG(pts []FrontierPoint) string {
	if len(pts) == 0 {
		return ""
	}
	const w, h, left, right, top, bottom = 420, 200, 64, 16, 14, 34
	minB, maxB := pts[0].Barriers, pts[0].Barriers
	var maxA int64 = 1
	for _, p := range pts {
		minB, maxB = min(minB, p.Barriers), max(maxB, p.Barriers)
		maxA = max(maxA, p.ArenaBytes)
	}
	if maxB == minB {
		maxB = minB + 1
	}
	x := func(b int) float64 { return left + float64(b-minB)*float64(w-left-right)/float64(maxB-minB) }
	y := func(a int64) float64 { return top + float64(h-top-bottom)*(1-float64(a)/float64(maxA)) }
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" id="frontier" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#444"/>`+"\n",
		left, h-bottom, w-right, h-bottom, left, top, left, h-bottom)
	fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="middle">barriers</text>`+"\n", (left+w-right)/2, h-4)
	fmt.Fprintf(&s, `<text x="4" y="%d">%s</text><text x="4" y="%d">0</text>`+"\n", top+4, esc(formatBytes(maxA)), h-bottom)
	var path strings.Builder
	for i, p := range pts {
		if i == 0 {
			fmt.Fprintf(&path, "M%.1f %.1f", x(p.Barriers), y(p.ArenaBytes))
		} else {
			fmt.Fprintf(&path, " H%.1f V%.1f", x(p.Barriers), y(p.ArenaBytes))
		}
		fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(p.Barriers), h-bottom+14, p.Barriers)
	}
	fmt.Fprintf(&s, `<path d="%s" fill="none" stroke="#36c" stroke-width="1.5"/>`+"\n", path.String())
	for _, p := range pts {
		fill := "#fff"
		if p.Current {
			fill = "#36c"
		}
		fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="#36c"><title>%s: %d barriers, %s</title></circle>`+"\n",
			x(p.Barriers), y(p.ArenaBytes), fill, esc(p.Label), p.Barriers, esc(formatBytes(p.ArenaBytes)))
	}
	s.WriteString("</svg>\n")
	return s.String()
}

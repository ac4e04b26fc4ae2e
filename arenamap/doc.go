// Package arenamap draws a memory plan as a picture: x is time (schedule
// steps), y is the arena offset, and every buffer is a rectangle spanning
// its lifespan [Start, End) and its bytes [Offset, Offset+Size). Over the
// rectangles it draws the live-bytes curve (the sum of the sizes live at
// each step, whose peak is the lower bound of any placement), the lower
// bound and arena lines, and barrier positions as vertical marks (a density
// strip when they are too many to tell apart, barriers.go). The gap
// between the curve and the arena line is the fragmentation a placer left.
//
// The renderer's input is plain data, a Map of Blocks, so it does not
// depend on how a plan was made; FromPlan and FromBuffers build one from a
// planner plan. Colours are a function of the op kind (or of the size
// class), never of the other blocks, so the same kind has the same colour
// in every picture. Blocks smaller than a pixel are merged per colour into
// one path (layout.go), so 20,000 buffers cost a few thousand elements and
// at most Options.MaxHover hover targets.
//
// Calls in order:
//
//	m, err := arenamap.FromPlan("mlp", plan, g)   // or build a Map by hand
//	m.Barriers = arenamap.BarrierSteps(...)       // optional
//	err = arenamap.SVG(w, m, arenamap.Options{})  // standalone SVG
//	err = arenamap.HTML(w, m, arenamap.Options{}) // one page: hover + zoom
package arenamap

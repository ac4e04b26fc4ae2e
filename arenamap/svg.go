package arenamap

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SVG writes the arena map of m as one standalone SVG document: blocks as
// rectangles (hover shows a native tooltip for the MaxHover largest), tiny
// blocks merged per colour, the live-bytes curve, lower-bound and arena
// lines, barrier marks and a colour legend. m is validated first.
func SVG(w io.Writer, m *Map, opt Options) error {
	if err := m.Validate(); err != nil {
		return err
	}
	_, err := render(w, m, opt.withDefaults(), false)
	return err
}

// hoverInfo is what the HTML hover box shows for one block.
type hoverInfo struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Offset   int64  `json:"offset"`
	Producer string `json:"producer"`
	Kind     string `json:"kind"`
}

// render writes the SVG; in html mode rectangles carry data-i indexes into
// the returned hover table instead of <title> children.
func render(w io.Writer, m *Map, opt Options, html bool) ([]hoverInfo, error) {
	live := m.Live()
	if opt.ColorBy == ByKind && !hasKinds(m) {
		opt.ColorBy = BySize // nothing to tell apart by kind (a DSA trace)
	}
	blocks := make([]*Block, len(m.Blocks))
	for i := range m.Blocks {
		blocks[i] = &m.Blocks[i]
	}
	sort.Slice(blocks, func(i, j int) bool {
		a, b := blocks[i], blocks[j]
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.ID < b.ID
	})

	// Legend keys in a fixed order: kinds by name, size classes by size.
	colorOf := map[string]string{}
	var keys []string
	classOf := map[string]int{}
	for _, b := range blocks {
		k, c := colorKey(opt.ColorBy, b)
		if _, ok := colorOf[k]; !ok {
			colorOf[k] = c
			keys = append(keys, k)
			classOf[k] = SizeClass(b.Size)
		}
	}
	if opt.ColorBy == BySize {
		sort.Slice(keys, func(i, j int) bool { return classOf[keys[i]] < classOf[keys[j]] })
	} else {
		sort.Strings(keys)
	}
	l := newLayout(m, opt, live, len(keys)+3)
	lb := m.LowerBoundBytes
	if lb == 0 {
		lb = peakLive(live)
	}

	// Split visible and tiny blocks; pick hover targets by pixel area.
	var visible []*Block
	tiny := map[string]*bitmap{}
	for _, b := range blocks {
		if !l.isTiny(b) {
			visible = append(visible, b)
			continue
		}
		k, _ := colorKey(opt.ColorBy, b)
		bm := tiny[k]
		if bm == nil {
			bm = newBitmap(opt.Width, opt.Height)
			tiny[k] = bm
		}
		bm.add(l, b)
	}
	hover := map[*Block]int{}
	if opt.MaxHover > 0 {
		byArea := append([]*Block(nil), visible...)
		sort.SliceStable(byArea, func(i, j int) bool {
			ai := float64(byArea[i].End-byArea[i].Start) * float64(byArea[i].Size)
			aj := float64(byArea[j].End-byArea[j].Start) * float64(byArea[j].Size)
			if ai != aj {
				return ai > aj
			}
			return byArea[i].ID < byArea[j].ID
		})
		for i, b := range byArea {
			if i >= opt.MaxHover {
				break
			}
			hover[b] = 0
		}
	}

	bw := bufio.NewWriter(w)
	ew := &errWriter{w: bw}
	ew.printf(`<svg xmlns="http://www.w3.org/2000/svg" id="arenamap" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		l.width, l.height, l.width, l.height)
	ew.printf("<style>rect.s{stroke:#fff;stroke-width:0.5}rect.nh{pointer-events:none}path.m{stroke:none}" +
		"path.live{fill:none;stroke:#222;stroke-width:1.5}line.lb{stroke:#222;stroke-dasharray:6 4}" +
		"line.arena{stroke:#c00;stroke-dasharray:2 3}line.bar{stroke:#d62728;stroke-width:0.8;opacity:0.7}" +
		"line.grid{stroke:#e4e4e4}text.ax{fill:#444}text.t{font-size:15px;font-weight:bold}</style>\n")
	title := m.Title
	if title == "" {
		title = "arena map"
	}
	ew.printf("<title>%s</title>\n", esc(title))
	summary := fmt.Sprintf("%d buffers, %d steps, arena %s, lower bound %s", len(m.Blocks), m.steps(), formatBytes(l.arenaBytes(m)), formatBytes(lb))
	if lb > 0 {
		summary += fmt.Sprintf(" (+%.2f%%)", 100*float64(l.arenaBytes(m)-lb)/float64(lb))
	}
	if len(m.Barriers) > 0 {
		summary += fmt.Sprintf(", %d barriers", len(m.Barriers))
	}
	ew.printf(`<text class="t" x="%d" y="18">%s</text>`+"\n", marginLeft, esc(title))
	ew.printf(`<text class="ax" x="%d" y="36">%s</text>`+"\n", marginLeft, esc(summary))

	// Axes and grid.
	ew.printf(`<g class="axes">` + "\n")
	for _, v := range niceTicks(l.arena, 8, true) {
		y := num(l.py(v))
		ew.printf(`<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/><text class="ax" x="%s" y="%s" text-anchor="end" dy="4">%s</text>`+"\n",
			num(l.x0), num(l.x0+l.pw), y, y, num(l.x0-6), y, esc(formatBytes(v)))
	}
	for _, s := range niceTicks(l.steps, 12, false) {
		x := num(l.px(s))
		ew.printf(`<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/><text class="ax" x="%s" y="%s" text-anchor="middle">%d</text>`+"\n",
			x, x, num(l.y0), num(l.y0+l.ph+4), x, num(l.y0+l.ph+17), s)
	}
	ew.printf(`<text class="ax" x="%s" y="%s" text-anchor="middle">schedule step</text>`+"\n", num(l.x0+l.pw/2), num(l.y0+l.ph+33))
	ew.printf(`<text class="ax" transform="translate(14 %s) rotate(-90)" text-anchor="middle">arena offset</text>`+"\n", num(l.y0+l.ph/2))
	ew.printf("</g>\n")

	// Blocks.
	var table []hoverInfo
	ew.printf(`<g class="blocks">` + "\n")
	for _, b := range visible {
		_, color := colorKey(opt.ColorBy, b)
		x, y := l.px(b.Start), l.py(b.Offset+b.Size)
		wd, ht := float64(b.End-b.Start)*l.sx, float64(b.Size)*l.sy
		_, hov := hover[b]
		cls := "b"
		if wd >= 6 && ht >= 6 {
			cls = "b s" // outline only where it does not swamp the fill
		}
		switch {
		case hov && html:
			ew.printf(`<rect class="%s" data-buf="%d" data-i="%d" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
				cls, b.ID, len(table), num(x), num(y), num(wd), num(ht), color)
			table = append(table, hoverInfo{b.ID, b.Name, b.Size, b.Start, b.End, b.Offset, b.Producer, kindLabel(b.Kind)})
		case hov:
			ew.printf(`<rect class="%s" data-buf="%d" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n",
				cls, b.ID, num(x), num(y), num(wd), num(ht), color, esc(tooltip(b)))
		default:
			ew.printf(`<rect class="%s nh" data-buf="%d" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
				cls, b.ID, num(x), num(y), num(wd), num(ht), color)
		}
	}
	ew.printf("</g>\n")

	// Merged tiny blocks, one path per colour in legend order.
	ew.printf(`<g class="merged">` + "\n")
	for _, k := range keys {
		if bm := tiny[k]; bm != nil {
			ew.printf(`<path class="m" data-key="%s" data-count="%d" fill="%s" d="%s"/>`+"\n", esc(k), bm.count, colorOf[k], bm.path(l))
		}
	}
	ew.printf("</g>\n")

	// Barriers (barriers.go), then the curve and the bound lines on top.
	writeBarriers(ew, l, m.Barriers)
	ew.printf(`<path class="live" d="%s"/>`+"\n", livePath(l, live))
	yl := num(l.py(lb))
	ew.printf(`<line class="lb" x1="%s" x2="%s" y1="%s" y2="%s"/>`+"\n", num(l.x0), num(l.x0+l.pw), yl, yl)
	ya := num(l.py(l.arenaBytes(m)))
	ew.printf(`<line class="arena" x1="%s" x2="%s" y1="%s" y2="%s"/>`+"\n", num(l.x0), num(l.x0+l.pw), ya, ya)

	// Legend.
	ew.printf(`<g class="legend">` + "\n")
	perRow := max(1, (opt.Width+marginLeft)/150)
	item := func(i int, swatch, label string) {
		x := 8 + (i%perRow)*150
		y := marginTop + opt.Height + marginBottom + (i/perRow)*legendRow
		ew.printf(`<g transform="translate(%d %d)">%s<text class="ax" x="18" y="10">%s</text></g>`+"\n", x, y, swatch, esc(label))
	}
	for i, k := range keys {
		item(i, fmt.Sprintf(`<rect width="12" height="12" fill="%s"/>`, colorOf[k]), k)
	}
	n := len(keys)
	item(n, `<line class="live" x1="0" x2="12" y1="6" y2="6" stroke="#222" stroke-width="1.5"/>`, "live bytes")
	item(n+1, `<line class="lb" x1="0" x2="12" y1="6" y2="6"/>`, "lower bound")
	if denseBarriers(len(m.Barriers), l.pw) {
		item(n+2, `<rect class="bd" y="2" width="12" height="8" fill="#d62728"/>`, "barriers (share of steps)")
	} else {
		item(n+2, `<line class="bar" x1="6" x2="6" y1="0" y2="12"/>`, "barrier")
	}
	ew.printf("</g>\n</svg>\n")
	if ew.err == nil {
		if err := bw.Flush(); err != nil {
			ew.err = fmt.Errorf("arenamap: %w: %w", ErrWrite, err)
		}
	}
	return table, ew.err
}

func hasKinds(m *Map) bool {
	for _, b := range m.Blocks {
		if b.Kind != "" {
			return true
		}
	}
	return false
}

func (l *layout) arenaBytes(m *Map) int64 {
	if m.ArenaBytes > 0 {
		return m.ArenaBytes
	}
	var top int64
	for _, b := range m.Blocks {
		top = max(top, b.Offset+b.Size)
	}
	return top
}

// livePath draws the live-bytes step curve; when it has more segments than
// the plot has pixel columns it draws the per-column maximum instead.
func livePath(l *layout, live []LiveSegment) string {
	var sb strings.Builder
	if len(live) <= 2*int(l.pw) {
		for i, s := range live {
			if i == 0 {
				sb.WriteString("M" + num(l.px(s.Start)) + " " + num(l.py(s.Bytes)))
			} else {
				sb.WriteString("V" + num(l.py(s.Bytes)))
			}
			sb.WriteString("H" + num(l.px(s.End)))
		}
		return sb.String()
	}
	cols := make([]int64, int(l.pw))
	for _, s := range live {
		c0, c1 := cells(s.Start, s.End, l.sx, len(cols))
		for c := c0; c < c1; c++ {
			cols[c] = max(cols[c], s.Bytes)
		}
	}
	for c, v := range cols {
		if c == 0 {
			sb.WriteString("M" + num(l.x0) + " " + num(l.py(v)))
		} else {
			sb.WriteString("V" + num(l.py(v)))
		}
		sb.WriteString("H" + num(l.x0+float64(c+1)))
	}
	return sb.String()
}

func tooltip(b *Block) string {
	return fmt.Sprintf("%s\nsize %s (%d B)\nlive [%d, %d)\noffset [%d, %d)\nproducer %s (%s)",
		b.Name, formatBytes(b.Size), b.Size, b.Start, b.End, b.Offset, b.Offset+b.Size, b.Producer, kindLabel(b.Kind))
}

// esc escapes text for XML and replaces characters XML cannot carry.
func esc(s string) string {
	var sb strings.Builder
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				sb.WriteRune('\uFFFD')
				continue
			}
		}
		switch {
		case r == '<':
			sb.WriteString("&lt;")
		case r == '>':
			sb.WriteString("&gt;")
		case r == '&':
			sb.WriteString("&amp;")
		case r == '"':
			sb.WriteString("&quot;")
		case r == '\'':
			sb.WriteString("&#39;")
		case r == '\t' || r == '\n' || r == '\r':
			sb.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		case r < 0x20 || (r >= 0xD800 && r <= 0xDFFF) || r == 0xFFFE || r == 0xFFFF:
			sb.WriteRune('\uFFFD')
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// errWriter keeps the first write error and skips later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	if _, err := fmt.Fprintf(e.w, format, args...); err != nil {
		e.err = fmt.Errorf("arenamap: %w: %w", ErrWrite, err)
	}
}

func (e *errWriter) write(s string) {
	if e.err != nil {
		return
	}
	if _, err := io.WriteString(e.w, s); err != nil {
		e.err = fmt.Errorf("arenamap: %w: %w", ErrWrite, err)
	}
}

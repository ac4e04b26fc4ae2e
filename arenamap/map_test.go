package arenamap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// small is a hand-made map of six buffers over eight steps:
//
//	offset
//	 96 ┤      ┌──c──┐
//	 64 ┤ ┌─b──┤     ├──e──┐
//	 32 ┤ │    └─────┘  f  │
//	  0 ┤ a──────┐ ┌─d─────┘
//	    0 1 2 3 4 5 6 7 8  step
func small() *Map {
	return &Map{
		Title:           "small <test> & co",
		Steps:           8,
		ArenaBytes:      128,
		LowerBoundBytes: 0,
		Blocks: []Block{
			{ID: 0, Name: "a", Start: 0, End: 4, Offset: 0, Size: 64, Kind: "conv", Producer: "conv1 (Conv)"},
			{ID: 1, Name: "b", Start: 0, End: 3, Offset: 64, Size: 32, Kind: "elementwise", Producer: "relu1 (Relu)"},
			{ID: 2, Name: "c", Start: 3, End: 6, Offset: 96, Size: 32, Kind: "matmul", Producer: "fc (MatMul)"},
			{ID: 3, Name: "d", Start: 4, End: 8, Offset: 0, Size: 32, Kind: "norm", Producer: "bn (BatchNorm)"},
			{ID: 4, Name: "e", Start: 6, End: 8, Offset: 64, Size: 64, Kind: "", Producer: "op?"},
			{ID: 5, Name: "f\x01", Start: 5, End: 8, Offset: 32, Size: 32, Kind: "elementwise", Producer: "add (Add)"},
		},
		Barriers: []int64{3, 6},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		err := os.WriteFile(path, got, 0o644)
		require.NoErrorf(t, err, "%v", err)
		return
	}
	want, err := os.ReadFile(path)
	require.NoErrorf(t, err, "%v", err)
	require.Truef(t, bytes.Equal(got, want), "%s differs from the output (run go test -update to accept); got:\n%s", path, got)
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		fn   func(io.Writer, *Map, Options) error
		opt  Options
	}{
		{"small.svg", SVG, Options{Width: 400, Height: 200}},
		{"small_bysize.svg", SVG, Options{Width: 400, Height: 200, ColorBy: BySize}},
		{"small.html", HTML, Options{Width: 400, Height: 200}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			err := c.fn(&b, small(), c.opt)
			require.NoErrorf(t, err, "%v", err)
			golden(t, c.name, b.Bytes())
			var again bytes.Buffer
			_ = c.fn(&again, small(), c.opt)
			require.Truef(t, bytes.Equal(b.Bytes(), again.Bytes()), "output is not deterministic")
		})
	}
}

// checkXML decodes the whole document and counts data-buf ids and the
// data-count of merged paths.
func checkXML(t *testing.T, doc []byte) (ids map[int64]int, merged int) {
	t.Helper()
	ids = map[int64]int{}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoErrorf(t, err, "not well-formed XML: %v", err)
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		for _, a := range se.Attr {
			switch a.Name.Local {
			case "data-buf":
				id, err := strconv.ParseInt(a.Value, 10, 64)
				require.NoErrorf(t, err, "data-buf %q: %v", a.Value, err)
				ids[id]++
			case "data-count":
				n, _ := strconv.Atoi(a.Value)
				merged += n
			}
		}
	}
	return ids, merged
}

func TestSVGWellFormedEveryBlockOnce(t *testing.T) {
	m := small()
	var b bytes.Buffer
	err := SVG(&b, m, Options{})
	require.NoErrorf(t, err, "%v", err)
	ids, merged := checkXML(t, b.Bytes())
	require.Equalf(t, 0, merged, "small map merged %d blocks", merged)
	if len(ids) != len(m.Blocks) {
		t.Fatalf("%d distinct data-buf ids, want %d", len(ids), len(m.Blocks))
	}
	for _, blk := range m.Blocks {
		assert.Equalf(t, 1, ids[blk.ID], "block %d appears %d times", blk.ID, ids[blk.ID])
	}
	if n := strings.Count(b.String(), `class="bar"`); n != len(m.Barriers)+1 { // +1: legend swatch
		t.Errorf("%d barrier marks, want %d", n-1, len(m.Barriers))
	}
}

// big makes n random blocks packed in time order: most are far below a
// pixel at the default size.
func big(n int, seed int64) *Map {
	r := rand.New(rand.NewSource(seed))
	m := &Map{Title: "big"}
	kinds := []string{"conv", "matmul", "elementwise", "norm", "data"}
	var off int64
	for i := 0; i < n; i++ {
		s := int64(r.Intn(n))
		size := int64(1 + r.Intn(1<<12))
		if i%500 == 0 {
			size = 1 << 22
		}
		m.Blocks = append(m.Blocks, Block{ID: int64(i), Name: "v" + strconv.Itoa(i), Start: s, End: s + 1 + int64(r.Intn(50)),
			Offset: off, Size: size, Kind: kinds[r.Intn(len(kinds))], Producer: "n"})
		off += size
	}
	for i := int64(0); i < int64(n); i += 97 {
		m.Barriers = append(m.Barriers, i)
	}
	return m
}

func TestLargeMapAggregatesAndCapsHover(t *testing.T) {
	m := big(20000, 1)
	var b bytes.Buffer
	err := HTML(&b, m, Options{MaxHover: 100})
	require.NoErrorf(t, err, "%v", err)
	doc := b.String()
	// The SVG part is well-formed and accounts for every block once.
	svg := doc[strings.Index(doc, "<svg") : strings.Index(doc, "</svg>")+len("</svg>")]
	ids, merged := checkXML(t, []byte(svg))
	for id, c := range ids {
		require.Equalf(t, 1, c, "block %d drawn %d times", id, c)
	}
	if len(ids)+merged != len(m.Blocks) {
		t.Fatalf("%d rectangles + %d merged = %d, want %d", len(ids), merged, len(ids)+merged, len(m.Blocks))
	}
	if merged < len(m.Blocks)/2 {
		t.Fatalf("only %d of %d blocks merged", merged, len(m.Blocks))
	}
	n := strings.Count(svg, "data-i=")
	require.LessOrEqualf(t, n, 100, "%d hover targets, cap 100", n)
	require.Falsef(t, strings.Contains(doc, "http://") && strings.Count(doc, "http://") != strings.Count(doc, "http://www.w3.org/2000/svg"), "page refers to a network address")
	require.Falsef(t, regexp.MustCompile(`(?i)<(script|link|img)[^>]+(src|href)=`).MatchString(doc), "page loads an external resource")
}

func TestValidateReportsEveryProblem(t *testing.T) {
	m := small()
	m.Blocks[0].End = m.Blocks[0].Start // empty lifespan
	m.Blocks[1].Size = -1
	m.Blocks[2].Offset = -8
	m.Blocks[3].ID = m.Blocks[4].ID // duplicate
	m.Barriers = append(m.Barriers, 99)
	err := m.Validate()
	require.ErrorIsf(t, err, ErrMap, "error %v, want ErrMap", err)
	for _, want := range []string{"empty lifespan", "negative size -1", "negative offset -8", "duplicate id 4", "barrier at step 99"} {
		assert.Containsf(t, err.Error(), want, "error lacks %q:\n%v", want, err)
	}
	require.Falsef(t, SVG(io.Discard, m, Options{}) == nil || HTML(io.Discard, m, Options{}) == nil, "renderers accepted an invalid map")
	err = small().Validate()
	require.NoErrorf(t, err, "%v", err)
}

func TestLive(t *testing.T) {
	got := small().Live()
	want := []LiveSegment{{0, 3, 96}, {3, 4, 96}, {4, 5, 64}, {5, 6, 96}, {6, 8, 128}}
	// Adjacent equal segments merge: [0,3) and [3,4) are both 96.
	want = []LiveSegment{{0, 4, 96}, {4, 5, 64}, {5, 6, 96}, {6, 8, 128}}
	require.Lenf(t, got, len(want), "live %v, want %v", got, want)
	for i := range got {
		require.Equalf(t, want[i], got[i], "live %v, want %v", got, want)
	}
	require.Equalf(t, int64(128), peakLive(got), "peak")
}

func TestColorsAreStable(t *testing.T) {
	require.Falsef(t, KindColor("conv") != "#4e79a7" || KindColor("conv") == KindColor("matmul"), "fixed kind colours changed")
	require.Equalf(t, KindColor("weird-kind"), KindColor("weird-kind"), "hashed colour not stable")
	cases := []struct {
		size int64
		want int
	}{{0, 0}, {1, 0}, {2, 1}, {1023, 9}, {1024, 10}, {1 << 40, 40}}
	for _, c := range cases {
		got := SizeClass(c.size)
		assert.Equalf(t, c.want, got, "SizeClass(%d) = %d, want %d", c.size, got, c.want)
	}
	if SizeColor(0) != "#fde725" || SizeColor(40) != "#440154" {
		t.Errorf("ramp ends %s %s", SizeColor(0), SizeColor(40))
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	err := SVG(failWriter{}, small(), Options{})
	require.ErrorIsf(t, err, ErrWrite, "SVG: %v", err)
	err = HTML(failWriter{}, small(), Options{})
	require.ErrorIsf(t, err, ErrWrite, "HTML: %v", err)
}

func TestEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a<b>&\"'", "a&lt;b&gt;&amp;&quot;&#39;"},
		{"x\x00y", "x\uFFFDy"},
		{"tab\tnl\n", "tab&#9;nl&#10;"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
	}
	for _, c := range cases {
		got := esc(c.in)
		assert.Equalf(t, c.want, got, "esc(%q) = %q, want %q", c.in, got, c.want)
	}
}

// TestNilInputsAreErrors: a nil Map or Plan is bad input, reported as
// ErrMap, never a panic.
func TestNilInputsAreErrors(t *testing.T) {
	var m *Map
	for name, err := range map[string]error{
		"Validate": m.Validate(),
		"SVG":      SVG(io.Discard, nil, Options{}),
		"HTML":     HTML(io.Discard, nil, Options{}),
	} {
		assert.ErrorIsf(t, err, ErrMap, "%s(nil): %v, want ErrMap", name, err)
	}
	got, err := FromPlan("p", nil, nil)
	assert.Falsef(t, got != nil || !errors.Is(err, ErrMap), "FromPlan(nil plan): %v, %v, want nil, ErrMap", got, err)
}

// TestZeroSizeBlocks: a plan may hold zero-size buffers (an empty tensor);
// the map accepts them, draws the rest, and counts them in no live bytes.
func TestZeroSizeBlocks(t *testing.T) {
	m := small()
	m.Blocks[1].Size = 0
	err := m.Validate()
	require.NoErrorf(t, err, "zero-size block rejected: %v", err)
	var svg, html strings.Builder
	err = SVG(&svg, m, Options{})
	require.NoErrorf(t, err, "%v", err)
	err = HTML(&html, m, Options{})
	require.NoErrorf(t, err, "%v", err)
	whole := small()
	peak := func(m *Map) int64 {
		p := int64(0)
		for _, s := range m.Live() {
			p = max(p, s.Bytes)
		}
		return p
	}
	if peak(m) > peak(whole) || svg.Len() == 0 || html.Len() == 0 {
		t.Fatalf("peak %d (whole map %d), svg %d bytes, html %d bytes", peak(m), peak(whole), svg.Len(), html.Len())
	}
}

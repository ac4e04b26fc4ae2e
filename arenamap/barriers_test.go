package arenamap

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// barrierMap is small() stretched to at least n-1 steps, with its barriers
// replaced by one barrier at each step 0..n-1: for large n, a barrier at
// every step position.
func barrierMap(n int) *Map {
	m := small()
	m.Barriers = nil
	m.Blocks[0].End = max(m.Blocks[0].End, int64(n-1))
	for i := range n {
		m.Barriers = append(m.Barriers, int64(i))
	}
	return m
}

// TestBarrierDensity: a map with few barriers draws one tick each and no
// strip; with 300+ on the default plot the ticks are hidden at full view
// (class "dense"), the strip's cells account for every barrier once, a
// barrier at every step draws every cell opaque (no aliasing stripes), every
// tick is still in the document for zooming,
// and data-zoom is the factor that spreads them tickGap pixels apart.
func TestBarrierDensity(t *testing.T) {
	stepAttr := regexp.MustCompile(`class="bar" data-step="`)
	cellAttr := regexp.MustCompile(`data-barriers="(\d+)"[^>]*fill-opacity="([0-9.]+)"`)
	for _, n := range []int{3, 150, 300, 400} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			m := barrierMap(n)
			var b bytes.Buffer
			err := SVG(&b, m, Options{})
			require.NoErrorf(t, err, "%v", err)
			checkXML(t, b.Bytes())
			svg := b.String()
			got := len(stepAttr.FindAllString(svg, -1))
			assert.Equalf(t, n, got, "%d ticks, want %d", got, n)
			dense := strings.Contains(svg, `<g class="barriers dense"`)
			want := n*8 > 1200
			require.Equalf(t, want, dense, "dense = %v, want %v", dense, want)
			cells := cellAttr.FindAllStringSubmatch(svg, -1)
			if !dense {
				assert.Emptyf(t, cells, "sparse map has a density strip")
				return
			}
			sum, opaque := 0, true
			for _, c := range cells {
				k, _ := strconv.Atoi(c[1])
				op, _ := strconv.ParseFloat(c[2], 64)
				sum += k
				opaque = opaque && op == 1
				assert.Falsef(t, op <= 0 || op > 1, "cell opacity %v", op)
			}
			assert.Falsef(t, sum != n || !opaque, "strip holds %d barriers (want %d), every cell opaque: %v", sum, n, opaque)
			zm := regexp.MustCompile(`data-zoom="([0-9.]+)"`).FindStringSubmatch(svg)
			require.NotNilf(t, zm, "no data-zoom")
			if z, _ := strconv.ParseFloat(zm[1], 64); z < float64(n)*8/1200 || z > float64(n)*8/1200+0.01 {
				t.Errorf("data-zoom %v, want %v", z, float64(n)*8/1200)
			}
			assert.Containsf(t, svg, "barriers (share of steps)", "legend does not name the strip")
		})
	}
	var h bytes.Buffer
	err := HTML(&h, barrierMap(400), Options{})
	require.NoErrorf(t, err, "%v", err)
	assert.Containsf(t, h.String(), `bars.classList.toggle("dense"`, "the page's zoom does not reveal the ticks")
}

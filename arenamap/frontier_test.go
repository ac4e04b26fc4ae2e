package arenamap

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFrontierPlot: HTML draws one dot per frontier point, the current one
// filled, as well-formed SVG; without points it draws no plot.
func TestFrontierPlot(t *testing.T) {
	m := small()
	var plain bytes.Buffer
	err := HTML(&plain, m, Options{})
	require.NoErrorf(t, err, "%v", err)
	assert.Falsef(t, strings.Contains(plain.String(), `id="frontier"`), "a map without a frontier has a frontier plot")
	m.Frontier = []FrontierPoint{
		{Barriers: 80, ArenaBytes: 37120, Label: "concurrency"},
		{Barriers: 90, ArenaBytes: 30208, Label: "91 groups", Current: true},
		{Barriers: 96, ArenaBytes: 30208, Label: "memory"},
	}
	var out bytes.Buffer
	err = HTML(&out, m, Options{})
	require.NoErrorf(t, err, "%v", err)
	plot := regexp.MustCompile(`(?s)<svg[^>]*id="frontier".*?</svg>`).FindString(out.String())
	require.NotEqualf(t, "", plot, "no frontier plot")
	d := xml.NewDecoder(strings.NewReader(plot))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("plot is not well-formed: %v", err)
		}
	}
	n := strings.Count(plot, "<circle")
	assert.Equalf(t, 3, n, "%d dots, want 3", n)
	n = strings.Count(plot, `fill="#36c"`)
	assert.Falsef(t, n != 1 || !strings.Contains(plot, "91 groups: 90 barriers"), "%d filled dots, want the current one:\n%s", n, plot)
}

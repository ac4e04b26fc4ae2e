package arenamap

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestFrontierPlot: HTML draws one dot per frontier point, the current one
// filled, as well-formed SVG; without points it draws no plot.
func TestFrontierPlot(t *testing.T) {
	m := small()
	var plain bytes.Buffer
	if err := HTML(&plain, m, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), `id="frontier"`) {
		t.Error("a map without a frontier has a frontier plot")
	}
	m.Frontier = []FrontierPoint{
		{Barriers: 80, ArenaBytes: 37120, Label: "concurrency"},
		{Barriers: 90, ArenaBytes: 30208, Label: "91 groups", Current: true},
		{Barriers: 96, ArenaBytes: 30208, Label: "memory"},
	}
	var out bytes.Buffer
	if err := HTML(&out, m, Options{}); err != nil {
		t.Fatal(err)
	}
	plot := regexp.MustCompile(`(?s)<svg[^>]*id="frontier".*?</svg>`).FindString(out.String())
	if plot == "" {
		t.Fatal("no frontier plot")
	}
	d := xml.NewDecoder(strings.NewReader(plot))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("plot is not well-formed: %v", err)
		}
	}
	if n := strings.Count(plot, "<circle"); n != 3 {
		t.Errorf("%d dots, want 3", n)
	}
	if n := strings.Count(plot, `fill="#36c"`); n != 1 || !strings.Contains(plot, "91 groups: 90 barriers") {
		t.Errorf("%d filled dots, want the current one:\n%s", n, plot)
	}
}

package arenamap

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/require"
)

var mapOut = flag.String("mapout", "", "also write the HTML maps of DSA instances into this directory")

// dsaDir is the shared DSA benchmark folder, found from the module root.
func dsaDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	require.NoErrorf(t, err, "%v", err)
	dir := filepath.Join(wd, "..", "..", "shared", "benchmarks", "dsa")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no DSA benchmark folder at %s", dir)
	}
	return dir
}

// TestDSAInstancesRender places real DSA traces (1,042 and 18,692
// buffers) and checks that the maps account for every buffer once and
// keep hover targets within the cap.
func TestDSAInstancesRender(t *testing.T) {
	dir := dsaDir(t)
	checked := 0
	for _, name := range []string{"real/resnet50.csv", "real/pangu_2.6B.csv"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, name))
			if err != nil {
				t.Skip(err)
			}
			defer f.Close()
			bufs, err := planner.ReadCSV(f)
			require.NoErrorf(t, err, "%v", err)
			p, err := planner.PlanBuffers(context.Background(), bufs, planner.Options{Strategy: "size"})
			require.NoErrorf(t, err, "%v", err)
			m, err := FromPlan(strings.TrimSuffix(filepath.Base(name), ".csv")+" (DSA trace, size-ordered best fit)", p, nil)
			require.NoErrorf(t, err, "%v", err)
			var b bytes.Buffer
			if err := HTML(&b, m, Options{}); err != nil {
				t.Fatal(err)
			}
			doc := b.String()
			svg := doc[strings.Index(doc, "<svg") : strings.Index(doc, "</svg>")+len("</svg>")]
			ids, merged := checkXML(t, []byte(svg))
			require.Lenf(t, bufs, len(ids)+merged, "%d rectangles + %d merged, want %d buffers", len(ids), merged, len(bufs))
			n := strings.Count(svg, "data-i=")
			require.LessOrEqualf(t, n, 4000, "%d hover targets", n)
			t.Logf("%d buffers: %d rectangles, %d merged, %d KiB", len(bufs), len(ids), merged, b.Len()/1024)
			if *mapOut != "" {
				out := filepath.Join(*mapOut, strings.TrimSuffix(filepath.Base(name), ".csv")+".html")
				if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if !t.Failed() {
				checked++ // subtests run one at a time
			}
		})
	}
	t.Logf("DSA instances checked: %d", checked) // .ci/run adds these up
}

package irtest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the fixture sources")

// testdataDir is the repository's testdata folder, relative to this package.
const testdataDir = "../../testdata"

// TestGoldenTestdata checks that every testdata graph file is exactly what
// its fixture source prints; -update rewrites the files.
func TestGoldenTestdata(t *testing.T) {
	names := make([]string, 0, len(Testdata))
	for n := range Testdata {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			g, err := Graph(name)
			require.NoErrorf(t, err, "%v", err)
			var buf bytes.Buffer
			if err := ir.Print(&buf, g); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(testdataDir, name+".json")
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			require.NoErrorf(t, err, "%v (run go test ./internal/irtest -run Golden -update)", err)
			assert.Truef(t, bytes.Equal(buf.Bytes(), want), "%s differs from its fixture source; run go test ./internal/irtest -run Golden -update", path)
		})
	}
}

package irtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzBuild: any fixture text may be rejected, none may panic, and a graph
// that builds is valid.
func FuzzBuild(f *testing.F) {
	for _, src := range Testdata {
		f.Add(src)
	}
	f.Add("x = input f32[4]\nv = view x +4 f32[2,1] strides=[-4,0]\nc = constant u8[2] data=0x0102\no, p = opaque K(f32[1], i64[]) v c\npin o \"why\"\nkeep o x\norder o")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 1<<14 || strings.Count(src, "\n") > 200 {
			return
		}
		g, names, err := Build(src)
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("Build returned an invalid graph: %v", err)
		}
		for n, id := range names {
			require.NotNilf(t, g.Value(id), "name %q maps to undefined value %d", n, id)
		}
	})
}

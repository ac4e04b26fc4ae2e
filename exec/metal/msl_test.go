package metal

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileMSLAsCpp parses and type-checks MSL source with the host C++
// compiler over a stand-in <metal_stdlib> (testdata/mslshim). It skips the
// test without g++ or clang++.
func compileMSLAsCpp(t *testing.T, src string) (string, error) {
	t.Helper()
	cxx := ""
	for _, c := range []string{"clang++", "g++"} {
		if p, err := exec.LookPath(c); err == nil {
			cxx = p
			break
		}
	}
	if cxx == "" {
		t.Skip("no C++ compiler")
	}
	file := filepath.Join(t.TempDir(), "kernels.cpp")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	shim, err := filepath.Abs(filepath.Join("testdata", "mslshim"))
	require.NoErrorf(t, err, "%v", err)
	out, err := exec.Command(cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wno-attributes", "-Wno-unknown-attributes",
		"-Wno-unused-function", "-Wno-unknown-warning-option", "-I", shim, "-x", "c++", file).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestMSLCompilesAsCpp checks the kernel library as C++: Linux cannot run
// Apple's Metal compiler, but MSL is C++14, so syntax, types and template
// instantiations (each named instance must match its typedef) are checked
// here. What only Apple's compiler rejects is left to the darwin tests.
func TestMSLCompilesAsCpp(t *testing.T) {
	src, err := Source()
	require.NoErrorf(t, err, "%v", err)
	out, err := compileMSLAsCpp(t, src)
	require.NoErrorf(t, err, "%v\n%s", err, out)
	assert.Equalf(t, "", out, "warnings:\n%s", out)
}

// TestMSLCheckCatchesMistakes proves the C++ check fails on a misspelt
// field and on a template instance whose signature differs from its
// typedef.
func TestMSLCheckCatchesMistakes(t *testing.T) {
	src, err := Source()
	require.NoErrorf(t, err, "%v", err)
	tests := []struct{ name, old, new string }{
		{"misspelt field", "if (i >= p.Total) return;", "if (i >= p.Totl) return;"},
		{"typed template pointer", "device const uchar* xb [[buffer(1)]],\n                   device uchar* yb [[buffer(2)]],",
			"device const T* xb [[buffer(1)]],\n                   device T* yb [[buffer(2)]],"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(src, tc.old, tc.new, 1)
			require.NotEqualf(t, src, bad, "edit did not apply")
			if out, err := compileMSLAsCpp(t, bad); err == nil {
				t.Errorf("broken source accepted: %s", out)
			}
		})
	}
}

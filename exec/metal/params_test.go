package metal

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/exec/launch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// field is one struct field: name and byte offset.
type field struct {
	name string
	off  int64
}

type layout struct {
	size   int64
	fields []field
}

// goLayouts reads the Go argument structs' layouts by reflection.
func goLayouts(t *testing.T) map[string]layout {
	t.Helper()
	out := map[string]layout{}
	for _, p := range launch.ParamTypes {
		var l layout
		l.size = int64(p.Type.Size())
		for k := 0; k < p.Type.NumField(); k++ {
			f := p.Type.Field(k)
			l.fields = append(l.fields, field{f.Name, int64(f.Offset)})
		}
		bs := binary.Size(reflect.New(p.Type).Elem().Interface())
		assert.Equalf(t, l.size, int64(bs), "%s: encodes to %d bytes, Go size %d (padding?)", p.Name, bs, l.size)
		out[p.Name] = l
	}
	return out
}

var layoutRe = regexp.MustCompile(`// layout (\w+) size (\d+): (.*)`)

// commentLayouts reads the `// layout` tables of the MSL sources.
func commentLayouts(src string) (map[string]layout, error) {
	out := map[string]layout{}
	for _, m := range layoutRe.FindAllStringSubmatch(src, -1) {
		size, _ := strconv.ParseInt(m[2], 10, 64)
		l := layout{size: size}
		for _, part := range strings.Split(m[3], ", ") {
			var f field
			if _, err := fmt.Sscanf(part, "%s %d", &f.name, &f.off); err != nil {
				return nil, fmt.Errorf("layout %s: %q: %v", m[1], part, err)
			}
			l.fields = append(l.fields, f)
		}
		out[m[1]] = l
	}
	return out, nil
}

var (
	structRe = regexp.MustCompile(`(?s)struct (\w+) \{(.*?)\};`)
	declRe   = regexp.MustCompile(`^(\w+) (\w+)(?:\[(\w+)\])?;$`)
)

// mslLayouts computes the layouts of the MSL struct declarations with C
// rules for 4-byte scalars, arrays of them, and nested structs of them.
func mslLayouts(src string) (map[string]layout, error) {
	out := map[string]layout{}
	sizes := map[string]int64{"int": 4, "float": 4, "uint": 4}
	consts := map[string]int64{"MAX_RANK": launch.MaxRank}
	for _, m := range structRe.FindAllStringSubmatch(src, -1) {
		var l layout
		for _, line := range strings.Split(m[2], "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			d := declRe.FindStringSubmatch(line)
			if d == nil {
				return nil, fmt.Errorf("struct %s: cannot read %q", m[1], line)
			}
			sz, ok := sizes[d[1]]
			if !ok {
				return nil, fmt.Errorf("struct %s: unknown type %s", m[1], d[1])
			}
			count := int64(1)
			if d[3] != "" {
				if c, ok := consts[d[3]]; ok {
					count = c
				} else if c, err := strconv.ParseInt(d[3], 10, 64); err == nil {
					count = c
				} else {
					return nil, fmt.Errorf("struct %s: array length %s", m[1], d[3])
				}
			}
			l.fields = append(l.fields, field{d[2], l.size})
			l.size += sz * count
		}
		sizes[m[1]] = l.size
		out[m[1]] = l
	}
	return out, nil
}

// compareLayouts reports every difference between want and got.
func compareLayouts(what string, want, got map[string]layout) []error {
	var errs []error
	for _, p := range launch.ParamTypes {
		w, g := want[p.Name], got[p.Name]
		if _, ok := got[p.Name]; !ok {
			errs = append(errs, fmt.Errorf("%s: no %s", what, p.Name))
			continue
		}
		if w.size != g.size {
			errs = append(errs, fmt.Errorf("%s: %s size %d, Go %d", what, p.Name, g.size, w.size))
		}
		if fmt.Sprint(w.fields) != fmt.Sprint(g.fields) {
			errs = append(errs, fmt.Errorf("%s: %s fields %v, Go %v", what, p.Name, g.fields, w.fields))
		}
	}
	return errs
}

func TestArgumentLayouts(t *testing.T) {
	src, err := Source()
	require.NoErrorf(t, err, "%v", err)
	goL := goLayouts(t)
	com, err := commentLayouts(src)
	require.NoErrorf(t, err, "%v", err)
	msl, err := mslLayouts(src)
	require.NoErrorf(t, err, "%v", err)
	for _, e := range compareLayouts("layout comments", goL, com) {
		t.Error(e)
	}
	for _, e := range compareLayouts("MSL declarations", goL, msl) {
		t.Error(e)
	}
	assert.Falsef(t, len(com) != len(launch.ParamTypes) || len(msl) != len(launch.ParamTypes), "%d layout comments and %d MSL structs for %d Go structs", len(com), len(msl), len(launch.ParamTypes))
}

// TestArgumentLayoutsCatchDrift proves the layout checks fail when the
// MSL side drifts from Go: a field inserted in a struct, a comment offset
// edited.
func TestArgumentLayoutsCatchDrift(t *testing.T) {
	src, err := Source()
	require.NoErrorf(t, err, "%v", err)
	goL := goLayouts(t)
	tests := []struct {
		name  string
		edit  func(string) string
		parse func(string) (map[string]layout, error)
	}{
		{"field inserted in MSL struct", func(s string) string {
			return strings.Replace(s, "struct CopyParams {\n    int N;", "struct CopyParams {\n    int N;\n    int Extra;", 1)
		}, mslLayouts},
		{"array length changed", func(s string) string {
			return strings.Replace(s, "int Begin[MAX_RANK];", "int Begin[4];", 1)
		}, mslLayouts},
		{"comment offset edited", func(s string) string {
			return strings.Replace(s, "Alpha 8, Beta 12", "Alpha 8, Beta 16", 1)
		}, commentLayouts},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			edited := tc.edit(src)
			require.NotEqualf(t, src, edited, "edit did not apply")
			got, err := tc.parse(edited)
			require.NoErrorf(t, err, "%v", err)
			errs := compareLayouts("edited", goL, got)
			assert.NotEmptyf(t, errs, "drift not caught")
		})
	}
}

// TestKernelLibrary checks that every kernel the MSL source exports has a
// Go argument struct and the MSL signature's struct is that one.
func TestKernelLibrary(t *testing.T) {
	names, err := KernelNames()
	require.NoErrorf(t, err, "%v", err)
	sigs := mslSignatures(t)
	// sigs also holds the three templates (copy_k, gather_k, where_k).
	assert.Lenf(t, sigs, len(names)+3, "%d exported kernels, %d signatures read", len(names), len(sigs))
	for _, k := range names {
		rt, ok := kernelParams(k)
		if !ok {
			t.Errorf("kernel %s: no Go argument struct", k)
			continue
		}
		got := paramTypeName(rt)
		assert.Equalf(t, sigs[k].params, got, "kernel %s: MSL takes %s, Go twin decodes %s", k, sigs[k].params, got)
	}
}

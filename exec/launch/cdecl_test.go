package launch

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCDeclsMatchGoLayout lays the generated C structs out by C rules
// (4-byte scalars, arrays, nested structs, declaration order) and compares
// every field offset and struct size with Go's.
func TestCDeclsMatchGoLayout(t *testing.T) {
	src, err := CDecls()
	require.NoErrorf(t, err, "%v", err)
	got := cLayouts(t, src)
	require.Lenf(t, got, len(ParamTypes), "%d C structs for %d Go structs", len(got), len(ParamTypes))
	for _, p := range ParamTypes {
		want := map[string]int64{"": int64(p.Type.Size())}
		for k := 0; k < p.Type.NumField(); k++ {
			f := p.Type.Field(k)
			want[f.Name] = int64(f.Offset)
		}
		assert.Truef(t, reflect.DeepEqual(got[p.Name], want), "%s: C layout %v, Go %v", p.Name, got[p.Name], want)
	}
}

// TestCDeclsRejectUnknownFieldTypes: a field without a C twin is an error,
// not a silently wrong declaration.
func TestCDeclsRejectUnknownFieldTypes(t *testing.T) {
	type bad struct{ X int64 }
	_, _, err := cType(reflect.TypeOf(bad{}).Field(0).Type, nil)
	assert.Errorf(t, err, "int64 field accepted")
}

var (
	cStructRe = regexp.MustCompile(`(?s)struct (\w+) \{\n(.*?)\};`)
	cFieldRe  = regexp.MustCompile(`^(\w+) (\w+)(?:\[(\w+)\])?;$`)
)

// cLayouts maps struct name -> field name -> byte offset ("" -> size).
func cLayouts(t *testing.T, src string) map[string]map[string]int64 {
	sizes := map[string]int64{"int": 4, "float": 4}
	out := map[string]map[string]int64{}
	for _, m := range cStructRe.FindAllStringSubmatch(src, -1) {
		l := map[string]int64{}
		var off int64
		for _, line := range strings.Split(strings.TrimSpace(m[2]), "\n") {
			d := cFieldRe.FindStringSubmatch(strings.TrimSpace(line))
			if d == nil {
				t.Fatalf("struct %s: cannot read %q", m[1], line)
			}
			n := int64(1)
			switch d[3] {
			case "":
			case "MAX_RANK":
				n = MaxRank
			default:
				v, err := strconv.ParseInt(d[3], 10, 64)
				if err != nil {
					t.Fatalf("struct %s: array length %q", m[1], d[3])
				}
				n = v
			}
			l[d[2]] = off
			off += sizes[d[1]] * n
		}
		l[""] = off
		sizes[m[1]] = off
		out[m[1]] = l
	}
	return out
}

// TestCLayoutCheckCatchesDrift: the layout comparison above fails when a C
// declaration gains a field.
func TestCLayoutCheckCatchesDrift(t *testing.T) {
	src, err := CDecls()
	require.NoErrorf(t, err, "%v", err)
	edited := strings.Replace(src, "struct CopyParams {\n    int N;", "struct CopyParams {\n    int N;\n    int Extra;", 1)
	require.NotEqualf(t, src, edited, "edit did not apply")
	good, bad := cLayouts(t, src)["CopyParams"], cLayouts(t, edited)["CopyParams"]
	assert.Falsef(t, reflect.DeepEqual(good, bad), "an inserted field leaves the layout unchanged")
}

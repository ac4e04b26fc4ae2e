package launch

// C declarations of the argument structs, generated from the Go types so a
// kernel source that includes them cannot drift from what Plan encodes.
//
// Every field is an int32, a float32, an array of them or a nested struct
// of them, so C lays each struct out exactly as Go does (4-byte alignment,
// no padding; TestCDeclsMatchGoLayout checks the offsets the C rules give).
// exec/cuda prepends CDecls to its kernel sources; exec/metal keeps its
// hand-written MSL declarations, checked against the same Go types by its
// layout test.

import (
	"fmt"
	"reflect"
	"strings"
)

// CDecls returns C declarations of MAX_RANK and of every struct in
// ParamTypes (Tensor first), in ParamTypes' order:
//
//	#define MAX_RANK 8
//	struct Tensor {
//	    int Rank;
//	    int Shape[MAX_RANK];
//	    int Strides[MAX_RANK];
//	};
//	...
func CDecls() (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "#define MAX_RANK %d\n", MaxRank)
	names := map[reflect.Type]string{}
	for _, p := range ParamTypes {
		names[p.Type] = p.Name
	}
	for _, p := range ParamTypes {
		fmt.Fprintf(&b, "struct %s {\n", p.Name)
		for k := 0; k < p.Type.NumField(); k++ {
			f := p.Type.Field(k)
			ct, n, err := cType(f.Type, names)
			if err != nil {
				return "", fmt.Errorf("launch: %s.%s: %w", p.Name, f.Name, err)
			}
			switch {
			case n == 0:
				fmt.Fprintf(&b, "    %s %s;\n", ct, f.Name)
			case n == MaxRank:
				fmt.Fprintf(&b, "    %s %s[MAX_RANK];\n", ct, f.Name)
			default:
				fmt.Fprintf(&b, "    %s %s[%d];\n", ct, f.Name, n)
			}
		}
		b.WriteString("};\n")
	}
	return b.String(), nil
}

// cType names a field's C type and its array length (0: not an array).
func cType(t reflect.Type, structs map[reflect.Type]string) (string, int, error) {
	n := 0
	if t.Kind() == reflect.Array {
		n = t.Len()
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int32:
		return "int", n, nil
	case reflect.Float32:
		return "float", n, nil
	case reflect.Struct:
		if name, ok := structs[t]; ok {
			return name, n, nil
		}
	}
	return "", 0, fmt.Errorf("%w: field type %v has no C twin", ErrUnsupported, t)
}

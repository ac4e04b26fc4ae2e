package ir

import (
	"fmt"
	"slices"
	"strings"
)

// Attribute schemas
//
// Every core op lists the attributes it takes: a name, a kind, and for
// some an enumeration of the values it accepts (strings such as Gelu's
// approximate, 0/1 flags such as Gemm's transA). Validate checks each
// node of a core op against its op's list, so that a misspelt name
// ("axsi"), a wrong kind (a string perm) or an unknown value (approximate
// "bogus") is an error naming the node and the attribute instead of a
// silent default. Opaque nodes take any attribute.

// AttrSpec describes one attribute an op takes.
type AttrSpec struct {
	Name string
	Kind AttrKind
	// Strs, when set, are the only values a string attribute may take.
	Strs []string
	// Ints, when set, are the only values an int attribute may take.
	Ints []int64
}

var bools = []int64{0, 1}

func spec(name string, k AttrKind) AttrSpec { return AttrSpec{Name: name, Kind: k} }

// opAttrs maps each core op to the attributes it takes; ops not listed take
// none.
var opAttrs = map[string][]AttrSpec{
	"Gelu":        {{Name: "approximate", Kind: AttrString, Strs: []string{"none", "tanh"}}},
	"Clip":        {spec("min", AttrFloat), spec("max", AttrFloat)},
	"HardSigmoid": {spec("alpha", AttrFloat), spec("beta", AttrFloat)},
	"Gemm": {spec("alpha", AttrFloat), spec("beta", AttrFloat),
		{Name: "transA", Kind: AttrInt, Ints: bools}, {Name: "transB", Kind: AttrInt, Ints: bools}},
	"Conv": {spec("dilations", AttrInts), spec("pads", AttrInts), spec("strides", AttrInts),
		spec("group", AttrInt), spec("kernel_shape", AttrInts)},
	"ConvTranspose": {spec("dilations", AttrInts), spec("pads", AttrInts), spec("strides", AttrInts),
		spec("group", AttrInt), spec("kernel_shape", AttrInts), spec("output_padding", AttrInts)},
	"BatchNorm":  {spec("epsilon", AttrFloat)},
	"LayerNorm":  {spec("axis", AttrInt), spec("epsilon", AttrFloat)},
	"RMSNorm":    {spec("axis", AttrInt), spec("epsilon", AttrFloat)},
	"Softmax":    {spec("axis", AttrInt)},
	"LogSoftmax": {spec("axis", AttrInt)},
	"MaxPool": {spec("kernel_shape", AttrInts), spec("strides", AttrInts), spec("pads", AttrInts),
		spec("dilations", AttrInts), {Name: "ceil_mode", Kind: AttrInt, Ints: bools}},
	"AveragePool": {spec("kernel_shape", AttrInts), spec("strides", AttrInts), spec("pads", AttrInts),
		spec("dilations", AttrInts), {Name: "ceil_mode", Kind: AttrInt, Ints: bools},
		{Name: "count_include_pad", Kind: AttrInt, Ints: bools}},
	"Concat":    {spec("axis", AttrInt)},
	"Split":     {spec("axis", AttrInt), spec("split", AttrInts), spec("num_outputs", AttrInt)},
	"Transpose": {spec("perm", AttrInts)},
	"Gather":    {spec("axis", AttrInt)},
	"Expand":    {spec("shape", AttrInts)},
	"Pad":       {spec("pads", AttrInts), spec("value", AttrFloat), {Name: "mode", Kind: AttrString, Strs: []string{"constant"}}},
	"Slice":     {spec("starts", AttrInts), spec("ends", AttrInts), spec("axes", AttrInts), spec("steps", AttrInts)},
	"Cast":      {{Name: "to", Kind: AttrString, Strs: dtypeNames[1:]}},
	"Reshape":   {spec("shape", AttrInts)},
	"Flatten":   {spec("axis", AttrInt)},
	"Squeeze":   {spec("axes", AttrInts)},
	"Unsqueeze": {spec("axes", AttrInts)},
}

func init() {
	for _, r := range []string{"ReduceMean", "ReduceSum", "ReduceMax"} {
		opAttrs[r] = []AttrSpec{spec("axes", AttrInts), {Name: "keepdims", Kind: AttrInt, Ints: bools}}
	}
	for name, specs := range opAttrs {
		if o, ok := opTable[name]; ok {
			o.Attrs = specs
		}
	}
}

var kindWords = [...]string{AttrInt: "int", AttrInts: "ints", AttrFloat: "float", AttrFloats: "floats", AttrString: "str"}

func (k AttrKind) word() string {
	if int(k) < len(kindWords) && kindWords[k] != "" {
		return kindWords[k]
	}
	return fmt.Sprintf("kind %d", k)
}

// checkAttrs returns one error per attribute of a node of op info that the
// op does not take, has the wrong kind, or has a value outside its
// enumeration, in attribute name order.
func checkAttrs(info *OpInfo, a Attrs) []error {
	var errs []error
	for _, name := range a.Keys() {
		v := a[name]
		i := slices.IndexFunc(info.Attrs, func(s AttrSpec) bool { return s.Name == name })
		if i < 0 {
			takes := "none"
			if len(info.Attrs) > 0 {
				names := make([]string, len(info.Attrs))
				for k, s := range info.Attrs {
					names[k] = s.Name
				}
				takes = strings.Join(names, ", ")
			}
			errs = append(errs, fmt.Errorf("attribute %q: %s takes no such attribute (it takes: %s): %w", name, info.Name, takes, ErrAttr))
			continue
		}
		s := info.Attrs[i]
		switch {
		case v.Kind != s.Kind:
			errs = append(errs, fmt.Errorf("attribute %q: %s, %s wants %s: %w", name, v.Kind.word(), info.Name, s.Kind.word(), ErrAttr))
		case s.Strs != nil && !slices.Contains(s.Strs, v.Str):
			errs = append(errs, fmt.Errorf("attribute %q: %q is not one of %s: %w", name, v.Str, strings.Join(s.Strs, ", "), ErrAttr))
		case s.Ints != nil && !slices.Contains(s.Ints, v.Int):
			errs = append(errs, fmt.Errorf("attribute %q: %d is not one of %v: %w", name, v.Int, s.Ints, ErrAttr))
		}
	}
	return errs
}

package ir

import (
	"fmt"
	"sort"
	"strings"
)

// ValueID is a dense index into Graph.Values.
type ValueID int32

// NodeID is a dense index into Graph.Nodes.
type NodeID int32

// NoNode is the Producer of a value that no node produces (inputs, weights,
// constants, and views declared directly on another value).
const NoNode NodeID = -1

// Flags mark values whose storage the planner must treat specially.
type Flags uint8

// Value flags. Input, Weight and Constant values are external by default:
// they are not placed in the arena. Output values live to the end of the
// schedule. Pinned values are never shared with another buffer; each pin has a
// reason (Value.PinReason) that reports print.
const (
	FlagInput Flags = 1 << iota
	FlagOutput
	FlagWeight
	FlagConstant
	FlagPinned
)

var flagNames = []string{"input", "output", "weight", "constant", "pinned"}

// Has reports whether every flag in f2 is set in f.
func (f Flags) Has(f2 Flags) bool { return f&f2 == f2 }

// Names returns the flag names in a fixed order ("input", "output", ...).
func (f Flags) Names() []string {
	var out []string
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// String joins the flag names with "|".
func (f Flags) String() string { return strings.Join(f.Names(), "|") }

// ParseFlag maps one flag name to its Flags bit.
func ParseFlag(s string) (Flags, error) {
	for i, n := range flagNames {
		if n == s {
			return 1 << i, nil
		}
	}
	return 0, fmt.Errorf("ir: unknown flag %q: %w", s, ErrFlags)
}

// View says that a value is a byte window of another value (its Base).
//
// Element i (a multi-index) of the view lives at byte
//
//	start(Base) + OffsetBytes + sum_k i[k]*StridesBytes[k]
//
// where start(Base) is the base's own start inside its root. StridesBytes nil
// means contiguous row-major. A chain of views resolves to a root value with
// an accumulated offset ([Graph.Root]). Every byte a view can address must lie
// inside its root; Validate checks it.
type View struct {
	Base         ValueID
	OffsetBytes  int64
	StridesBytes []int64
}

// IsContiguous reports whether the view has row-major strides for shape s and element size elem.
func (v *View) IsContiguous(s Shape, elem int64) bool {
	if v.StridesBytes == nil {
		return true
	}
	want := ContiguousStrides(s, elem)
	if len(want) != len(v.StridesBytes) {
		return false
	}
	for i := range want {
		if s[i] > 1 && want[i] != v.StridesBytes[i] {
			return false
		}
	}
	return true
}

// Value is a tensor: an input, a weight or constant, a node's result, or a view.
type Value struct {
	ID        ValueID
	Name      string
	DType     DType
	Shape     Shape
	Flags     Flags
	PinReason string // why the value is pinned; required when FlagPinned is set
	// Data holds raw little-endian bytes for weights and constants, or nil
	// when the file carries only the shape.
	Data []byte
	// View is non-nil when this value is a byte window of another value.
	View *View
	// Producer is the node that produces the value, or NoNode.
	Producer NodeID
}

// Type returns the value's dtype and shape.
func (v *Value) Type() TensorType { return TensorType{v.DType, v.Shape} }

// Bytes returns the dense byte size of the value (shape x element size).
func (v *Value) Bytes() (int64, error) { return ByteSize(v.DType, v.Shape) }

// IsView reports whether the value is a window of another value.
func (v *Value) IsView() bool { return v.View != nil }

// IsExternal reports whether the value is an input, weight or constant: its
// storage is supplied by the caller rather than planned by default.
func (v *Value) IsExternal() bool { return v.Flags&(FlagInput|FlagWeight|FlagConstant) != 0 }

// Node is one operation. Outputs are ordered (Split has several).
type Node struct {
	ID      NodeID
	Name    string
	Op      string
	Inputs  []ValueID
	Outputs []ValueID
	Attrs   Attrs
	// KeepAlive lists values this node holds live without reading them as an
	// input: an explicit real use, so liveness extends their range to this
	// node's step. It also orders the node after the values' producers.
	KeepAlive []ValueID
	// Opaque marks an op outside the core set (for example imported from
	// ONNX): its outputs' types are taken as given and it cannot run.
	Opaque bool
}

// Graph is a set of values and the nodes that connect them. IDs are dense:
// Values[i].ID == i and Nodes[i].ID == i.
type Graph struct {
	Name   string
	Values []*Value
	Nodes  []*Node
	// Order is an explicit schedule, or nil for the deterministic
	// topological one ([Graph.Schedule]).
	Order []NodeID
}

// Value returns the value with the given ID, or nil when it is out of range.
func (g *Graph) Value(id ValueID) *Value {
	if id < 0 || int(id) >= len(g.Values) {
		return nil
	}
	return g.Values[id]
}

// Node returns the node with the given ID, or nil when it is out of range.
func (g *Graph) Node(id NodeID) *Node {
	if id < 0 || int(id) >= len(g.Nodes) {
		return nil
	}
	return g.Nodes[id]
}

// Root follows a chain of views to the value that owns the storage and
// returns it with the accumulated byte offset of id's start inside the root.
// A value that is not a view is its own root at offset 0. A broken or cyclic
// chain returns an error.
func (g *Graph) Root(id ValueID) (ValueID, int64, error) {
	off := int64(0)
	cur := id
	for steps := 0; ; steps++ {
		v := g.Value(cur)
		if v == nil {
			return 0, 0, &ValueError{Value: cur, Err: ErrUndefined}
		}
		if v.View == nil {
			return cur, off, nil
		}
		if steps > len(g.Values) {
			return 0, 0, &ValueError{Value: id, Name: g.Values[id].Name, Err: fmt.Errorf("view chain: %w", ErrCycle)}
		}
		off += v.View.OffsetBytes
		cur = v.View.Base
	}
}

// Consumers returns, for every value, the nodes that read it as an input or
// keep it alive, in ascending node ID without repeats.
func (g *Graph) Consumers() [][]NodeID {
	out := make([][]NodeID, len(g.Values))
	for _, n := range g.Nodes {
		if n == nil {
			continue
		}
		for _, lists := range [2][]ValueID{n.Inputs, n.KeepAlive} {
			for _, v := range lists {
				if g.Value(v) == nil {
					continue
				}
				if l := out[v]; len(l) == 0 || l[len(l)-1] != n.ID {
					out[v] = append(out[v], n.ID)
				}
			}
		}
	}
	return out
}

// ValuesWith returns the IDs of values with every flag in f set, ascending.
func (g *Graph) ValuesWith(f Flags) []ValueID {
	var ids []ValueID
	for _, v := range g.Values {
		if v != nil && v.Flags.Has(f) {
			ids = append(ids, v.ID)
		}
	}
	return ids
}

// AttrKind says which field of an Attr is set.
type AttrKind uint8

// Attribute kinds.
const (
	AttrInt AttrKind = iota + 1
	AttrInts
	AttrFloat
	AttrFloats
	AttrString
)

// Attr is one typed attribute value.
type Attr struct {
	Kind   AttrKind
	Int    int64
	Ints   []int64
	Float  float64
	Floats []float64
	Str    string
}

// Int returns an integer attribute.
func Int(v int64) Attr { return Attr{Kind: AttrInt, Int: v} }

// Ints returns an integer-list attribute.
func Ints(v ...int64) Attr { return Attr{Kind: AttrInts, Ints: append([]int64{}, v...)} }

// Float returns a float attribute.
func Float(v float64) Attr { return Attr{Kind: AttrFloat, Float: v} }

// Floats returns a float-list attribute.
func Floats(v ...float64) Attr { return Attr{Kind: AttrFloats, Floats: append([]float64{}, v...)} }

// Str returns a string attribute.
func Str(v string) Attr { return Attr{Kind: AttrString, Str: v} }

// Attrs maps attribute names to values.
type Attrs map[string]Attr

// Keys returns the attribute names sorted, for deterministic iteration.
func (a Attrs) Keys() []string {
	ks := make([]string, 0, len(a))
	for k := range a {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// GetInt returns an integer attribute or def when absent.
func (a Attrs) GetInt(name string, def int64) int64 {
	if v, ok := a[name]; ok && v.Kind == AttrInt {
		return v.Int
	}
	return def
}

// GetInts returns an integer-list attribute or def when absent.
func (a Attrs) GetInts(name string, def []int64) []int64 {
	if v, ok := a[name]; ok && v.Kind == AttrInts {
		return v.Ints
	}
	return def
}

// GetFloat returns a float attribute or def when absent.
func (a Attrs) GetFloat(name string, def float64) float64 {
	if v, ok := a[name]; ok && v.Kind == AttrFloat {
		return v.Float
	}
	return def
}

// GetFloats returns a float-list attribute or def when absent.
func (a Attrs) GetFloats(name string, def []float64) []float64 {
	if v, ok := a[name]; ok && v.Kind == AttrFloats {
		return v.Floats
	}
	return def
}

// GetStr returns a string attribute or def when absent.
func (a Attrs) GetStr(name string, def string) string {
	if v, ok := a[name]; ok && v.Kind == AttrString {
		return v.Str
	}
	return def
}

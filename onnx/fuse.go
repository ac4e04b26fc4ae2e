package onnx

// Fusion of exported decompositions.
//
// Exporters targeting an opset without LayerNormalization (< 17), Gelu
// (< 20) or RMSNormalization (< 23) write them out as chains of small ops;
// torch 1.13 at opset 13 gives, for nn.LayerNorm,
//
//	m = ReduceMean(x, axes=[-1])      d = Sub(x, m)       p = Pow(d, 2)
//	v = ReduceMean(p, axes=[-1])      a = Add(v, eps)     s = Sqrt(a)
//	n = Div(d, s)                     y = Mul(n, gamma)   z = Add(y, beta)
//
// nine dispatches and eight intermediate tensors where memplan has one
// LayerNorm op. With Options.Fuse the importer rewrites the node list before
// importing it: each chain whose intermediates are read only inside the
// chain becomes one node (LayerNormalization, Gelu, RMSNormalization) at
// the position of the chain's last node, which is a valid topological
// position since every input of the chain is defined before its first node.
// Constants the chain used stay in the list and, unread, never reach the
// graph. Patterns accept either operand order of Add and Mul.
//
//	LayerNorm  the chain above (reduce over the last axis)
//	GELU       Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5)
//	RMSNorm    Mul(Mul(x, Div(1, Sqrt(Add(ReduceMean(Pow(x, 2)), eps)))), w)
//	           (also with Reciprocal(Sqrt(...)))

import (
	"math"
	"slices"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
)

// fuser matches patterns over one graph's node list.
type fuser struct {
	nodes   []*onnxpb.NodeProto
	prod    map[string]int     // output name -> producing node index
	uses    map[string]int     // name -> number of reads (node inputs, graph outputs)
	scalars map[string]float64 // names of one-element float/int constants and their value
	dims    map[string][]int64 // static shapes known before import (value_info, inputs, initializers)
	dead    map[int]bool       // nodes a fusion removed
	repl    map[int]*onnxpb.NodeProto
}

// fuseNodes returns the node list with every recognised chain replaced.
func fuseNodes(g *onnxpb.GraphProto, uses map[string]int, declared map[string]ir.TensorType) []*onnxpb.NodeProto {
	f := &fuser{nodes: g.GetNode(), prod: map[string]int{}, uses: uses, scalars: map[string]float64{},
		dims: map[string][]int64{}, dead: map[int]bool{}, repl: map[int]*onnxpb.NodeProto{}}
	for name, t := range declared {
		f.dims[name] = t.Shape
	}
	for _, t := range g.GetInitializer() {
		if v, ok := scalarOf(t); ok {
			f.scalars[t.GetName()] = v
		}
		f.dims[t.GetName()] = t.GetDims()
	}
	for i, n := range f.nodes {
		for _, o := range n.GetOutput() {
			f.prod[o] = i
		}
		if n.GetOpType() == "Constant" && n.GetDomain() == "" && len(n.GetOutput()) == 1 {
			for _, a := range n.GetAttribute() {
				switch a.GetName() {
				case "value":
					if v, ok := scalarOf(a.GetT()); ok {
						f.scalars[n.GetOutput()[0]] = v
					}
				case "value_float":
					f.scalars[n.GetOutput()[0]] = float64(a.GetF())
				case "value_int":
					f.scalars[n.GetOutput()[0]] = float64(a.GetI())
				}
			}
		}
	}
	for i := range f.nodes {
		if f.dead[i] {
			continue
		}
		for _, m := range []func(int) bool{f.layerNorm, f.gelu, f.rmsNorm} {
			if m(i) {
				break
			}
		}
	}
	if len(f.repl) == 0 {
		return f.nodes
	}
	out := make([]*onnxpb.NodeProto, 0, len(f.nodes))
	for i, n := range f.nodes {
		switch {
		case f.repl[i] != nil:
			out = append(out, f.repl[i])
		case !f.dead[i]:
			out = append(out, n)
		}
	}
	return out
}

// scalarOf decodes a one-element f32/f64/i64/i32 tensor.
func scalarOf(t *onnxpb.TensorProto) (float64, bool) {
	if t == nil {
		return 0, false
	}
	dec, err := DecodeTensor(t)
	if err != nil || dec.Data == nil || !foldable(dec.DType) {
		return 0, false
	}
	if n, _ := dec.Shape.NumElements(); n != 1 {
		return 0, false
	}
	k, err := konstFromBytes(dec.DType, dec.Shape, dec.Data)
	if err != nil {
		return 0, false
	}
	return k.f(0), true
}

// node returns the live node producing name with the given op (default
// domain), or -1.
func (f *fuser) node(name, op string) int {
	i, ok := f.prod[name]
	if !ok || name == "" || f.dead[i] || f.repl[i] != nil {
		return -1
	}
	n := f.nodes[i]
	if n.GetOpType() != op || n.GetDomain() != "" || len(n.GetOutput()) != 1 {
		return -1
	}
	return i
}

// inner reports whether name is read exactly want times (only by the chain).
func (f *fuser) inner(name string, want int) bool { return f.uses[name] == want }

// in returns input k of node i, or "".
func (f *fuser) in(i, k int) string {
	if ins := f.nodes[i].GetInput(); k < len(ins) {
		return ins[k]
	}
	return ""
}

// isScalar reports whether name is a known constant close to v.
func (f *fuser) isScalar(name string, v float64) bool {
	s, ok := f.scalars[name]
	return ok && math.Abs(s-v) <= 1e-6*math.Max(1, math.Abs(v))
}

// split2 returns the operands of a commutative binary node with the one
// that satisfies pick first.
func (f *fuser) split2(i int, pick func(string) bool) (string, string, bool) {
	a, b := f.in(i, 0), f.in(i, 1)
	switch {
	case pick(a):
		return a, b, true
	case pick(b):
		return b, a, true
	}
	return "", "", false
}

// lastAxisMean reports whether node i is ReduceMean over the last axis with
// keepdims (the attribute form of opsets < 18).
func (f *fuser) lastAxisMean(i int) bool {
	n := f.nodes[i]
	if len(n.GetInput()) != 1 {
		return false
	}
	axes, keep := []int64(nil), int64(1)
	for _, a := range n.GetAttribute() {
		switch a.GetName() {
		case "axes":
			axes = a.GetInts()
		case "keepdims":
			keep = a.GetI()
		}
	}
	return keep == 1 && len(axes) == 1 && axes[0] == -1
}

// lastAxisParams reports whether every name is a 1-D tensor as long as x's
// last axis: the shape memplan's norm ops take for their parameters.
func (f *fuser) lastAxisParams(x string, names ...string) bool {
	xs, ok := f.dims[x]
	if !ok || len(xs) == 0 {
		return false
	}
	for _, n := range names {
		if d, ok := f.dims[n]; !ok || !slices.Equal(d, xs[len(xs)-1:]) {
			return false
		}
	}
	return true
}

func (f *fuser) replace(last int, chain []int, n *onnxpb.NodeProto) {
	for _, i := range chain {
		f.dead[i] = true
	}
	f.dead[last] = false
	n.Output = []string{f.nodes[last].GetOutput()[0]}
	n.Name = proto.String(f.nodes[last].GetName())
	f.repl[last] = n
}

func floatAttr(name string, v float64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(float32(v))}
}

func intAttr(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

// layerNorm matches the chain ending in z = Add(Mul(Div(d, s), gamma), beta).
func (f *fuser) layerNorm(zi int) bool {
	if f.nodes[zi].GetOpType() != "Add" || f.nodes[zi].GetDomain() != "" {
		return false
	}
	isMul := func(name string) bool { return f.node(name, "Mul") >= 0 && f.inner(name, 1) }
	y, beta, ok := f.split2(zi, isMul)
	if !ok {
		return false
	}
	yi := f.node(y, "Mul")
	isDiv := func(name string) bool { return f.node(name, "Div") >= 0 && f.inner(name, 1) }
	n, gamma, ok := f.split2(yi, isDiv)
	if !ok {
		return false
	}
	ni := f.node(n, "Div")
	d, s := f.in(ni, 0), f.in(ni, 1)
	si := f.node(s, "Sqrt")
	di := f.node(d, "Sub")
	if si < 0 || di < 0 || !f.inner(s, 1) || !f.inner(d, 2) {
		return false
	}
	isMean := func(name string) bool {
		i := f.node(name, "ReduceMean")
		return i >= 0 && f.inner(name, 1) && f.lastAxisMean(i)
	}
	ai := f.node(f.in(si, 0), "Add")
	if ai < 0 || !f.inner(f.in(si, 0), 1) {
		return false
	}
	v, eps, ok := f.split2(ai, isMean)
	if !ok {
		return false
	}
	epsv, ok := f.scalars[eps]
	if !ok {
		return false
	}
	vi := f.node(v, "ReduceMean")
	p := f.in(vi, 0)
	pi := f.node(p, "Pow")
	if pi < 0 || !f.inner(p, 1) || f.in(pi, 0) != d || !f.isScalar(f.in(pi, 1), 2) {
		return false
	}
	x, m := f.in(di, 0), f.in(di, 1)
	mi := f.node(m, "ReduceMean")
	if mi < 0 || !f.inner(m, 1) || !f.lastAxisMean(mi) || f.in(mi, 0) != x || !f.lastAxisParams(x, gamma, beta) {
		return false
	}
	f.replace(zi, []int{mi, di, pi, vi, ai, si, ni, yi}, &onnxpb.NodeProto{
		OpType: proto.String("LayerNormalization"), Input: []string{x, gamma, beta},
		Attribute: []*onnxpb.AttributeProto{intAttr("axis", -1), floatAttr("epsilon", epsv)}})
	return true
}

// gelu matches e = Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5).
func (f *fuser) gelu(ei int) bool {
	if f.nodes[ei].GetOpType() != "Mul" || f.nodes[ei].GetDomain() != "" {
		return false
	}
	d, half, ok := f.split2(ei, func(name string) bool { return f.node(name, "Mul") >= 0 && f.inner(name, 1) })
	if !ok || !f.isScalar(half, 0.5) {
		return false
	}
	di := f.node(d, "Mul")
	c, x, ok := f.split2(di, func(name string) bool { return f.node(name, "Add") >= 0 && f.inner(name, 1) })
	if !ok {
		return false
	}
	ci := f.node(c, "Add")
	b, one, ok := f.split2(ci, func(name string) bool { return f.node(name, "Erf") >= 0 && f.inner(name, 1) })
	if !ok || !f.isScalar(one, 1) {
		return false
	}
	bi := f.node(b, "Erf")
	a := f.in(bi, 0)
	ai := f.node(a, "Div")
	if ai < 0 || !f.inner(a, 1) || f.in(ai, 0) != x || !f.isScalar(f.in(ai, 1), math.Sqrt2) {
		return false
	}
	f.replace(ei, []int{ai, bi, ci, di}, &onnxpb.NodeProto{OpType: proto.String("Gelu"), Input: []string{x}})
	return true
}

// rmsNorm matches z = Mul(Mul(x, r), w) with r = 1/Sqrt(Add(ReduceMean(Pow(x, 2)), eps)).
func (f *fuser) rmsNorm(zi int) bool {
	if f.nodes[zi].GetOpType() != "Mul" || f.nodes[zi].GetDomain() != "" {
		return false
	}
	// The inner Mul is the one that reads a reciprocal square root.
	var x, w string
	var yi, ri int
	found := false
	for k := range 2 {
		y := f.in(zi, k)
		yi = f.node(y, "Mul")
		if yi < 0 || !f.inner(y, 1) {
			continue
		}
		for j := range 2 {
			cand := f.in(yi, j)
			if i := f.rsqrt(cand); i >= 0 && f.inner(cand, 1) {
				x, ri, w, found = f.in(yi, 1-j), i, f.in(zi, 1-k), true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		return false
	}
	rn := f.nodes[ri]
	if len(rn.GetInput()) == 0 {
		return false
	}
	s := rn.GetInput()[len(rn.GetInput())-1]
	si := f.node(s, "Sqrt")
	if si < 0 || !f.inner(s, 1) {
		return false
	}
	a := f.in(si, 0)
	ai := f.node(a, "Add")
	if ai < 0 || !f.inner(a, 1) {
		return false
	}
	m, eps, ok := f.split2(ai, func(name string) bool {
		i := f.node(name, "ReduceMean")
		return i >= 0 && f.inner(name, 1) && f.lastAxisMean(i)
	})
	if !ok {
		return false
	}
	epsv, ok := f.scalars[eps]
	if !ok {
		return false
	}
	mi := f.node(m, "ReduceMean")
	p := f.in(mi, 0)
	pi := f.node(p, "Pow")
	if pi < 0 || !f.inner(p, 1) || f.in(pi, 0) != x || !f.isScalar(f.in(pi, 1), 2) || !f.lastAxisParams(x, w) {
		return false
	}
	f.replace(zi, []int{pi, mi, ai, si, ri, yi}, &onnxpb.NodeProto{
		OpType: proto.String("RMSNormalization"), Input: []string{x, w},
		Attribute: []*onnxpb.AttributeProto{intAttr("axis", -1), floatAttr("epsilon", epsv)}})
	return true
}

// rsqrt returns the index of the node computing name as Div(1, s) or
// Reciprocal(s), or -1.
func (f *fuser) rsqrt(name string) int {
	if i := f.node(name, "Div"); i >= 0 && f.isScalar(f.in(i, 0), 1) {
		return i
	}
	return f.node(name, "Reciprocal")
}

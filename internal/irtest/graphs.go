package irtest

import (
	"fmt"
	"strings"

	"github.com/memplan/memplan/ir"
)

// Testdata names the graphs written to the repository's testdata/*.json, in
// the fixture language. TestGoldenTestdata checks the files against these
// sources; `go test ./internal/irtest -run Golden -update` rewrites them.
var Testdata = map[string]string{
	"mlp":               mlp,
	"transformer_block": transformerBlock,
	"resnet_block":      resnetBlock,
	"wide_diamond":      wideDiamond(16),
	"views":             views,
	"inplace":           inplace,
}

// Graph builds one of the Testdata graphs by name.
func Graph(name string) (*ir.Graph, error) {
	src, ok := Testdata[name]
	if !ok {
		return nil, fmt.Errorf("irtest: graph %q: %w", name, ErrNoGraph)
	}
	g, _, err := Build(src)
	return g, err
}

// A three-layer perceptron on a batch of 32 MNIST-sized images; the last
// bias carries data.
const mlp = `graph mlp
x = input f32[32,784]
w1 = weight f32[784,256]
b1 = weight f32[256]
w2 = weight f32[256,128]
b2 = weight f32[128]
w3 = weight f32[128,10]
b3 = weight f32[10] data=[0.5,-0.5,0.25,-0.25,0.125,-0.125,1,-1,2,-2]
h1 = MatMul x w1
a1 = Add h1 b1
r1 = Relu a1
h2 = MatMul r1 w2
a2 = Add h2 b2
r2 = Relu a2
h3 = MatMul r2 w3
logits = Add h3 b3
probs = Softmax logits axis=-1
output probs
`

// One pre-norm transformer block: 4-head causal self-attention over 64
// tokens of width 256, then a GELU MLP of width 1024. Head split and merge
// are Reshape views around Transpose copies.
const transformerBlock = `graph transformer_block
x = input f32[1,64,256]
ln1_g = weight f32[256]
ln1_b = weight f32[256]
wq = weight f32[256,256]
wk = weight f32[256,256]
wv = weight f32[256,256]
wo = weight f32[256,256]
scale = constant f32[] data=[0.125]
mask = weight f32[1,1,64,64]
ln2_g = weight f32[256]
ln2_b = weight f32[256]
w1 = weight f32[256,1024]
b1 = weight f32[1024]
w2 = weight f32[1024,256]
b2 = weight f32[256]
ln1 = LayerNorm x ln1_g ln1_b axis=-1 epsilon=1e-05
q = MatMul ln1 wq
k = MatMul ln1 wk
v = MatMul ln1 wv
q4 = Reshape q shape=[1,64,4,64]
k4 = Reshape k shape=[1,64,4,64]
v4 = Reshape v shape=[1,64,4,64]
qh = Transpose q4 perm=[0,2,1,3]
kt = Transpose k4 perm=[0,2,3,1]
vh = Transpose v4 perm=[0,2,1,3]
scores = MatMul qh kt
scaled = Mul scores scale
masked = Add scaled mask
probs = Softmax masked axis=-1
ctx = MatMul probs vh
ctxt = Transpose ctx perm=[0,2,1,3]
merged = Reshape ctxt shape=[1,64,256]
attn = MatMul merged wo
res1 = Add x attn
ln2 = LayerNorm res1 ln2_g ln2_b axis=-1 epsilon=1e-05
f1 = MatMul ln2 w1
f1b = Add f1 b1
act = Gelu f1b approximate=tanh
f2 = MatMul act w2
f2b = Add f2 b2
y = Add res1 f2b
output y
`

// Two residual basic blocks of a ResNet stage on 32x32 feature maps: an
// identity block, then a stride-2 block with a projection shortcut, then
// global pooling and a classifier.
const resnetBlock = `graph resnet_block
x = input f32[1,64,32,32]
c1w = weight f32[64,64,3,3]
bn1s = weight f32[64]
bn1b = weight f32[64]
bn1m = weight f32[64]
bn1v = weight f32[64]
c2w = weight f32[64,64,3,3]
bn2s = weight f32[64]
bn2b = weight f32[64]
bn2m = weight f32[64]
bn2v = weight f32[64]
c3w = weight f32[128,64,3,3]
bn3s = weight f32[128]
bn3b = weight f32[128]
bn3m = weight f32[128]
bn3v = weight f32[128]
c4w = weight f32[128,128,3,3]
bn4s = weight f32[128]
bn4b = weight f32[128]
bn4m = weight f32[128]
bn4v = weight f32[128]
dsw = weight f32[128,64,1,1]
dss = weight f32[128]
dsb = weight f32[128]
dsm = weight f32[128]
dsv = weight f32[128]
fcw = weight f32[10,128]
fcb = weight f32[10]
c1 = Conv x c1w strides=[1,1] pads=[1,1,1,1]
n1 = BatchNorm c1 bn1s bn1b bn1m bn1v
r1 = Relu n1
c2 = Conv r1 c2w strides=[1,1] pads=[1,1,1,1]
n2 = BatchNorm c2 bn2s bn2b bn2m bn2v
s1 = Add n2 x
o1 = Relu s1
c3 = Conv o1 c3w strides=[2,2] pads=[1,1,1,1]
n3 = BatchNorm c3 bn3s bn3b bn3m bn3v
r3 = Relu n3
c4 = Conv r3 c4w strides=[1,1] pads=[1,1,1,1]
n4 = BatchNorm c4 bn4s bn4b bn4m bn4v
ds = Conv o1 dsw strides=[2,2]
dn = BatchNorm ds dss dsb dsm dsv
s2 = Add n4 dn
o2 = Relu s2
pool = GlobalAveragePool o2
flat = Flatten pool axis=1
logits = Gemm flat fcw fcb transB=1
output logits
`

// wideDiamond fans one input out to n independent MatMul+Relu branches of
// 64x256x128 (4.2 MFLOP each), then joins them twice: an Add tree, and a
// Concat followed by a projection.
func wideDiamond(n int) string {
	var b strings.Builder
	b.WriteString("graph wide_diamond\nx = input f32[64,256]\n")
	for i := range n {
		fmt.Fprintf(&b, "w%d = weight f32[256,128]\n", i)
	}
	b.WriteString("wout = weight f32[2048,128]\n")
	var level []string
	for i := range n {
		fmt.Fprintf(&b, "m%d = MatMul x w%d\nr%d = Relu m%d\n", i, i, i, i)
		level = append(level, fmt.Sprintf("r%d", i))
	}
	fmt.Fprintf(&b, "cat = Concat %s axis=1\n", strings.Join(level, " "))
	for d := 0; len(level) > 1; d++ {
		var next []string
		for i := 0; i+1 < len(level); i += 2 {
			name := fmt.Sprintf("sum%d_%d", d, i/2)
			fmt.Fprintf(&b, "%s = Add %s %s\n", name, level[i], level[i+1])
			next = append(next, name)
		}
		level = next
	}
	b.WriteString("proj = MatMul cat wout\n")
	fmt.Fprintf(&b, "y = Add proj %s\noutput y\n", level[0])
	return b.String()
}

// Explicit views of an input and of an intermediate: row blocks, a column
// band (strided), a view nested in a view, a reversed-rows view (negative
// stride), a transposed view, and the view ops Slice, Reshape and Flatten.
const views = `graph views
x = input f32[8,16]
w = weight f32[8,8]
top = view x +0 f32[4,16]
band = view x +16 f32[8,4] strides=[64,4]
odd = view top +64 f32[2,8] strides=[128,4]
rev = view x +448 f32[8,16] strides=[-64,4]
h = Relu x
bottom = view h +256 f32[4,16]
ht = view h +0 f32[16,8] strides=[4,64]
mid = Slice h starts=[2] ends=[6] axes=[0]
flat = Flatten mid axis=0
r = Reshape bottom shape=[8,8]
a = Relu band
b = Neg odd
c = Add rev h
d = MatMul ht w
e = Mul r w
f = Sigmoid flat
output a b c d e f
`

// Chains of elementwise ops, where the planner may write an output over
// its dying input. Some inputs stay live (t2 is read twice and is an
// output), one value is pinned, and a broadcast Add whose output is larger
// than its first input is not an in-place candidate.
const inplace = `graph inplace
x = input f32[256,256]
w = weight f32[256,256]
bias = weight f32[256]
gamma = weight f32[256]
h = MatMul x w
t1 = Add h bias
t2 = Relu t1
t3 = Neg t2
t4 = Exp t3
t5 = Mul t4 t2
t6 = Tanh t5
t7 = Softmax t6 axis=-1
t8 = Sigmoid t7
ln = RMSNorm t8 gamma
grow = Add bias ln
out = HardSwish grow
output t2 out
pin t3 "debug tap read by the host"
keep t6 h
`

package metal

// Argument structs: the Go mirrors of the MSL structs each kernel takes at
// buffer index 0 (setBytes). Every field is a 4-byte int32 or float32, or a
// Tensor (itself 4-byte fields only), so Go and MSL lay them out the same
// way with no padding: field k sits at the sum of the sizes before it. The
// .metal sources carry the same table as `// layout` comments, and
// params_test.go checks Go offsets, the comment table and the MSL struct
// declarations against each other.

import (
	"bytes"
	"encoding/binary"
	"reflect"
)

// Op codes shared with the MSL switch statements (kernels/*.metal).
const (
	unaryRelu int32 = iota
	unarySigmoid
	unaryTanh
	unaryGeluErf
	unaryGeluTanh
	unarySilu
	unaryErf
	unarySqrt
	unaryNeg
	unaryExp
	unaryLog
	unaryAbs
	unarySin
	unaryCos
	unaryReciprocal
	unaryClip
	unaryHardSigmoid
	unaryHardSwish
)

const (
	binaryAdd int32 = iota
	binarySub
	binaryMul
	binaryDiv
	binaryPow
	binaryMax
	binaryMin
	binaryEqual
	binaryLess
	binaryGreater
)

const (
	rowSoftmax int32 = iota
	rowLogSoftmax
	rowLayerNorm
	rowRMSNorm
	rowReduceSum
	rowReduceMean
	rowReduceMax
)

const (
	poolMax int32 = iota
	poolAvg
)

// dtype codes for the cast kernel.
const (
	castF32 int32 = iota
	castF16
	castI64
	castI32
	castI8
	castU8
	castBool
)

// unaryParams: out[i] = f(in[i]) for i in [0, N).
type unaryParams struct {
	Op      int32
	N       int32
	Alpha   float32
	Beta    float32
	In, Out tensorDesc
}

// binaryParams: out[i] = a[i] op b[i], a and b broadcast to out's shape.
type binaryParams struct {
	Op        int32
	N         int32
	A, B, Out tensorDesc
}

// whereParams: out[i] = cond[i] ? x[i] : y[i], all broadcast to out.
type whereParams struct {
	N               int32
	Cond, X, Y, Out tensorDesc
}

// matmulParams: out[b,m,n] = alpha * sum_k a[b,m,k]*b[b,k,n] + beta*c[b,m,n]
// over Total = numel(out) threads; A is [batch..., M, K], B [batch..., K,
// N], C and Out [batch..., M, N], all of Out's rank.
type matmulParams struct {
	M, N, K, HasC int32
	Alpha, Beta   float32
	Total         int32
	A, B, C, Out  tensorDesc
}

// convParams: 2-D convolution (and, in convtranspose2d_f32, its transpose)
// one thread per output element. X is [N,C,H,W], W [M,C/G,KH,KW] (for the
// transpose [C,M/G,KH,KW]), Bias [M], Out [N,M,OH,OW].
type convParams struct {
	N, C, H, W, M, OH, OW, KH, KW int32
	SH, SW, PT, PL, DH, DW        int32
	Group, HasBias, Total         int32
	X, Wt, Bias, Out              tensorDesc
}

// poolParams: 2-D max or average pooling, one thread per output element.
// X is [N,C,H,W], Out [N,C,OH,OW].
type poolParams struct {
	Mode, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW int32
	IncludePad, H, W, Total                      int32
	X, Out                                       tensorDesc
}

// rowParams: one thread per row of a [Rows, Cols] view of X (softmax,
// layer and RMS norm, reductions). Element (r, c) of X is X's logical flat
// index r*Cols+c; Scale and Bias share X's logical shape (broadcast);
// Out is indexed like X for softmax and norms, by r for reductions.
type rowParams struct {
	Op, Rows, Cols, HasBias int32
	Eps                     float32
	X, Scale, Bias, Out     tensorDesc
}

// batchnormParams: out[i] = (x[i]-mean)/sqrt(var+eps)*scale + bias, the
// per-channel operands broadcast along every dimension but 1.
type batchnormParams struct {
	N                              int32
	Eps                            float32
	X, Scale, Bias, Mean, Var, Out tensorDesc
}

// copyParams: out[OutBase+tensor_offset(Out, i)] = in[InBase+tensor_offset(In, i)]; each
// descriptor decomposes i by its own shape, so a copy can reshape as it
// goes. The bases (in elements) place a piece of Concat, Split or Slice
// inside an operand that stays bound at its plan offset.
type copyParams struct {
	N, InBase, OutBase int32
	In, Out            tensorDesc
}

// castParams: copy converting dtype From to dtype To (cast codes).
type castParams struct {
	N, From, To int32
	In, Out     tensorDesc
}

// gatherParams: out[c] = x[c[:axis], idx[c[axis:axis+IdxRank]], c[axis+IdxRank:]]
// with negative indices counted from the end; an index out of [0, AxisLen)
// yields zero.
type gatherParams struct {
	N, Axis, IdxRank, AxisLen, IdxI64 int32
	X, Idx, Out                       tensorDesc
}

// padParams: constant padding; out[c] = in[c - Begin] inside, Value
// outside.
type padParams struct {
	N       int32
	Value   float32
	Begin   [MaxRank]int32
	In, Out tensorDesc
}

// paramTypes names each argument struct as its MSL struct is named.
var paramTypes = []struct {
	Name string
	Type reflect.Type
}{
	{"Tensor", reflect.TypeOf(tensorDesc{})},
	{"UnaryParams", reflect.TypeOf(unaryParams{})},
	{"BinaryParams", reflect.TypeOf(binaryParams{})},
	{"WhereParams", reflect.TypeOf(whereParams{})},
	{"MatMulParams", reflect.TypeOf(matmulParams{})},
	{"ConvParams", reflect.TypeOf(convParams{})},
	{"PoolParams", reflect.TypeOf(poolParams{})},
	{"RowParams", reflect.TypeOf(rowParams{})},
	{"BatchNormParams", reflect.TypeOf(batchnormParams{})},
	{"CopyParams", reflect.TypeOf(copyParams{})},
	{"CastParams", reflect.TypeOf(castParams{})},
	{"GatherParams", reflect.TypeOf(gatherParams{})},
	{"PadParams", reflect.TypeOf(padParams{})},
}

// encodeParams lays an argument struct out as the bytes setBytes sends
// (little-endian, as every Apple GPU is).
func encodeParams(p any) []byte {
	var buf bytes.Buffer
	// binary.Write cannot fail on a fixed-size struct into a bytes.Buffer.
	_ = binary.Write(&buf, binary.LittleEndian, p)
	return buf.Bytes()
}

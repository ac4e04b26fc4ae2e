package launch

// Argument structs: the Go mirrors of the MSL and CUDA C structs each kernel
// takes first (Metal: setBytes at buffer index 0; CUDA: a by-value
// parameter). Every field is a 4-byte int32 or float32, or a
// Tensor (itself 4-byte fields only), so Go, MSL and CUDA C lay them out the same
// way with no padding: field k sits at the sum of the sizes before it. The
// .metal sources carry the same table as `// layout` comments, and
// params_test.go checks Go offsets, the comment table and the MSL struct
// declarations against each other.

import (
	"bytes"
	"encoding/binary"
	"reflect"
)

// Op codes shared with the kernels' switch statements (exec/metal/kernels/*.metal,
// exec/cuda/kernels/*.cu).
const (
	UnaryRelu int32 = iota
	UnarySigmoid
	UnaryTanh
	UnaryGeluErf
	UnaryGeluTanh
	UnarySilu
	UnaryErf
	UnarySqrt
	UnaryNeg
	UnaryExp
	UnaryLog
	UnaryAbs
	UnarySin
	UnaryCos
	UnaryReciprocal
	UnaryClip
	UnaryHardSigmoid
	UnaryHardSwish
)

const (
	BinaryAdd int32 = iota
	BinarySub
	BinaryMul
	BinaryDiv
	BinaryPow
	BinaryMax
	BinaryMin
	BinaryEqual
	BinaryLess
	BinaryGreater
)

const (
	RowSoftmax int32 = iota
	RowLogSoftmax
	RowLayerNorm
	RowRMSNorm
	RowReduceSum
	RowReduceMean
	RowReduceMax
)

const (
	PoolMax int32 = iota
	PoolAvg
)

// dtype codes for the cast kernel.
const (
	CastF32 int32 = iota
	CastF16
	CastI64
	CastI32
	CastI8
	CastU8
	CastBool
)

// UnaryParams: out[i] = f(in[i]) for i in [0, N).
type UnaryParams struct {
	Op      int32
	N       int32
	Alpha   float32
	Beta    float32
	In, Out Tensor
}

// BinaryParams: out[i] = a[i] op b[i], a and b broadcast to out's shape.
type BinaryParams struct {
	Op        int32
	N         int32
	A, B, Out Tensor
}

// WhereParams: out[i] = cond[i] ? x[i] : y[i], all broadcast to out.
type WhereParams struct {
	N               int32
	Cond, X, Y, Out Tensor
}

// MatMulParams: out[b,m,n] = alpha * sum_k a[b,m,k]*b[b,k,n] + beta*c[b,m,n]
// over Total = Numel(out) threads; A is [batch..., M, K], B [batch..., K,
// N], C and Out [batch..., M, N], all of Out's rank.
type MatMulParams struct {
	M, N, K, HasC int32
	Alpha, Beta   float32
	Total         int32
	A, B, C, Out  Tensor
}

// ConvParams: 2-D convolution (and, in convtranspose2d_f32, its transpose)
// one thread per output element. X is [N,C,H,W], W [M,C/G,KH,KW] (for the
// transpose [C,M/G,KH,KW]), Bias [M], Out [N,M,OH,OW].
type ConvParams struct {
	N, C, H, W, M, OH, OW, KH, KW int32
	SH, SW, PT, PL, DH, DW        int32
	Group, HasBias, Total         int32
	X, Wt, Bias, Out              Tensor
}

// PoolParams: 2-D max or average pooling, one thread per output element.
// X is [N,C,H,W], Out [N,C,OH,OW].
type PoolParams struct {
	Mode, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW int32
	IncludePad, H, W, Total                      int32
	X, Out                                       Tensor
}

// RowParams: one thread per row of a [Rows, Cols] view of X (softmax,
// layer and RMS norm, reductions). Element (r, c) of X is X's logical flat
// index r*Cols+c; Scale and Bias share X's logical shape (broadcast);
// Out is indexed like X for softmax and norms, by r for reductions.
type RowParams struct {
	Op, Rows, Cols, HasBias int32
	Eps                     float32
	X, Scale, Bias, Out     Tensor
}

// BatchNormParams: out[i] = (x[i]-mean)/sqrt(var+eps)*scale + bias, the
// per-channel operands broadcast along every dimension but 1.
type BatchNormParams struct {
	N                              int32
	Eps                            float32
	X, Scale, Bias, Mean, Var, Out Tensor
}

// CopyParams: out[OutBase+tensor_offset(Out, i)] = in[InBase+tensor_offset(In, i)]; each
// descriptor decomposes i by its own shape, so a copy can reshape as it
// goes. The bases (in elements) place a piece of Concat, Split or Slice
// inside an operand that stays bound at its plan offset.
type CopyParams struct {
	N, InBase, OutBase int32
	In, Out            Tensor
}

// CastParams: copy converting dtype From to dtype To (cast codes).
type CastParams struct {
	N, From, To int32
	In, Out     Tensor
}

// GatherParams: out[c] = x[c[:axis], idx[c[axis:axis+IdxRank]], c[axis+IdxRank:]]
// with negative indices counted from the end; an index out of [0, AxisLen)
// yields zero.
type GatherParams struct {
	N, Axis, IdxRank, AxisLen, IdxI64 int32
	X, Idx, Out                       Tensor
}

// PadParams: constant padding; out[c] = in[c - Begin] inside, Value
// outside.
type PadParams struct {
	N       int32
	Value   float32
	Begin   [MaxRank]int32
	In, Out Tensor
}

// ParamTypes names each argument struct as its MSL and CUDA C struct is named.
var ParamTypes = []struct {
	Name string
	Type reflect.Type
}{
	{"Tensor", reflect.TypeOf(Tensor{})},
	{"UnaryParams", reflect.TypeOf(UnaryParams{})},
	{"BinaryParams", reflect.TypeOf(BinaryParams{})},
	{"WhereParams", reflect.TypeOf(WhereParams{})},
	{"MatMulParams", reflect.TypeOf(MatMulParams{})},
	{"ConvParams", reflect.TypeOf(ConvParams{})},
	{"PoolParams", reflect.TypeOf(PoolParams{})},
	{"RowParams", reflect.TypeOf(RowParams{})},
	{"BatchNormParams", reflect.TypeOf(BatchNormParams{})},
	{"CopyParams", reflect.TypeOf(CopyParams{})},
	{"CastParams", reflect.TypeOf(CastParams{})},
	{"GatherParams", reflect.TypeOf(GatherParams{})},
	{"PadParams", reflect.TypeOf(PadParams{})},
}

// EncodeParams lays an argument struct out as the bytes the GPU receives
// (little-endian, as every Apple and NVIDIA GPU is).
func EncodeParams(p any) []byte {
	var buf bytes.Buffer
	// binary.Write cannot fail on a fixed-size struct into a bytes.Buffer.
	_ = binary.Write(&buf, binary.LittleEndian, p)
	return buf.Bytes()
}

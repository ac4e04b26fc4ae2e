package launch

// Planning a dispatch: which kernels, with which arguments, over which
// slices of which buffers. This is everything a GPU backend decides; the
// Metal and CUDA backends only forward the result to their APIs, so it is
// all tested on any machine (exec/metal's recording fake, exec/cuda's fake
// driver).
//
// A dispatch becomes one or more launches. Each launch is one kernel launch
// (Metal: dispatchThreadgroups; CUDA: cuLaunchKernel or a graph kernel
// node): a kernel name, the argument struct (Metal: buffer index 0; CUDA:
// the first, by-value parameter), and the tensor operands at indices 1, 2,
// ... in the kernel's parameter order, each bound as (buffer, byte offset) straight
// from the exec.Binding, so the arena is bound at the plan's offsets. Most
// ops are one launch; Concat and Split are one copy launch per piece.
//
// Example: Add(x f32[2 3] at arena+0, b f32[3] at buf1+0) -> y at arena+64.
//
//	kernel binary_f32  threads 6
//	  [0] BinaryParams{Op: add, N: 6, A: [2 3]/[3 1], B: [2 3]/[0 1], Out: [2 3]/[3 1]}
//	  [1] buf0+0   x
//	  [2] buf1+0   b
//	  [3] buf0+64  y (write)

import (
	"errors"
	"fmt"
	"math"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
)

// Bind is one setBuffer:offset:atIndex: call.
type Bind struct {
	Index       int // atIndex
	Buffer      int // index into the program's buffers (exec.ArenaBuffer is the arena)
	OffsetBytes int64
	Value       ir.ValueID
	Write       bool
}

// Launch is one kernel launch: a one-dimensional grid of Threads threads.
type Launch struct {
	Kernel  string
	Args    any    // the argument struct (one of the *Params types)
	Params  []byte // Args as the GPU receives it (Metal: setBytes at index 0; CUDA: parameter 0)
	Buffers []Bind // at indices 1..len(Buffers)
	Threads int64
}

// launchSet is what Prepare returns: the launches of one dispatch.
type launchSet struct {
	dispatch int
	launches []Launch
}

// planState builds launches for one dispatch.
type planState struct {
	d        *exec.Dispatch
	launches []Launch
}

func (p *planState) errorf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: dispatch %d (%s %q): %s", sentinel, p.d.Index, p.d.Op, p.d.Name, fmt.Sprintf(format, args...))
}

// add appends a launch binding the given operands in order; writes marks
// which of them are written.
func (p *planState) add(kernel string, args any, threads int64, ops []exec.Binding, writes ...bool) {
	l := Launch{Kernel: kernel, Args: args, Params: EncodeParams(args), Threads: threads}
	for i, b := range ops {
		l.Buffers = append(l.Buffers, Bind{Index: i + 1, Buffer: b.Buffer, OffsetBytes: b.OffsetBytes, Value: b.Value, Write: i < len(writes) && writes[i]})
	}
	p.launches = append(p.launches, l)
}

// Plan decides the launches of one dispatch.
func Plan(d *exec.Dispatch) ([]Launch, error) {
	p := &planState{d: d}
	var err error
	if _, ok := ir.LookupOp(d.Op); !ok {
		err = p.errorf(ErrUnsupported, "unknown op")
	} else {
		err = p.checkTypes()
	}
	switch {
	case err != nil:
	case unaryCode(d) >= 0:
		err = p.unary()
	case binaryCode(d.Op) >= 0:
		err = p.binary()
	default:
		switch d.Op {
		case "Where":
			err = p.where()
		case "MatMul", "Gemm":
			err = p.matmul()
		case "Conv", "ConvTranspose":
			err = p.conv()
		case "MaxPool", "AveragePool", "GlobalAveragePool":
			err = p.pool()
		case "Softmax", "LogSoftmax":
			err = p.softmax()
		case "LayerNorm", "RMSNorm":
			err = p.norm()
		case "ReduceSum", "ReduceMean", "ReduceMax":
			err = p.reduce()
		case "BatchNorm":
			err = p.batchnorm()
		case "Concat":
			err = p.concat()
		case "Split":
			err = p.split()
		case "Transpose":
			err = p.transpose()
		case "Expand":
			err = p.expand()
		case "Gather":
			err = p.gather()
		case "Pad":
			err = p.pad()
		case "Cast":
			err = p.cast()
		case "Slice":
			err = p.slice()
		case "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity":
			err = p.reshape()
		default:
			err = p.errorf(ErrUnsupported, "no kernel")
		}
	}
	if errors.Is(err, ErrUnsupported) {
		// The driver tests exec.ErrUnsupported to fall back or report.
		return nil, fmt.Errorf("%w: %w", exec.ErrUnsupported, err)
	}
	if err != nil {
		return nil, err
	}
	return p.launches, nil
}

// checkTypes holds the dispatch to its op's shape rule through
// exec.Dispatch.CheckTypes: kernels index their operands by the bindings'
// shapes, so a disagreeing output would be read or written out of bounds.
func (p *planState) checkTypes() error {
	if err := p.d.CheckTypes(); err != nil {
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return nil
}

// requireF32 checks the dtypes of the given bindings.
func (p *planState) requireF32(bs ...exec.Binding) error {
	for _, b := range bs {
		if b.DType != ir.F32 {
			return p.errorf(ErrUnsupported, "value %d is %v, kernel is f32 only", b.Value, b.DType)
		}
	}
	return nil
}

func unaryCode(d *exec.Dispatch) int32 {
	switch d.Op {
	case "Relu":
		return UnaryRelu
	case "Sigmoid":
		return UnarySigmoid
	case "Tanh":
		return UnaryTanh
	case "Gelu":
		if d.Attrs.GetStr("approximate", "none") == "tanh" {
			return UnaryGeluTanh
		}
		return UnaryGeluErf
	case "Silu":
		return UnarySilu
	case "Erf":
		return UnaryErf
	case "Sqrt":
		return UnarySqrt
	case "Neg":
		return UnaryNeg
	case "Exp":
		return UnaryExp
	case "Log":
		return UnaryLog
	case "Abs":
		return UnaryAbs
	case "Sin":
		return UnarySin
	case "Cos":
		return UnaryCos
	case "Reciprocal":
		return UnaryReciprocal
	case "Clip":
		return UnaryClip
	case "HardSigmoid":
		return UnaryHardSigmoid
	case "HardSwish":
		return UnaryHardSwish
	}
	return -1
}

func binaryCode(op string) int32 {
	for i, n := range []string{"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less", "Greater"} {
		if n == op {
			return int32(i)
		}
	}
	return -1
}

// operands converts bindings, reporting the first bad one.
func (p *planState) operands(bs ...exec.Binding) ([]operand, error) {
	out := make([]operand, len(bs))
	for i, b := range bs {
		o, err := operandOf(b)
		if err != nil {
			return nil, p.errorf(err, "operand %d", i)
		}
		out[i] = o
	}
	return out, nil
}

// f32Operands is requireF32 then operands: the operands of a kernel that
// reads and writes only f32, in the order given.
func (p *planState) f32Operands(bs ...exec.Binding) ([]operand, error) {
	if err := p.requireF32(bs...); err != nil {
		return nil, err
	}
	return p.operands(bs...)
}

func (p *planState) unary() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	ops, err := p.f32Operands(in, out)
	if err != nil {
		return err
	}
	a := UnaryParams{Op: unaryCode(p.d), N: int32(Numel(out.Shape))}
	switch a.Op {
	case UnaryClip:
		a.Alpha = float32(p.d.Attrs.GetFloat("min", math.Inf(-1)))
		a.Beta = float32(p.d.Attrs.GetFloat("max", math.Inf(1)))
	case UnaryHardSigmoid:
		a.Alpha = float32(p.d.Attrs.GetFloat("alpha", 0.2))
		a.Beta = float32(p.d.Attrs.GetFloat("beta", 0.5))
	}
	if a.In, err = ops[0].broadcastTo(out.Shape); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add("unary_f32", a, Numel(out.Shape), []exec.Binding{in, out}, false, true)
	return nil
}

func (p *planState) binary() error {
	x, y, out := p.d.Inputs[0], p.d.Inputs[1], p.d.Outputs[0]
	code := binaryCode(p.d.Op)
	kernel := "binary_f32"
	switch {
	case intBinary(code, x, y, out):
		// i64 Add/Sub/Mul/Max/Min (wrapping, like the CPU backend); Div and
		// Pow can fail on integers, which a kernel cannot report.
		kernel = "binary_i64"
	case code >= BinaryEqual:
		kernel = "compare_f32"
		if err := p.requireF32(x, y); err != nil {
			return err
		}
		if out.DType != ir.Bool {
			return p.errorf(ErrUnsupported, "comparison output is %v, want bool", out.DType)
		}
	default:
		if err := p.requireF32(x, y, out); err != nil {
			return err
		}
	}
	ops, err := p.operands(x, y, out)
	if err != nil {
		return err
	}
	a := BinaryParams{Op: code, N: int32(Numel(out.Shape))}
	if a.A, err = ops[0].broadcastTo(out.Shape); err != nil {
		return p.errorf(err, "input 0")
	}
	if a.B, err = ops[1].broadcastTo(out.Shape); err != nil {
		return p.errorf(err, "input 1")
	}
	if a.Out, err = ops[2].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add(kernel, a, Numel(out.Shape), []exec.Binding{x, y, out}, false, false, true)
	return nil
}

// intBinary reports whether a binary op runs on the i64 kernel.
func intBinary(code int32, bs ...exec.Binding) bool {
	switch code {
	case BinaryAdd, BinarySub, BinaryMul, BinaryMax, BinaryMin:
	default:
		return false
	}
	for _, b := range bs {
		if b.DType != ir.I64 {
			return false
		}
	}
	return true
}

// sizeKernel names the element-size variant of a dtype-agnostic kernel.
func (p *planState) sizeKernel(base string, dt ir.DType) (string, error) {
	switch dt.Size() {
	case 1, 2, 4, 8:
		return fmt.Sprintf("%s_b%d", base, dt.Size()), nil
	}
	return "", p.errorf(ErrUnsupported, "%s of %v", base, dt)
}

func (p *planState) where() error {
	c, x, y, out := p.d.Inputs[0], p.d.Inputs[1], p.d.Inputs[2], p.d.Outputs[0]
	if c.DType != ir.Bool {
		return p.errorf(ErrUnsupported, "condition is %v, want bool", c.DType)
	}
	if x.DType != out.DType || y.DType != out.DType {
		return p.errorf(ErrUnsupported, "mixed dtypes %v %v -> %v", x.DType, y.DType, out.DType)
	}
	kernel, err := p.sizeKernel("where", out.DType)
	if err != nil {
		return err
	}
	ops, err := p.operands(c, x, y, out)
	if err != nil {
		return err
	}
	a := WhereParams{N: int32(Numel(out.Shape))}
	for i, t := range []*Tensor{&a.Cond, &a.X, &a.Y} {
		if *t, err = ops[i].broadcastTo(out.Shape); err != nil {
			return p.errorf(err, "input %d", i)
		}
	}
	if a.Out, err = ops[3].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add(kernel, a, Numel(out.Shape), []exec.Binding{c, x, y, out}, false, false, false, true)
	return nil
}

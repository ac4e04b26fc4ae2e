package cpu

// Strided tensors over byte buffers.
//
// A kernel never sees a Go slice of floats: it sees a tensor, a window of a
// byte buffer (the arena or an external buffer) given by the byte offset of
// element 0, a dtype, a shape and byte strides, exactly as the driver's
// Binding says. Compute kernels load their operands into dense float64 (or
// int64) slices in row-major order, compute, and store the result through
// the output's strides, converting to its dtype. Loading everything before
// storing anything also makes in-place dispatches (output sharing an input's
// bytes) safe. Data-movement kernels (Transpose, Slice, Concat, ...) build a
// strided view of the source with the output's shape and copy element bytes
// directly, whatever the dtype.
//
// Example: x f32[2 3] stored transposed (strides [4 8]) at offset 16 holds
// element (1,2) at byte 16 + 1*4 + 2*8 = 36; loadF reads the six elements in
// the order (0,0) (0,1) (0,2) (1,0) (1,1) (1,2).

import (
	"encoding/binary"
	"math"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
)

// tensor is a strided window of a byte buffer.
type tensor struct {
	buf     []byte
	off     int64
	dt      ir.DType
	shape   []int64
	strides []int64
}

func newTensor(buf []byte, b *exec.Binding) tensor {
	return tensor{buf: buf, off: b.OffsetBytes, dt: b.DType, shape: b.Shape, strides: b.StridesBytes}
}

func numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

func (t tensor) numel() int64 { return numel(t.shape) }
func (t tensor) rank() int    { return len(t.shape) }

// forEach calls fn with the byte offset of every element in row-major order.
func (t tensor) forEach(fn func(k int64, pos int64)) { t.forRange(0, t.numel(), fn) }

// forRange calls fn(k, pos) for the elements k in [lo, hi) of the row-major
// order, pos being element k's byte offset.
func (t tensor) forRange(lo, hi int64, fn func(k int64, pos int64)) {
	if lo >= hi {
		return
	}
	r := len(t.shape)
	if r == 0 {
		fn(0, t.off)
		return
	}
	idx := make([]int64, r)
	pos := t.off
	rem := lo
	for a := r - 1; a >= 0; a-- {
		idx[a] = rem % t.shape[a]
		rem /= t.shape[a]
		pos += idx[a] * t.strides[a]
	}
	inner, istr := t.shape[r-1], t.strides[r-1]
	for k := lo; k < hi; {
		p := pos
		for j := idx[r-1]; j < inner && k < hi; j++ {
			fn(k, p)
			k++
			p += istr
		}
		pos -= idx[r-1] * istr
		idx[r-1] = 0
		for a := r - 2; a >= 0; a-- {
			idx[a]++
			pos += t.strides[a]
			if idx[a] < t.shape[a] {
				break
			}
			pos -= idx[a] * t.strides[a]
			idx[a] = 0
		}
	}
}

// supported reports whether the CPU kernels read and write dtype d.
func supported(d ir.DType) bool {
	switch d {
	case ir.F32, ir.F64, ir.I64, ir.I32, ir.I8, ir.U8, ir.Bool:
		return true
	}
	return false
}

func getF(b []byte, dt ir.DType) float64 {
	switch dt {
	case ir.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case ir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return float64(getI(b, dt))
}

func getI(b []byte, dt ir.DType) int64 {
	switch dt {
	case ir.I64:
		return int64(binary.LittleEndian.Uint64(b))
	case ir.I32:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case ir.I8:
		return int64(int8(b[0]))
	case ir.U8:
		return int64(b[0])
	case ir.Bool:
		if b[0] != 0 {
			return 1
		}
		return 0
	case ir.F32, ir.F64:
		return int64(getF(b, dt)) // truncation toward zero, as ONNX Cast
	}
	return 0
}

func setF(b []byte, dt ir.DType, v float64) {
	switch dt {
	case ir.F32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case ir.F64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case ir.Bool:
		if v != 0 {
			b[0] = 1
		} else {
			b[0] = 0
		}
	default:
		setI(b, dt, int64(v))
	}
}

func setI(b []byte, dt ir.DType, v int64) {
	switch dt {
	case ir.I64:
		binary.LittleEndian.PutUint64(b, uint64(v))
	case ir.I32:
		binary.LittleEndian.PutUint32(b, uint32(int32(v)))
	case ir.I8, ir.U8:
		b[0] = byte(v)
	case ir.Bool:
		if v != 0 {
			b[0] = 1
		} else {
			b[0] = 0
		}
	case ir.F32, ir.F64:
		setF(b, dt, float64(v))
	}
}

// loadF reads t into a dense float64 slice in row-major order.
func loadF(t tensor) []float64 { return loadFRange(t, 0, t.numel()) }

// loadI reads t into a dense int64 slice in row-major order.
func loadI(t tensor) []int64 {
	out := make([]int64, t.numel())
	t.forEach(func(k, p int64) { out[k] = getI(t.buf[p:], t.dt) })
	return out
}

// storeF writes v (row-major) through t's strides, converting to t's dtype.
func storeF(t tensor, v []float64) { storeFRange(t, 0, v) }

// storeI writes v (row-major) through t's strides, converting to t's dtype.
func storeI(t tensor, v []int64) {
	t.forEach(func(k, p int64) { setI(t.buf[p:], t.dt, v[k]) })
}

// copyTo copies src's elements into dst's, element bytes as they are: both
// have the same dtype and the same number of elements, walked in row-major
// order. The source is read entirely first, so overlapping windows are safe.
func copyTo(dst, src tensor) {
	e := src.dt.Size()
	if n := src.numel() * e; src.contiguous() && dst.contiguous() {
		copy(dst.buf[dst.off:dst.off+n], src.buf[src.off:src.off+n]) // copy handles overlap
		return
	}
	tmp := make([]byte, src.numel()*e)
	src.forEach(func(k, p int64) { copy(tmp[k*e:(k+1)*e], src.buf[p:p+e]) })
	dst.forEach(func(k, p int64) { copy(dst.buf[p:p+e], tmp[k*e:(k+1)*e]) })
}

// broadcastTo returns t viewed with shape out (numpy rules: missing leading
// dimensions and dimensions of size 1 get stride 0). The caller has checked
// that the shapes broadcast.
func (t tensor) broadcastTo(out []int64) tensor {
	r := len(out)
	st := make([]int64, r)
	for i := 0; i < len(t.shape); i++ {
		j := r - len(t.shape) + i
		if t.shape[i] != 1 {
			st[j] = t.strides[i]
		}
	}
	return tensor{buf: t.buf, off: t.off, dt: t.dt, shape: out, strides: st}
}

// reshaped returns a dense tensor of shape s (only for contiguous t).
func (t tensor) withShape(s []int64) tensor {
	return tensor{buf: t.buf, off: t.off, dt: t.dt, shape: s, strides: ir.ContiguousStrides(s, t.dt.Size())}
}

// sub returns the view of t starting at index start along axis, n long, with step.
func (t tensor) sub(axis int, start, n, step int64) tensor {
	sh := append([]int64{}, t.shape...)
	st := append([]int64{}, t.strides...)
	sh[axis] = n
	st[axis] = t.strides[axis] * step
	return tensor{buf: t.buf, off: t.off + start*t.strides[axis], dt: t.dt, shape: sh, strides: st}
}

// parallelFor runs fn over [0, n) split into at most threads contiguous
// chunks, one goroutine per chunk beyond the first. Each index is handled by
// exactly one call, so results do not depend on threads.
func parallelFor(threads int, n int64, fn func(lo, hi int64)) {
	if threads <= 1 || n < 2 {
		fn(0, n)
		return
	}
	t := int64(threads)
	if t > n {
		t = n
	}
	done := make(chan struct{}, t-1)
	chunk := (n + t - 1) / t
	for c := int64(1); c < t; c++ {
		lo, hi := c*chunk, min((c+1)*chunk, n)
		go func() {
			if lo < hi {
				fn(lo, hi)
			}
			done <- struct{}{}
		}()
	}
	fn(0, min(chunk, n))
	for c := int64(1); c < t; c++ {
		<-done
	}
}

// contiguous reports whether t is dense row-major (element k at off+k*size).
func (t tensor) contiguous() bool {
	acc := t.dt.Size()
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.strides[i] != acc {
			return false
		}
		acc *= t.shape[i]
	}
	return true
}

// loadFRange reads elements [lo, hi) of t (row-major) as float64.
func loadFRange(t tensor, lo, hi int64) []float64 {
	out := make([]float64, hi-lo)
	if t.dt == ir.F32 && t.contiguous() {
		b := t.buf[t.off+4*lo : t.off+4*hi]
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return out
	}
	if t.dt == ir.F32 {
		t.forRange(lo, hi, func(k, p int64) {
			out[k-lo] = float64(math.Float32frombits(binary.LittleEndian.Uint32(t.buf[p:])))
		})
		return out
	}
	t.forRange(lo, hi, func(k, p int64) { out[k-lo] = getF(t.buf[p:], t.dt) })
	return out
}

// loadIRange reads elements [lo, hi) of t (row-major) as int64.
func loadIRange(t tensor, lo, hi int64) []int64 {
	out := make([]int64, hi-lo)
	t.forRange(lo, hi, func(k, p int64) { out[k-lo] = getI(t.buf[p:], t.dt) })
	return out
}

// storeFRange writes v as elements [lo, lo+len(v)) of t.
func storeFRange(t tensor, lo int64, v []float64) {
	hi := lo + int64(len(v))
	if t.dt == ir.F32 && t.contiguous() {
		b := t.buf[t.off+4*lo : t.off+4*hi]
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		}
		return
	}
	if t.dt == ir.F32 {
		t.forRange(lo, hi, func(k, p int64) {
			binary.LittleEndian.PutUint32(t.buf[p:], math.Float32bits(float32(v[k-lo])))
		})
		return
	}
	t.forRange(lo, hi, func(k, p int64) { setF(t.buf[p:], t.dt, v[k-lo]) })
}

// storeIRange writes v as elements [lo, lo+len(v)) of t.
func storeIRange(t tensor, lo int64, v []int64) {
	t.forRange(lo, lo+int64(len(v)), func(k, p int64) { setI(t.buf[p:], t.dt, v[k-lo]) })
}

// loadFPar is loadF split over threads chunks of the row-major order.
func loadFPar(t tensor, threads int) []float64 {
	n := t.numel()
	if threads <= 1 || n < 1<<14 {
		return loadF(t)
	}
	out := make([]float64, n)
	chunk := (n + int64(threads) - 1) / int64(threads)
	parallelFor(threads, int64(threads), func(lo, hi int64) {
		for c := lo; c < hi; c++ {
			a, b := c*chunk, min((c+1)*chunk, n)
			if a < b {
				copy(out[a:b], loadFRange(t, a, b))
			}
		}
	})
	return out
}

// storeFPar is storeF split over threads chunks of the row-major order.
func storeFPar(t tensor, v []float64, threads int) {
	n := int64(len(v))
	if threads <= 1 || n < 1<<14 {
		storeF(t, v)
		return
	}
	chunk := (n + int64(threads) - 1) / int64(threads)
	parallelFor(threads, int64(threads), func(lo, hi int64) {
		for c := lo; c < hi; c++ {
			a, b := c*chunk, min((c+1)*chunk, n)
			if a < b {
				storeFRange(t, a, v[a:b])
			}
		}
	})
}

package cpu

// MatMul and Gemm.
//
// Both reduce to one core: C[b] = A[b] x B[b] for a batch of row-major
// float64 matrices, rows split across kernel threads. Each output element
// sums over k in ascending order, so the result does not depend on the
// split. Operand layouts are handled by strided views before loading: numpy
// batch broadcasting gives batch strides of 0, 1-D operands become [1 K] or
// [K 1], and Gemm's trans flags swap the last two shape entries and strides.
//
// Example: MatMul(a f32[4], b f32[2 4 3]) -> f32[2 3]: a is viewed as
// [2 1 4] (batch stride 0), the core computes [2 1 3], stored as [2 3].

import (
	"github.com/memplan/memplan/ir"
)

func init() {
	register(kMatMul, "MatMul")
	register(kGemm, "Gemm")
}

// Cache blocking for matmulCore: a kBlock x jBlock tile of b (64 KiB of
// float64) stays in cache while every row of a thread's chunk uses it.
// kBlock is a multiple of 4, so blocking does not change the association
// order below.
const (
	kBlock = 32
	jBlock = 256
)

// matmulCore computes c (batch*m*n) = a (batch*m*k) x b (batch*k*n).
// Each element of c accumulates over k in ascending order, four rows of b
// per pass: c[j] += a0*b0[j] + a1*b1[j] + a2*b2[j] + a3*b3[j], then the
// remaining k one at a time. The loops are tiled over k and j for cache
// reuse and split over rows across threads; neither changes any element's
// order of operations, so the result does not depend on threads.
func matmulCore(threads int, batch, m, k, n int64, a, b []float64) []float64 {
	c := make([]float64, batch*m*n)
	if m*n*k < 1<<14 {
		threads = 1
	}
	parallelFor(threads, batch*m, func(lo, hi int64) {
		for r0 := lo; r0 < hi; {
			// rows of one batch entry share b
			bi := r0 / m
			r1 := min(hi, (bi+1)*m)
			bm := b[bi*k*n : (bi+1)*k*n]
			for j0 := int64(0); j0 < n; j0 += jBlock {
				j1 := min(j0+jBlock, n)
				for k0 := int64(0); k0 < k; k0 += kBlock {
					k1 := min(k0+kBlock, k)
					for r := r0; r < r1; r++ {
						arow := a[r*k : (r+1)*k]
						cr := c[r*n+j0 : r*n+j1]
						kk := k0
						for ; kk+4 <= k1; kk += 4 {
							a0, a1, a2, a3 := arow[kk], arow[kk+1], arow[kk+2], arow[kk+3]
							b0 := bm[kk*n+j0 : kk*n+j1]
							b1 := bm[(kk+1)*n+j0 : (kk+1)*n+j1]
							b2 := bm[(kk+2)*n+j0 : (kk+2)*n+j1]
							b3 := bm[(kk+3)*n+j0 : (kk+3)*n+j1]
							b1, b2, b3, cr := b1[:len(b0)], b2[:len(b0)], b3[:len(b0)], cr[:len(b0)]
							for j, v0 := range b0 {
								cr[j] += a0*v0 + a1*b1[j] + a2*b2[j] + a3*b3[j]
							}
						}
						for ; kk < k1; kk++ {
							av := arow[kk]
							brow := bm[kk*n+j0 : kk*n+j1]
							cr := cr[:len(brow)]
							for j, bv := range brow {
								cr[j] += av * bv
							}
						}
					}
				}
			}
			r0 = r1
		}
	})
	return c
}

func kMatMul(c *call) error {
	a, b, y := c.in(0), c.in(1), c.out(0)
	if a.rank() == 0 || b.rank() == 0 {
		return kernelErr(c, "scalar operand")
	}
	if a.rank() == 1 {
		a = tensor{buf: a.buf, off: a.off, dt: a.dt, shape: []int64{1, a.shape[0]}, strides: []int64{0, a.strides[0]}}
	}
	if b.rank() == 1 {
		b = tensor{buf: b.buf, off: b.off, dt: b.dt, shape: []int64{b.shape[0], 1}, strides: []int64{b.strides[0], 0}}
	}
	m, k := a.shape[a.rank()-2], a.shape[a.rank()-1]
	k2, n := b.shape[b.rank()-2], b.shape[b.rank()-1]
	if k != k2 {
		return kernelErr(c, "inner dimensions %d and %d differ", k, k2)
	}
	batch, err := ir.Broadcast(a.shape[:a.rank()-2], b.shape[:b.rank()-2])
	if err != nil {
		return kernelErr(c, "batch shapes do not broadcast: %v", err)
	}
	nb := numel(batch)
	if nb*m*n != y.numel() {
		return kernelErr(c, "output %v does not hold %d x %d x %d", y.shape, nb, m, n)
	}
	av := loadFPar(a.broadcastTo(append(append([]int64{}, batch...), m, k)), c.threads)
	bv := loadFPar(b.broadcastTo(append(append([]int64{}, batch...), k, n)), c.threads)
	storeFPar(y, matmulCore(c.threads, nb, m, k, n, av, bv), c.threads)
	return nil
}

// transposed2 swaps the two axes of a 2-D tensor view.
func transposed2(t tensor) tensor {
	return tensor{buf: t.buf, off: t.off, dt: t.dt, shape: []int64{t.shape[1], t.shape[0]}, strides: []int64{t.strides[1], t.strides[0]}}
}

func kGemm(c *call) error {
	a, b, y := c.in(0), c.in(1), c.out(0)
	if a.rank() != 2 || b.rank() != 2 || y.rank() != 2 {
		return kernelErr(c, "Gemm needs 2-D operands")
	}
	at := c.attrs()
	if at.GetInt("transA", 0) != 0 {
		a = transposed2(a)
	}
	if at.GetInt("transB", 0) != 0 {
		b = transposed2(b)
	}
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	if b.shape[0] != k || y.shape[0] != m || y.shape[1] != n {
		return kernelErr(c, "shapes %v x %v -> %v", a.shape, b.shape, y.shape)
	}
	av, bv := loadFPar(a, c.threads), loadFPar(b, c.threads)
	res := matmulCore(c.threads, 1, m, k, n, av, bv)
	alpha, beta := at.GetFloat("alpha", 1), at.GetFloat("beta", 1)
	var cv []float64
	if c.nin() == 3 {
		cv = loadF(c.in(2).broadcastTo(y.shape))
	}
	for i := range res {
		res[i] *= alpha
		if cv != nil {
			res[i] += beta * cv[i]
		}
	}
	storeFPar(y, res, c.threads)
	return nil
}

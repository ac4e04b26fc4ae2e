// common.metal: the Tensor descriptor and index helpers every kernel uses.
// Compiled first; the other .metal files are appended to it into one
// library (see kernels.go). Keep in step with exec/metal/tensor.go.
//
// Layout tables: each struct below and in the other files carries a
// `// layout` comment listing its size and field offsets in bytes. The Go
// mirrors (exec/metal/params.go) are checked against these comments and
// against the declarations themselves by params_test.go. Every field is a
// 4-byte int or float, so there is no padding.

#include <metal_stdlib>
using namespace metal;

#define MAX_RANK 8

// layout Tensor size 68: Rank 0, Shape 4, Strides 36
struct Tensor {
    int Rank;
    int Shape[MAX_RANK];
    int Strides[MAX_RANK];
};

// tensor_offset is the element offset of logical flat index i: decompose i
// by the shape (last dimension fastest) and dot with the strides. Go twin:
// off32 in emulate_test.go.
static inline int tensor_offset(constant Tensor& t, int i) {
    int off = 0;
    for (int k = t.Rank - 1; k >= 0; k--) {
        int d = t.Shape[k];
        off += (i % d) * t.Strides[k];
        i /= d;
    }
    return off;
}

// erf_approx: Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7);
// MSL has no erf.
static inline float erf_approx(float x) {
    float s = x < 0.0f ? -1.0f : 1.0f;
    float a = fabs(x);
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float y = 1.0f - (((((1.061405429f * t - 1.453152027f) * t) + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t * exp(-a * a);
    return s * y;
}

// common.cuh: types and index helpers every kernel uses. The argument
// structs (Tensor, UnaryParams, ...) are not declared here: the backend
// prepends launch.CDecls(), generated from the Go structs, so they cannot
// drift. The other .cu files are appended in name order into one NVRTC
// program (kernels.go). No headers: NVRTC compiles this alone.
//
// Every kernel is extern "C" (unmangled names, as launch.Plan names them),
// takes its argument struct by value as parameter 0 and then one device
// pointer per operand, already offset to the operand's element 0 (arena
// base + plan offset). One thread per output element unless a kernel says
// otherwise; blockIdx.x * blockDim.x + threadIdx.x is the flat index.

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long long ulong;
typedef long long llong;

#define INF_F __int_as_float(0x7f800000)

__device__ __forceinline__ int flat_index() {
    return int(blockIdx.x * blockDim.x + threadIdx.x);
}

// tensor_offset is the element offset of logical flat index i: decompose i
// by the shape (last dimension fastest) and dot with the strides. Same as
// exec/metal/kernels/common.metal, with two shortcuts that give the same
// offsets with fewer divisions: a tensor laid out row-major (every
// dimension longer than 1 at the stride of the ones after it) has offset
// i; otherwise each run of dimensions laid out row-major relative to each
// other (a slice's trailing dimensions, neighbouring broadcast ones) is
// placed as one dimension.
__device__ __forceinline__ int tensor_offset(const Tensor& t, int i) {
    int dense = 1;
    bool rowMajor = true;
    for (int k = t.Rank - 1; k >= 0; k--) {
        if (t.Shape[k] != 1 && t.Strides[k] != dense) rowMajor = false;
        dense *= t.Shape[k];
    }
    if (rowMajor) return i;
    int off = 0;
    int k = t.Rank - 1;
    while (k >= 0) {
        int d = t.Shape[k], st = t.Strides[k];
        k--;
        while (k >= 0 && (t.Shape[k] == 1 || t.Strides[k] == st * d)) {
            d *= t.Shape[k];
            k--;
        }
        off += (i % d) * st;
        i /= d;
    }
    return off;
}

// f16 conversions through PTX (NVRTC has no cuda_fp16.h without headers).
__device__ __forceinline__ float half_to_float(ushort h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}

__device__ __forceinline__ ushort float_to_half(float f) {
    ushort h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}

// Warp reductions over the 32 lanes; every lane gets the result (xor
// butterfly, a fixed order: the same inputs give the same bits).
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// lanes_sum and lanes_max combine the partial results of the lanes that
// share an item: step 32 is a whole warp (warp_sum, warp_max), step 1 a
// thread alone (v itself). One body serves a kernel's thread and warp
// variants this way.
__device__ __forceinline__ float lanes_sum(float v, int step) { return step == 32 ? warp_sum(v) : v; }
__device__ __forceinline__ float lanes_max(float v, int step) { return step == 32 ? warp_max(v) : v; }

// warp_index is the global warp number of a one-warp-per-item kernel.
__device__ __forceinline__ int warp_index() {
    return int((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
}

// nchw splits the flat row-major index i of a [N, C, H, W] tensor into its
// coordinates (the output walk of every convolution and pooling kernel).
__device__ __forceinline__ void nchw(int i, int C, int H, int W, int& n, int& c, int& h, int& w) {
    w = i % W; i /= W;
    h = i % H; i /= H;
    c = i % C;
    n = i / C;
}

// data.cu: copies (reshape, transpose, expand, slice, concat and split
// pieces), casts, gather and constant pad; one thread per output element.
// The copy, where and gather kernels move bytes, so one instance per
// element size serves every dtype. CPU twins: the data-movement ops of
// exec/cpu.

template <typename T>
__device__ __forceinline__ void copy_k(const CopyParams& p, const T* x, T* y) {
    int i = flat_index();
    if (i >= p.N) return;
    y[p.OutBase + tensor_offset(p.Out, i)] = x[p.InBase + tensor_offset(p.In, i)];
}

extern "C" __global__ void copy_b1(CopyParams p, const uchar* x, uchar* y) { copy_k<uchar>(p, x, y); }
extern "C" __global__ void copy_b2(CopyParams p, const ushort* x, ushort* y) { copy_k<ushort>(p, x, y); }
extern "C" __global__ void copy_b4(CopyParams p, const uint* x, uint* y) { copy_k<uint>(p, x, y); }
extern "C" __global__ void copy_b8(CopyParams p, const ulong* x, ulong* y) { copy_k<ulong>(p, x, y); }

// cast_any: dtype codes 0 f32, 1 f16, 2 i64, 3 i32, 4 i8, 5 u8, 6 bool.
// Floats convert to integers by truncation toward zero; anything nonzero
// is true.
extern "C" __global__ void cast_any(CastParams p, const uchar* x, uchar* y) {
    int i = flat_index();
    if (i >= p.N) return;
    int xo = tensor_offset(p.In, i);
    int yo = tensor_offset(p.Out, i);
    bool isf = false;
    float f = 0.0f;
    llong l = 0;
    switch (p.From) {
    case 0: f = ((const float*)x)[xo]; isf = true; break;
    case 1: f = half_to_float(((const ushort*)x)[xo]); isf = true; break;
    case 2: l = ((const llong*)x)[xo]; break;
    case 3: l = ((const int*)x)[xo]; break;
    case 4: l = ((const signed char*)x)[xo]; break;
    case 5: l = x[xo]; break;
    case 6: l = x[xo] != 0 ? 1 : 0; break;
    }
    switch (p.To) {
    case 0: ((float*)y)[yo] = isf ? f : float(l); break;
    case 1: ((ushort*)y)[yo] = float_to_half(isf ? f : float(l)); break;
    case 2: ((llong*)y)[yo] = isf ? llong(f) : l; break;
    case 3: ((int*)y)[yo] = isf ? int(f) : int(l); break;
    case 4: ((signed char*)y)[yo] = isf ? (signed char)(int(f)) : (signed char)(l); break;
    case 5: y[yo] = isf ? uchar(int(f)) : uchar(l); break;
    case 6: y[yo] = (isf ? f != 0.0f : l != 0) ? 1 : 0; break;
    }
}

// gather_k: Out's dimensions are X's before Axis, then Idx's, then X's
// after Axis; negative indices count from the end, out of range gives 0.
template <typename T>
__device__ __forceinline__ void gather_k(const GatherParams& p, const T* x, const uchar* idx, T* y) {
    int i = flat_index();
    if (i >= p.N) return;
    int rem = i;
    int xo = 0;
    int io = 0;
    for (int k = p.Out.Rank - 1; k >= 0; k--) {
        int d = p.Out.Shape[k];
        int ck = rem % d;
        rem /= d;
        if (k < p.Axis) {
            xo += ck * p.X.Strides[k];
        } else if (k < p.Axis + p.IdxRank) {
            io += ck * p.Idx.Strides[k - p.Axis];
        } else {
            xo += ck * p.X.Strides[k - p.IdxRank + 1];
        }
    }
    llong j = p.IdxI64 != 0 ? ((const llong*)idx)[io] : llong(((const int*)idx)[io]);
    if (j < 0) j += p.AxisLen;
    T v = T(0);
    if (j >= 0 && j < p.AxisLen) v = x[xo + int(j) * p.X.Strides[p.Axis]];
    y[tensor_offset(p.Out, i)] = v;
}

extern "C" __global__ void gather_b1(GatherParams p, const uchar* x, const uchar* idx, uchar* y) { gather_k<uchar>(p, x, idx, y); }
extern "C" __global__ void gather_b2(GatherParams p, const ushort* x, const uchar* idx, ushort* y) { gather_k<ushort>(p, x, idx, y); }
extern "C" __global__ void gather_b4(GatherParams p, const uint* x, const uchar* idx, uint* y) { gather_k<uint>(p, x, idx, y); }
extern "C" __global__ void gather_b8(GatherParams p, const ulong* x, const uchar* idx, ulong* y) { gather_k<ulong>(p, x, idx, y); }

extern "C" __global__ void pad_f32(PadParams p, const float* x, float* y) {
    int i = flat_index();
    if (i >= p.N) return;
    int rem = i;
    int xo = 0;
    bool inside = true;
    for (int k = p.Out.Rank - 1; k >= 0; k--) {
        int d = p.Out.Shape[k];
        int c = rem % d - p.Begin[k];
        rem /= d;
        if (c < 0 || c >= p.In.Shape[k]) inside = false;
        else xo += c * p.In.Strides[k];
    }
    y[tensor_offset(p.Out, i)] = inside ? x[xo] : p.Value;
}

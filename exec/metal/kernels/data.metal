// data.metal: copies (reshape, transpose, expand, slice, concat and split
// pieces), casts, gather and constant pad; one thread per output element.
// The copy and gather kernels move bytes, so one instance per element size
// serves every dtype. CPU twins: the data-movement ops of exec/cpu.

// layout CopyParams size 148: N 0, InBase 4, OutBase 8, In 12, Out 80
struct CopyParams {
    int N;
    int InBase;
    int OutBase;
    Tensor In;
    Tensor Out;
};

// Templates take byte pointers so that every instance has the signature
// of the typedef its named instance is declared with.
template <typename T>
kernel void copy_k(constant CopyParams& p [[buffer(0)]],
                   device const uchar* xb [[buffer(1)]],
                   device uchar* yb [[buffer(2)]],
                   uint gid [[thread_position_in_grid]]) {
    device const T* x = (device const T*)xb;
    device T* y = (device T*)yb;
    int i = int(gid);
    if (i >= p.N) return;
    y[p.OutBase + tensor_offset(p.Out, i)] = x[p.InBase + tensor_offset(p.In, i)];
}

typedef decltype(copy_k<uint>) copy_t;
template [[host_name("copy_b1")]] kernel copy_t copy_k<uchar>;
template [[host_name("copy_b2")]] kernel copy_t copy_k<ushort>;
template [[host_name("copy_b4")]] kernel copy_t copy_k<uint>;
template [[host_name("copy_b8")]] kernel copy_t copy_k<ulong>;

// layout CastParams size 148: N 0, From 4, To 8, In 12, Out 80
struct CastParams {
    int N;
    int From;
    int To;
    Tensor In;
    Tensor Out;
};

// dtype codes: 0 f32, 1 f16, 2 i64, 3 i32, 4 i8, 5 u8, 6 bool. Floats
// convert to integers by truncation toward zero; anything nonzero is true.
kernel void cast_any(constant CastParams& p [[buffer(0)]],
                 device const uchar* x [[buffer(1)]],
                 device uchar* y [[buffer(2)]],
                 uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.N) return;
    int xo = tensor_offset(p.In, i);
    int yo = tensor_offset(p.Out, i);
    bool isf = false;
    float f = 0.0f;
    long l = 0;
    switch (p.From) {
    case 0: f = ((device const float*)x)[xo]; isf = true; break;
    case 1: f = float(((device const half*)x)[xo]); isf = true; break;
    case 2: l = ((device const long*)x)[xo]; break;
    case 3: l = ((device const int*)x)[xo]; break;
    case 4: l = ((device const char*)x)[xo]; break;
    case 5: l = x[xo]; break;
    case 6: l = x[xo] != 0 ? 1 : 0; break;
    }
    switch (p.To) {
    case 0: ((device float*)y)[yo] = isf ? f : float(l); break;
    case 1: ((device half*)y)[yo] = half(isf ? f : float(l)); break;
    case 2: ((device long*)y)[yo] = isf ? long(f) : l; break;
    case 3: ((device int*)y)[yo] = isf ? int(f) : int(l); break;
    case 4: ((device char*)y)[yo] = isf ? char(int(f)) : char(l); break;
    case 5: y[yo] = isf ? uchar(int(f)) : uchar(l); break;
    case 6: y[yo] = (isf ? f != 0.0f : l != 0) ? 1 : 0; break;
    }
}

// layout GatherParams size 224: N 0, Axis 4, IdxRank 8, AxisLen 12, IdxI64 16, X 20, Idx 88, Out 156
struct GatherParams {
    int N;
    int Axis;
    int IdxRank;
    int AxisLen;
    int IdxI64;
    Tensor X;
    Tensor Idx;
    Tensor Out;
};

// Out's dimensions are X's before Axis, then Idx's, then X's after Axis.
template <typename T>
kernel void gather_k(constant GatherParams& p [[buffer(0)]],
                     device const uchar* xb [[buffer(1)]],
                     device const uchar* idx [[buffer(2)]],
                     device uchar* yb [[buffer(3)]],
                     uint gid [[thread_position_in_grid]]) {
    device const T* x = (device const T*)xb;
    device T* y = (device T*)yb;
    int i = int(gid);
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
    long j = p.IdxI64 != 0 ? ((device const long*)idx)[io] : long(((device const int*)idx)[io]);
    if (j < 0) j += p.AxisLen;
    T v = T(0);
    if (j >= 0 && j < p.AxisLen) v = x[xo + int(j) * p.X.Strides[p.Axis]];
    y[tensor_offset(p.Out, i)] = v;
}

typedef decltype(gather_k<uint>) gather_t;
template [[host_name("gather_b1")]] kernel gather_t gather_k<uchar>;
template [[host_name("gather_b2")]] kernel gather_t gather_k<ushort>;
template [[host_name("gather_b4")]] kernel gather_t gather_k<uint>;
template [[host_name("gather_b8")]] kernel gather_t gather_k<ulong>;

// layout PadParams size 176: N 0, Value 4, Begin 8, In 40, Out 108
struct PadParams {
    int N;
    float Value;
    int Begin[MAX_RANK];
    Tensor In;
    Tensor Out;
};

kernel void pad_f32(constant PadParams& p [[buffer(0)]],
                    device const float* x [[buffer(1)]],
                    device float* y [[buffer(2)]],
                    uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
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

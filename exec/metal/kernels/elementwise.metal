// elementwise.metal: unary, binary, comparison, where and batch norm; one
// thread per output element, operands broadcast through their descriptors.
// CPU twins: the elementwise kernels of exec/cpu.

// layout UnaryParams size 152: Op 0, N 4, Alpha 8, Beta 12, In 16, Out 84
struct UnaryParams {
    int Op;
    int N;
    float Alpha;
    float Beta;
    Tensor In;
    Tensor Out;
};

kernel void unary_f32(constant UnaryParams& p [[buffer(0)]],
                      device const float* x [[buffer(1)]],
                      device float* y [[buffer(2)]],
                      uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.N) return;
    float v = x[tensor_offset(p.In, i)];
    float r = v;
    switch (p.Op) {
    case 0: r = max(v, 0.0f); break;                                   // Relu
    case 1: r = 1.0f / (1.0f + exp(-v)); break;                         // Sigmoid
    case 2: r = precise::tanh(v); break;                                // Tanh
    case 3: r = 0.5f * v * (1.0f + erf_approx(v * M_SQRT1_2_F)); break; // Gelu
    case 4: r = 0.5f * v * (1.0f + precise::tanh(0.7978845608f * (v + 0.044715f * v * v * v))); break; // Gelu tanh
    case 5: r = v / (1.0f + exp(-v)); break;                            // Silu
    case 6: r = erf_approx(v); break;                                   // Erf
    case 7: r = sqrt(v); break;                                         // Sqrt
    case 8: r = -v; break;                                              // Neg
    case 9: r = exp(v); break;                                          // Exp
    case 10: r = log(v); break;                                         // Log
    case 11: r = fabs(v); break;                                        // Abs
    case 12: r = precise::sin(v); break;                                // Sin
    case 13: r = precise::cos(v); break;                                // Cos
    case 14: r = 1.0f / v; break;                                       // Reciprocal
    case 15: r = min(max(v, p.Alpha), p.Beta); break;                   // Clip
    case 16: r = max(0.0f, min(1.0f, p.Alpha * v + p.Beta)); break;     // HardSigmoid
    case 17: r = v * max(0.0f, min(1.0f, v / 6.0f + 0.5f)); break;      // HardSwish
    }
    y[tensor_offset(p.Out, i)] = r;
}

// layout BinaryParams size 212: Op 0, N 4, A 8, B 76, Out 144
struct BinaryParams {
    int Op;
    int N;
    Tensor A;
    Tensor B;
    Tensor Out;
};

static inline float binary_op(int op, float a, float b) {
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4:
        // pow of a negative base is defined for integral exponents.
        if (a < 0.0f && b == rint(b)) {
            float m = precise::pow(-a, b);
            return fmod(fabs(b), 2.0f) == 1.0f ? -m : m;
        }
        return precise::pow(a, b);
    case 5: return max(a, b);
    case 6: return min(a, b);
    }
    return 0.0f;
}

kernel void binary_f32(constant BinaryParams& p [[buffer(0)]],
                       device const float* a [[buffer(1)]],
                       device const float* b [[buffer(2)]],
                       device float* y [[buffer(3)]],
                       uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.N) return;
    y[tensor_offset(p.Out, i)] = binary_op(p.Op, a[tensor_offset(p.A, i)], b[tensor_offset(p.B, i)]);
}

kernel void compare_f32(constant BinaryParams& p [[buffer(0)]],
                        device const float* a [[buffer(1)]],
                        device const float* b [[buffer(2)]],
                        device uchar* y [[buffer(3)]],
                        uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.N) return;
    float u = a[tensor_offset(p.A, i)];
    float v = b[tensor_offset(p.B, i)];
    bool r = p.Op == 7 ? u == v : (p.Op == 8 ? u < v : u > v);
    y[tensor_offset(p.Out, i)] = r ? 1 : 0;
}

// binary_i64: Add, Sub, Mul, Max, Min of i64 (launch.Plan sends no other
// op here); wrapping like Go's int64, as the CPU backend computes.
kernel void binary_i64(constant BinaryParams& p [[buffer(0)]],
                       device const long* a [[buffer(1)]],
                       device const long* b [[buffer(2)]],
                       device long* y [[buffer(3)]],
                       uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.N) return;
    ulong u = ulong(a[tensor_offset(p.A, i)]);
    ulong v = ulong(b[tensor_offset(p.B, i)]);
    long r = 0;
    switch (p.Op) {
    case 0: r = long(u + v); break;
    case 1: r = long(u - v); break;
    case 2: r = long(u * v); break;
    case 5: r = max(long(u), long(v)); break;
    case 6: r = min(long(u), long(v)); break;
    }
    y[tensor_offset(p.Out, i)] = r;
}

// layout WhereParams size 276: N 0, Cond 4, X 72, Y 140, Out 208
struct WhereParams {
    int N;
    Tensor Cond;
    Tensor X;
    Tensor Y;
    Tensor Out;
};

// Templates take byte pointers so that every instance has the signature
// of the typedef its named instance is declared with.
template <typename T>
kernel void where_k(constant WhereParams& p [[buffer(0)]],
                    device const uchar* c [[buffer(1)]],
                    device const uchar* xb [[buffer(2)]],
                    device const uchar* yb [[buffer(3)]],
                    device uchar* ob [[buffer(4)]],
                    uint gid [[thread_position_in_grid]]) {
    device const T* x = (device const T*)xb;
    device const T* y = (device const T*)yb;
    device T* out = (device T*)ob;
    int i = int(gid);
    if (i >= p.N) return;
    out[tensor_offset(p.Out, i)] = c[tensor_offset(p.Cond, i)] != 0 ? x[tensor_offset(p.X, i)] : y[tensor_offset(p.Y, i)];
}

typedef decltype(where_k<uint>) where_t;
template [[host_name("where_b1")]] kernel where_t where_k<uchar>;
template [[host_name("where_b2")]] kernel where_t where_k<ushort>;
template [[host_name("where_b4")]] kernel where_t where_k<uint>;
template [[host_name("where_b8")]] kernel where_t where_k<ulong>;

// layout BatchNormParams size 416: N 0, Eps 4, X 8, Scale 76, Bias 144, Mean 212, Var 280, Out 348
struct BatchNormParams {
    int N;
    float Eps;
    Tensor X;
    Tensor Scale;
    Tensor Bias;
    Tensor Mean;
    Tensor Var;
    Tensor Out;
};

kernel void batchnorm_f32(constant BatchNormParams& p [[buffer(0)]],
                          device const float* x [[buffer(1)]],
                          device const float* scale [[buffer(2)]],
                          device const float* bias [[buffer(3)]],
                          device const float* mean [[buffer(4)]],
                          device const float* var [[buffer(5)]],
                          device float* y [[buffer(6)]],
                          uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.N) return;
    float v = x[tensor_offset(p.X, i)];
    float m = mean[tensor_offset(p.Mean, i)];
    float s = var[tensor_offset(p.Var, i)];
    y[tensor_offset(p.Out, i)] = (v - m) / sqrt(s + p.Eps) * scale[tensor_offset(p.Scale, i)] + bias[tensor_offset(p.Bias, i)];
}

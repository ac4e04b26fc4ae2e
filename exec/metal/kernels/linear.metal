// linear.metal: matrix products, convolutions and pooling; one thread per
// output element. CPU twins: MatMul/Gemm, Conv/ConvTranspose and the pools
// of exec/cpu.

// layout MatMulParams size 300: M 0, N 4, K 8, HasC 12, Alpha 16, Beta 20, Total 24, A 28, B 96, C 164, Out 232
struct MatMulParams {
    int M;
    int N;
    int K;
    int HasC;
    float Alpha;
    float Beta;
    int Total;
    Tensor A;
    Tensor B;
    Tensor C;
    Tensor Out;
};

// Out, A, B share one rank r: batch dimensions, then [M, N], [M, K], [K, N].
kernel void matmul_f32(constant MatMulParams& p [[buffer(0)]],
                       device const float* a [[buffer(1)]],
                       device const float* b [[buffer(2)]],
                       device const float* c [[buffer(3)]],
                       device float* y [[buffer(4)]],
                       uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.Total) return;
    int r = p.Out.Rank;
    int rem = i;
    int n = rem % p.N; rem /= p.N;
    int m = rem % p.M; rem /= p.M;
    int ao = m * p.A.Strides[r - 2];
    int bo = n * p.B.Strides[r - 1];
    for (int k = r - 3; k >= 0; k--) {
        int d = p.Out.Shape[k];
        int ck = rem % d;
        rem /= d;
        ao += ck * p.A.Strides[k];
        bo += ck * p.B.Strides[k];
    }
    int as = p.A.Strides[r - 1];
    int bs = p.B.Strides[r - 2];
    float acc = 0.0f;
    for (int k = 0; k < p.K; k++) {
        acc += a[ao + k * as] * b[bo + k * bs];
    }
    float v = p.Alpha * acc;
    if (p.HasC != 0) {
        v += p.Beta * c[tensor_offset(p.C, i)];
    }
    y[tensor_offset(p.Out, i)] = v;
}

// layout ConvParams size 344: N 0, C 4, H 8, W 12, M 16, OH 20, OW 24, KH 28, KW 32, SH 36, SW 40, PT 44, PL 48, DH 52, DW 56, Group 60, HasBias 64, Total 68, X 72, Wt 140, Bias 208, Out 276
struct ConvParams {
    int N;
    int C;
    int H;
    int W;
    int M;
    int OH;
    int OW;
    int KH;
    int KW;
    int SH;
    int SW;
    int PT;
    int PL;
    int DH;
    int DW;
    int Group;
    int HasBias;
    int Total;
    Tensor X;
    Tensor Wt;
    Tensor Bias;
    Tensor Out;
};

// X [N,C,H,W], Wt [M,C/Group,KH,KW], Bias [M], Out [N,M,OH,OW].
kernel void conv2d_f32(constant ConvParams& p [[buffer(0)]],
                       device const float* x [[buffer(1)]],
                       device const float* w [[buffer(2)]],
                       device const float* bias [[buffer(3)]],
                       device float* y [[buffer(4)]],
                       uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.Total) return;
    int rem = i;
    int ow = rem % p.OW; rem /= p.OW;
    int oh = rem % p.OH; rem /= p.OH;
    int m = rem % p.M;
    int n = rem / p.M;
    int cpg = p.C / p.Group;
    int g = m / (p.M / p.Group);
    float acc = p.HasBias != 0 ? bias[m * p.Bias.Strides[0]] : 0.0f;
    for (int c = 0; c < cpg; c++) {
        int xc = n * p.X.Strides[0] + (g * cpg + c) * p.X.Strides[1];
        int wc = m * p.Wt.Strides[0] + c * p.Wt.Strides[1];
        for (int kh = 0; kh < p.KH; kh++) {
            int ih = oh * p.SH - p.PT + kh * p.DH;
            if (ih < 0 || ih >= p.H) continue;
            for (int kw = 0; kw < p.KW; kw++) {
                int iw = ow * p.SW - p.PL + kw * p.DW;
                if (iw < 0 || iw >= p.W) continue;
                acc += x[xc + ih * p.X.Strides[2] + iw * p.X.Strides[3]] * w[wc + kh * p.Wt.Strides[2] + kw * p.Wt.Strides[3]];
            }
        }
    }
    y[tensor_offset(p.Out, i)] = acc;
}

// X [N,C,H,W], Wt [C,M/Group,KH,KW], Bias [M], Out [N,M,OH,OW]: each output
// gathers the inputs whose scattered window covers it.
kernel void convtranspose2d_f32(constant ConvParams& p [[buffer(0)]],
                                device const float* x [[buffer(1)]],
                                device const float* w [[buffer(2)]],
                                device const float* bias [[buffer(3)]],
                                device float* y [[buffer(4)]],
                                uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.Total) return;
    int rem = i;
    int ow = rem % p.OW; rem /= p.OW;
    int oh = rem % p.OH; rem /= p.OH;
    int m = rem % p.M;
    int n = rem / p.M;
    int cpg = p.C / p.Group;
    int mpg = p.M / p.Group;
    int g = m / mpg;
    float acc = p.HasBias != 0 ? bias[m * p.Bias.Strides[0]] : 0.0f;
    for (int c = g * cpg; c < (g + 1) * cpg; c++) {
        int xc = n * p.X.Strides[0] + c * p.X.Strides[1];
        int wc = c * p.Wt.Strides[0] + (m - g * mpg) * p.Wt.Strides[1];
        for (int kh = 0; kh < p.KH; kh++) {
            int th = oh + p.PT - kh * p.DH;
            if (th < 0 || th % p.SH != 0 || th / p.SH >= p.H) continue;
            for (int kw = 0; kw < p.KW; kw++) {
                int tw = ow + p.PL - kw * p.DW;
                if (tw < 0 || tw % p.SW != 0 || tw / p.SW >= p.W) continue;
                acc += x[xc + (th / p.SH) * p.X.Strides[2] + (tw / p.SW) * p.X.Strides[3]] * w[wc + kh * p.Wt.Strides[2] + kw * p.Wt.Strides[3]];
            }
        }
    }
    y[tensor_offset(p.Out, i)] = acc;
}

// layout PoolParams size 196: Mode 0, KH 4, KW 8, SH 12, SW 16, PT 20, PL 24, PB 28, PR 32, DH 36, DW 40, IncludePad 44, H 48, W 52, Total 56, X 60, Out 128
struct PoolParams {
    int Mode;
    int KH;
    int KW;
    int SH;
    int SW;
    int PT;
    int PL;
    int PB;
    int PR;
    int DH;
    int DW;
    int IncludePad;
    int H;
    int W;
    int Total;
    Tensor X;
    Tensor Out;
};

// Mode 0 max, 1 average. An average counts the window positions inside the
// input, or (IncludePad) inside the padded input.
kernel void pool2d_f32(constant PoolParams& p [[buffer(0)]],
                       device const float* x [[buffer(1)]],
                       device float* y [[buffer(2)]],
                       uint gid [[thread_position_in_grid]]) {
    int i = int(gid);
    if (i >= p.Total) return;
    int OW = p.Out.Shape[3];
    int OH = p.Out.Shape[2];
    int C = p.Out.Shape[1];
    int rem = i;
    int ow = rem % OW; rem /= OW;
    int oh = rem % OH; rem /= OH;
    int c = rem % C;
    int n = rem / C;
    int xc = n * p.X.Strides[0] + c * p.X.Strides[1];
    float acc = p.Mode == 0 ? -INFINITY : 0.0f;
    int count = 0;
    for (int kh = 0; kh < p.KH; kh++) {
        int ih = oh * p.SH - p.PT + kh * p.DH;
        for (int kw = 0; kw < p.KW; kw++) {
            int iw = ow * p.SW - p.PL + kw * p.DW;
            if (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W) {
                float v = x[xc + ih * p.X.Strides[2] + iw * p.X.Strides[3]];
                acc = p.Mode == 0 ? max(acc, v) : acc + v;
                count++;
            } else if (p.IncludePad != 0 && ih >= -p.PT && ih < p.H + p.PB && iw >= -p.PL && iw < p.W + p.PR) {
                count++;
            }
        }
    }
    if (p.Mode != 0) {
        acc = count > 0 ? acc / float(count) : 0.0f;
    }
    y[tensor_offset(p.Out, i)] = acc;
}

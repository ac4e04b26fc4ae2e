// linear.cu: matrix products, convolutions and pooling. CPU twins:
// MatMul/Gemm, Conv/ConvTranspose and the pools of exec/cpu.

// MATMUL_TILE is the tile edge of matmul_f32: one block of
// MATMUL_TILE*MATMUL_TILE threads computes one tile of one batch's output
// (the backend's launch geometry, geometry.go, must agree).
#define MATMUL_TILE 16

// matmul_f32: the small products (the backend runs the larger ones with
// gemm.cu's register-tiled kernels, geometry.go). Out, A, B share one rank r: batch dimensions, then [M, N],
// [M, K], [K, N]. The grid is batch * ceil(M/TILE) * ceil(N/TILE) blocks;
// each block stages TILE x TILE pieces of A and B in shared memory, and
// every output still sums k = 0, 1, ..., K-1 in order, like the CPU twin.
extern "C" __global__ void matmul_f32(MatMulParams p, const float* a, const float* b, const float* c, float* y) {
    __shared__ float As[MATMUL_TILE][MATMUL_TILE + 1];
    __shared__ float Bs[MATMUL_TILE][MATMUL_TILE + 1];
    int tilesN = (p.N + MATMUL_TILE - 1) / MATMUL_TILE;
    int tilesM = (p.M + MATMUL_TILE - 1) / MATMUL_TILE;
    int t = int(blockIdx.x);
    int tn = t % tilesN; t /= tilesN;
    int tm = t % tilesM;
    int batch = t / tilesM;
    int tx = int(threadIdx.x) % MATMUL_TILE;
    int ty = int(threadIdx.x) / MATMUL_TILE;
    int m = tm * MATMUL_TILE + ty;
    int n = tn * MATMUL_TILE + tx;
    int r = p.Out.Rank;
    int ao = 0, bo = 0, rem = batch;
    for (int k = r - 3; k >= 0; k--) {
        int d = p.Out.Shape[k];
        int ck = rem % d;
        rem /= d;
        ao += ck * p.A.Strides[k];
        bo += ck * p.B.Strides[k];
    }
    int am = p.A.Strides[r - 2], ak = p.A.Strides[r - 1];
    int bk = p.B.Strides[r - 2], bn = p.B.Strides[r - 1];
    float acc = 0.0f;
    for (int k0 = 0; k0 < p.K; k0 += MATMUL_TILE) {
        int ka = k0 + tx;
        As[ty][tx] = (m < p.M && ka < p.K) ? a[ao + m * am + ka * ak] : 0.0f;
        int kb = k0 + ty;
        Bs[ty][tx] = (kb < p.K && n < p.N) ? b[bo + kb * bk + n * bn] : 0.0f;
        __syncthreads();
        int kmax = min(MATMUL_TILE, p.K - k0);
        for (int kk = 0; kk < kmax; kk++) acc += As[ty][kk] * Bs[kk][tx];
        __syncthreads();
    }
    if (m < p.M && n < p.N) {
        int i = (batch * p.M + m) * p.N + n;
        float v = p.Alpha * acc;
        if (p.HasC != 0) v += p.Beta * c[tensor_offset(p.C, i)];
        y[tensor_offset(p.Out, i)] = v;
    }
}

// conv2d_f32: X [N,C,H,W], Wt [M,C/Group,KH,KW], Bias [M], Out [N,M,OH,OW];
// one thread per output element, consecutive threads along OW (coalesced
// writes, neighbouring reads of X).
extern "C" __global__ void conv2d_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) {
    int i = flat_index();
    if (i >= p.Total) return;
    int n, m, oh, ow;
    nchw(i, p.M, p.OH, p.OW, n, m, oh, ow);
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

// conv_warp_body is the output element i of conv2d_warp_f32 (transposed
// false) or convtranspose2d_warp_f32 (true) for one lane: the lanes stride
// the (channel, kh, kw) window, consecutive lanes reading consecutive
// weights, and sum through warp_sum; lane 0 adds the bias and writes.
__device__ __forceinline__ void conv_warp_body(const ConvParams& p, const float* x, const float* w, const float* bias, float* y, int i, int lane, bool transposed) {
    int n, m, oh, ow;
    nchw(i, p.M, p.OH, p.OW, n, m, oh, ow);
    int cpg = p.C / p.Group;
    int mpg = p.M / p.Group;
    int g = m / mpg;
    int taps = p.KH * p.KW;
    float acc = 0.0f;
    for (int t = lane; t < cpg * taps; t += 32) {
        int c = t / taps; // within the group
        int kh = (t % taps) / p.KW;
        int kw = t % p.KW;
        int ih, iw, wo;
        if (transposed) {
            int th = oh + p.PT - kh * p.DH;
            int tw = ow + p.PL - kw * p.DW;
            if (th < 0 || th % p.SH != 0 || th / p.SH >= p.H) continue;
            if (tw < 0 || tw % p.SW != 0 || tw / p.SW >= p.W) continue;
            ih = th / p.SH;
            iw = tw / p.SW;
            wo = (g * cpg + c) * p.Wt.Strides[0] + (m - g * mpg) * p.Wt.Strides[1];
        } else {
            ih = oh * p.SH - p.PT + kh * p.DH;
            iw = ow * p.SW - p.PL + kw * p.DW;
            if (ih < 0 || ih >= p.H || iw < 0 || iw >= p.W) continue;
            wo = m * p.Wt.Strides[0] + c * p.Wt.Strides[1];
        }
        acc += x[n * p.X.Strides[0] + (g * cpg + c) * p.X.Strides[1] + ih * p.X.Strides[2] + iw * p.X.Strides[3]] *
               w[wo + kh * p.Wt.Strides[2] + kw * p.Wt.Strides[3]];
    }
    acc = warp_sum(acc);
    if (lane == 0) {
        if (p.HasBias != 0) acc += bias[m * p.Bias.Strides[0]];
        y[tensor_offset(p.Out, i)] = acc;
    }
}

// conv2d_warp_f32: conv2d_f32 with one warp per output element, for the
// deep, small outputs of late layers: 32 times the parallelism (the
// backend picks it when the window has at least 64 taps, geometry.go).
// Same parameters and operands.
extern "C" __global__ void conv2d_warp_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) {
    int i = warp_index();
    if (i >= p.Total) return; // whole warps leave together
    conv_warp_body(p, x, w, bias, y, i, int(threadIdx.x & 31), false);
}

// convtranspose2d_f32: X [N,C,H,W], Wt [C,M/Group,KH,KW], Bias [M], Out
// [N,M,OH,OW]: each output gathers the inputs whose scattered window
// covers it.
extern "C" __global__ void convtranspose2d_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) {
    int i = flat_index();
    if (i >= p.Total) return;
    int n, m, oh, ow;
    nchw(i, p.M, p.OH, p.OW, n, m, oh, ow);
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

// convtranspose2d_warp_f32: convtranspose2d_f32 with one warp per output
// element (conv_warp_body); picked like conv2d_warp_f32 (geometry.go).
// Same parameters and operands.
extern "C" __global__ void convtranspose2d_warp_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) {
    int i = warp_index();
    if (i >= p.Total) return; // whole warps leave together
    conv_warp_body(p, x, w, bias, y, i, int(threadIdx.x & 31), true);
}

// pool2d_f32: Mode 0 max, 1 average. An average counts the window
// positions inside the input, or (IncludePad) inside the padded input.
extern "C" __global__ void pool2d_f32(PoolParams p, const float* x, float* y) {
    int i = flat_index();
    if (i >= p.Total) return;
    int OW = p.Out.Shape[3];
    int OH = p.Out.Shape[2];
    int C = p.Out.Shape[1];
    int n, c, oh, ow;
    nchw(i, C, OH, OW, n, c, oh, ow);
    int xc = n * p.X.Strides[0] + c * p.X.Strides[1];
    float acc = p.Mode == 0 ? -INF_F : 0.0f;
    int count = 0;
    for (int kh = 0; kh < p.KH; kh++) {
        int ih = oh * p.SH - p.PT + kh * p.DH;
        for (int kw = 0; kw < p.KW; kw++) {
            int iw = ow * p.SW - p.PL + kw * p.DW;
            if (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W) {
                float v = x[xc + ih * p.X.Strides[2] + iw * p.X.Strides[3]];
                acc = p.Mode == 0 ? fmaxf(acc, v) : acc + v;
                count++;
            } else if (p.IncludePad != 0 && ih >= -p.PT && ih < p.H + p.PB && iw >= -p.PL && iw < p.W + p.PR) {
                count++;
            }
        }
    }
    if (p.Mode != 0) acc = count > 0 ? acc / float(count) : 0.0f;
    y[tensor_offset(p.Out, i)] = acc;
}

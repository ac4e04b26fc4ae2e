// gemm.cu: the register-tiled matrix product behind Conv (an implicit GEMM:
// no im2col buffer) and large MatMul/Gemm. CPU twins: Conv and MatMul/Gemm
// of exec/cpu. The backend picks a tile configuration per launch from the
// problem's shape alone (geometry.go), so a dispatch runs the same kernel,
// and gives the same bits, in every mode.
//
// One block computes a BM x BN tile of one batch's (MatMul) or group's
// (Conv) output C[M, N] = A[M, K] * B[K, N]. Its threads form KS groups of
// (BM/TM)*(BN/TN) threads; each thread keeps a TM x TN micro-tile of sums in
// registers. The K axis goes in stages of KT = BK*KS rows: every thread
// loads its share of the stage's A (BM x KT) and B (KT x BN) pieces into
// registers while the block computes on the previous stage from shared
// memory (two buffers, one barrier per stage); within a stage K group g
// takes rows g*BK .. g*BK+BK-1. Each thread sums its rows in increasing k;
// at the end the groups' sums are added in group order 0, 1, ..., KS-1
// through shared memory, a fixed order, so the result is deterministic.
//
// Conv as GEMM: M = output channels of the group, N = output positions
// (image, oh, ow), K = (kh, kw, c) tap-major: A is the weight, B the input
// patch gathered on the fly with zeros outside the image. When the group's
// channel count is a multiple of KT, every row of a stage shares one tap,
// so a thread checks the image bounds once per stage; otherwise (the 3-channel
// stems, odd channel counts) each element is placed on its own, through a
// table of K entries built once per block where K <= CONV_TAB.

template <int BM, int BN, int TM, int TN, int BK, int KS>
struct TileShape {
    static constexpr int GT = (BM / TM) * (BN / TN); // threads per K group
    static constexpr int T = GT * KS;                // threads per block
    static constexpr int KT = BK * KS;               // K rows per stage
    static constexpr int LA = BM * KT / T;           // A loads per thread per stage
    static constexpr int LB = KT * BN / T;           // B loads per thread per stage
    static constexpr int SA = BM + 4;                // row pitch of the A stage
    static constexpr int STAGE = KT * (SA + BN);
    static constexpr int SMEM = 2 * STAGE > BM * BN ? 2 * STAGE : BM * BN;
};

// gemm_tile computes the tile at (m0, n0) of an M x N x K product whose
// operands and output go through op (ConvGemm, MatMulGemm):
//   op.loadA<L>(k, m, step, r): r[i] = A[m + i*step, k], 0 outside;
//   op.loadB<L>(k, step, r): r[i] = B[k + i*step, col], col fixed by op.col;
//   op.store(m, n, sum) for m < M, n < N.
template <int BM, int BN, int TM, int TN, int BK, int KS, class Op>
__device__ __forceinline__ void gemm_tile(Op& op, int M, int N, int K, int m0, int n0) {
    typedef TileShape<BM, BN, TM, TN, BK, KS> S;
    __shared__ __align__(16) float smem[S::SMEM];
    const int tid = int(threadIdx.x);
    const int grp = tid / S::GT;
    const int lt = tid % S::GT;
    const int tx = lt % (BN / TN);
    const int ty = lt / (BN / TN);
    // Load mapping: A by consecutive k, B by consecutive columns.
    const int ak = tid % S::KT, am = tid / S::KT;
    const int bn = tid % BN, bk = tid / BN;
    op.col(n0 + bn);
    float ra[S::LA], rb[S::LB];
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    op.template loadA<S::LA>(ak, m0 + am, S::T / S::KT, ra);
    op.template loadB<S::LB>(bk, S::T / BN, rb);
#pragma unroll
    for (int i = 0; i < S::LA; i++) smem[ak * S::SA + am + i * (S::T / S::KT)] = ra[i];
#pragma unroll
    for (int i = 0; i < S::LB; i++) smem[S::KT * S::SA + (bk + i * (S::T / BN)) * BN + bn] = rb[i];
    __syncthreads();
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += S::KT) {
        const bool more = k0 + S::KT < K;
        if (more) {
            op.template loadA<S::LA>(k0 + S::KT + ak, m0 + am, S::T / S::KT, ra);
            op.template loadB<S::LB>(k0 + S::KT + bk, S::T / BN, rb);
        }
        const float* As = smem + cur * S::STAGE;
        const float* Bs = As + S::KT * S::SA;
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            const int k = grp * BK + kk;
            float af[TM], bf[TN];
#pragma unroll
            for (int i = 0; i < TM / 4; i++) {
                float4 v = *reinterpret_cast<const float4*>(&As[k * S::SA + i * (BM * 4 / TM) + ty * 4]);
                af[4 * i] = v.x; af[4 * i + 1] = v.y; af[4 * i + 2] = v.z; af[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TN / 4; j++) {
                float4 v = *reinterpret_cast<const float4*>(&Bs[k * BN + j * (BN * 4 / TN) + tx * 4]);
                bf[4 * j] = v.x; bf[4 * j + 1] = v.y; bf[4 * j + 2] = v.z; bf[4 * j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
        }
        if (more) {
            float* An = smem + (cur ^ 1) * S::STAGE;
#pragma unroll
            for (int i = 0; i < S::LA; i++) An[ak * S::SA + am + i * (S::T / S::KT)] = ra[i];
#pragma unroll
            for (int i = 0; i < S::LB; i++) An[S::KT * S::SA + (bk + i * (S::T / BN)) * BN + bn] = rb[i];
        }
        __syncthreads();
        cur ^= 1;
    }
    // Add the K groups' sums in group order.
    for (int r = 1; r < KS; r++) {
        if (grp == r) {
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    smem[((i / 4) * (BM * 4 / TM) + ty * 4 + i % 4) * BN + (j / 4) * (BN * 4 / TN) + tx * 4 + j % 4] = acc[i][j];
        }
        __syncthreads();
        if (grp == 0) {
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] += smem[((i / 4) * (BM * 4 / TM) + ty * 4 + i % 4) * BN + (j / 4) * (BN * 4 / TN) + tx * 4 + j % 4];
        }
        __syncthreads();
    }
    if (grp != 0) return;
#pragma unroll
    for (int j = 0; j < TN; j++) {
        const int n = n0 + (j / 4) * (BN * 4 / TN) + tx * 4 + j % 4;
        if (n >= N) continue;
        op.store_col(n);
#pragma unroll
        for (int i = 0; i < TM; i++) {
            const int m = m0 + (i / 4) * (BM * 4 / TM) + ty * 4 + i % 4;
            if (m < M) op.store(m, acc[i][j]);
        }
    }
}

// CONV_TAB is the longest K whose unaligned patch gather goes through a
// per-block table (8 KiB of shared memory) instead of two divisions a load.
#define CONV_TAB 1024

// ConvGemm: conv2d_f32's operands (ConvParams) as one group's GEMM.
struct ConvGemm {
    const ConvParams& p;
    const float* x;
    const float* w;
    const float* bias;
    float* y;
    int g, cpg, mpg, K, S, OHW;
    bool aligned;
    // Unaligned and K <= CONV_TAB: per k, the input offset from the
    // window's corner (.x) and the (kh*DH, kw*DW) step (.y, 16 bits each).
    const int2* tab;
    // B column (one output position) of this thread's loads.
    bool cv;
    int xb, ih0, iw0;
    // Output column of the next stores.
    int ob;
    bool flat;

    __device__ ConvGemm(const ConvParams& p_, const float* x_, const float* w_, const float* b_, float* y_, int g_, int kt)
        : p(p_), x(x_), w(w_), bias(b_), y(y_), g(g_), tab(nullptr) {
        cpg = p.C / p.Group;
        mpg = p.M / p.Group;
        K = cpg * p.KH * p.KW;
        OHW = p.OH * p.OW;
        S = p.N * OHW;
        aligned = cpg % kt == 0;
        const Tensor& o = p.Out;
        flat = o.Strides[3] == 1 && o.Strides[2] == p.OW && o.Strides[1] == OHW && o.Strides[0] == p.M * OHW;
    }

    __device__ __forceinline__ void col(int s) {
        cv = s < S;
        int ss = cv ? s : 0;
        int n = ss / OHW, r = ss - n * OHW;
        int oh = r / p.OW, ow = r - oh * p.OW;
        xb = n * p.X.Strides[0] + g * cpg * p.X.Strides[1];
        ih0 = oh * p.SH - p.PT;
        iw0 = ow * p.SW - p.PL;
    }

    // weight element offset of k (tap-major) within an output channel's row.
    __device__ __forceinline__ int wk(int k) const {
        int tap = k / cpg, c = k - tap * cpg;
        int kh = tap / p.KW, kw = tap - kh * p.KW;
        return c * p.Wt.Strides[1] + kh * p.Wt.Strides[2] + kw * p.Wt.Strides[3];
    }

    template <int L>
    __device__ __forceinline__ void loadA(int k, int m, int step, float (&r)[L]) const {
        const bool kv = k < K;
        const int off = kv ? wk(k) : 0;
#pragma unroll
        for (int i = 0; i < L; i++) {
            int mm = m + i * step;
            r[i] = (kv && mm < mpg) ? w[(g * mpg + mm) * p.Wt.Strides[0] + off] : 0.0f;
        }
    }

    template <int L>
    __device__ __forceinline__ void loadB(int k, int step, float (&r)[L]) const {
        if (aligned) { // every row of the stage has k's tap
            int tap = k / cpg, c = k - tap * cpg;
            int kh = tap / p.KW, kw = tap - kh * p.KW;
            int ih = ih0 + kh * p.DH, iw = iw0 + kw * p.DW;
            bool ok = cv && k < K && ih >= 0 && ih < p.H && iw >= 0 && iw < p.W;
            const float* base = x + (ok ? xb + c * p.X.Strides[1] + ih * p.X.Strides[2] + iw * p.X.Strides[3] : 0);
            const int cs = step * p.X.Strides[1];
#pragma unroll
            for (int i = 0; i < L; i++) r[i] = ok ? base[i * cs] : 0.0f;
            return;
        }
        if (tab != nullptr) {
            const int corner = xb + ih0 * p.X.Strides[2] + iw0 * p.X.Strides[3];
#pragma unroll
            for (int i = 0; i < L; i++) {
                int kk = k + i * step;
                float v = 0.0f;
                if (cv && kk < K) {
                    int2 e = tab[kk];
                    int ih = ih0 + (e.y >> 16), iw = iw0 + (e.y & 0xffff);
                    if (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W) v = x[corner + e.x];
                }
                r[i] = v;
            }
            return;
        }
#pragma unroll
        for (int i = 0; i < L; i++) {
            int kk = k + i * step;
            float v = 0.0f;
            if (cv && kk < K) {
                int tap = kk / cpg, c = kk - tap * cpg;
                int kh = tap / p.KW, kw = tap - kh * p.KW;
                int ih = ih0 + kh * p.DH, iw = iw0 + kw * p.DW;
                if (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W)
                    v = x[xb + c * p.X.Strides[1] + ih * p.X.Strides[2] + iw * p.X.Strides[3]];
            }
            r[i] = v;
        }
    }

    __device__ __forceinline__ void store_col(int s) {
        int n = s / OHW, r = s - n * OHW;
        ob = (n * p.M + g * mpg) * OHW + r; // flat index of channel g*mpg
    }

    __device__ __forceinline__ void store(int m, float v) {
        int mo = g * mpg + m;
        if (p.HasBias != 0) v += bias[mo * p.Bias.Strides[0]];
        int i = ob + m * OHW;
        y[flat ? i : tensor_offset(p.Out, i)] = v;
    }
};

// MatMulGemm: matmul_f32's operands (MatMulParams) for one batch.
struct MatMulGemm {
    const MatMulParams& p;
    const float* a;
    const float* b;
    const float* c;
    float* y;
    int batch, ao, bo, am, ak, bk, bnS;
    int bcol;
    bool cv;
    int on;

    __device__ MatMulGemm(const MatMulParams& p_, const float* a_, const float* b_, const float* c_, float* y_, int batch_)
        : p(p_), a(a_), b(b_), c(c_), y(y_), batch(batch_) {
        int r = p.Out.Rank;
        ao = 0;
        bo = 0;
        int rem = batch;
        for (int k = r - 3; k >= 0; k--) {
            int d = p.Out.Shape[k];
            int ck = rem % d;
            rem /= d;
            ao += ck * p.A.Strides[k];
            bo += ck * p.B.Strides[k];
        }
        am = p.A.Strides[r - 2];
        ak = p.A.Strides[r - 1];
        bk = p.B.Strides[r - 2];
        bnS = p.B.Strides[r - 1];
    }

    __device__ __forceinline__ void col(int n) {
        cv = n < p.N;
        bcol = bo + (cv ? n : 0) * bnS;
    }

    template <int L>
    __device__ __forceinline__ void loadA(int k, int m, int step, float (&r)[L]) const {
        const bool kv = k < p.K;
#pragma unroll
        for (int i = 0; i < L; i++) {
            int mm = m + i * step;
            r[i] = (kv && mm < p.M) ? a[ao + mm * am + k * ak] : 0.0f;
        }
    }

    template <int L>
    __device__ __forceinline__ void loadB(int k, int step, float (&r)[L]) const {
#pragma unroll
        for (int i = 0; i < L; i++) {
            int kk = k + i * step;
            r[i] = (cv && kk < p.K) ? b[bcol + kk * bk] : 0.0f;
        }
    }

    __device__ __forceinline__ void store_col(int n) { on = n; }

    __device__ __forceinline__ void store(int m, float v) {
        int i = (batch * p.M + m) * p.N + on;
        v = p.Alpha * v;
        if (p.HasC != 0) v += p.Beta * c[tensor_offset(p.C, i)];
        y[tensor_offset(p.Out, i)] = v;
    }
};

template <int BM, int BN, int TM, int TN, int BK, int KS>
__device__ __forceinline__ void conv_gemm(const ConvParams& p, const float* x, const float* w, const float* bias, float* y) {
    int mpg = p.M / p.Group, S = p.N * p.OH * p.OW;
    int tilesN = (S + BN - 1) / BN, tilesM = (mpg + BM - 1) / BM;
    int t = int(blockIdx.x);
    int tn = t % tilesN; t /= tilesN;
    int tm = t % tilesM;
    ConvGemm op(p, x, w, bias, y, t / tilesM, BK * KS);
    // An unaligned gather looks its k up in a table the block builds once.
    __shared__ int2 tab[CONV_TAB];
    if (!op.aligned && op.K <= CONV_TAB && (p.KH - 1) * p.DH < 32768 && (p.KW - 1) * p.DW < 32768) {
        for (int k = int(threadIdx.x); k < op.K; k += int(blockDim.x)) {
            int tap = k / op.cpg, c = k - tap * op.cpg;
            int kh = tap / p.KW, kw = tap - kh * p.KW;
            tab[k] = make_int2(c * p.X.Strides[1] + kh * p.DH * p.X.Strides[2] + kw * p.DW * p.X.Strides[3],
                               ((kh * p.DH) << 16) | (kw * p.DW));
        }
        __syncthreads();
        op.tab = tab;
    }
    gemm_tile<BM, BN, TM, TN, BK, KS>(op, mpg, S, op.K, tm * BM, tn * BN);
}

template <int BM, int BN, int TM, int TN, int BK, int KS>
__device__ __forceinline__ void matmul_gemm(const MatMulParams& p, const float* a, const float* b, const float* c, float* y) {
    int tilesN = (p.N + BN - 1) / BN, tilesM = (p.M + BM - 1) / BM;
    int t = int(blockIdx.x);
    int tn = t % tilesN; t /= tilesN;
    int tm = t % tilesM;
    MatMulGemm op(p, a, b, c, y, t / tilesM);
    gemm_tile<BM, BN, TM, TN, BK, KS>(op, p.M, p.N, p.K, tm * BM, tn * BN);
}

// The configurations (BM, BN, TM, TN, BK, KS), one conv and one matmul
// kernel each, with the same operands as conv2d_f32 and matmul_f32; the
// launch bound is the block's thread count, and geometry.go's gemmConfigs
// must list the same tiles and threads. The grid is one block per tile of
// each group (conv) or batch (matmul), N tiles fastest.
extern "C" __global__ void __launch_bounds__(256) conv2d_gemm128_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) { conv_gemm<128, 128, 8, 8, 8, 1>(p, x, w, bias, y); }
extern "C" __global__ void __launch_bounds__(256) conv2d_gemm64_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) { conv_gemm<64, 64, 8, 8, 8, 4>(p, x, w, bias, y); }
extern "C" __global__ void __launch_bounds__(256) conv2d_gemm32_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) { conv_gemm<32, 32, 4, 4, 8, 4>(p, x, w, bias, y); }
extern "C" __global__ void __launch_bounds__(512) conv2d_gemm32k_f32(ConvParams p, const float* x, const float* w, const float* bias, float* y) { conv_gemm<32, 32, 4, 4, 8, 8>(p, x, w, bias, y); }
extern "C" __global__ void __launch_bounds__(256) matmul_gemm128_f32(MatMulParams p, const float* a, const float* b, const float* c, float* y) { matmul_gemm<128, 128, 8, 8, 8, 1>(p, a, b, c, y); }
extern "C" __global__ void __launch_bounds__(256) matmul_gemm64_f32(MatMulParams p, const float* a, const float* b, const float* c, float* y) { matmul_gemm<64, 64, 8, 8, 8, 4>(p, a, b, c, y); }
extern "C" __global__ void __launch_bounds__(256) matmul_gemm32_f32(MatMulParams p, const float* a, const float* b, const float* c, float* y) { matmul_gemm<32, 32, 4, 4, 8, 4>(p, a, b, c, y); }
extern "C" __global__ void __launch_bounds__(512) matmul_gemm32k_f32(MatMulParams p, const float* a, const float* b, const float* c, float* y) { matmul_gemm<32, 32, 4, 4, 8, 8>(p, a, b, c, y); }

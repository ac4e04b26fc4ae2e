// rows.metal: one thread per row of a [Rows, Cols] view: softmax,
// log-softmax, layer norm, RMS norm and reductions. Element (r, c) of X is
// logical flat index r*Cols+c; the planner permutes X's descriptor so the
// row is contiguous in the logical order (softmax axis last, reduced axes
// last). CPU twins: Softmax, LayerNorm, RMSNorm, Reduce* of exec/cpu.

// layout RowParams size 292: Op 0, Rows 4, Cols 8, HasBias 12, Eps 16, X 20, Scale 88, Bias 156, Out 224
struct RowParams {
    int Op;
    int Rows;
    int Cols;
    int HasBias;
    float Eps;
    Tensor X;
    Tensor Scale;
    Tensor Bias;
    Tensor Out;
};

kernel void rows_f32(constant RowParams& p [[buffer(0)]],
                     device const float* x [[buffer(1)]],
                     device const float* scale [[buffer(2)]],
                     device const float* bias [[buffer(3)]],
                     device float* y [[buffer(4)]],
                     uint gid [[thread_position_in_grid]]) {
    int r = int(gid);
    if (r >= p.Rows) return;
    int base = r * p.Cols;
    switch (p.Op) {
    case 0:
    case 1: { // Softmax, LogSoftmax
        float m = -INFINITY;
        for (int c = 0; c < p.Cols; c++) m = max(m, x[tensor_offset(p.X, base + c)]);
        float s = 0.0f;
        for (int c = 0; c < p.Cols; c++) s += exp(x[tensor_offset(p.X, base + c)] - m);
        float ls = log(s);
        for (int c = 0; c < p.Cols; c++) {
            float v = x[tensor_offset(p.X, base + c)] - m;
            y[tensor_offset(p.Out, base + c)] = p.Op == 0 ? exp(v) / s : v - ls;
        }
        break;
    }
    case 2:
    case 3: { // LayerNorm, RMSNorm
        float mean = 0.0f;
        if (p.Op == 2) {
            for (int c = 0; c < p.Cols; c++) mean += x[tensor_offset(p.X, base + c)];
            mean /= float(p.Cols);
        }
        float ss = 0.0f;
        for (int c = 0; c < p.Cols; c++) {
            float d = x[tensor_offset(p.X, base + c)] - mean;
            ss += d * d;
        }
        float inv = rsqrt(ss / float(p.Cols) + p.Eps);
        for (int c = 0; c < p.Cols; c++) {
            int e = base + c;
            float v = (x[tensor_offset(p.X, e)] - mean) * inv * scale[tensor_offset(p.Scale, e)];
            if (p.HasBias != 0) v += bias[tensor_offset(p.Bias, e)];
            y[tensor_offset(p.Out, e)] = v;
        }
        break;
    }
    default: { // 4 ReduceSum, 5 ReduceMean, 6 ReduceMax
        float acc = p.Op == 6 ? -INFINITY : 0.0f;
        for (int c = 0; c < p.Cols; c++) {
            float v = x[tensor_offset(p.X, base + c)];
            acc = p.Op == 6 ? max(acc, v) : acc + v;
        }
        if (p.Op == 5) acc /= float(p.Cols);
        y[tensor_offset(p.Out, r)] = acc;
        break;
    }
    }
}

#!/usr/bin/python3
"""Times memplan's model zoo in PyTorch: the peers of the GPU study (issue 16).

For the architectures and inputs of scripts/export_models.py (its ZOO, and
its LARGE torchvision CNNs at batch 1 and 8; imported, never copied), on one
GPU, in inference mode with TF32 off, this measures

  eager     the model called from Python: CUDA events around each call,
            median over --runs calls after --warmup calls;
  graph     the same forward captured once in a CUDA graph and replayed:
            CUDA events around each replay, median over --runs replays;
  memory    torch.cuda.max_memory_allocated during one eager forward minus
            what was allocated before it (the weights and the input): the
            activations, the output and any cuDNN/cuBLAS workspace PyTorch's
            caching allocator hands out. Weights and input bytes are printed
            beside it.
  kernels   (unless --no-kernels) the top CUDA kernels of one eager forward
            by GPU time (torch.profiler), for the per-kernel comparison.

Output: JSON lines on stdout, one record per model (kind "torch"), plus one
"env" record first. Model ids match planreport bench-gpu's: "resnet18" for
the 64x64 zoo file, "large/resnet18 b8" for the 224x224 variant at batch 8.

    python3 scripts/torch_peers.py --runs 100 > torch.jsonl          # on the GPU
    /usr/bin/python3 scripts/torch_peers.py --device cpu --runs 3 \\
        --models gpt2_tiny,large/squeezenet1_1                        # CPU dry run

Weights are random (seeded) on both sides: time and memory do not depend on
the values.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import export_models  # noqa: E402

BATCHES = (1, 8)


def model_ids():
    """Every model id of the study, in table order."""
    ids = [n for n in export_models.ZOO if not n.startswith("opaque_")]
    for b in BATCHES:
        ids += ["large/%s b%d" % (n, b) for n in export_models.LARGE]
    return ids


def parse_id(mid):
    """'large/googlenet b8' -> ('googlenet', True, 8); 'gpt2_tiny' -> ('gpt2_tiny', False, 1)."""
    if mid.startswith("large/"):
        name, _, b = mid[len("large/"):].partition(" b")
        return name, True, int(b or 1)
    return mid, False, 1


def quantiles(xs):
    xs = sorted(xs)
    q = lambda p: xs[min(len(xs) - 1, int(p * len(xs)))]
    return {"median": statistics.median(xs), "p10": q(0.10), "p90": q(0.90), "min": xs[0]}


def timer(device):
    """Returns (start, stop) where stop() gives the milliseconds since start():
    CUDA events on a GPU (the GPU's own clock), perf_counter on the CPU."""
    if device.type == "cuda":
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def stop():
            e.record()
            e.synchronize()
            return s.elapsed_time(e)

        return s.record, stop
    box = []
    return lambda: box.append(time.perf_counter()), lambda: 1e3 * (time.perf_counter() - box.pop())


def time_calls(fn, runs, warmup, device):
    for _ in range(warmup):
        fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    ms = []
    for _ in range(runs):
        start, stop = timer(device)
        start()
        fn()
        ms.append(stop())
    return ms


def tensor_bytes(ts):
    return sum(t.numel() * t.element_size() for t in ts)


def peak_activation_bytes(model, x, device):
    """max_memory_allocated during one forward minus what was allocated
    before it (weights, input)."""
    if device.type != "cuda":
        return None, None
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    y = model(x)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - base
    out = tensor_bytes([y]) if torch.is_tensor(y) else None
    del y
    return peak, out


def graph_replay(model, x, runs, warmup, device):
    """Captures one forward in a CUDA graph (after warm-up calls on a side
    stream, as torch.cuda.graph requires) and times its replays. Returns the
    times and the change of memory_reserved across the capture (a rough
    figure, negative when the capture released cached blocks; the tables
    do not use it)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    before = torch.cuda.memory_reserved()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        model(x)
    torch.cuda.synchronize()
    pool = torch.cuda.memory_reserved() - before
    ms = time_calls(g.replay, runs, warmup, device)
    del g
    return ms, pool


def top_kernels(model, x, device, n=8):
    """The n CUDA kernels of one eager forward with the most GPU time."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        model(x)
        torch.cuda.synchronize()
    rows = []
    for e in prof.key_averages():
        us = getattr(e, "device_time_total", None)
        if us is None:
            us = getattr(e, "cuda_time_total", 0)
        if us > 0:
            rows.append({"kernel": e.key[:120], "us": round(us, 2), "count": e.count})
    rows.sort(key=lambda r: (-r["us"], r["kernel"]))
    return rows[:n]


def measure(mid, args, device):
    name, large, batch = parse_id(mid)
    model, make_input = export_models.build(name, large=large)
    x = make_input(torch.Generator().manual_seed(1), batch)
    model, x = model.to(device), x.to(device)
    rec = {
        "kind": "torch", "run": args.run, "model": mid, "batch": batch, "input": list(x.shape),
        "weights_bytes": tensor_bytes(list(model.parameters()) + list(model.buffers())),
        "input_bytes": tensor_bytes([x]),
    }
    with torch.inference_mode():
        eager = time_calls(lambda: model(x), args.runs, args.warmup, device)
        rec["eager_ms"] = quantiles(eager)
        rec["act_peak_bytes"], rec["output_bytes"] = peak_activation_bytes(model, x, device)
        if device.type == "cuda":
            graph, rec["graph_pool_bytes"] = graph_replay(model, x, args.runs, args.warmup, device)
            rec["graph_ms"] = quantiles(graph)
            if args.kernels:
                try:
                    rec["top_kernels"] = top_kernels(model, x, device)
                except Exception as e:  # the profiler needs CUPTI; its absence costs only this table
                    rec["top_kernels_error"] = str(e)[:200]
    del model, x
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--run", type=int, default=1, help="run number written into every record")
    ap.add_argument("--models", default="", help="comma-separated model ids (default: all)")
    ap.add_argument("--no-kernels", dest="kernels", action="store_false")
    args = ap.parse_args()
    device = torch.device(args.device)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    for obj in (getattr(torch.backends.cuda, "matmul", None), getattr(torch.backends.cudnn, "conv", None)):
        try:  # newer PyTorch's switch for the same thing; older ones raise on the name
            obj.fp32_precision = "ieee"
        except (AttributeError, AssertionError):
            pass
    ids = [m for m in args.models.split(",") if m] or model_ids()
    env = {"kind": "env", "run": args.run, "torch": torch.__version__, "device": str(device),
           "runs": args.runs, "warmup": args.warmup,
           "tf32": torch.backends.cuda.matmul.allow_tf32 or torch.backends.cudnn.allow_tf32,
           "cudnn_benchmark": torch.backends.cudnn.benchmark}
    if device.type == "cuda":
        env["gpu"] = torch.cuda.get_device_name(device)
        env["cuda"] = torch.version.cuda
        env["cudnn"] = torch.backends.cudnn.version()
    print(json.dumps(env), flush=True)
    for mid in ids:
        t0 = time.time()
        try:
            rec = measure(mid, args, device)
        except Exception as e:  # one failing model must not lose the others' figures
            rec = {"kind": "error", "run": args.run, "model": mid, "error": "%s: %s" % (type(e).__name__, e)}
        rec["seconds"] = round(time.time() - t0, 2)
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()

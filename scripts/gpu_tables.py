#!/usr/bin/env python3
"""Turns the GPU study's raw outputs into docs/BENCHMARKS.md tables and an SVG.

    python3 scripts/gpu_tables.py [DATA_DIR] [BENCHMARKS_MD] [SVG]

defaults: docs/data/gpu, docs/BENCHMARKS.md, docs/gpu-time-arena.svg.

DATA_DIR holds what scripts/gpu_bench.sh wrote on the device:
memplan.N.jsonl (planreport bench-gpu, run N), torch.N.jsonl
(scripts/torch_peers.py, run N) and env.*.txt (per device call: the GPU,
the commit, the date, the load). The script replaces the text between the markers
"<!-- gpu-study:begin -->" and "<!-- gpu-study:end -->" of BENCHMARKS_MD
(appending a section when they are missing) and writes SVG: best GPU time
against arena for each objective, one point per model and objective. No
figure in that section is typed by hand; rerun this script after a new
device run. Standard library only.
"""

import glob
import json
import math
import os
import re
import sys

BEGIN, END = "<!-- gpu-study:begin -->", "<!-- gpu-study:end -->"
MIB = 1024.0 * 1024.0
OBJ_COLOURS = {"memory": "#1f77b4", "concurrency": "#d62728", "balanced": "#2ca02c"}
# Variants ordered by barriers ("serial graph") and by barrier groups or
# edges ("concurrent"): the speed-up goal compares the best concurrent one
# with the serial one. Names are planreport bench-gpu's -backend cuda names.
SERIAL_VARIANT = "graph-serial"
CONCURRENT_VARIANTS = ("graph-inferred", "graph-reordered", "graph-edges")
BARRIER_VARIANT = "graph-reordered"  # whose barrier count the tables show
PROFILE_VARIANT = "stream"  # the variant that times single dispatches
BRANCHY = ("googlenet", "large/googlenet b1", "large/inception_v3 b1")


def load(data):
    mem, torch, errors = [], [], []
    for path in sorted(glob.glob(os.path.join(data, "memplan.*.jsonl")) + glob.glob(os.path.join(data, "torch.*.jsonl"))):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                k = r.get("kind")
                if k == "memplan":
                    mem.append(r)
                elif k == "torch":
                    torch.append(r)
                elif k in ("error", "skipped"):
                    errors.append((os.path.basename(path), r))
    return mem, torch, errors


def family(model):
    if model.startswith("large/"):
        return "torchvision CNNs at 224x224 (inception_v3 at 299x299), batch %s" % model.rsplit(" b", 1)[-1]
    if model in ("gpt2_tiny", "llama_tiny", "unet_small"):
        return "zoo transformers and UNet"
    return "zoo torchvision CNNs at 64x64, batch 1"


def ordered(seq):
    seen, out = set(), []
    for x in seq:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


class Study:
    def __init__(self, mem, torch):
        self.runs = sorted({r["run"] for r in mem} | {r["run"] for r in torch})
        self.models = ordered([r["model"] for r in mem] + [r["model"] for r in torch])
        self.objectives = ordered(r["objective"] for r in mem)
        self.variants = ordered(r["variant"] for r in mem)
        self.m = {(r["run"], r["model"], r["objective"], r["variant"]): r for r in mem}
        self.t = {(r["run"], r["model"]): r for r in torch}

    def mtime(self, run, model, obj, var):
        r = self.m.get((run, model, obj, var))
        return r["time_ms"]["median"] if r else None

    def best(self, run, model, objs=None):
        """(time, objective, variant) of the fastest memplan configuration."""
        cands = [(self.mtime(run, model, o, v), o, v) for o in (objs or self.objectives) for v in self.variants]
        cands = [c for c in cands if c[0] is not None]
        return min(cands) if cands else None

    def field(self, run, model, obj, key):
        """key of the first variant of (run, model, obj) that has it."""
        for v in self.variants:
            r = self.m.get((run, model, obj, v))
            if r and r.get(key):
                return r[key]
        return None

    def arena(self, model, obj):
        for run in self.runs:
            for v in self.variants:
                r = self.m.get((run, model, obj, v))
                if r:
                    return r["arena_bytes"]
        return None

    def torch_field(self, run, model, key):
        r = self.t.get((run, model))
        if not r or r.get(key) is None:
            return None
        v = r[key]
        return v["median"] if isinstance(v, dict) else v


def fmt(x, digits=3):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return "%.*g" % (digits, x)


def per_run(study, f, digits=3):
    """'a / b' over the runs of f(run)."""
    return " / ".join(fmt(f(run), digits) for run in study.runs)


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def tables(study):
    out = []
    runs = " / ".join("run %d" % r for r in study.runs)
    for fam in ordered(family(m) for m in study.models):
        models = [m for m in study.models if family(m) == fam]
        out += ["", "### %s" % fam, "",
                "Medians in ms (%s); best = the fastest objective and variant of memplan; "
                "PyTorch: eager and CUDA-graph replay; arena under the memory objective; "
                "PyTorch peak = max_memory_allocated during a forward minus weights and input; "
                "memplan device = what the driver saw a loaded program hold (arena, weights, input, graph)." % runs, "",
                "| model | memplan best (run 1) | memplan best ms | PyTorch eager ms | PyTorch graph ms "
                "| best/eager | best/graph | arena MiB | PyTorch peak MiB | arena/peak | memplan device MiB (driver) |",
                "|---|---|---|---|---|---|---|---|---|---|---|"]
        for m in models:
            b1 = study.best(study.runs[0], m)
            bt = lambda run: (study.best(run, m) or (None,))[0]
            eager = lambda run: study.torch_field(run, m, "eager_ms")
            graph = lambda run: study.torch_field(run, m, "graph_ms")
            peak = study.torch_field(study.runs[0], m, "act_peak_bytes")
            arena = study.arena(m, "memory")
            drv = study.field(study.runs[0], m, "memory", "driver_bytes")
            out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                m, "%s/%s" % (b1[1], b1[2]) if b1 else "-", per_run(study, bt), per_run(study, eager),
                per_run(study, graph), per_run(study, lambda r: ratio(bt(r), eager(r)), 2),
                per_run(study, lambda r: ratio(bt(r), graph(r)), 2),
                fmt(arena and arena / MIB), fmt(peak and peak / MIB), fmt(ratio(arena, peak), 2), fmt(drv and drv / MIB)))
        out += ["", "Every objective and variant (median ms, %s); concurrent/serial = the best of %s over %s "
                "of the same objective:" % (runs, ", ".join(CONCURRENT_VARIANTS), SERIAL_VARIANT), "",
                "| model | objective | arena MiB | barriers (%s) | " % BARRIER_VARIANT + " | ".join(study.variants) + " | concurrent/serial |",
                "|---|---|---|---|" + "---|" * len(study.variants) + "---|"]
        for m in models:
            for o in study.objectives:
                a = study.arena(m, o)
                if a is None:
                    continue
                bars = next((study.m[k].get("barriers", 0) for k in sorted(study.m) if k[1:4] == (m, o, BARRIER_VARIANT)), None)
                cells = [per_run(study, lambda r, v=v: study.mtime(r, m, o, v)) for v in study.variants]
                sp = per_run(study, lambda r: ratio(conc(study, r, m, o), study.mtime(r, m, o, SERIAL_VARIANT)), 2)
                out.append("| %s | %s | %s | %s | %s | %s |" % (m, o, fmt(a / MIB), fmt(bars), " | ".join(cells), sp))
    return out


def conc(study, run, model, obj):
    ts = [study.mtime(run, model, obj, v) for v in CONCURRENT_VARIANTS]
    ts = [t for t in ts if t is not None]
    return min(ts) if ts else None


def serial_graph(study, run, model):
    ts = [study.mtime(run, model, o, SERIAL_VARIANT) for o in study.objectives]
    ts = [t for t in ts if t is not None]
    return min(ts) if ts else None


def goals(study):
    out = ["", "### Goals", ""]
    r0 = study.runs[0]
    # 1. concurrency beats the serial graph by >= 15% on branchy models at batch 1:
    # barrier groups (the better of inferred and reordered) and edges, each
    # against the fastest serial graph of any objective, worst run.
    for m in BRANCHY:
        if m not in study.models:
            continue
        parts, gains = [], []
        for label, vs in (("barrier groups", ("graph-inferred", "graph-reordered")), ("edges", ("graph-edges",))):
            rs = []
            for r in study.runs:
                ts = [study.mtime(r, m, "concurrency", v) for v in vs]
                ts = [t for t in ts if t is not None]
                rs.append(ratio(min(ts), serial_graph(study, r, m)) if ts else None)
            if None in rs or not rs:
                parts.append("%s: not measured" % label)
                continue
            gain = 1 - max(rs)
            gains.append(gain)
            parts.append("%s %s of the serial time (gain %.0f%%: **%s**)" % (
                label, " / ".join(fmt(x, 3) for x in rs), 100 * gain, "met" if gain >= 0.15 else "missed"))
        out.append("- %s, concurrency objective, against the fastest serial graph (any objective), runs %s: %s"
                   % (m, " / ".join(str(r) for r in study.runs), "; ".join(parts)))
    # 2. best mode beats eager everywhere, within 1.5x of graph replay.
    slow_e, slow_g, n, ng = [], [], 0, 0
    for m in study.models:
        for r in study.runs:
            b = study.best(r, m)
            e, g = study.torch_field(r, m, "eager_ms"), study.torch_field(r, m, "graph_ms")
            if b is None or e is None:
                continue
            n += 1
            if b[0] >= e:
                slow_e.append("%s (run %d: %s vs %s ms)" % (m, r, fmt(b[0]), fmt(e)))
            ng += g is not None
            if g is not None and b[0] > 1.5 * g:
                slow_g.append("%s (run %d: %.2fx)" % (m, r, b[0] / g))
    out.append("- memplan's best configuration beats PyTorch eager: **%s** (%d model-runs; slower on: %s)"
               % (verdict(not slow_e, n), n, ", ".join(slow_e) or "none"))
    out.append("- memplan's best configuration within 1.5x of PyTorch CUDA-graph replay: **%s** (%d model-runs; beyond on: %s)"
               % (verdict(not slow_g, ng), ng, ", ".join(slow_g) or "none"))
    # 3. arena below PyTorch's peak for every objective.
    over, n = [], 0
    for m in study.models:
        peak = study.torch_field(r0, m, "act_peak_bytes")
        for o in study.objectives:
            a = study.arena(m, o)
            if a is None or peak is None:
                continue
            n += 1
            if a >= peak:
                over.append("%s/%s (%s vs %s MiB)" % (m, o, fmt(a / MIB), fmt(peak / MIB)))
    out.append("- memplan's arena below PyTorch's activation peak under every objective: **%s** (%d model-objectives; at or above on: %s)"
               % (verdict(not over, n), n, ", ".join(over) or "none"))
    return out


def verdict(ok, n):
    return "not measured" if n == 0 else "met" if ok else "missed"


def profiles(study):
    """The per-kind time of the stream variant (the only one that times single
    dispatches) and PyTorch's top kernels, for the models where a goal is missed."""
    out = ["", "### Where the time goes (per-dispatch profile, run %d)" % study.runs[0], ""]
    r0 = study.runs[0]
    for m in study.models:
        b = study.best(r0, m)
        g = study.torch_field(r0, m, "graph_ms")
        e = study.torch_field(r0, m, "eager_ms")
        if b is None or e is None or (b[0] < e and (g is None or b[0] <= 1.5 * g)):
            continue
        rec = study.m.get((r0, m, "memory", PROFILE_VARIANT))
        if not (rec and rec.get("kinds")):
            rec = next((study.m[k] for k in sorted(study.m) if k[:3] == (r0, m, "memory") and study.m[k].get("kinds")), None)
        tk = study.t.get((r0, m), {}).get("top_kernels") or []
        out.append("- %s: memplan %s ms against PyTorch eager %s ms, graph %s ms. memplan by op kind (%s, ms per run): %s. "
                   "PyTorch's top kernels (us per forward): %s." % (
                       m, fmt(b[0]), fmt(e), fmt(g), rec["variant"] if rec else "-",
                       ", ".join("%s %s" % (k["kind"], fmt(k["share_ms"])) for k in (rec or {}).get("kinds", [])[:5]) or "-",
                       ", ".join("%s %s" % (k["kernel"][:48], fmt(k["us"])) for k in tk[:4]) or "-"))
    return out


def env_lines(data):
    out = []
    for path in sorted(glob.glob(os.path.join(data, "env*.txt"))):
        keep = [l.rstrip() for l in open(path) if re.match(r"^(date|commit|gpu|load|command|torch)", l)]
        out += ["", "Device call recorded in %s:" % path, ""] + ["    " + l for l in keep]
    return out


def marker(o, x, y, title):
    """memory: a filled dot; concurrency: a ring around it; balanced: a
    small square (so equal points stay visible); PyTorch: a grey cross."""
    c = OBJ_COLOURS.get(o, "#777")
    t = "<title>%s</title>" % title
    if o == "concurrency":
        return '<circle cx="%.1f" cy="%.1f" r="7" fill="none" stroke="%s" stroke-width="1.5">%s</circle>' % (x, y, c, t)
    if o == "balanced":
        return '<rect x="%.1f" y="%.1f" width="5" height="5" fill="%s">%s</rect>' % (x - 2.5, y - 2.5, c, t)
    if o == "pytorch":
        return '<path d="M%.1f %.1fl8 8m0 -8l-8 8" stroke="#666" stroke-width="1.5">%s</path>' % (x - 4, y - 4, t)
    return '<circle cx="%.1f" cy="%.1f" r="4" fill="%s">%s</circle>' % (x, y, c, t)


def svg(study, path):
    pts = []
    r0 = study.runs[0]
    for m in study.models:
        row = []
        for o in study.objectives:
            b, a = study.best(r0, m, [o]), study.arena(m, o)
            if b and a:
                row.append((a / MIB, b[0], o))
        pts.append((m, row))
    peers = []  # PyTorch: CUDA-graph replay time against its activation peak
    for m in study.models:
        g, pk = study.torch_field(r0, m, "graph_ms"), study.torch_field(r0, m, "act_peak_bytes")
        if g and pk:
            peers.append((pk / MIB, g, m))
    xs = [p[0] for _, r in pts for p in r] + [p[0] for p in peers]
    ys = [p[1] for _, r in pts for p in r] + [p[1] for p in peers]
    if not xs:
        return
    W, H, L, B, T, R = 900, 560, 70, 50, 30, 170
    lx0, lx1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
    ly0, ly1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    lx1, ly1 = max(lx1, lx0 + 1), max(ly1, ly0 + 1)
    X = lambda v: L + (math.log10(v) - lx0) / (lx1 - lx0) * (W - L - R)
    Y = lambda v: H - B - (math.log10(v) - ly0) / (ly1 - ly0) * (H - B - T)
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="13">memplan on the GPU: best time against arena, per objective; PyTorch graph replay against its peak (run %d)</text>' % (L, r0)]
    for e in range(lx0, lx1 + 1):
        s.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (X(10 ** e), T, X(10 ** e), H - B))
        s.append('<text x="%.1f" y="%d" text-anchor="middle">%g</text>' % (X(10 ** e), H - B + 15, 10 ** e))
    for e in range(ly0, ly1 + 1):
        s.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (L, Y(10 ** e), W - R, Y(10 ** e)))
        s.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (L - 5, Y(10 ** e) + 4, 10 ** e))
    s.append('<text x="%d" y="%d" text-anchor="middle">arena (MiB, log)</text>' % ((L + W - R) / 2, H - 12))
    s.append('<text transform="translate(16,%d) rotate(-90)" text-anchor="middle">best median GPU time (ms, log)</text>' % ((T + H - B) / 2))
    for m, row in pts:
        for (a1, t1, _), (a2, t2, _) in zip(row, row[1:]):
            s.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb"/>' % (X(a1), Y(t1), X(a2), Y(t2)))
        for a, t, o in row:
            s.append(marker(o, X(a), Y(t), "%s %s: %.3g MiB, %.3g ms" % (m, o, a, t)))
        if row:
            s.append('<text x="%.1f" y="%.1f" font-size="9" fill="#555">%s</text>' % (X(row[0][0]) + 6, Y(row[0][1]) - 4, m))
    for a, t, m in peers:
        s.append(marker("pytorch", X(a), Y(t), "%s PyTorch: peak %.3g MiB, graph replay %.3g ms" % (m, a, t)))
    for i, o in enumerate(study.objectives + ["pytorch"]):
        y = T + 20 + 18 * i
        s.append(marker(o, W - R + 20, y, o) + '<text x="%d" y="%d">%s</text>' % (W - R + 32, y + 4, o if o != "pytorch" else "PyTorch (graph)"))
    s.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(s) + "\n")


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "docs/data/gpu"
    md = sys.argv[2] if len(sys.argv) > 2 else "docs/BENCHMARKS.md"
    svg_path = sys.argv[3] if len(sys.argv) > 3 else "docs/gpu-time-arena.svg"
    mem, torch, errors = load(data)
    study = Study(mem, torch)
    body = [BEGIN, "", "<!-- generated by: python3 scripts/gpu_tables.py %s %s %s -->" % (data, md, svg_path)]
    body += env_lines(data)
    body += tables(study) + goals(study) + profiles(study)
    if errors:
        body += ["", "Not measured (errors and skips in the raw output):", ""]
        body += ["- %s: %s %s %s: %s" % (f, r.get("model"), r.get("objective", ""), r.get("variant", ""), r.get("error", r["kind"])) for f, r in errors]
    body += ["", "![best time against arena per objective](%s)" % os.path.relpath(svg_path, os.path.dirname(md) or "."), "", END]
    text = open(md).read() if os.path.exists(md) else ""
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + "\n".join(body) + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## GPU study: memplan against PyTorch (issue 16)\n\n" + "\n".join(body) + "\n"
    with open(md, "w") as f:
        f.write(text)
    svg(study, svg_path)
    print("%d memplan records, %d torch records, %d errors/skips -> %s, %s" % (len(mem), len(torch), len(errors), md, svg_path))


if __name__ == "__main__":
    main()

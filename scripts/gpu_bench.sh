#!/bin/bash
# The GPU study's device call (issue 16): memplan and PyTorch on the same GPU.
#
#   scripts/gpu_bench.sh OUTDIR [ROUNDS] [SECONDS] [FIRST]
#
# runs ROUNDS (default 2) full rounds, numbered from FIRST (default 1), each: planreport bench-gpu -backend cuda
# over every zoo model and the larger torchvision variants at batch 1 and 8,
# under every objective and CUDA variant (>= 100 timed launches after
# warm-up each), then scripts/torch_peers.py over the same models. It writes
# OUTDIR/memplan.N.jsonl, OUTDIR/torch.N.jsonl, OUTDIR/env.FIRST.txt and
# OUTDIR/bench.FIRST.log (every step's stderr; six files for two rounds), and keeps the whole call under SECONDS (default 560):
# each step gets a share of what is left (bench-gpu -deadline; timeout for
# PyTorch), and both print their records as they go, so a step cut short
# keeps what it measured. scripts/gpu_tables.py turns OUTDIR into the
# tables of docs/BENCHMARKS.md.
#
# On the lent machine (the device tool runs it from the repository root
# with bin/ carried; Go is not installed there):
#
#   CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o bin/planreport ./cmd/planreport
#   git rev-parse --short HEAD > bin/COMMIT
#   (device) scripts/gpu_bench.sh "$OUT" 2 560
#
# Environment: PLANREPORT (default bin/planreport), PYTHON (default python3),
# BENCH_FLAGS (extra bench-gpu flags, e.g. -variants graph-serial,graph-edges),
# MODELS (space-separated bench-gpu model arguments replacing the list below;
# TORCH_MODELS then names the same models for torch_peers.py, comma-separated).
set -u
out=${1:?usage: gpu_bench.sh OUTDIR [ROUNDS] [SECONDS] [FIRST]}
rounds=${2:-2}
budget=${3:-560}
first=${4:-1}
pr=${PLANREPORT:-bin/planreport}
py=${PYTHON:-python3}
mkdir -p "$out"
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }

models=()
for m in resnet18 mobilenet_v2 squeezenet1_1 densenet121 googlenet gpt2_tiny llama_tiny unet_small; do
	models+=("testdata/models/$m.onnx")
done
for b in 1 8; do
	for m in resnet18 mobilenet_v2 squeezenet1_1 densenet121 googlenet inception_v3; do
		models+=("testdata/models/large/$m.onnx@batch=$b")
	done
done

if [ -n "${MODELS:-}" ]; then
	read -r -a models <<<"$MODELS"
fi

{
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit $(cat bin/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "gpu $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
	echo "load $(uptime)"
	echo "command scripts/gpu_bench.sh OUTDIR $rounds $budget $first (bench-gpu -backend cuda -runs 100 -warmup 10 ${BENCH_FLAGS:-}; torch_peers.py --runs 100 --warmup 20)"
	echo "torch $($py -c 'import torch; print(torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' 2>&1 | tail -1)"
} >"$out/env.$first.txt"

for i in $(seq 1 "$rounds"); do
	r=$((first + i - 1))
	# Split what is left between this round's two steps and the later rounds:
	# memplan gets two thirds of the round's share, PyTorch the rest.
	share=$(($(left) / (rounds - i + 1)))
	d=$((share * 2 / 3))
	echo "round $r: bench-gpu deadline ${d}s (left $(left)s)" | tee -a "$out/bench.$first.log" >&2
	# shellcheck disable=SC2086
	"$pr" bench-gpu -backend cuda -run-id "$r" -runs 100 -warmup 10 -deadline "${d}s" ${BENCH_FLAGS:-} \
		-o "$out/memplan.$r.jsonl" "${models[@]}" 2>>"$out/bench.$first.log"
	echo "round $r: bench-gpu exit $? after $((budget - $(left)))s" | tee -a "$out/bench.$first.log" >&2
	t=$(($(left) / (rounds - i + 1) - 5))
	if [ "$t" -gt 10 ]; then
		timeout "${t}s" "$py" scripts/torch_peers.py --run "$r" --runs 100 --warmup 20 --models "${TORCH_MODELS:-}" >"$out/torch.$r.jsonl" 2>>"$out/bench.$first.log"
		echo "round $r: torch_peers exit $? after $((budget - $(left)))s" | tee -a "$out/bench.$first.log" >&2
	fi
done
echo "load_end $(uptime)" >>"$out/env.$first.txt"

#!/bin/sh
# cuda_device.sh OUT: the exec/cuda acceptance run on a GPU machine (issue 15).
# Build here first (no Go on the device), then run this there from the
# repository root with bin/ carried:
#
#   CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go test -c -o bin/cuda.test ./exec/cuda
#   CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o bin/planreport ./cmd/planreport
#   scripts/cuda_device.sh "$OUT"
#
# It writes to OUT: zoo.log (every full zoo model, fused and not, in every GPU
# mode, against PyTorch's output), random.log (100 random graphs x every
# objective x every mode against the CPU backend), memory.log (allocations
# against cuMemGetInfo), sanitizer.log (compute-sanitizer memcheck over one
# run of every full model), bench.log and cuda_bench.tsv (GPU time per run,
# 200 timed runs after 20 warm-up runs), cli.log (planreport -run -backend
# cuda on every full model and sync). docs/data/cuda/ holds the last outputs;
# docs/BENCHMARKS.md's table is `go run ./internal/tools/cudatable
# docs/data/cuda/cuda_bench.tsv`.
out=${1:?usage: cuda_device.sh OUT}
Z='-cuda.zoo=testdata/models/*_full'
T=bin/cuda.test
(date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) > "$out/cli.log"
$T -test.v -test.run 'TestGPUZooMatchesPyTorch' "$Z" > "$out/zoo.log" 2>&1; echo "zoo rc=$?"
$T -test.v -test.run 'TestGPURandomGraphs' -cuda.graphs=100 > "$out/random.log" 2>&1; echo "random rc=$?"
$T -test.v -test.run 'TestGPUMemory' "$Z" > "$out/memory.log" 2>&1; echo "memory rc=$?"
compute-sanitizer --tool memcheck $T -test.v -test.run 'TestGPUZooOnce' "$Z" > "$out/sanitizer.log" 2>&1; echo "sanitizer rc=$?"
$T -test.v -test.run TestGPUBench "$Z" -cuda.bench="$out/cuda_bench.tsv" > "$out/bench.log" 2>&1; echo "bench rc=$?"
for m in gpt2_tiny llama_tiny squeezenet1_1 unet_small; do
	for s in barriers edges stream; do
		bin/planreport -run -runs 5 -backend cuda -cuda-sync $s \
			-input-dir testdata/models/${m}_full/test_data_set_0 testdata/models/${m}_full/model.onnx >> "$out/cli.log" 2>&1
		echo "$m $s rc=$?" >> "$out/cli.log"
	done
done
grep rc= "$out/cli.log" | tr '\n' ' '

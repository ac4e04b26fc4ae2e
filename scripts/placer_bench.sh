#!/usr/bin/env bash
# placer_bench.sh measures the figures of issue 18 (docs/BENCHMARKS.md,
# "planner: auto, mid-size search, a million buffers"), printing the load
# average before each part:
#
#   1. the default strategy (auto) and the portfolio on every DSA instance,
#      and auto on the packable instances (planner/testdata/packable);
#   2. Y_1 through the whole CLI with the default strategy, 3 runs;
#   3. one million synthetic buffers (planreport gen, the benchmarks'
#      ladder) read, planned, verified and written through the whole CLI,
#      3 runs, wall time and peak memory (bytes per buffer);
#   4. the search strategy on the packable instances
#      (planner/testdata/packable), 10 s each, with its progress lines
#      (the arena against time, once a second);
#   5. the search strategy on the whole challenging suite, A to K
#      (planreport bench, 10 s each), S_1 (30 s) and pangu_2.6B (10 s).
#
#	scripts/placer_bench.sh [DSA_DIR]   # default: ../shared/benchmarks/dsa
#	PARTS="4" scripts/placer_bench.sh   # only the parts listed
#
# Each timed CLI run of parts 2 and 3 also prints the CPU seconds the
# hypervisor took from this machine while it ran (scripts/steal.sh): on a
# contended host a run's wall time says more about the host than about
# the code.
#
# Needs GNU time (/usr/bin/time) for the peak memory.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
dsa=${1:-$root/../shared/benchmarks/dsa}
[ -d "$dsa" ] || dsa=$(cd "$(git -C "$root" rev-parse --git-common-dir)/../.." && pwd)/shared/benchmarks/dsa
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/planreport
(cd "$root" && go build -o "$bin" ./cmd/planreport)
parts=${PARTS:-1 2 3 4 5}
want() { [[ " $parts " == *" $1 "* ]]; }
load() { echo "## $(date -u +%H:%M:%S) UTC, $(uptime | sed 's/.*load average/load average/'), commit $(git -C "$root" rev-parse --short HEAD)"; }
# shellcheck source=scripts/steal.sh
source "$root/scripts/steal.sh"

if want 1; then
load; echo "### 1. auto (default) and portfolio on the DSA instances, then auto on the packable instances"
"$bin" bench -strategy auto "$dsa"
"$bin" bench -strategy portfolio "$dsa"
"$bin" bench -strategy auto "$root/planner/testdata/packable"

fi
if want 2; then
load; echo "### 2. Y_1 through the CLI, default strategy"
for i in 1 2 3; do
	s0=$(stolen)
	/usr/bin/time -o "$tmp/time" -f "Y_1 run $i: %e s wall, %U s user, %M KB peak" "$bin" -format csv -o "$tmp/y1.csv" "$dsa/real/Y_1.csv"
	echo "$(cat "$tmp/time"), $(steal "$s0")"
done

fi
if want 3; then
load; echo "### 3. 1,000,000 synthetic buffers through the CLI"
"$bin" gen -kind synthetic -n 1000000 -o "$tmp/s1m.csv"
for i in 1 2 3; do
	s0=$(stolen)
	/usr/bin/time -o "$tmp/time" -f "%e %U %M" "$bin" -format csv -o "$tmp/out1m.csv" "$tmp/s1m.csv"
	read -r wall user kb <"$tmp/time"
	echo "1M run $i: $wall s wall, $user s user, $kb KB peak = $((kb * 1024 / 1000000)) bytes/buffer ($(wc -l <"$tmp/out1m.csv") lines out), $(steal "$s0")"
done
"$bin" -format text -o "$tmp/s1m.txt" "$tmp/s1m.csv" && head -2 "$tmp/s1m.txt"

fi
if want 4; then
load; echo "### 4. search on the packable instances (10 s; progress lines: the cuts' buffers at LB so far, a piece's own search, the best arena, gap, seconds)"
for f in "$root"/planner/testdata/packable/*.csv; do
	echo "#### $(basename "$f")"
	"$bin" -strategy search -budget 10s -format text -o "$tmp/r.txt" "$f" 2>&1 | grep -E '^search:' || true
	head -1 "$tmp/r.txt"
done

fi
if want 5; then
load; echo "### 5. search on challenging A-K (10 s each), S_1 (30 s) and pangu_2.6B (10 s)"
"$bin" bench -strategy search -budget 10s "$dsa/challenging"
/usr/bin/time -f "S_1: %e s wall" "$bin" -strategy search -budget 30s -format text -o "$tmp/r.txt" "$dsa/real/S_1.csv" 2>&1 | grep -E '^(search:|S_1:)' || true
head -2 "$tmp/r.txt"
/usr/bin/time -f "pangu_2.6B: %e s wall" "$bin" -strategy search -budget 10s -format text -o "$tmp/r.txt" "$dsa/real/pangu_2.6B.csv" 2>&1 | grep -E '^(search:|pangu_2.6B:)' || true
head -2 "$tmp/r.txt"
fi
load

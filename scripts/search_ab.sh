#!/usr/bin/env bash
# search_ab.sh runs the search strategy on one DSA CSV at two git
# revisions, interleaved on one machine (before, after, before, after,
# ...), and prints each run's arena / LB and wall seconds, with the load
# average before it. The search is bounded by wall time, so its arena
# moves with the CPU it gets: BUSY=K starts K busy loops (one core each)
# for the whole comparison, to measure it under load.
#
#	scripts/search_ab.sh BEFORE AFTER [COUNT] [FILE] [BUDGET]
#	scripts/search_ab.sh 202ed0b HEAD 3 planner/testdata/packable/p5000.csv 10s
#	BUSY=2 scripts/search_ab.sh 202ed0b HEAD 3
#
# FILE defaults to planner/testdata/packable/p5000.csv, BUDGET to 10s.
set -euo pipefail
before=$1 after=$2 count=${3:-3}
file=$(realpath "${4:-$(git rev-parse --show-toplevel)/planner/testdata/packable/p5000.csv}")
budget=${5:-10s}
# shellcheck source=scripts/ab_build.sh
source "$(dirname "$0")/ab_build.sh"
ab_build "$before" "$after"
busy=()
for ((k = 0; k < ${BUSY:-0}; k++)); do
	(while :; do :; done) &
	busy+=($!)
done
# This trap replaces ab_build's: it also stops the loops.
trap 'kill "${busy[@]}" 2>/dev/null || true; ab_cleanup' EXIT
echo "file $file, budget $budget, ${BUSY:-0} busy loops, $(date -u +%H:%M:%S) UTC"
for ((r = 1; r <= count; r++)); do
	for side in before after; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		start=$(date +%s.%N)
		"$out/$side" -strategy search -budget "$budget" -format text -o "$out/report.txt" "$file" 2>/dev/null
		end=$(date +%s.%N)
		line=$(grep -m1 '^# arena_bytes' "$out/report.txt")
		arena=$(sed 's/.*arena_bytes=\([0-9]*\).*/\1/' <<<"$line")
		lb=$(sed 's/.*lower_bound_bytes=\([0-9]*\).*/\1/' <<<"$line")
		printf '%s run %d: arena/LB %s, %.2f s wall, load %s\n' "$side" "$r" \
			"$(awk -v a="$arena" -v l="$lb" 'BEGIN { printf "%.6f", a / l }')" "$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')" "$load"
	done
done
echo "$(date -u +%H:%M:%S) UTC, load average: $(cut -d' ' -f1-3 /proc/loadavg)"

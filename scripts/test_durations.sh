#!/usr/bin/env bash
# scripts/test_durations.sh [ci] [cold]: measures the test-suite durations
# the README states. It prints the date, the cores, the load average before
# and after, the wall time of the README's quick command
# (go test ./..., run with -count=1 so the test cache cannot answer) and the
# packages that take longest; with "ci" also the wall time of .ci/run (long
# cases on, DSA instances uncached, race detector, darwincheck). The build
# cache stays warm (as on any machine that has built the module once)
# unless "cold" is given, which points GOCACHE at an empty folder first.
set -euo pipefail
cd "$(dirname "$0")/.."
ci=0
for a in "$@"; do
	case "$a" in
	ci) ci=1 ;;
	cold) GOCACHE="$(mktemp -d)"; export GOCACHE ;;
	*) echo "usage: scripts/test_durations.sh [ci] [cold]" >&2; exit 2 ;;
	esac
done
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores, load before: $(load)"
log="$(mktemp)"
unset MEMPLAN_LONG_TESTS
t0=$(date +%s.%N)
go test -count=1 ./... >"$log" 2>&1 || { cat "$log"; exit 1; }
t1=$(date +%s.%N)
printf 'go test ./... (quick cases, -count=1): %.0f s wall, load after: %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(load)"
echo "slowest packages (each test binary's own time; packages run two at a time):"
grep -E '^ok' "$log" | sort -k3 -t$'\t' -rn | head -5 | sed 's/^/  /'
if ((ci)); then
	t0=$(date +%s.%N)
	.ci/run >"$log" 2>&1 || { cat "$log"; exit 1; }
	t1=$(date +%s.%N)
	printf '.ci/run: %.0f s wall, load after: %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(load)"
	grep -E '^DSA instances checked' "$log" | sed 's/^/  /'
fi
rm -f "$log"

#!/usr/bin/env bash
# scripts/test_durations.sh [ci] [cold]: measures the test-suite durations
# the README states. It prints the date, the cores, the load average before
# and after, the wall and CPU (user+sys) time of the README's quick command
# (go test ./..., run with -count=1 so the test cache cannot answer) and the
# packages that take longest; on a shared machine the CPU time is the
# steadier figure (an idle two-core machine needs at least half of it). with "ci" also the wall time of .ci/run (long
# cases on, DSA instances uncached, race detector, darwincheck). The build
# cache stays warm (as on any machine that has built the module once)
# unless "cold" is given, which points GOCACHE at an empty folder first.
set -euo pipefail
cd "$(dirname "$0")/.."
ci=0
for a in "$@"; do
	case "$a" in
	ci) ci=1 ;;
	cold)
		GOCACHE="$(mktemp -d)"
		export GOCACHE
		trap 'rm -rf "$GOCACHE"' EXIT
		;;
	*) echo "usage: scripts/test_durations.sh [ci] [cold]" >&2; exit 2 ;;
	esac
done
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores, load before: $(load)"
log="$(mktemp)"
unset MEMPLAN_LONG_TESTS
TIMEFORMAT='%R %U %S'
{ time go test -count=1 ./... >"$log" 2>&1 || { cat "$log"; exit 1; }; } 2>"$log.time"
read -r wall user sys <"$log.time"
printf 'go test ./... (quick cases, -count=1): %.0f s wall, %.0f s CPU, load after: %s\n' "$wall" "$(awk -v a="$user" -v b="$sys" 'BEGIN { print a + b }')" "$(load)"
echo "slowest packages (each test binary's own time; packages run two at a time):"
grep -E '^ok' "$log" | sort -k3 -t$'\t' -rn | head -5 | sed 's/^/  /'
if ((ci)); then
	{ time .ci/run >"$log" 2>&1 || { cat "$log"; exit 1; }; } 2>"$log.time"
	read -r wall user sys <"$log.time"
	printf '.ci/run: %.0f s wall, %.0f s CPU, load after: %s\n' "$wall" "$(awk -v a="$user" -v b="$sys" 'BEGIN { print a + b }')" "$(load)"
	grep -E '^DSA instances checked' "$log" | sed 's/^/  /'
fi
rm -f "$log" "$log.time"

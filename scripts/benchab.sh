#!/usr/bin/env bash
# benchab.sh compares the benchmarks of one package at two git revisions,
# interleaved on one machine: it builds both test binaries with `go test -c`,
# then runs before, after, before, after, ... COUNT times each, so that load
# from other jobs hits both sides alike, and prints the median ns/op of each
# side (and of allocs/op, in rows of their own), the change, and the load
# average seen before each run.
#
#	scripts/benchab.sh BEFORE AFTER PKG BENCH [COUNT] [BENCHTIME]
#	scripts/benchab.sh main libs ./memranges 'TrackerWide' 5 1s
#
# Raw output is kept in $BENCHAB_OUT (default: a temporary folder).
# METRIC=NAME compares a metric the benchmarks report (b.ReportMetric)
# instead of ns/op, e.g. METRIC=frag for the search's arena / LB:
#
#	METRIC=frag scripts/benchab.sh d3df471 da36c7d ./planner 'BenchmarkSearchPackableSeeds/p[125]000-' 1 1x
set -euo pipefail
before=$1 after=$2 pkg=$3 bench=$4 count=${5:-5} benchtime=${6:-1s}
root=$(git rev-parse --show-toplevel)
out=${BENCHAB_OUT:-$(mktemp -d)}
mkdir -p "$out"; : >"$out/revs"
# Tests find ../shared beside the checkout (the DSA instances): link it
# beside the two source trees, from this checkout or the main one.
common=$(cd "$(git -C "$root" rev-parse --git-common-dir)" && pwd)
for s in "$root/../shared" "$common/../../shared"; do
	if [ -d "$s" ] && [ ! -e "$out/shared" ]; then ln -s "$(cd "$s" && pwd)" "$out/shared"; fi
done
for side in before after; do
	rev=${!side}
	dir="$out/src-$side"
	rm -rf "$dir"
	git -C "$root" worktree add --quiet --detach "$dir" "$rev"
	(cd "$dir" && go test -c -o "$out/$side.test" "$pkg")
	echo "$side: $(git -C "$dir" rev-parse --short HEAD) $(git -C "$dir" log -1 --format=%s | cut -c1-70)" >>"$out/revs"
done
: >"$out/raw"; : >"$out/load"
for i in $(seq "$count"); do
	for side in before after; do
		echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load"
		(cd "$out/src-$side/$pkg" && "$out/$side.test" -test.run '^$' -test.bench "$bench" \
			-test.benchtime "$benchtime" -test.benchmem) |
			awk -v s="$side" -v m="${METRIC:-ns/op}" '/^Benchmark/ { for (k = 3; k < NF; k++) if ($(k+1) == m || $(k+1) == "allocs/op") print s, $1 ($(k+1) == "allocs/op" ? "(allocs/op)" : ""), $k }' >>"$out/raw"
	done
done
for side in before after; do
	git -C "$root" worktree remove --force "$out/src-$side"
done
cat "$out/revs"
echo "load averages (1, 5, 15 min) before each run: $(awk '{print $2}' "$out/load" | paste -sd' ')"
echo
echo "| benchmark | before ${METRIC:-ns/op} | after ${METRIC:-ns/op} | change |"
echo "|---|---|---|---|"
fmt=%.0f
[ -n "${METRIC:-}" ] && fmt=%.6f
sort -k2,2 -k1,1 -k3,3g "$out/raw" | awk -v f="$fmt" '
function median(a, n) { return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
{ key = $2; if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
  if ($1 == "before") b[key, ++nb[key]] = $3; else a[key, ++na[key]] = $3 }
END {
  for (i = 1; i <= nk; i++) {
    k = order[i]; delete x; delete y
    for (j = 1; j <= nb[k]; j++) x[j] = b[k, j]
    for (j = 1; j <= na[k]; j++) y[j] = a[k, j]
    mb = median(x, nb[k]); ma = median(y, na[k])
    printf "| %s | " f " | " f " | %+.1f%% |\n", k, mb, ma, (ma - mb) / mb * 100
  }
}'

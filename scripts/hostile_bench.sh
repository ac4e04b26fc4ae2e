#!/usr/bin/env bash
# hostile_bench.sh: runs planreport on every input of the hostile corpus
# (testdata/hostile and the large generated ones of internal/hostile) and
# prints a markdown table of exit status, wall time and peak memory (GNU
# time's maximum resident set size) against issue 17's limits: under 2 s
# and under 2x the file size + 100 MB for a refused input; under 10 s for
# a 1M-row CSV and 2 s for the 100k chains, which are valid. Two 1M-row
# CSVs: planreport gen's synthetic ladder (1-16-step lifespans) and
# internal/hostile's random rows (1-100-step lifespans, ~500 live at a
# step: a much harder packing for best-fit).
#
#   scripts/hostile_bench.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
go build -o "$out/planreport" ./cmd/planreport
go run ./internal/hostile/cmd/hostilegen "$out"
"$out/planreport" gen -n 1000000 -o "$out/synthetic_1m.csv" # the placement ladder's 1M instance
echo "measured $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| input | args | bytes | exit | wall s | cpu s | max RSS MB | limit MB | stderr (start) |"
echo "|---|---|---|---|---|---|---|---|---|"
row() { # file, args...
	local f=$1
	shift
	local size
	size=$(stat -c %s "$f")
	/usr/bin/time -o "$out/time.txt" -f '%x %e %U %S %M' "$out/planreport" "$@" -o "$out/report.out" "$f" >/dev/null 2>"$out/stderr.txt" || true
	local code wall rss
	read -r code wall usr sys rss < <(tail -1 "$out/time.txt")
	echo "| $(basename "$f") | $* | $size | $code | $wall | $(echo "$usr + $sys" | bc) | $((rss / 1024)) | $(((2 * size) / 1048576 + 100)) | $(head -c 160 "$out/stderr.txt" | tr '\n|' '  ') |"
}
for f in testdata/hostile/*; do
	case $(basename "$f") in
	huge_input.json) row "$f" -run ;;
	*) row "$f" ;;
	esac
done
for f in inplace_chain_100k.json view_chain_100k.json too_many_values.json bad_last_value_1m.json live_300k.csv; do
	row "$out/$f"
done
row "$out/synthetic_1m.csv"
row "$out/rows_1m.csv"

#!/usr/bin/env bash
# cli_ab.sh times the whole CLI on the synthetic million (planreport gen
# -kind synthetic -n N; then planreport -format csv -o FILE: read, plan,
# verify, write) at two git revisions, interleaved on one machine (before,
# after, before, after, ...), so that load from other jobs hits both sides
# alike. It prints each run's wall and user seconds and peak RSS (bytes a
# buffer), the load average before it, the medians, and the arena of each
# side (from the text report's header), and the CPU seconds the hypervisor
# stole during each run (scripts/steal.sh).
#
#	scripts/cli_ab.sh BEFORE AFTER [COUNT] [N]
#	scripts/cli_ab.sh b2292f4 HEAD 5
#
# IN=FILE times the CLI on that DSA CSV instead (N is then its row
# count), e.g. the hostile corpus's random rows:
#
#	go run ./internal/hostile/cmd/hostilegen /tmp/hb
#	IN=/tmp/hb/rows_1m.csv scripts/cli_ab.sh ae173ac HEAD 3
#
# Needs GNU time (/usr/bin/time).
set -euo pipefail
before=$1 after=$2 count=${3:-5} n=${4:-1000000}
# shellcheck source=scripts/ab_build.sh
source "$(dirname "$0")/ab_build.sh"
# shellcheck source=scripts/steal.sh
source "$(dirname "$0")/steal.sh"
ab_build "$before" "$after"
if [ -n "${IN:-}" ]; then
	cp "$IN" "$out/in.csv"
	n=$(($(wc -l <"$out/in.csv") - 1))
	echo "input: $IN ($n rows)"
else
	"$out/after" gen -kind synthetic -n "$n" -o "$out/in.csv"
fi
for i in $(seq "$count"); do
	for side in before after; do
		load=$(cut -d' ' -f1-3 /proc/loadavg)
		s0=$(stolen)
		/usr/bin/time -o "$out/time" -f "%e %U %M" "$out/$side" -format csv -o "$out/$side.csv" "$out/in.csv"
		read -r wall user kb <"$out/time"
		echo "$side run $i: $wall s wall, $user s user, $((kb * 1024 / n)) B/buffer (load $load), $(steal "$s0")"
		echo "$side $wall" >>"$out/walls"
	done
done
for side in before after; do
	med=$(awk -v s="$side" '$1 == s { print $2 }' "$out/walls" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	"$out/$side" -format text -o "$out/$side.txt" "$out/in.csv"
	echo "$side: median $med s wall; $(head -1 "$out/$side.txt")"
done

#!/usr/bin/env bash
# auto_rows.sh runs the default strategy (auto) through the whole CLI on
# random rows (planreport gen -kind rows: 1-100-step lifespans, 64 B to
# 64 KiB, about 500 rows live at a step) at two git revisions, one
# instance after the other (before, then after), and prints per run the
# wall seconds, the search's progress lines on stderr (one a second: a
# run near auto's 10 s time cap was ended by the clock, not by its work
# cap), what placed it and the arena over the lower bound.
#
#	scripts/auto_rows.sh BEFORE AFTER ["N ..."] ["SEED ..."]
#	scripts/auto_rows.sh c06b05a HEAD "2000 3000" "1 2 3"
#
# Needs GNU time (/usr/bin/time).
set -euo pipefail
before=$1 after=$2 sizes=${3:-2000 3000} seeds=${4:-1 2 3}
# shellcheck source=scripts/ab_build.sh
source "$(dirname "$0")/ab_build.sh"
ab_build "$before" "$after"
run() { # n seed side
	local lines placed
	/usr/bin/time -o "$out/time" -f "%e" "$out/$3" -progress -format csv -o "$out/out.csv" "$out/in.csv" 2>"$out/err"
	lines=$(grep -c '^search:' "$out/err" || true)
	placed=$(grep 'placed by' "$out/err" | sed -E 's/.*placed by ([^ ]+) in .*, ([0-9.]+% over).*/\1, \2 LB/')
	echo "n=$1 seed=$2 $3: $(cat "$out/time") s wall, $lines progress lines, $placed"
}
ab_each rows "$sizes" "$seeds" run

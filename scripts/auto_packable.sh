#!/usr/bin/env bash
# auto_packable.sh runs the default strategy (auto) on packable instances
# (planreport gen -kind packable: a 1 MiB x time rectangle cut into N
# blocks by random guillotine cuts; LB is the optimum) at two git
# revisions, one instance after the other (before, then after), and
# prints per run the arena over LB, the seconds, what placed it and the
# CPU seconds the hypervisor stole meanwhile (scripts/steal.sh). auto's
# arenas do not depend on the machine (its work cap ends the search);
# a run near its 10 s time cap was ended by the clock instead.
#
#	scripts/auto_packable.sh BEFORE AFTER ["N ..."] ["SEED ..."]
#	scripts/auto_packable.sh 1511e0c HEAD "250 500 1000 2000 5000" "2 3 4 5"
set -euo pipefail
before=$1 after=$2 sizes=${3:-250 500 1000 2000 5000} seeds=${4:-2 3 4 5}
# shellcheck source=scripts/ab_build.sh
source "$(dirname "$0")/ab_build.sh"
# shellcheck source=scripts/steal.sh
source "$(dirname "$0")/steal.sh"
ab_build "$before" "$after"
run() { # n seed side
	local s0 row ratio secs method
	s0=$(stolen)
	row=$("$out/$3" bench -strategy auto "$out/in.csv" | tail -1)
	read -r _ _ _ _ ratio secs method <<<"$row"
	echo "n=$1 seed=$2 $3: $ratio x LB, $secs s, $method, $(steal "$s0")"
}
ab_each packable "$sizes" "$seeds" run

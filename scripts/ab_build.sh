# ab_build.sh, sourced by the A/B scripts (cli_ab.sh, auto_rows.sh,
# auto_packable.sh):
# builds planreport at two git revisions into a temporary folder, each
# from a worktree of its own, and removes both on exit.
#
#	source "$(dirname "$0")/ab_build.sh"
#	ab_build BEFORE AFTER   # sets root and out; binaries $out/before, $out/after
# ab_cleanup removes ab_build's worktrees and folder (its EXIT trap; a
# script that sets a trap of its own calls it there).
ab_cleanup() {
	local s
	for s in before after; do
		git -C "$root" worktree remove --force "$out/src-$s" 2>/dev/null || true
	done
	rm -rf "$out"
}

ab_build() {
	local before=$1 after=$2 side rev
	root=$(git rev-parse --show-toplevel)
	out=$(mktemp -d)
	trap ab_cleanup EXIT
	for side in before after; do
		rev=${!side}
		git -C "$root" worktree add --quiet --detach "$out/src-$side" "$rev"
		(cd "$out/src-$side" && go build -o "$out/$side" ./cmd/planreport)
		echo "$side: $(git -C "$out/src-$side" rev-parse --short HEAD) $(git -C "$out/src-$side" log -1 --format=%s | cut -c1-70)"
	done
}

# ab_each KIND "N ..." "SEED ..." FUNC: for each size and seed, writes the
# instance (the after side's planreport gen -kind KIND) to $out/in.csv and
# calls FUNC N SEED SIDE for the before side, then the after side, with
# the load average and the time before and after all of them.
ab_each() {
	local kind=$1 sizes=$2 seeds=$3 fn=$4 n seed side
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
	for n in $sizes; do
		for seed in $seeds; do
			"$out/after" gen -kind "$kind" -n "$n" -seed "$seed" -o "$out/in.csv"
			for side in before after; do
				"$fn" "$n" "$seed" "$side"
			done
		done
	done
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%H:%M) UTC"
}

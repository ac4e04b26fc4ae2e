# ab_build.sh, sourced by the A/B scripts (cli_ab.sh, auto_rows.sh):
# builds planreport at two git revisions into a temporary folder, each
# from a worktree of its own, and removes both on exit.
#
#	source "$(dirname "$0")/ab_build.sh"
#	ab_build BEFORE AFTER   # sets root and out; binaries $out/before, $out/after
ab_build() {
	local before=$1 after=$2 side rev
	root=$(git rev-parse --show-toplevel)
	out=$(mktemp -d)
	trap 'for s in before after; do git -C "$root" worktree remove --force "$out/src-$s" 2>/dev/null || true; done; rm -rf "$out"' EXIT
	for side in before after; do
		rev=${!side}
		git -C "$root" worktree add --quiet --detach "$out/src-$side" "$rev"
		(cd "$out/src-$side" && go build -o "$out/$side" ./cmd/planreport)
		echo "$side: $(git -C "$out/src-$side" rev-parse --short HEAD) $(git -C "$out/src-$side" log -1 --format=%s | cut -c1-70)"
	done
}

#!/usr/bin/env bash
# testifyconv_mutation.sh proves that converted checks are live: for N
# testify assertions spread over a package's test files, it turns one into
# its opposite (testifyconv -negate), runs the package's tests, expects them
# to FAIL, and restores the file. It prints one line per mutant and exits 1
# if any mutant survived.
#
#	scripts/testifyconv_mutation.sh ./profile 5
set -euo pipefail
pkg=$1 n=${2:-5}
root=$(git rev-parse --show-toplevel)
cd "$root"
go build -o /tmp/testifyconv.$$ ./internal/tools/testifyconv
trap 'rm -f /tmp/testifyconv.$$' EXIT
mapfile -t sites < <(grep -nE '^\s*(assert|require)\.[A-Z]' $(ls "$pkg"/*_test.go | grep -v bench_test.go) | cut -d: -f1,2)
total=${#sites[@]}
if [ "$total" -eq 0 ]; then echo "$pkg: no testify calls"; exit 1; fi
survived=0
for ((k = 0; k < n && k < total; k++)); do
	site=${sites[$((k * total / n))]}
	file=${site%%:*}
	cp "$file" "$file.orig"
	what=$(/tmp/testifyconv.$$ -negate "$site")
	if go test -count=1 "$pkg" >/dev/null 2>&1; then
		echo "SURVIVED $what"
		survived=$((survived + 1))
	else
		echo "caught   $what"
	fi
	mv "$file.orig" "$file"
	# rapid keeps a file per failure under testdata/rapid: drop the new,
	# untracked ones
	git clean -fdq -- "$pkg/testdata/rapid" 2>/dev/null || true
done
[ "$survived" -eq 0 ]

package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProgress: -progress prints one line per phase, in order, naming what
// was read and how the plan came out, with auto's line for its first stage
// (the plan is at LB there); without it stderr stays empty.
func TestProgress(t *testing.T) {
	var out, errs bytes.Buffer
	require.Zero(t, run([]string{"-progress", "../../testdata/mlp.json"}, &out, &errs), errs.String())
	require.Regexp(t, regexp.MustCompile(`(?s)^planreport: read 16 values and 9 nodes from \.\./\.\./testdata/mlp\.json in [0-9.]+ s
auto: stage 1: best [0-9]+ \(\S+\)  LB [0-9]+  gap [0-9.]+%  [0-9.]+s
planreport: placed by \S+ in [0-9.]+ s: arena [0-9]+ B, [0-9.]+% over the lower bound [0-9]+ B
planreport: verified in [0-9.]+ s
planreport: wrote the report in [0-9.]+ s
$`), errs.String())
	require.NotEmpty(t, out.String())

	out.Reset()
	errs.Reset()
	require.Zero(t, run([]string{"../../testdata/mlp.json"}, &out, &errs), errs.String())
	require.Empty(t, errs.String())
}

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpStatesRules: -h states the one rule for barriers in every format,
// says that -reorder works after placement, and says what -onnx-dims does
// with a name the model lacks. (Not a golden file: other flags come and go.)
func TestHelpStatesRules(t *testing.T) {
	_, help, code := runCLI(t, "-h")
	require.Equalf(t, 0, code, "exit %d", code)
	flags := map[string]string{}
	var cur string
	for _, line := range strings.Split(help, "\n") {
		if f, ok := strings.CutPrefix(line, "  -"); ok {
			cur = strings.Fields(f)[0]
		}
		flags[cur] += line + "\n"
	}
	for flag, wants := range map[string][]string{
		"barriers":  {"in every format", "text|json list them", "svg|html mark them on the map"},
		"reorder":   {"after placement", "offsets unchanged"},
		"edges":     {"hazard", "buffer, byte ranges"},
		"onnx-dims": {"a NAME the model does not have is an error"},
		"input-dir": {"input_N.pb", "output_N.pb"},
		"o":         {"FILE"},
	} {
		for _, w := range wants {
			assert.Containsf(t, flags[flag], w, "help of -%s lacks %q:\n%s", flag, w, flags[flag])
		}
	}
	assert.Falsef(t, strings.Contains(help, "map-barriers") || strings.Contains(help, "before placing"), "help still describes the old flags:\n%s", help)
}

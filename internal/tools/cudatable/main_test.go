package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = "model\tmode\tdispatches\tbarriers\tedges\truns\tmedian_ns\tp10_ns\tp90_ns\tmin_ns\tdevice\n" +
	"m\tserial\t3\t2\t2\t200\t1500\t1400\t1600\t1300\tGPU X\n" +
	"m\tedges\t3\t1\t2\t200\t1000\t900\t1100\t800\tGPU X\n"

func TestRender(t *testing.T) {
	rows, err := parse(strings.NewReader(sample))
	require.NoErrorf(t, err, "%v", err)
	var b strings.Builder
	err = render(&b, rows)
	require.NoErrorf(t, err, "%v", err)
	want := "| m | 3 | 2 / - / - | 2 | 1.5 (1.4-1.6) | - | - | 1.0 (0.9-1.1) | - |"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "over 200 timed runs on GPU X") {
		t.Errorf("table\n%s\nlacks\n%s", b.String(), want)
	}
}

// TestParseRejectsCorruptLines: a short line and a non-number are both
// reported, with their line numbers.
func TestParseRejectsCorruptLines(t *testing.T) {
	bad := sample + "m\tstream\t3\n" + "m\tinferred\t3\t2\t2\t200\tfast\t1\t2\t1\tGPU X\n"
	_, err := parse(strings.NewReader(bad))
	assert.Falsef(t, err == nil || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), "line 5"), "err = %v, want lines 4 and 5", err)
}

package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
)

// TestRunBackendFlag: -backend names cpu or cuda; cuda without a driver
// (or with a -cuda-lib-dir that holds none and a machine without one)
// fails with the driver's reason, never a panic or a silent CPU run.
func TestRunBackendFlag(t *testing.T) {
	graph := filepath.Join("..", "..", "testdata", "mlp.json")
	var out, errb bytes.Buffer
	if code := run([]string{"-run", "-runs", "1", "-backend", "tpu", graph}, &out, &errb); code == 0 || !strings.Contains(errb.String(), `-backend "tpu"`) {
		t.Errorf("-backend tpu: exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"-run", "-backend", "cuda", "-cuda-sync", "fast", graph}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "unknown sync") {
		t.Errorf("-cuda-sync fast: exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"-run", "-runs", "1", "-backend", "cuda", "-cuda-lib-dir", t.TempDir(), graph}, &out, &errb)
	if code != 0 {
		// No GPU here: the error must say why.
		if !strings.Contains(errb.String(), "-backend cuda: cuda: no CUDA driver") {
			t.Errorf("no driver: stderr %q", errb.String())
		}
		return
	}
	if !strings.Contains(out.String(), "backend=cuda") || !strings.Contains(out.String(), "max relative error") {
		t.Errorf("cuda run report:\n%s", out.String())
	}
}

// TestRelErrOf: the CUDA-vs-CPU comparison is 0 on equal outputs and
// catches a changed element, a NaN and a size mismatch.
func TestRelErrOf(t *testing.T) {
	v := &ir.Value{DType: ir.F32}
	enc := func(xs ...float32) []byte {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			u := math.Float32bits(x)
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		}
		return b
	}
	want := enc(1, -2, 4)
	e, ok := relErrOf(v, want, want)
	assert.Falsef(t, !ok || e != 0, "equal: %g %v", e, ok)
	e, _ = relErrOf(v, enc(1, -2, 4.004), want)
	assert.Falsef(t, math.Abs(e-1e-3) > 1e-6, "changed element: %g, want 1e-3", e)
	e, _ = relErrOf(v, enc(1, float32(math.NaN()), 4), want)
	assert.Truef(t, math.IsInf(e, 1), "NaN: %g", e)
	e, _ = relErrOf(v, enc(1), want)
	assert.Truef(t, math.IsInf(e, 1), "size mismatch: %g", e)
}

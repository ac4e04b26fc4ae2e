package main

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/exec/cuda"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchGPURecords runs bench-gpu and decodes its JSON lines.
func benchGPURecords(t *testing.T, args ...string) ([]benchRecord, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"bench-gpu"}, args...), &out, &errb)
	var recs []benchRecord
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r benchRecord
		err := dec.Decode(&r)
		require.NoErrorf(t, err, "record %d: %v", len(recs), err)
		recs = append(recs, r)
	}
	return recs, code, errb.String()
}

// TestBenchGPUOnCPU measures a zoo model under every objective in every CPU
// variant: one record each, in order, with consistent byte counts, ordered
// quantiles and outputs that agree across objectives and variants.
func TestBenchGPUOnCPU(t *testing.T) {
	recs, code, stderr := benchGPURecords(t, "-runs", "2", "-warmup", "1", "-root", zooDir, "-run-id", "7", zooDir+"/gpt2_tiny.onnx")
	require.Equalf(t, 0, code, "code %d: %s", code, stderr)
	var got, want []string
	for _, o := range planner.Objectives() {
		for _, v := range []string{"serial", "inferred", "reordered"} {
			want = append(want, o+"/"+v)
		}
	}
	for _, r := range recs {
		got = append(got, r.Objective+"/"+r.Variant)
		assert.Falsef(t, r.Kind != "memplan" || r.Model != "gpt2_tiny" || r.Run != 7 || r.Runs != 2, "record %+v", r)
		assert.Falsef(t, r.ArenaBytes <= 0 || r.ArenaBytes < r.LowerBoundBytes || r.DeviceBytes != r.ArenaBytes+r.ExternalBytes, "%s: arena %d, lower bound %d, device %d, external %d", r.Variant, r.ArenaBytes, r.LowerBoundBytes, r.DeviceBytes, r.ExternalBytes)
		assert.Falsef(t, r.Groups != r.Barriers+1 || r.Dispatches < r.Groups, "%s: %d dispatches, %d barriers, %d groups", r.Variant, r.Dispatches, r.Barriers, r.Groups)
		q := r.TimeMs
		assert.Falsef(t, q == nil || q.Min > q.P10 || q.P10 > q.Median || q.Median > q.P90 || q.Min <= 0, "%s: time quantiles %+v", r.Variant, q)
		assert.Falsef(t, r.Match == nil || !*r.Match || r.Checksum == "", "%s: outputs match %v, checksum %q", r.Variant, r.Match, r.Checksum)
		assert.Falsef(t, len(r.Kinds) == 0 || len(r.Top) == 0 || len(r.Top) > 5, "%s: %d kind rows, %d top rows (the CPU backend times dispatches)", r.Variant, len(r.Kinds), len(r.Top))
	}
	assert.Truef(t, slices.Equal(got, want), "records %v, want %v", got, want)
}

func TestBenchGPUModelIDs(t *testing.T) {
	cases := []struct{ arg, id, dims string }{
		{"testdata/models/googlenet.onnx", "googlenet", ""},
		{"testdata/models/large/googlenet.onnx@batch=8", "large/googlenet b8", "batch=8"},
		{"testdata/models/x.onnx@seq=4,batch=2", "x b2 seq=4", "batch=2,seq=4"},
		{"/elsewhere/m.onnx", "/elsewhere/m", ""},
	}
	for _, c := range cases {
		file, dims, err := parseModelArg(c.arg)
		require.NoErrorf(t, err, "%s: %v", c.arg, err)
		if id := modelID(file, "testdata/models", dims); id != c.id || formatDims(dims) != c.dims {
			t.Errorf("%s: id %q dims %q, want %q %q", c.arg, id, formatDims(dims), c.id, c.dims)
		}
	}
	_, _, err := parseModelArg("m.onnx@batch")
	assert.Errorf(t, err, "m.onnx@batch parsed")
}

func TestBenchGPUErrors(t *testing.T) {
	model := zooDir + "/gpt2_tiny.onnx"
	cases := []struct {
		name string
		args []string
		code int
		kind string // kind of the first record, if any
	}{
		{"no model", nil, 2, ""},
		{"zero runs", []string{"-runs", "0", model}, 2, ""},
		{"unknown backend", []string{"-backend", "tpu", model}, 2, ""},
		{"unknown objective", []string{"-objectives", "speed", model}, 2, ""},
		{"unknown variant", []string{"-variants", "edges", model}, 1, ""},
		{"missing file", []string{zooDir + "/nonexistent.onnx"}, 1, "error"},
		{"bad dims", []string{model + "@batch"}, 1, "error"},
		{"unbound dim", []string{zooDir + "/large/resnet18.onnx"}, 1, "error"},
		{"opaque op", []string{zooDir + "/opaque/opaque_convnet.onnx"}, 1, "error"},
		{"past the deadline", []string{"-deadline", "1ns", model}, 0, "skipped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, code, stderr := benchGPURecords(t, c.args...)
			require.Equalf(t, c.code, code, "code %d, want %d: %s", code, c.code, stderr)
			require.Falsef(t, c.kind == "" && len(recs) > 0 || c.kind != "" && (len(recs) == 0 || recs[0].Kind != c.kind), "records %+v, want first of kind %q", recs, c.kind)
			if c.kind == "error" && (recs[0].Error == "" || !strings.Contains(stderr, recs[0].Model)) {
				t.Errorf("error record %+v, stderr %q", recs[0], stderr)
			}
		})
	}
}

// TestEqualOutputsCatchesADifference is the teeth of outputs_match.
func TestEqualOutputsCatchesADifference(t *testing.T) {
	a := map[ir.ValueID][]byte{1: {1, 2, 3}, 2: {4}}
	assert.Truef(t, equalOutputs(a, map[ir.ValueID][]byte{1: {1, 2, 3}, 2: {4}}), "equal outputs differ")
	for _, b := range []map[ir.ValueID][]byte{{1: {1, 2, 3}, 2: {5}}, {1: {1, 2, 3}}, {1: {1, 2, 3}, 3: {4}}} {
		assert.Falsef(t, equalOutputs(a, b), "%v equals %v", b, a)
	}
}

func TestTimingsExtent(t *testing.T) {
	_, ok := timingsExtent(nil)
	assert.Falsef(t, ok, "nil timings have an extent")
	_, ok = timingsExtent(&exec.Timings{Dispatches: make([]exec.Span, 3)})
	assert.Falsef(t, ok, "untimed dispatches have an extent")
	tm := &exec.Timings{Groups: []exec.Span{{StartNs: 10, EndNs: 30}, {StartNs: 40, EndNs: 90}}, Dispatches: []exec.Span{{}, {StartNs: 5, EndNs: 20}}}
	d, ok := timingsExtent(tm)
	assert.Falsef(t, !ok || d != 85, "extent %v %v, want 85ns", d, ok)
	tm.Device = exec.Span{StartNs: 0, EndNs: 70}
	d, ok = timingsExtent(tm)
	assert.Falsef(t, !ok || d != 70, "extent %v %v, want the device span's 70ns", d, ok)
}

// TestBenchGPUDeadlineStopsAVariant: a variant that starts past -deadline
// stops before its first run and reports errPastDeadline (bench-gpu then
// prints a skipped record).
func TestBenchGPUDeadlineStopsAVariant(t *testing.T) {
	g, err := onnx.ImportFile(zooDir+"/gpt2_tiny.onnx", onnx.Options{})
	require.NoErrorf(t, err, "%v", err)
	in, err := fillWeights(g, 1)
	require.NoErrorf(t, err, "%v", err)
	plan, err := planner.PlanGraph(context.Background(), g, nil, planner.Options{})
	require.NoErrorf(t, err, "%v", err)
	vs, _ := benchBackends["cpu"](benchBackendOptions{})
	c := &benchGPUConfig{runs: 1, warmup: 1, deadline: time.Now().Add(-time.Second)}
	var r benchRecord
	_, err = benchVariantRun(context.Background(), c, g, plan, vs[0], in, &r)
	require.ErrorIsf(t, err, errPastDeadline, "err %v, want errPastDeadline", err)
}

// memBackend is the CPU backend with a driver-like free-memory figure that
// drops by 1000 bytes at every query, and a Close that counts its calls.
type memBackend struct {
	*cpu.Backend
	free   int64
	closed int
}

func (b *memBackend) MemInfo() (int64, int64, error) { b.free -= 1000; return b.free, 1 << 30, nil }
func (b *memBackend) Close() error                   { b.closed++; return nil }

// TestBenchGPUDriverBytesAndClose: a backend with MemInfo gets driver_bytes
// (free before Load minus free after the warm-up), and a backend shared by
// every variant is closed once at the end.
func TestBenchGPUDriverBytesAndClose(t *testing.T) {
	be := &memBackend{Backend: cpu.New(cpu.Options{}), free: 1 << 30}
	benchBackends["test-mem"] = func(benchBackendOptions) ([]benchVariant, error) {
		return []benchVariant{{Name: "a", Mode: exec.Serial, Backend: be}, {Name: "b", Mode: exec.Inferred, Backend: be}}, nil
	}
	defer delete(benchBackends, "test-mem")
	recs, code, stderr := benchGPURecords(t, "-backend", "test-mem", "-objectives", "memory", "-runs", "1", "-warmup", "0", zooDir+"/gpt2_tiny.onnx")
	require.Falsef(t, code != 0 || len(recs) != 2, "code %d, %d records: %s", code, len(recs), stderr)
	for _, r := range recs {
		assert.Equalf(t, int64(1000), r.DriverBytes, "%s: driver_bytes %d, want 1000", r.Variant, r.DriverBytes)
	}
	if be.closed != 1 {
		t.Errorf("closed %d times, want once", be.closed)
	}
}

// TestBenchGPUWithoutCUDA: -backend cuda on a machine without a driver
// fails at once, saying so, and prints no record.
func TestBenchGPUWithoutCUDA(t *testing.T) {
	if be, err := cuda.New(cuda.Options{}); err == nil {
		be.Close()
		t.Skip("a CUDA driver is present")
	}
	recs, code, stderr := benchGPURecords(t, "-backend", "cuda", zooDir+"/gpt2_tiny.onnx")
	require.Falsef(t, code != 1 || len(recs) != 0 || !strings.Contains(stderr, "no CUDA driver"), "code %d, %d records, stderr %q", code, len(recs), stderr)
}

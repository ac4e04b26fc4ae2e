package main

// planreport bench-gpu: the driver of the GPU study (docs/BENCHMARKS.md,
// scripts/gpu_bench.sh). In one process it runs every model it is given
// under every objective and every variant of a backend (for CUDA, in
// benchgpu_cuda.go: stream, graph-serial, graph-inferred, graph-reordered,
// graph-edges; for the CPU: serial, inferred, reordered), and prints one
// JSON line per (model, objective, variant):
//
//	planreport bench-gpu -backend cuda -runs 100 -warmup 10 \
//	    testdata/models/googlenet.onnx testdata/models/large/googlenet.onnx@batch=8
//
// A MODEL argument is an ONNX file, optionally followed by @NAME=SIZE[,...]
// binding its symbolic dimensions (-onnx-dims of the main command). Its id
// in the output is the path relative to -root without ".onnx", plus " b8"
// for batch=8 (" NAME=SIZE" for any other binding): "googlenet",
// "large/googlenet b8", the ids scripts/torch_peers.py prints.
//
// Per model: import once; weights without data (graph-only files) get the
// seeded random data of exec.RandomInputs once, so each run uploads only
// the graph inputs. Per objective: plan once (planner.PlanGraph, verified).
// Per variant: compile the plan in the variant's mode (over plan.Order),
// load it, run -warmup times, then -runs times, and report the median,
// p10, p90 and minimum of the backend's own clock (the extent of the
// Timings spans: GPU time on a GPU) beside the host wall time, the arena,
// the device bytes of every buffer the program allocates, and, when the
// backend timed single dispatches, the time per op kind (profile.KindStats,
// per run) and the slowest dispatches. Every variant's outputs are compared
// with the model's first variant: all should agree bit for bit, since the
// kernels are the same. A failing model or variant prints a "error" record
// and the others go on; the exit status is then 1. Past -deadline the rest
// print "skipped" records, so a device call with a hard time limit keeps
// what it measured (a variant the deadline interrupts is skipped whole).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
	"github.com/memplan/memplan/planner"
	"github.com/memplan/memplan/profile"
)

func init() { subcommands["bench-gpu"] = runBenchGPU }

// benchGPUConfig holds the flags of one bench-gpu run.
type benchGPUConfig struct {
	backend    string
	objectives []string
	variants   []string // nil: every variant of the backend
	runs       int
	warmup     int
	seed       uint64
	runID      int
	root       string
	fuse       bool
	top        int
	deadline   time.Time
	libDirs    []string
}

// benchRecord is one JSON line of bench-gpu.
type benchRecord struct {
	Kind      string `json:"kind"` // memplan, error, skipped
	Run       int    `json:"run"`
	Model     string `json:"model"`
	File      string `json:"file,omitempty"`
	Dims      string `json:"dims,omitempty"`
	Backend   string `json:"backend,omitempty"`
	Objective string `json:"objective,omitempty"`
	Variant   string `json:"variant,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Error     string `json:"error,omitempty"`

	Dispatches      int    `json:"dispatches,omitempty"`
	Barriers        int    `json:"barriers,omitempty"`
	Groups          int    `json:"groups,omitempty"`
	Edges           int    `json:"edges,omitempty"`
	ArenaBytes      int64  `json:"arena_bytes,omitempty"`
	LowerBoundBytes int64  `json:"lower_bound_bytes,omitempty"`
	UnsharedBytes   int64  `json:"unshared_bytes,omitempty"`
	DeviceBytes     int64  `json:"device_bytes,omitempty"`   // every buffer the program allocates
	ExternalBytes   int64  `json:"external_bytes,omitempty"` // inputs, weights, constants
	DriverBytes     int64  `json:"driver_bytes,omitempty"`   // device memory the loaded program holds, by the driver's free figure
	Strategy        string `json:"strategy,omitempty"`

	PlanMs   float64    `json:"plan_ms,omitempty"`
	LoadMs   float64    `json:"load_ms,omitempty"`
	Runs     int        `json:"runs,omitempty"`
	Warmup   int        `json:"warmup,omitempty"`
	Clock    string     `json:"clock,omitempty"` // backend (Timings spans) or wall
	TimeMs   *quantiles `json:"time_ms,omitempty"`
	WallMs   *quantiles `json:"wall_ms,omitempty"`
	Match    *bool      `json:"outputs_match,omitempty"`
	Checksum string     `json:"fnv64,omitempty"` // of the first output, first timed run
	Kinds    []kindRow  `json:"kinds,omitempty"`
	Top      []topRow   `json:"top,omitempty"`
}

// quantiles summarises one variant's timed runs, in milliseconds.
type quantiles struct {
	Median float64 `json:"median"`
	P10    float64 `json:"p10"`
	P90    float64 `json:"p90"`
	Min    float64 `json:"min"`
}

// kindRow is one op kind's time per run (profile.KindStats over the runs).
type kindRow struct {
	Kind    string  `json:"kind"`
	Count   int64   `json:"count"`    // dispatches per run
	ShareMs float64 `json:"share_ms"` // its share of the run's extent
	BusyMs  float64 `json:"busy_ms"`  // summed durations
}

// topRow is one of the slowest dispatches (mean over the runs).
type topRow struct {
	Label  string  `json:"label"`
	MeanMs float64 `json:"mean_ms"`
}

func runBenchGPU(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("planreport bench-gpu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c benchGPUConfig
	fs.StringVar(&c.backend, "backend", "cpu", "backend: "+strings.Join(sortedKeys(benchBackends), "|"))
	objectives := fs.String("objectives", strings.Join(benchObjectives(), ","), "comma-separated planner objectives")
	variants := fs.String("variants", "all", "comma-separated variants of the backend, or all")
	fs.IntVar(&c.runs, "runs", 100, "timed runs per variant")
	fs.IntVar(&c.warmup, "warmup", 10, "untimed runs per variant before the timed ones")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random inputs and weights")
	fs.IntVar(&c.runID, "run-id", 1, "run number written into every record")
	fs.StringVar(&c.root, "root", "testdata/models", "model ids are paths relative to `DIR`")
	fs.BoolVar(&c.fuse, "onnx-fuse", true, "import LayerNorm, GELU and RMSNorm chains as one op each")
	fs.IntVar(&c.top, "top", 5, "slowest dispatches per record (when the backend times dispatches)")
	limit := fs.Duration("deadline", 0, "stop measuring after this long; the rest print skipped records (0: none)")
	libDirs := fs.String("lib-dir", "", "comma-separated directories searched first for the backend's libraries")
	outPath := fs.String("o", "", "write the records to `FILE` instead of stdout")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: planreport bench-gpu [flags] MODEL.onnx[@NAME=SIZE,...] ...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || c.runs < 1 || c.warmup < 0 {
		fs.Usage()
		return 2
	}
	if _, ok := benchBackends[c.backend]; !ok {
		fmt.Fprintf(stderr, "planreport: bench-gpu: unknown -backend %q (known: %s)\n", c.backend, strings.Join(sortedKeys(benchBackends), ", "))
		return 2
	}
	c.objectives = splitList(*objectives)
	for _, o := range c.objectives {
		if err := setObjective(&planner.Options{}, o); err != nil {
			fmt.Fprintf(stderr, "planreport: bench-gpu: %v\n", err)
			return 2
		}
	}
	if *variants != "all" {
		c.variants = splitList(*variants)
	}
	c.libDirs = splitList(*libDirs)
	if *limit > 0 {
		c.deadline = time.Now().Add(*limit)
	}
	out, closeOut, err := createOutput(*outPath, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "planreport: bench-gpu: %v\n", err)
		return 1
	}
	code := benchGPU(context.Background(), &c, fs.Args(), json.NewEncoder(out), stderr)
	if err := closeOut(); err != nil && code == 0 {
		fmt.Fprintf(stderr, "planreport: bench-gpu: %v\n", err)
		code = 1
	}
	return code
}

// benchGPU measures every model; it returns the exit status.
func benchGPU(ctx context.Context, c *benchGPUConfig, models []string, enc *json.Encoder, stderr io.Writer) int {
	vs, err := benchBackends[c.backend](benchBackendOptions{LibDirs: c.libDirs})
	if err == nil {
		vs, err = pickVariants(vs, c.variants)
	}
	if err != nil {
		fmt.Fprintf(stderr, "planreport: bench-gpu: %v\n", err)
		return 1
	}
	defer closeBackends(vs, stderr)
	code := 0
	emit := func(r benchRecord) {
		r.Run, r.Backend = c.runID, c.backend
		if r.Kind == "error" {
			code = 1
			fmt.Fprintf(stderr, "planreport: bench-gpu: %s %s %s: %s\n", r.Model, r.Objective, r.Variant, r.Error)
		}
		if err := enc.Encode(r); err != nil {
			code = 1
		}
	}
	for _, arg := range models {
		file, dims, err := parseModelArg(arg)
		id := modelID(file, c.root, dims)
		if err != nil {
			emit(benchRecord{Kind: "error", Model: id, File: file, Error: err.Error()})
			continue
		}
		benchModel(ctx, c, vs, file, id, dims, emit)
	}
	return code
}

// closeBackends closes each distinct backend that is an io.Closer.
func closeBackends(vs []benchVariant, stderr io.Writer) {
	seen := map[exec.Backend]bool{}
	for _, v := range vs {
		if c, ok := v.Backend.(io.Closer); ok && !seen[v.Backend] {
			seen[v.Backend] = true
			if err := c.Close(); err != nil {
				fmt.Fprintf(stderr, "planreport: bench-gpu: close %s: %v\n", v.Name, err)
			}
		}
	}
}

// benchModel imports one model and measures it under every objective and
// variant, emitting one record each.
func benchModel(ctx context.Context, c *benchGPUConfig, vs []benchVariant, file, id string, dims map[string]int64, emit func(benchRecord)) {
	base := benchRecord{Model: id, File: file, Dims: formatDims(dims)}
	fail := func(r benchRecord, err error) {
		r.Kind, r.Error = "error", err.Error()
		emit(r)
	}
	g, err := onnx.ImportFile(file, onnx.Options{DimParams: dims, Fuse: c.fuse, Name: modelName(file)})
	if err == nil {
		err = onnx.CheckRunnable(g)
	}
	var in map[ir.ValueID][]byte
	if err == nil {
		in, err = fillWeights(g, c.seed)
	}
	if err != nil {
		fail(base, err)
		return
	}
	var first map[ir.ValueID][]byte
	for _, obj := range c.objectives {
		r := base
		r.Objective = obj
		if !c.deadline.IsZero() && time.Now().After(c.deadline) {
			for _, v := range vs {
				r.Kind, r.Variant, r.Mode = "skipped", v.Name, v.Mode.String()
				emit(r)
			}
			continue
		}
		opts := planner.Options{}
		if err := setObjective(&opts, obj); err != nil {
			fail(r, err)
			continue
		}
		plan, err := planner.PlanGraph(ctx, g, nil, opts)
		if err == nil {
			err = plan.Verify(g)
		}
		if err != nil {
			fail(r, err)
			continue
		}
		r.ArenaBytes, r.LowerBoundBytes, r.UnsharedBytes = plan.ArenaBytes, plan.LowerBoundBytes, plan.UnsharedBytes
		r.Strategy, r.PlanMs = plan.Strategy, 1e3*plan.PlanSeconds
		for _, v := range vs {
			rv := r
			rv.Variant, rv.Mode = v.Name, v.Mode.String()
			if !c.deadline.IsZero() && time.Now().After(c.deadline) {
				rv.Kind = "skipped"
				emit(rv)
				continue
			}
			outs, err := benchVariantRun(ctx, c, g, plan, v, in, &rv)
			if errors.Is(err, errPastDeadline) {
				rv.Kind = "skipped"
				emit(rv)
				continue
			}
			if err != nil {
				fail(rv, err)
				continue
			}
			if first == nil {
				first = outs
			}
			match := equalOutputs(first, outs)
			rv.Kind, rv.Match = "memplan", &match
			emit(rv)
		}
	}
}

// errPastDeadline stops a variant that -deadline cut short.
var errPastDeadline = errors.New("past the -deadline")

// benchVariantRun compiles, loads and times one variant, filling r; it
// returns the outputs of the first timed run, or errPastDeadline.
func benchVariantRun(ctx context.Context, c *benchGPUConfig, g *ir.Graph, plan *planner.Plan, v benchVariant, in map[ir.ValueID][]byte, r *benchRecord) (map[ir.ValueID][]byte, error) {
	p, err := exec.CompilePlan(g, plan.Order, plan, v.Mode)
	if err != nil {
		return nil, err
	}
	r.Dispatches, r.Barriers, r.Groups, r.Edges = len(p.Dispatches), len(p.Barriers), len(p.Groups()), len(p.Edges)
	for i, b := range p.Buffers {
		r.DeviceBytes += b.Bytes
		if i != exec.ArenaBuffer {
			r.ExternalBytes += b.Bytes
		}
	}
	be := v.Backend
	mi, hasMemInfo := be.(memInfo)
	var free0 int64
	if hasMemInfo {
		if free0, _, err = mi.MemInfo(); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	x, err := exec.Load(be, p)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	r.LoadMs = msf(time.Since(t0))
	past := func() bool { return !c.deadline.IsZero() && time.Now().After(c.deadline) }
	for range c.warmup {
		if past() {
			return nil, errPastDeadline
		}
		if _, err := x.Run(ctx, in, exec.RunOptions{}); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	if hasMemInfo { // after the warm-up: a CUDA graph is built at the first run
		free1, _, err := mi.MemInfo()
		if err != nil {
			return nil, err
		}
		r.DriverBytes = free0 - free1
	}
	prof := profile.New()
	var outs map[ir.ValueID][]byte
	clock, walls := make([]float64, 0, c.runs), make([]float64, 0, c.runs)
	r.Clock = "backend"
	for range c.runs {
		if past() {
			return nil, errPastDeadline
		}
		res, err := x.Run(ctx, in, exec.RunOptions{Profiler: prof})
		if err != nil {
			return nil, err
		}
		if outs == nil {
			outs = res.Outputs
		}
		t, ok := timingsExtent(res.Timings)
		if !ok {
			t, r.Clock = res.Wall, "wall"
		}
		clock, walls = append(clock, msf(t)), append(walls, msf(res.Wall))
	}
	r.Runs, r.Warmup = c.runs, c.warmup
	r.TimeMs, r.WallMs = summarize(clock), summarize(walls)
	if ids := onnx.OutputValues(g); len(ids) > 0 {
		r.Checksum = fmt.Sprintf("%016x", exec.Checksum(outs[ids[0]]))
	}
	r.Kinds, r.Top = dispatchProfile(prof, c.runs, c.top)
	return outs, nil
}

// timingsExtent is the backend's device time of the run: Timings.Device
// when measured, else the span from the earliest start to the latest end of
// its group and dispatch spans; ok is false when it recorded none.
func timingsExtent(t *exec.Timings) (time.Duration, bool) {
	if t == nil {
		return 0, false
	}
	if t.Device.EndNs > t.Device.StartNs {
		return time.Duration(t.Device.EndNs - t.Device.StartNs), true
	}
	var lo, hi int64
	ok := false
	for _, s := range slices.Concat(t.Groups, t.Dispatches) {
		if s.EndNs <= s.StartNs && s.StartNs == 0 {
			continue // not timed
		}
		if !ok || s.StartNs < lo {
			lo = s.StartNs
		}
		if !ok || s.EndNs > hi {
			hi = s.EndNs
		}
		ok = true
	}
	return time.Duration(hi - lo), ok
}

// dispatchProfile turns the profiler's dispatch records into per-run kind
// rows and the slowest dispatches; both are empty when the backend timed
// no single dispatch.
func dispatchProfile(p *profile.Profiler, runs, top int) ([]kindRow, []topRow) {
	if len(p.Dispatches()) == 0 {
		return nil, nil
	}
	stats, _ := p.KindStats()
	var kinds []kindRow
	for _, s := range stats {
		kinds = append(kinds, kindRow{Kind: s.Kind, Count: s.Count / int64(runs),
			ShareMs: float64(s.ShareNs) / 1e6 / float64(runs), BusyMs: float64(s.BusyNs) / 1e6 / float64(runs)})
	}
	var tops []topRow
	for _, s := range p.DispatchStats() {
		if len(tops) == top {
			break
		}
		tops = append(tops, topRow{Label: s.Label, MeanMs: float64(s.MeanNs()) / 1e6})
	}
	return kinds, tops
}

// fillWeights gives every weight or constant without data (a graph-only
// file) seeded random data, so that Load uploads it once, and returns the
// graph inputs' data for every run.
func fillWeights(g *ir.Graph, seed uint64) (map[ir.ValueID][]byte, error) {
	data, err := exec.RandomInputs(g, seed)
	if err != nil {
		return nil, err
	}
	in := map[ir.ValueID][]byte{}
	for id, b := range data {
		if v := g.Values[id]; v.Flags&ir.FlagInput != 0 {
			in[id] = b
		} else {
			v.Data = b
		}
	}
	return in, nil
}

func equalOutputs(a, b map[ir.ValueID][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for id, x := range a {
		if !bytes.Equal(x, b[id]) {
			return false
		}
	}
	return true
}

func summarize(ms []float64) *quantiles {
	s := slices.Clone(ms)
	slices.Sort(s)
	at := func(p float64) float64 { return s[min(len(s)-1, int(p*float64(len(s))))] }
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &quantiles{Median: med, P10: at(0.10), P90: at(0.90), Min: s[0]}
}

func msf(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// parseModelArg splits FILE[@NAME=SIZE,...].
func parseModelArg(arg string) (string, map[string]int64, error) {
	file, spec, ok := strings.Cut(arg, "@")
	if !ok {
		return file, nil, nil
	}
	dims, err := parseDims(spec)
	return file, dims, err
}

// modelID is the model's path relative to root without its extension, then
// " b<N>" for a batch binding and " NAME=SIZE" for any other, sorted.
func modelID(file, root string, dims map[string]int64) string {
	id := filepath.ToSlash(file)
	if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
		id = filepath.ToSlash(rel)
	}
	id = strings.TrimSuffix(id, filepath.Ext(id))
	for _, k := range sortedKeys(dims) {
		if k == "batch" {
			id += fmt.Sprintf(" b%d", dims[k])
		} else {
			id += fmt.Sprintf(" %s=%d", k, dims[k])
		}
	}
	return id
}

func formatDims(dims map[string]int64) string {
	var parts []string
	for _, k := range sortedKeys(dims) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, dims[k]))
	}
	return strings.Join(parts, ",")
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
	"github.com/memplan/memplan/profile"
)

// -run executes the planned graph on the CPU backend. Its inputs are random
// (-seed), or read from -input-dir (ONNX test data, runinputs.go); either
// way the run is the same: a reference run of the unplanned graph, then for
// each mode of -mode one warm-up and -runs timed runs, each checked bit for
// bit against the reference; the report is the mode table (best and median
// wall time), one row per output (checksum, sum, and with reference files
// the errors against them, runcompare.go), and with -timings, -profile or
// -trace the profile tables and files (profile.go). -output-dir writes the
// outputs as ONNX test data.

// runProfiler, when an extension sets it in BeforePlan, receives the
// timings of every timed run of -run (each mode's runs in turn).
var runProfiler *profile.Profiler

// afterRun lists functions called after -run finished every mode (with the
// profiler above), for extensions that write profiles or tables.
var afterRun []func(s *session) error

// runConfig is this run's -run flags.
type runConfig struct {
	mode          string
	seed          uint64
	runs, workers int
	inDir, outDir string
	maxBytes      int64
}

func init() {
	register(extension{Name: "run", Flags: func(fs *flag.FlagSet) hooks {
		on := fs.Bool("run", false, "execute the graph (on -backend, the CPU by default): a reference run on the CPU, then per mode one warm-up and -runs timed runs checked bit for bit against it; prints the timings and each output's checksum (with -input-dir reference files, its errors against them)")
		var c runConfig
		fs.StringVar(&c.mode, "mode", "all", "with -run: serial|inferred|reordered|all")
		fs.Uint64Var(&c.seed, "seed", 1, "with -run: seed of the random inputs, and of the weights a graph-only model lacks (reported on stderr)")
		fs.IntVar(&c.runs, "runs", 5, "with -run: timed runs per mode (after one warm-up)")
		fs.IntVar(&c.workers, "workers", 0, "with -run: CPU worker goroutines (0: GOMAXPROCS)")
		fs.StringVar(&c.inDir, "input-dir", "", "with -run: read the inputs from `DIR`/input_N.pb (ONNX TensorProto) instead of random ones, and compare the outputs with DIR/output_N.pb when present")
		fs.Int64Var(&c.maxBytes, "max-bytes", defaultMaxRunBytes, "with -run: the most bytes the run may allocate (inputs, reference and planned buffers, outputs), checked before allocating any")
		fs.StringVar(&c.outDir, "output-dir", "", "with -run: write the outputs to `DIR`/output_N.pb")
		return hooks{
			BeforePlan: func(s *session) error {
				if !*on {
					if c.inDir != "" || c.outDir != "" {
						return fmt.Errorf("-input-dir and -output-dir need -run")
					}
					return nil
				}
				if s.Input.Graph == nil {
					return fmt.Errorf("-run needs a graph, not a DSA instance")
				}
				if c.outDir != "" && c.inDir == "" {
					return fmt.Errorf("-output-dir needs -input-dir (random inputs are not written)")
				}
				if c.maxBytes <= 0 {
					return fmt.Errorf("-max-bytes %d: want a positive byte count", c.maxBytes)
				}
				if c.runs < 1 {
					return fmt.Errorf("-runs %d: want at least 1", c.runs)
				}
				_, err := parseModes(c.mode)
				return err
			},
			AfterPlan: func(s *session) error {
				if !*on {
					return nil
				}
				s.SkipReport = true
				return runGraph(s, c)
			},
		}
	}})
}

// modeRow is one mode's line of the -run table.
type modeRow struct {
	mode                        exec.Mode
	dispatches, barriers, group int
	best, median                time.Duration
}

func runGraph(s *session, c runConfig) error {
	g := s.Input.Graph
	// A graph with opaque ops cannot run: name every one, with its count.
	if err := onnx.CheckRunnable(g); err != nil {
		return err
	}
	modes, err := parseModes(c.mode)
	if err != nil {
		return err
	}
	order := s.Plan.Order
	if order == nil {
		if order, err = g.Schedule(); err != nil {
			return err
		}
	}
	ref, err := exec.Reference(g)
	if err != nil {
		return err
	}
	if err := checkRunBytes(g, s.Plan, ref, c.maxBytes); err != nil {
		return err
	}
	src, err := runInputs(g, c)
	if err != nil {
		return err
	}
	if src.randomWeights > 0 {
		fmt.Fprintf(s.Stderr, "planreport: -run: %d weights or constants carry no data and hold random values (seed %d): the outputs are not comparable to any reference\n", src.randomWeights, c.seed)
	}
	dev, err := openRunBackend(c.workers, c.maxBytes)
	if err != nil {
		return err
	}
	defer dev.close()
	want, err := exec.RunOnce(s.Ctx, cpu.New(cpu.Options{Workers: c.workers, MaxBytes: c.maxBytes}), ref, src.inputs, exec.RunOptions{})
	if err != nil {
		return fmt.Errorf("reference run: %w", err)
	}
	// shown is what every mode must equal bit for bit: the CPU reference,
	// or on another backend its own first run.
	shown := want
	if !dev.exact {
		shown = nil
	}
	var rows []modeRow
	for _, m := range modes {
		row, err := runMode(s, g, order, m, dev.be, src.inputs, c.runs, &shown)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	if err := writeRunReport(s.Out, g, dev, src, rows, shown, want); err != nil {
		return err
	}
	if c.outDir != "" {
		if err := onnx.WriteOutputs(g, want.Outputs, c.outDir); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "# wrote %d outputs to %s\n", len(want.Outputs), c.outDir)
	}
	for _, f := range afterRun {
		if err := f(s); err != nil {
			return err
		}
	}
	return nil
}

// runMode runs one mode; every run must equal *want bit for bit (the first
// run sets it when it is nil).
func runMode(s *session, g *ir.Graph, order []ir.NodeID, m exec.Mode, be exec.Backend, in map[ir.ValueID][]byte, runs int, want **exec.Result) (modeRow, error) {
	p, err := exec.CompilePlan(g, order, s.Plan, m)
	if err != nil {
		return modeRow{}, err
	}
	x, err := exec.Load(be, p)
	if err != nil {
		return modeRow{}, err
	}
	defer x.Close()
	warm, err := x.Run(s.Ctx, in, exec.RunOptions{})
	if err != nil {
		return modeRow{}, fmt.Errorf("%v: %w", m, err)
	}
	if *want == nil {
		*want = warm
	}
	walls := make([]time.Duration, 0, runs)
	for range runs {
		res, err := x.Run(s.Ctx, in, exec.RunOptions{Profiler: runProfiler})
		if err != nil {
			return modeRow{}, fmt.Errorf("%v: %w", m, err)
		}
		for id, b := range (*want).Outputs {
			if !bytes.Equal(res.Outputs[id], b) {
				return modeRow{}, fmt.Errorf("%v: output %d %q differs from the reference run (a bug: please report it)", m, id, g.Values[id].Name)
			}
		}
		walls = append(walls, res.Wall)
	}
	slices.Sort(walls)
	return modeRow{mode: m, dispatches: len(p.Dispatches), barriers: len(p.Barriers), group: len(p.Groups()), best: walls[0], median: walls[len(walls)/2]}, nil
}

// writeRunReport prints the header, the mode table and the output table of
// want (the outputs every mode equalled); with reference files
// (-input-dir) each output row carries its errors. On a backend whose runs
// may differ from the CPU reference run (cpuRef) in the last bits, a line
// gives the largest difference.
func writeRunReport(w io.Writer, g *ir.Graph, dev *runDevice, src *runSource, rows []modeRow, want, cpuRef *exec.Result) error {
	fmt.Fprintf(w, "# run graph=%s %s %s\n", g.Name, dev.describe, src.describe)
	if !dev.exact {
		worst := 0.0
		for _, id := range g.ValuesWith(ir.FlagOutput) {
			if e, ok := relErrOf(g.Values[id], want.Outputs[id], cpuRef.Outputs[id]); ok {
				worst = max(worst, e)
			}
		}
		fmt.Fprintf(w, "# outputs vs the CPU reference run: max relative error %.3g (max |got-want| / max |want| over each f32 output)\n", worst)
	}
	if src.randomWeights > 0 {
		fmt.Fprintf(w, "# note: %d weights or constants without data hold random values: the outputs are not comparable to any reference\n", src.randomWeights)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "mode\tdispatches\tbarriers\tgroups\tbest_ms\tmedian_ms")
	for _, r := range rows {
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%.3f\t%.3f\n", r.mode, r.dispatches, r.barriers, r.group, ms(r.best), ms(r.median))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if src.ref != nil {
		fmt.Fprintf(w, "# outputs (bit-identical in every mode and to the reference run; errors against %s/output_N.pb, max_rel_err = max |got-want|/|want|)\n", src.dir)
	} else {
		fmt.Fprintln(w, "# outputs (bit-identical in every mode and to the reference run)")
	}
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "id\tname\ttype\tfnv64\tsum"
	if src.ref != nil {
		head += "\tmax_abs_err\tat\tgot\twant\tmax_rel_err\tat"
	}
	fmt.Fprintln(tw, head)
	for _, id := range g.ValuesWith(ir.FlagOutput) {
		v := g.Values[id]
		fmt.Fprintf(tw, "%d\t%s\t%v\t%016x\t%s", id, v.Name, v.Type(), exec.Checksum(want.Outputs[id]), sum(v.DType, want.Outputs[id]))
		if src.ref != nil {
			fmt.Fprint(tw, "\t"+compareOutput(v, want.Outputs[id], src.ref[id]).columns())
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// sum adds a tensor's elements (f32, f64 and integers; "-" otherwise).
func sum(dt ir.DType, b []byte) string {
	var s float64
	n := int64(len(b)) / max(dt.Size(), 1)
	for i := range n {
		x, ok := element(dt, b, i)
		if !ok {
			return "-"
		}
		s += x
	}
	return fmt.Sprintf("%.6g", s)
}

// parseModes maps the -mode flag to the modes to run: one by name, or every
// mode for "all".
func parseModes(flag string) ([]exec.Mode, error) {
	if flag == "all" {
		return exec.Modes(), nil
	}
	m, err := exec.ParseMode(flag)
	if err != nil {
		return nil, err
	}
	return []exec.Mode{m}, nil
}

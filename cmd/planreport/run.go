package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/profile"
)

// runProfiler, when an extension sets it in BeforePlan, receives the
// timings of every timed run of -run (each mode's runs in turn).
var runProfiler *profile.Profiler

// afterRun lists functions called after -run finished every mode (with the
// profiler above), for extensions that write profiles or tables.
var afterRun []func(s *session) error

func init() {
	register(extension{Name: "run", Flags: func(fs *flag.FlagSet) hooks {
		on := fs.Bool("run", false, "execute the graph on the CPU backend with random inputs and print output checksums and wall time per mode")
		mode := fs.String("mode", "all", "with -run: serial|inferred|reordered|all")
		seed := fs.Uint64("seed", 1, "with -run: seed of the random inputs")
		runs := fs.Int("runs", 5, "with -run: timed runs per mode (after one warm-up)")
		workers := fs.Int("workers", 0, "with -run: CPU worker goroutines (0: GOMAXPROCS)")
		return hooks{AfterPlan: func(s *session) error {
			if !*on {
				return nil
			}
			s.SkipReport = true
			return runGraph(s, *mode, *seed, *runs, *workers)
		}}
	}})
}

// modeRow is one mode's line of the -run table.
type modeRow struct {
	mode                        exec.Mode
	dispatches, barriers, group int
	best, median                time.Duration
}

func runGraph(s *session, modeFlag string, seed uint64, runs, workers int) error {
	g := s.Input.Graph
	if g == nil {
		return fmt.Errorf("-run needs a graph, not a DSA instance")
	}
	if runs < 1 {
		return fmt.Errorf("-runs %d: want at least 1", runs)
	}
	modes, err := parseModes(modeFlag)
	if err != nil {
		return err
	}
	order := s.Plan.Order
	if order == nil {
		var err error
		if order, err = g.Schedule(); err != nil {
			return err
		}
	}
	in, err := exec.RandomInputs(g, seed)
	if err != nil {
		return err
	}
	be := cpu.New(cpu.Options{Workers: workers})
	ref, err := exec.Reference(g)
	if err != nil {
		return err
	}
	want, err := exec.RunOnce(s.Ctx, be, ref, in, exec.RunOptions{})
	if err != nil {
		return fmt.Errorf("reference run: %w", err)
	}
	var rows []modeRow
	for _, m := range modes {
		row, err := runMode(s, g, order, m, be, in, runs, want)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	writeRunReport(s.Out, g, be, seed, rows, want)
	for _, f := range afterRun {
		if err := f(s); err != nil {
			return err
		}
	}
	return nil
}

func runMode(s *session, g *ir.Graph, order []ir.NodeID, m exec.Mode, be exec.Backend, in map[ir.ValueID][]byte, runs int, want *exec.Result) (modeRow, error) {
	p, err := exec.CompilePlan(g, order, s.Plan, m)
	if err != nil {
		return modeRow{}, err
	}
	x, err := exec.Load(be, p)
	if err != nil {
		return modeRow{}, err
	}
	defer x.Close()
	if _, err := x.Run(s.Ctx, in, exec.RunOptions{}); err != nil { // warm-up
		return modeRow{}, fmt.Errorf("%v: %w", m, err)
	}
	walls := make([]time.Duration, 0, runs)
	for range runs {
		res, err := x.Run(s.Ctx, in, exec.RunOptions{Profiler: runProfiler})
		if err != nil {
			return modeRow{}, fmt.Errorf("%v: %w", m, err)
		}
		for id, b := range want.Outputs {
			if !bytes.Equal(res.Outputs[id], b) {
				return modeRow{}, fmt.Errorf("%v: output %d %q differs from the reference run (a bug: please report it)", m, id, g.Values[id].Name)
			}
		}
		walls = append(walls, res.Wall)
	}
	slices.Sort(walls)
	return modeRow{mode: m, dispatches: len(p.Dispatches), barriers: len(p.Barriers), group: len(p.Groups()), best: walls[0], median: walls[len(walls)/2]}, nil
}

func writeRunReport(w io.Writer, g *ir.Graph, be *cpu.Backend, seed uint64, rows []modeRow, want *exec.Result) {
	fmt.Fprintf(w, "# run graph=%s backend=cpu workers=%d seed=%d\n", g.Name, be.Workers(), seed)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "mode\tdispatches\tbarriers\tgroups\tbest_ms\tmedian_ms")
	for _, r := range rows {
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%.3f\t%.3f\n", r.mode, r.dispatches, r.barriers, r.group, ms(r.best), ms(r.median))
	}
	tw.Flush()
	fmt.Fprintln(w, "# outputs (bit-identical in every mode and to the reference run)")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tname\ttype\tfnv64\tsum")
	for _, id := range g.ValuesWith(ir.FlagOutput) {
		v := g.Values[id]
		fmt.Fprintf(tw, "%d\t%s\t%v\t%016x\t%s\n", id, v.Name, v.Type(), exec.Checksum(want.Outputs[id]), sum(v.DType, want.Outputs[id]))
	}
	tw.Flush()
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// sum adds a tensor's elements (f32, f64 and integers; "-" otherwise).
func sum(dt ir.DType, b []byte) string {
	var s float64
	n := int64(len(b)) / max(dt.Size(), 1)
	for i := int64(0); i < n; i++ {
		switch dt {
		case ir.F32:
			s += float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		case ir.F64:
			s += math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		case ir.I64:
			s += float64(int64(binary.LittleEndian.Uint64(b[8*i:])))
		case ir.I32:
			s += float64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		case ir.Bool, ir.U8:
			s += float64(b[i])
		case ir.I8:
			s += float64(int8(b[i]))
		default:
			return "-"
		}
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

package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
)

// -run with -input-dir runs the graph on inputs in ONNX's test-data format
// (input_0.pb, ... as TensorProto) instead of random ones, and -output-dir
// writes the outputs the same way (output_0.pb, ...). When the input
// directory also holds output_N.pb files (a test_data_set_N folder), the
// report compares the run with them. The modes of -mode must agree bit for
// bit. This extension sorts before "run": it refuses any -run of a graph
// with opaque ops (listing them with counts), and when it handles the run
// itself it turns the random-input run off.
func init() {
	register(extension{Name: "onnx-io", Flags: func(fs *flag.FlagSet) hooks {
		inDir := fs.String("input-dir", "", "with -run: read the inputs from `DIR`/input_N.pb (ONNX TensorProto) and compare with DIR/output_N.pb when present")
		outDir := fs.String("output-dir", "", "with -run -input-dir: write the outputs to `DIR`/output_N.pb")
		return hooks{AfterPlan: func(s *session) error {
			running := s.FlagSet.Lookup("run") != nil && s.FlagSet.Lookup("run").Value.String() == "true"
			if running && s.Input.Graph != nil {
				// Any -run of a graph with opaque ops fails here, naming
				// every unsupported op with its count.
				if err := onnx.CheckRunnable(s.Input.Graph); err != nil {
					return err
				}
			}
			if *inDir == "" && *outDir == "" {
				return nil
			}
			if !running {
				return fmt.Errorf("-input-dir and -output-dir need -run")
			}
			if *inDir == "" {
				return fmt.Errorf("-output-dir needs -input-dir (random inputs are not written)")
			}
			if err := s.FlagSet.Set("run", "false"); err != nil {
				return err
			}
			s.SkipReport = true
			mode := "all"
			if f := s.FlagSet.Lookup("mode"); f != nil {
				mode = f.Value.String()
			}
			return runTestData(s, *inDir, *outDir, mode)
		}}
	}})
}

func runTestData(s *session, inDir, outDir, modeFlag string) error {
	g := s.Input.Graph
	if g == nil {
		return fmt.Errorf("-run needs a graph, not a DSA instance")
	}
	if err := onnx.CheckRunnable(g); err != nil {
		return err
	}
	modes, err := parseModes(modeFlag)
	if err != nil {
		return err
	}
	in, err := onnx.ReadInputs(g, inDir)
	if err != nil {
		return err
	}
	var missing []string
	for _, id := range exec.NeedsData(g) {
		if _, ok := in[id]; !ok {
			missing = append(missing, g.Values[id].Name)
		}
	}
	if n := len(missing); n > 0 {
		if n > 3 {
			missing = append(missing[:3], fmt.Sprintf("... %d more", n-3))
		}
		return fmt.Errorf("%d weights or constants carry no data (a graph-only file?): %s", n, strings.Join(missing, ", "))
	}
	var ref map[ir.ValueID]*onnx.Tensor
	if _, err := os.Stat(filepath.Join(inDir, "output_0.pb")); err == nil {
		if ref, err = onnx.ReadOutputs(g, inDir); err != nil {
			return err
		}
	}
	order := s.Plan.Order
	if order == nil {
		if order, err = g.Schedule(); err != nil {
			return err
		}
	}
	var first map[ir.ValueID][]byte
	fmt.Fprintf(s.Out, "# run graph=%s backend=cpu inputs=%s\n", g.Name, inDir)
	for _, m := range modes {
		p, err := exec.CompilePlan(g, order, s.Plan, m)
		if err != nil {
			return err
		}
		res, err := exec.RunOnce(s.Ctx, cpu.New(cpu.Options{}), p, in, exec.RunOptions{})
		if err != nil {
			return fmt.Errorf("%v: %w", m, err)
		}
		fmt.Fprintf(s.Out, "mode=%v dispatches=%d barriers=%d wall_ms=%.3f\n", m, len(p.Dispatches), len(p.Barriers), ms(res.Wall))
		if first == nil {
			first = res.Outputs
			continue
		}
		for id, b := range res.Outputs {
			if !bytes.Equal(b, first[id]) {
				return fmt.Errorf("%v: output %d %q differs from the %v run (a bug: please report it)", m, id, g.Values[id].Name, modes[0])
			}
		}
	}
	for _, id := range onnx.OutputValues(g) {
		v := g.Values[id]
		line := fmt.Sprintf("output %s %v fnv64=%016x", v.Name, v.Type(), exec.Checksum(first[id]))
		if t := ref[id]; t != nil {
			line += fmt.Sprintf(" max_rel_err=%.3g", relativeError(v.DType, first[id], t.Data))
		}
		fmt.Fprintln(s.Out, line)
	}
	if outDir != "" {
		if err := onnx.WriteOutputs(g, first, outDir); err != nil {
			return err
		}
		fmt.Fprintf(s.Out, "# wrote %d outputs to %s\n", len(first), outDir)
	}
	return nil
}

// relativeError is max |got-want| / max |want| over float tensors (f32,
// f64), and the count of differing elements over others; +Inf on a size
// mismatch or NaN.
func relativeError(dt ir.DType, got, want []byte) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	n := len(want) / int(max(dt.Size(), 1))
	var diff, scale float64
	for i := range n {
		var a, b float64
		switch dt {
		case ir.F32:
			a = float64(math.Float32frombits(le32(got[4*i:])))
			b = float64(math.Float32frombits(le32(want[4*i:])))
		case ir.F64:
			a = math.Float64frombits(le64(got[8*i:]))
			b = math.Float64frombits(le64(want[8*i:]))
		default:
			if !bytes.Equal(got[i*int(dt.Size()):(i+1)*int(dt.Size())], want[i*int(dt.Size()):(i+1)*int(dt.Size())]) {
				diff++
			}
			continue
		}
		d := math.Abs(a - b)
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		diff, scale = max(diff, d), max(scale, math.Abs(b))
	}
	if !dt.IsFloat() || scale == 0 {
		return diff
	}
	return diff / scale
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }

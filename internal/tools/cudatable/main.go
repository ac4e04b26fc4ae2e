// Command cudatable prints docs/BENCHMARKS.md's CUDA table from the file
// exec/cuda's TestGPUBench writes (-cuda.bench FILE): one row per model,
// one column per GPU mode, each cell the median GPU time per run in µs with
// the p10-p90 range.
//
//	go run ./internal/tools/cudatable docs/data/cuda/cuda_bench.tsv
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// modes are the GPU modes in column order.
var modes = []string{"serial", "inferred", "reordered", "edges", "stream"}

// row is one (model, mode) line of the bench file.
type row struct {
	model, mode                 string
	dispatches, barriers, edges int
	runs                        int
	median, p10, p90, minimum   int64
	device                      string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: cudatable FILE.tsv")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "cudatable:", err)
		os.Exit(1)
	}
	defer f.Close()
	rows, err := parse(f)
	if err == nil {
		err = render(os.Stdout, rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cudatable:", err)
		os.Exit(1)
	}
}

// parse reads the TSV (a header line, then one line per model and mode),
// reporting every malformed line.
func parse(r io.Reader) ([]row, error) {
	sc := bufio.NewScanner(r)
	var rows []row
	var errs []error
	line := 0
	for sc.Scan() {
		line++
		if line == 1 || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 11 {
			errs = append(errs, fmt.Errorf("line %d: %d fields, want 11", line, len(f)))
			continue
		}
		var n [8]int64
		bad := false
		for i := range n {
			v, err := strconv.ParseInt(f[2+i], 10, 64)
			if err != nil || v < 0 {
				errs = append(errs, fmt.Errorf("line %d: field %d %q: not a count", line, 3+i, f[2+i]))
				bad = true
				break
			}
			n[i] = v
		}
		if bad {
			continue
		}
		rows = append(rows, row{model: f[0], mode: f[1], dispatches: int(n[0]), barriers: int(n[1]), edges: int(n[2]), runs: int(n[3]),
			median: n[4], p10: n[5], p90: n[6], minimum: n[7], device: f[10]})
	}
	errs = append(errs, sc.Err())
	return rows, errors.Join(errs...)
}

// render prints the markdown table, models sorted by name.
func render(w io.Writer, rows []row) error {
	if len(rows) == 0 {
		return errors.New("no rows")
	}
	by := map[string]map[string]row{}
	devices := map[string]bool{}
	runs := map[int]bool{}
	for _, r := range rows {
		if by[r.model] == nil {
			by[r.model] = map[string]row{}
		}
		by[r.model][r.mode] = r
		devices[r.device] = true
		runs[r.runs] = true
	}
	var models []string
	for m := range by {
		models = append(models, m)
	}
	sort.Strings(models)
	fmt.Fprintf(w, "GPU time per run (µs): median (p10-p90) over %s timed runs on %s.\n\n", keys(runs), strings.Join(sortedKeys(devices), ", "))
	fmt.Fprintln(w, "| model | dispatches | barriers s/i/r | edges | "+strings.Join(modes, " | ")+" |")
	fmt.Fprintln(w, "|---|---|---|---|"+strings.Repeat("---|", len(modes)))
	for _, m := range models {
		r := by[m]
		any := firstOf(r)
		fmt.Fprintf(w, "| %s | %d | %s / %s / %s | %d |", m, any.dispatches, barriers(r, "serial"), barriers(r, "inferred"), barriers(r, "reordered"), any.edges)
		for _, mode := range modes {
			c, ok := r[mode]
			if !ok {
				fmt.Fprint(w, " - |")
				continue
			}
			fmt.Fprintf(w, " %s (%s-%s) |", us(c.median), us(c.p10), us(c.p90))
		}
		fmt.Fprintln(w)
	}
	return nil
}

func us(ns int64) string { return strconv.FormatFloat(float64(ns)/1e3, 'f', 1, 64) }

func barriers(r map[string]row, mode string) string {
	if c, ok := r[mode]; ok {
		return strconv.Itoa(c.barriers)
	}
	return "-"
}

func firstOf(r map[string]row) row {
	for _, m := range modes {
		if c, ok := r[m]; ok {
			return c
		}
	}
	for _, c := range r {
		return c
	}
	return row{}
}

func keys(m map[int]bool) string {
	var ks []string
	for k := range m {
		ks = append(ks, strconv.Itoa(k))
	}
	sort.Strings(ks)
	return strings.Join(ks, "/")
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

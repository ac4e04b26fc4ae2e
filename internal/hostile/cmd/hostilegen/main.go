// Command hostilegen writes the large inputs of the hostile corpus to a
// folder (scripts/hostile_bench.sh measures planreport on each):
//
//	go run ./internal/hostile/cmd/hostilegen DIR
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/memplan/memplan/internal/hostile"
	"github.com/memplan/memplan/ir"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hostilegen DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	files := []struct {
		name string
		gen  func(w io.Writer) error
	}{
		{"inplace_chain_100k.json", func(w io.Writer) error { return hostile.InPlaceChain(w, 100_000) }},
		{"view_chain_100k.json", func(w io.Writer) error { return hostile.ViewChain(w, 100_000) }},
		{"too_many_values.json", func(w io.Writer) error { return hostile.ManyValues(w, ir.MaxFileElements+1) }},
		{"bad_last_value_1m.json", func(w io.Writer) error { return hostile.BadLastValue(w, 1_000_000) }},
		{"rows_1m.csv", func(w io.Writer) error { return hostile.CSVRows(w, 1_000_000, 1) }},
		{"live_300k.csv", func(w io.Writer) error { return hostile.ManyLiveCSV(w, 300_000) }},
	}
	for _, f := range files {
		if err := write(filepath.Join(dir, f.name), f.gen); err != nil {
			fmt.Fprintln(os.Stderr, "hostilegen:", err)
			os.Exit(1)
		}
	}
}

func write(path string, gen func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := gen(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	write := flag.Bool("w", false, "write the converted files")
	verbose := flag.Bool("v", false, "print the checks left alone, by reason")
	negateAt := flag.String("negate", "", "FILE:LINE: turn the testify assertion on that line into its opposite")
	flag.Parse()
	if *negateAt != "" {
		if err := negateFile(*negateAt); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: testifyconv [-w] [-v] packages... | testifyconv -negate FILE:LINE")
		os.Exit(2)
	}
	weaker, err := run(os.Stdout, ".", flag.Args(), *write, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if weaker {
		os.Exit(1)
	}
}

// errWeaker reports a package with fewer checks after conversion.
var errWeaker = errors.New("testifyconv: fewer checks after conversion")

// run converts the packages matched by patterns (resolved in dir), prints
// the table, and writes the files when write is set. It reports whether
// any package would have fewer checks after conversion (then nothing of it
// is written).
func run(w io.Writer, dir string, patterns []string, write, verbose bool) (bool, error) {
	ls, err := load(dir, patterns)
	if err != nil {
		return false, err
	}
	var rows []row
	weaker := false
	for _, l := range ls {
		out, skipped, err := convertPackage(l)
		if err != nil {
			return false, err
		}
		after, err := l.recheck(out)
		if err != nil {
			return false, fmt.Errorf("testifyconv: %s: the converted package does not type-check: %w", l.path, err)
		}
		r := row{pkg: l.path, before: count(l.units), after: count(after)}
		rows = append(rows, r)
		if verbose {
			reasons := make([]string, 0, len(skipped))
			for k := range skipped {
				reasons = append(reasons, k)
			}
			sort.Strings(reasons)
			for _, k := range reasons {
				fmt.Fprintf(w, "%s: %d checks left alone: %s\n", l.path, skipped[k], k)
			}
		}
		if r.after.total() < r.before.total() {
			weaker = true
			fmt.Fprintf(w, "%s: %v (%d < %d); not written\n", l.path, errWeaker, r.after.total(), r.before.total())
			continue
		}
		if write {
			names := make([]string, 0, len(out))
			for name := range out {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if err := os.WriteFile(name, out[name], 0o644); err != nil {
					return false, err
				}
			}
		}
	}
	printTable(w, rows)
	return weaker, nil
}

// convertPackage converts every test file of l and returns the new texts
// of the files it changed, and the checks it left alone by reason.
func convertPackage(l *loaded) (map[string][]byte, map[string]int, error) {
	out := map[string][]byte{}
	skipped := map[string]int{}
	for _, u := range l.units {
		for i, f := range u.files {
			name := u.names[i]
			if !strings.HasSuffix(name, "_test.go") {
				continue
			}
			if clash(u, f) {
				skipped["file declares assert or require"]++
				continue
			}
			c := &converter{u: u, file: f, src: u.src[name], uses: map[string]bool{}, skipped: skipped}
			c.run()
			if len(c.edits) == 0 {
				continue
			}
			text, err := apply(c.src, c.edits, c.uses)
			if err != nil {
				return nil, nil, fmt.Errorf("testifyconv: %s: %w", name, err)
			}
			out[name] = text
		}
	}
	return out, skipped, nil
}

package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed testdata/apple_selectors.txt
var appleSelectors string

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the exit: it returns 0 when every package
// type-checks, 1 when any has an error, 2 when the tool cannot run.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("darwincheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "print each package checked and a summary")
	goroot := fs.String("goroot", "", "GOROOT (default: go env GOROOT)")
	modcache := fs.String("modcache", "", "module cache (default: go env GOMODCACHE)")
	modroot := fs.String("modroot", "", "main module root (default: nearest go.mod above the working directory)")
	goos := fs.String("goos", "darwin", "GOOS to select files for")
	goarch := fs.String("goarch", "arm64", "GOARCH to select files for")
	tests := fs.Bool("tests", true, "also check the packages' _test.go files")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: darwincheck [-v] [flags] PKGDIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	if *goroot == "" || *modcache == "" {
		out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output()
		if err != nil {
			fmt.Fprintf(stderr, "darwincheck: go env: %v\n", err)
			return 2
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 {
			fmt.Fprintf(stderr, "darwincheck: go env printed %q\n", out)
			return 2
		}
		if *goroot == "" {
			*goroot = lines[0]
		}
		if *modcache == "" {
			*modcache = lines[1]
		}
	}
	if *modroot == "" {
		r, err := findModuleRoot()
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		*modroot = r
	}
	c, err := NewChecker(Config{
		ModuleRoot:     *modroot,
		GOROOT:         *goroot,
		ModCache:       *modcache,
		GOOS:           *goos,
		GOARCH:         *goarch,
		ExtraSelectors: ParseSelectorList(appleSelectors),
		Tests:          *tests,
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	cwd, _ := os.Getwd()
	code := 0
	for _, dir := range fs.Args() {
		diags, err := c.Check(dir)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		nerr, nwarn := 0, 0
		for _, d := range diags {
			if rel, err := filepath.Rel(cwd, d.Pos.Filename); err == nil && !strings.HasPrefix(rel, "..") {
				d.Pos.Filename = rel
			}
			fmt.Fprintln(stdout, d)
			if d.Warning {
				nwarn++
			} else {
				nerr++
			}
		}
		if nerr > 0 {
			code = 1
		}
		if *verbose {
			fmt.Fprintf(stdout, "darwincheck: %s: %s/%s: %d errors, %d warnings\n", dir, *goos, *goarch, nerr, nwarn)
		}
	}
	if code == 0 {
		fmt.Fprintln(stdout, summary(c.Checked(), *goos, *goarch))
	}
	return code
}

// summary is the one line printed on success: the packages and the files
// type-checked (test files among them), e.g.
//
//	darwincheck: ok: darwin/arm64: 1 package, 24 files (14 + 10 tests): github.com/memplan/memplan/exec/metal
func summary(cs []Checked, goos, goarch string) string {
	files, tests := 0, 0
	var pkgs []string
	for _, c := range cs {
		files += len(c.Files)
		for _, f := range c.Files {
			if strings.HasSuffix(f, "_test.go") {
				tests++
			}
		}
		pkgs = append(pkgs, c.Path)
	}
	plural := func(n int, w string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, w)
		}
		return fmt.Sprintf("%d %ss", n, w)
	}
	return fmt.Sprintf("darwincheck: ok: %s/%s: %s, %s (%d + %d tests): %s", goos, goarch,
		plural(len(cs), "package"), plural(files, "file"), files-tests, tests, strings.Join(pkgs, ", "))
}

func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("darwincheck: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("darwincheck: no go.mod above the working directory")
		}
		dir = parent
	}
}

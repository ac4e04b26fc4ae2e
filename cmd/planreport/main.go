// Command planreport plans the memory of a graph or a DSA instance and prints
// the plan.
//
//	planreport [flags] [FILE]
//	planreport SUBCOMMAND [args]
//
// FILE is a graph (.json, docs/FORMAT.md) or a DSA instance (.csv:
// id,lower,upper,size[,alignment][,offset]); with no FILE it plans an
// embedded example graph. Flags: -format text|json|csv (and whatever other
// files register), -align BYTES (64), -strategy NAME (auto), -objective
// memory|concurrency|balanced (what the plan trades), -o FILE.
//
// # Extending planreport (read this before editing main.go: you should not need to)
//
// main.go is a small framework; every feature plugs in from an init function
// in its own file of package main, so engineers never edit the same file:
//
//   - loaders maps a file extension (".csv", ".json", ".onnx") to a function
//     that reads the file into an *input (a graph or a list of buffers):
//
//     func init() { loaders[".onnx"] = loadONNX }
//
//   - outputFormats maps a -format name to a renderer that writes the
//     session's report to w:
//
//     func init() { outputFormats["svg"] = renderSVG } // func(w io.Writer, s *session) error
//
//   - subcommands maps a first argument ("bench") to a command that takes
//     over completely: func(args []string, stdout, stderr io.Writer) int.
//
//   - extensions is a list of flag hooks. An extension registers its flags
//     on the run's FlagSet and returns the hooks bound to those flags for
//     this run: BeforePlan checks the extension's flags against the loaded
//     input and may change the input or options, before
//     any -o file is opened or any planning starts; AfterPlace runs once
//     the plan is made, before it is verified (it must not change it);
//     AfterPlan runs after verification and may write extra output to s.Out or replace the report
//     (set s.SkipReport; -reorder, for one, reorders the placed plan's
//     dispatches there).
//
// An extension, in full:
//
//	func init() {
//		register(extension{Name: "barriers", Flags: func(fs *flag.FlagSet) hooks {
//			on := fs.Bool("barriers", false, "print the barriers between dispatches")
//			return hooks{AfterPlan: func(s *session) error {
//				if !*on {
//					return nil
//				}
//				// use s.Input.Graph, s.Input.Order, s.Plan; write to s.Out
//				return nil
//			}}
//		}})
//	}
//
// Hooks run in registration order sorted by Name, so output is deterministic.
// The library does the work; a hook should be a few lines of glue.
// run(args, stdout, stderr) is the whole command, testable without exec.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// input is what a loader produces: a graph (with an optional schedule) or a
// DSA instance.
type input struct {
	Path    string           // the file it came from ("" for the embedded example)
	Graph   *ir.Graph        // set for graph inputs
	Order   []ir.NodeID      // schedule for Graph; nil means Graph.Schedule()
	Buffers []planner.Buffer // set for DSA inputs
}

// session is the state of one run, handed to renderers and hooks.
type session struct {
	Args       []string        // the positional arguments after the flags
	Input      *input          // the loaded input
	Opts       planner.Options // planning options built from the flags
	Plan       *planner.Plan   // set after planning
	Format     string          // -format
	Out        io.Writer       // the report destination (stdout or -o FILE)
	Stdout     io.Writer       // the process's stdout (also when -o is set)
	Stderr     io.Writer       // diagnostics
	SkipReport bool            // set by an AfterPlan hook that wrote the whole output
	Ctx        context.Context // cancelled never today; passed to the library
	FlagSet    *flag.FlagSet   // the parsed flags (fs.Visit tells which were set)
}

// hooks are the actions of one extension for one run; nil hooks are skipped.
type hooks struct {
	BeforePlan  func(s *session) error
	AfterPlace  func(s *session) // after planning, before verification
	AfterPlan   func(s *session) error
	AfterReport func(s *session) // after the report is written, before -o's rename
}

// extension adds flags and hooks to planreport.
type extension struct {
	Name  string
	Flags func(fs *flag.FlagSet) hooks
}

var (
	// loaders maps a lowercase file extension to its reader.
	loaders = map[string]func(path string) (*input, error){}
	// defaultInput builds the input used when no FILE is given.
	defaultInput func() (*input, error)
	// outputFormats maps a -format name to its renderer.
	outputFormats = map[string]func(w io.Writer, s *session) error{}
	// subcommands maps a first argument to a command that takes over.
	subcommands = map[string]func(args []string, stdout, stderr io.Writer) int{}
	// extensions are the registered flag hooks.
	extensions []extension
)

// register adds an extension.
func register(e extension) { extensions = append(extensions, e) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command: it returns the exit status (0 ok, 1 failure,
// 2 usage error) and never panics on bad input.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "planreport: internal error: %v\n", r)
			code = 1
		}
	}()
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("planreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: "+strings.Join(sortedKeys(outputFormats), "|"))
	align := fs.Int64("align", planner.DefaultAlign, "buffer alignment in bytes (for .csv input only applied when given, to buffers without an alignment column)")
	strategy := fs.String("strategy", "auto", "placement strategy: "+strings.Join(planner.PlacerNames(), "|"))
	objective := fs.String("objective", planner.ObjectiveMemory, "what the plan trades: "+strings.Join(planner.Objectives(), "|")+" (memory: least arena; concurrency: critical path = data chain)")
	outPath := fs.String("o", "", "write the report to `FILE` instead of stdout (through a temporary file beside it, renamed over FILE only when the run succeeds)")
	exts := append([]extension(nil), extensions...)
	sort.SliceStable(exts, func(i, j int) bool { return exts[i].Name < exts[j].Name })
	var hs []hooks
	for _, e := range exts {
		if e.Flags != nil {
			hs = append(hs, e.Flags(fs))
		}
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: planreport [flags] [FILE]  (FILE: %s; none = embedded example)\n", strings.Join(sortedKeys(loaders), " "))
		if len(subcommands) > 0 {
			fmt.Fprintf(stderr, "       planreport %s [args]\n", strings.Join(sortedKeys(subcommands), "|"))
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "planreport: one FILE at most, got %d\n", fs.NArg())
		return 2
	}
	render, ok := outputFormats[*format]
	if !ok {
		fmt.Fprintf(stderr, "planreport: unknown -format %q (known: %s)\n", *format, strings.Join(sortedKeys(outputFormats), ", "))
		return 2
	}
	if *align <= 0 || *align&(*align-1) != 0 {
		fmt.Fprintf(stderr, "planreport: -align %d is not a positive power of two\n", *align)
		return 2
	}
	if *align > ir.MaxBytes {
		fmt.Fprintf(stderr, "planreport: -align %d is larger than the largest buffer (ir.MaxBytes, %d bytes)\n", *align, ir.MaxBytes)
		return 2
	}
	alignSet := false
	fs.Visit(func(f *flag.Flag) { alignSet = alignSet || f.Name == "align" })

	s := &session{Args: fs.Args(), Format: *format, Stdout: stdout, Stderr: stderr, Out: stdout, Ctx: context.Background(), FlagSet: fs}
	s.Opts = planner.Options{Align: *align, Strategy: *strategy, Objective: *objective}
	in, err := load(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "planreport: %v\n", err)
		return 1
	}
	s.Input = in
	if in.Graph == nil && !alignSet {
		s.Opts.Align = 0 // DSA instances keep their own alignment
	}
	if in.Graph == nil && *objective != planner.ObjectiveMemory {
		fmt.Fprintf(stderr, "planreport: -objective %s needs a graph: a DSA instance has no dispatches to group\n", *objective)
		return 2
	}
	for _, h := range hs {
		if h.BeforePlan != nil {
			if err := h.BeforePlan(s); err != nil {
				fmt.Fprintf(stderr, "planreport: %v\n", err)
				return 1
			}
		}
	}
	// -o goes to a temporary file renamed over FILE only on success
	// (outfile.go): a failed run leaves an existing FILE as it was.
	var outFile *atomicFile
	if *outPath != "" {
		if outFile, err = createAtomic(*outPath); err != nil {
			fmt.Fprintf(stderr, "planreport: -o: %v\n", err)
			return 1
		}
		defer outFile.Abort() // every early return, and panics: FILE untouched
		s.Out = outFile
	}
	if in.Graph != nil {
		s.Plan, err = planner.PlanGraph(s.Ctx, in.Graph, in.Order, s.Opts)
	} else {
		s.Plan, err = planner.PlanBuffers(s.Ctx, in.Buffers, s.Opts)
	}
	if err != nil {
		fmt.Fprintf(stderr, "planreport: %s: %v\n", displayName(in), err)
		return 1
	}
	for _, h := range hs {
		if h.AfterPlace != nil {
			h.AfterPlace(s)
		}
	}
	var g *ir.Graph
	if in.Graph != nil {
		g = in.Graph
	}
	if err := s.Plan.Verify(g); err != nil {
		fmt.Fprintf(stderr, "planreport: %s: the plan does not verify (a planner bug): %v\n", displayName(in), err)
		return 1
	}
	code = 0
	for _, h := range hs {
		if h.AfterPlan != nil {
			if err := h.AfterPlan(s); err != nil {
				fmt.Fprintf(stderr, "planreport: %v\n", err)
				code = 1
				break
			}
		}
	}
	if code == 0 && !s.SkipReport {
		if err := render(s.Out, s); err != nil {
			fmt.Fprintf(stderr, "planreport: %v\n", err)
			code = 1
		}
	}
	if code == 0 {
		for _, h := range hs {
			if h.AfterReport != nil {
				h.AfterReport(s)
			}
		}
	}
	if code == 0 && outFile != nil {
		if err := outFile.Commit(); err != nil {
			fmt.Fprintf(stderr, "planreport: -o: %v\n", err)
			code = 1
		}
	}
	return code
}

// load reads the one positional argument with the loader for its extension,
// or builds the default input.
func load(args []string) (*input, error) {
	if len(args) == 0 {
		if defaultInput == nil {
			return nil, errors.New("no FILE given and no embedded example")
		}
		return defaultInput()
	}
	path := args[0]
	ext := strings.ToLower(filepath.Ext(path))
	l, ok := loaders[ext]
	if !ok {
		return nil, fmt.Errorf("%s: unknown file type %q (known: %s)", path, ext, strings.Join(sortedKeys(loaders), " "))
	}
	in, err := l(path)
	if err != nil {
		if strings.Contains(err.Error(), path) {
			return nil, err // the loader's library already names the file
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if in == nil || (in.Graph == nil && in.Buffers == nil) {
		return nil, fmt.Errorf("%s: loader returned nothing", path)
	}
	in.Path = path
	return in, nil
}

func displayName(in *input) string {
	if in.Path == "" {
		return "example"
	}
	return in.Path
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

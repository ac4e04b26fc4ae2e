package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/planner"
)

// benchVariant is one way bench-gpu runs a program: the exec mode that sets
// its barriers and a backend configured for it (for CUDA: plain stream
// launches, or a CUDA graph ordered by the barriers or by the edges).
type benchVariant struct {
	Name    string
	Mode    exec.Mode
	Backend exec.Backend // shared by every model; closed at the end when it is an io.Closer
}

// memInfo is implemented by backends that can say how much device memory
// is free (the CUDA driver's figure): bench-gpu then reports what a loaded
// program really holds beside what it asked for.
type memInfo interface {
	MemInfo() (free, total int64, err error)
}

// benchBackendOptions are what every backend of bench-gpu may need.
type benchBackendOptions struct {
	LibDirs []string // directories searched first for the device libraries
}

// benchBackends maps -backend to the variants it offers, in report order.
// Each backend registers itself from its own file.
var benchBackends = map[string]func(benchBackendOptions) ([]benchVariant, error){
	"cpu": func(benchBackendOptions) ([]benchVariant, error) {
		be := cpu.New(cpu.Options{})
		var vs []benchVariant
		for _, m := range exec.Modes() {
			vs = append(vs, benchVariant{Name: m.String(), Mode: m, Backend: be})
		}
		return vs, nil
	},
}

// pickVariants keeps the named variants (nil names: all), in the backend's
// order; an unknown name is an error that lists the known ones.
func pickVariants(vs []benchVariant, names []string) ([]benchVariant, error) {
	if names == nil {
		return vs, nil
	}
	known := map[string]bool{}
	var all []string
	for _, v := range vs {
		known[v.Name] = true
		all = append(all, v.Name)
	}
	want := map[string]bool{}
	for _, n := range names {
		if !known[n] {
			return nil, fmt.Errorf("unknown variant %q (known: %s)", n, strings.Join(all, ", "))
		}
		want[n] = true
	}
	var out []benchVariant
	for _, v := range vs {
		if want[v.Name] {
			out = append(out, v)
		}
	}
	return out, nil
}

// benchObjectives lists the planner objectives bench-gpu runs by default:
// every one the planner offers.
func benchObjectives() []string { return planner.Objectives() }

// setObjective sets the planner objective by name.
func setObjective(o *planner.Options, name string) error {
	if !slices.Contains(planner.Objectives(), name) {
		return fmt.Errorf("unknown objective %q (known: %s)", name, strings.Join(planner.Objectives(), ", "))
	}
	o.Objective = name
	return nil
}

// createOutput opens path for writing (stdout when path is empty) and
// returns a close function.
func createOutput(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Close, nil
}

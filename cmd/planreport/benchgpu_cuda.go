package main

import (
	"io"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cuda"
)

// The CUDA variants of bench-gpu, in report order: launches on one stream
// (no graph; events between dispatches give the per-dispatch profile), and
// a CUDA graph instantiated once per program, ordered by a barrier after
// every dispatch (graph-serial), by memranges' barriers for the schedule
// (graph-inferred) or after its reorder to the fewest barriers
// (graph-reordered), or by the program's edges (graph-edges).
var cudaBenchVariants = []struct {
	name string
	mode exec.Mode
	sync cuda.Sync
}{
	{"stream", exec.Serial, cuda.Stream},
	{"graph-serial", exec.Serial, cuda.Barriers},
	{"graph-inferred", exec.Inferred, cuda.Barriers},
	{"graph-reordered", exec.Reordered, cuda.Barriers},
	{"graph-edges", exec.Inferred, cuda.Edges},
}

func init() {
	benchBackends["cuda"] = func(o benchBackendOptions) ([]benchVariant, error) {
		var vs []benchVariant
		for _, c := range cudaBenchVariants {
			be, err := cuda.New(cuda.Options{LibDirs: o.LibDirs, Sync: c.sync})
			if err != nil {
				closeBackends(vs, io.Discard)
				return nil, err
			}
			vs = append(vs, benchVariant{Name: c.name, Mode: c.mode, Backend: be})
		}
		return vs, nil
	}
}

package main

import (
	"fmt"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// defaultMaxRunBytes is -max-bytes: what one -run may allocate (4 GiB).
const defaultMaxRunBytes = 4 << 30

// checkRunBytes adds up what -run will allocate before it allocates any of
// it: the inputs (random or read), the reference program's buffers (every
// value its own), the planned program's buffers (the arena and the
// external values) and the outputs read back. Above maxBytes it is an error
// naming the largest input and each part.
func checkRunBytes(g *ir.Graph, plan *planner.Plan, ref *exec.Program, maxBytes int64) error {
	in, largest, err := exec.InputBytes(g)
	if err != nil {
		return err
	}
	lay, err := exec.LayoutFromPlan(g, plan)
	if err != nil {
		return err
	}
	planned := int64(0)
	for _, b := range lay.Buffers {
		planned = satAdd(planned, max(b.Bytes, 0))
	}
	outs := int64(0)
	for _, id := range g.ValuesWith(ir.FlagOutput) {
		n, err := g.Values[id].Bytes()
		if err != nil {
			return err
		}
		outs = satAdd(outs, n)
	}
	refBytes := ref.BufferBytes()
	total := satAdd(satAdd(in, refBytes), satAdd(planned, outs))
	if total <= maxBytes {
		return nil
	}
	what := ""
	if largest >= 0 {
		v := g.Values[largest]
		n, _ := v.Bytes()
		what = fmt.Sprintf("; the largest input is value %d %q %v (%d bytes)", largest, v.Name, v.Type(), n)
	}
	return fmt.Errorf("-run would allocate %d bytes (inputs %d, reference buffers %d, planned buffers %d, outputs %d), above -max-bytes %d%s", total, in, refBytes, planned, outs, maxBytes, what)
}

// satAdd adds two non-negative sizes without wrapping.
func satAdd(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<63 - 1
}

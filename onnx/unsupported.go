package onnx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/memplan/memplan/ir"
)

// Unsupported counts the graph's opaque nodes by op name: the ops that can
// be planned but not run. An empty map means every node is in the core set
// (nil nodes, which ir.Validate reports, are skipped).
func Unsupported(g *ir.Graph) map[string]int {
	out := map[string]int{}
	if g == nil {
		return out
	}
	for _, n := range g.Nodes {
		if n != nil && n.Opaque {
			out[n.Op]++
		}
	}
	return out
}

// UnsupportedError lists every op of a graph that cannot run, with how many
// nodes use it. It wraps ErrUnsupported.
type UnsupportedError struct {
	Ops map[string]int
}

func (e *UnsupportedError) Error() string {
	names := make([]string, 0, len(e.Ops))
	for op := range e.Ops {
		names = append(names, op)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	total := 0
	for i, op := range names {
		parts[i] = fmt.Sprintf("%s x%d", op, e.Ops[op])
		total += e.Ops[op]
	}
	return fmt.Sprintf("onnx: %d nodes of %d ops outside the core set cannot run: %s", total, len(names), strings.Join(parts, ", "))
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// CheckRunnable returns nil when every node of g is a core op, and an
// *UnsupportedError listing the opaque ones otherwise. Call it before
// running an imported graph.
func CheckRunnable(g *ir.Graph) error {
	if ops := Unsupported(g); len(ops) > 0 {
		return &UnsupportedError{Ops: ops}
	}
	return nil
}

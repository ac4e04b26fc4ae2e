package planner

import (
	"io"
	"time"
)

// DefaultAlign is the alignment PlanGraph uses when Options.Align is 0.
const DefaultAlign int64 = 64

// Options configures planning. The zero value is the default: 64-byte
// alignment, the auto strategy (auto.go), in-place sharing on, inputs
// external.
type Options struct {
	// Align is the byte alignment of every graph buffer's size and offset
	// (DefaultAlign when 0). PlanBuffers uses it only for buffers whose own
	// Align is 0.
	Align int64
	// Strategy names a registered placer ("" means "auto").
	Strategy string
	// DisableInPlace turns off in-place sharing in PlanGraph.
	DisableInPlace bool
	// PlaceInputs puts inputs, weights and constants in the arena as pinned
	// buffers live for the whole run, instead of leaving them external.
	PlaceInputs bool
	// TimeBudget bounds strategies that search (0: their default).
	TimeBudget time.Duration
	// Progress receives progress lines from long searches; nil is silent.
	Progress io.Writer
	// Objective says what PlanGraph trades (objective.go): "memory" (""),
	// the serial schedule and the least arena; "concurrency", a grouping of
	// minimum depth (critical path = data chain) with the least peak among
	// those tried; "balanced", the fewest groups whose arena is within
	// BalancedFactor of the memory plan's.
	Objective string
}

// Objective names accepted in Options.Objective.
const (
	ObjectiveMemory      = "memory"
	ObjectiveConcurrency = "concurrency"
	ObjectiveBalanced    = "balanced"
)

// Objectives returns the objective names, in the order reports list them.
func Objectives() []string {
	return []string{ObjectiveMemory, ObjectiveConcurrency, ObjectiveBalanced}
}

func (o Options) align() int64 {
	if o.Align <= 0 {
		return DefaultAlign
	}
	return o.Align
}

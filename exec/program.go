package exec

import (
	"fmt"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/memranges"
)

// ArenaBuffer is the index of the arena in Program.Buffers.
const ArenaBuffer = 0

// BufferSpec is one device buffer a program needs. Buffer ArenaBuffer is the
// planned arena; the others each hold one external root value (an input, a
// weight, a constant) or, in a reference program, one value of its own.
type BufferSpec struct {
	Bytes int64
	// Root is the value whose storage the buffer is, or -1 for the arena.
	Root ir.ValueID
}

// Binding says where one tensor operand of a dispatch lives.
//
// Element i (a multi-index) is at byte OffsetBytes + sum_k i[k]*StridesBytes[k]
// of buffer Buffer. [LoBytes, HiBytes) is the half-open bounding window of
// every byte the binding can address (empty tensors: Lo == Hi).
type Binding struct {
	Value        ir.ValueID
	Buffer       int
	OffsetBytes  int64
	DType        ir.DType
	Shape        ir.Shape
	StridesBytes []int64 // always filled, one per dimension
	LoBytes      int64
	HiBytes      int64
}

// IsContiguous reports whether the binding is dense row-major.
func (b *Binding) IsContiguous() bool {
	want := ir.ContiguousStrides(b.Shape, b.DType.Size())
	for i := range want {
		if b.Shape[i] > 1 && want[i] != b.StridesBytes[i] {
			return false
		}
	}
	return true
}

// String prints the binding as v3@buf0+128 f32[2 3].
func (b *Binding) String() string {
	return fmt.Sprintf("v%d@buf%d+%d %v%v", b.Value, b.Buffer, b.OffsetBytes, b.DType, b.Shape)
}

// Dispatch is one kernel launch: a node that is not a pure view.
type Dispatch struct {
	// Index is the dispatch's position in Program.Dispatches.
	Index   int
	Node    ir.NodeID
	Name    string
	Op      string
	Attrs   ir.Attrs
	Inputs  []Binding
	Outputs []Binding
}

// Mode says how a program synchronises its dispatches.
type Mode uint8

// Concurrency modes.
const (
	// Serial puts a barrier after every dispatch: nothing runs concurrently.
	Serial Mode = iota
	// Inferred keeps the schedule and puts barriers only where two
	// dispatches conflict (memranges).
	Inferred
	// Reordered first reorders the dispatches to need the fewest barriers
	// (memranges), then infers them.
	Reordered
)

var modeNames = [...]string{"serial", "inferred", "reordered"}

// Modes lists every mode in order.
func Modes() []Mode { return []Mode{Serial, Inferred, Reordered} }

// String returns the mode's name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode maps "serial", "inferred" or "reordered" to its Mode.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("exec: unknown mode %q: %w", s, ErrMode)
}

// Program is a compiled graph: device buffers, dispatches in execution order
// with their bindings, and the barriers between them. It is plain data; a
// Backend runs it ([Load]).
type Program struct {
	Graph *ir.Graph
	Mode  Mode
	// Buffers lists the device buffers; Buffers[ArenaBuffer] is the arena.
	Buffers []BufferSpec
	// Values says where every value lives, indexed by ValueID (the zero
	// Binding, with Shape nil and Buffer -1, for values no run touches).
	Values []Binding
	// Dispatches in execution order; Dispatches[i].Index == i.
	Dispatches []Dispatch
	// Barriers lists, ascending and without repeats, the dispatch indices
	// i (0 < i < len(Dispatches)) with a barrier right before dispatch i.
	Barriers []int
	// Edges are the same ordering constraints as point-to-point
	// dependencies (From must finish before To starts): the transitive
	// reduction of the memory-conflict DAG (memranges.Edges), for backends
	// that order work with events or graph edges (CUDA graphs, Metal fences)
	// instead of barriers. Set by Synchronize; nil means not computed.
	Edges []memranges.Edge
}

// Groups returns the half-open dispatch index ranges [Start, End) between
// barriers, in order. An empty program has no groups.
func (p *Program) Groups() [][2]int {
	var gs [][2]int
	start := 0
	for _, b := range p.Barriers {
		gs = append(gs, [2]int{start, b})
		start = b
	}
	if start < len(p.Dispatches) {
		gs = append(gs, [2]int{start, len(p.Dispatches)})
	}
	return gs
}

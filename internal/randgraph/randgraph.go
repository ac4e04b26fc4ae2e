package randgraph

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
	"pgregory.net/rapid"
)

// F32LE returns the little-endian bytes of one float32.
func F32LE(v float32) []byte {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, math.Float32bits(v))
	return b
}

// Graph draws a random graph of square [n n] f32 tensors that exercises
// what the planner and the barriers must get right:
//
//   - in-place candidates: unary ops and Add/Mul whose first input often
//     dies at that node;
//   - branches and shared inputs: operands are drawn from every value made
//     so far, so values fan out and join;
//   - views: explicit transposed views (strided, no node), Reshape round
//     trips (view nodes), and row Slices (contiguous views, broadcast back);
//   - multi-output nodes (Split then Concat) and whole-tensor readers
//     (MatMul, Softmax) that conflict with everything they read;
//   - other dtypes in the arena: bool (Greater, Where) and i64 (Cast, Mul).
func Graph(t *rapid.T) *ir.Graph {
	n := int64(rapid.SampledFrom([]int{2, 4, 16}).Draw(t, "n"))
	b := ir.NewBuilder("random")
	var vals []ir.ValueID
	nIn := rapid.IntRange(1, 2).Draw(t, "inputs")
	for i := range nIn {
		vals = append(vals, b.Input(fmt.Sprintf("x%d", i), ir.F32, n, n))
	}
	if rapid.Bool().Draw(t, "weight") {
		data := make([]byte, 4*n*n)
		for i := range n * n {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(0.25+float32(i%5)*0.125))
		}
		vals = append(vals, b.WeightData("w", ir.F32, data, n, n))
	}
	pick := func(label string) ir.ValueID {
		return vals[rapid.IntRange(0, len(vals)-1).Draw(t, label)]
	}
	steps := rapid.IntRange(1, 14).Draw(t, "steps")
	for s := range steps {
		l := fmt.Sprintf("s%d", s)
		var v ir.ValueID
		switch rapid.IntRange(0, 10).Draw(t, l+"op") {
		case 0:
			v = b.Op(rapid.SampledFrom([]string{"Relu", "Neg", "Sigmoid", "Tanh"}).Draw(t, l+"unary"), nil, pick(l+"a"))
		case 1, 2:
			v = b.Op(rapid.SampledFrom([]string{"Add", "Mul", "Sub", "Max"}).Draw(t, l+"binary"), nil, pick(l+"a"), pick(l+"b"))
		case 3:
			v = b.Op("MatMul", nil, pick(l+"a"), pick(l+"b"))
		case 4:
			v = b.Op("Softmax", nil, pick(l+"a"))
		case 5: // explicit transposed view: strided, no node
			base := pick(l + "a")
			v = b.View(fmt.Sprintf("t%d", s), base, 0, ir.F32, ir.Shape{n, n}, []int64{4, 4 * n})
		case 6: // view nodes: Reshape to 1-D and back
			flat := b.Op("Reshape", ir.Attrs{"shape": ir.Ints(n * n)}, pick(l+"a"))
			v = b.Op("Reshape", ir.Attrs{"shape": ir.Ints(n, n)}, flat)
		case 7: // a contiguous row view, broadcast back to [n n]
			row := rapid.Int64Range(0, n-1).Draw(t, l+"row")
			r := b.Op("Slice", ir.Attrs{"starts": ir.Ints(row), "ends": ir.Ints(row + 1), "axes": ir.Ints(0)}, pick(l+"a"))
			v = b.Op("Add", nil, pick(l+"b"), r)
		case 8: // two outputs, joined again
			parts := b.OpN("Split", ir.Attrs{"axis": ir.Int(1), "num_outputs": ir.Int(2)}, pick(l+"a"))
			if rapid.Bool().Draw(t, l+"swap") {
				parts[0], parts[1] = parts[1], parts[0]
			}
			v = b.Op("Concat", ir.Attrs{"axis": ir.Int(1)}, parts...)
		case 9: // a bool tensor (1-byte elements) in the arena, then Where
			a, c := pick(l+"a"), pick(l+"b")
			v = b.Op("Where", nil, b.Op("Greater", nil, a, c), a, c)
		case 10: // an i64 detour: scale, truncate, multiply, back to f32
			x := b.Op("Mul", nil, pick(l+"a"), b.Constant(fmt.Sprintf("k%d", s), ir.F32, F32LE(8), 1))
			i := b.Op("Cast", ir.Attrs{"to": ir.Str("i64")}, x)
			v = b.Op("Cast", ir.Attrs{"to": ir.Str("f32")}, b.Op("Mul", nil, i, i))
		}
		vals = append(vals, v)
	}
	// Outputs: the last value and a few more that are not views.
	outs := map[ir.ValueID]bool{vals[len(vals)-1]: true}
	for i := range rapid.IntRange(0, 2).Draw(t, "extraOutputs") {
		outs[vals[rapid.IntRange(0, len(vals)-1).Draw(t, fmt.Sprintf("out%d", i))]] = true
	}
	for _, v := range vals {
		if outs[v] {
			b.Output(v)
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return g
}

package ir_test

import (
	"fmt"
	"os"

	"github.com/memplan/memplan/ir"
)

// Build a two-layer perceptron, validate it, and print its schedule.
func Example() {
	b := ir.NewBuilder("mlp")
	x := b.Input("x", ir.F32, 32, 784)
	w1 := b.Weight("w1", ir.F32, 784, 128)
	w2 := b.Weight("w2", ir.F32, 128, 10)
	h := b.Name(b.Op("Relu", nil, b.Name(b.Op("MatMul", nil, x, w1), "fc1")), "act")
	flat := b.Name(b.Op("Reshape", ir.Attrs{"shape": ir.Ints(32, 2, 64)}, h), "split_heads")
	y := b.Name(b.Op("MatMul", nil, b.Op("Reshape", ir.Attrs{"shape": ir.Ints(32, 128)}, flat), w2), "fc2")
	b.Output(b.Name(b.Op("Softmax", nil, y), "probs"))
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := g.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	order, err := g.Schedule()
	if err != nil {
		fmt.Println(err)
		return
	}
	for step, id := range order {
		n := g.Nodes[id]
		out := g.Values[n.Outputs[0]]
		kind := "runs"
		if g.IsViewNode(n) {
			kind = "view"
		}
		fmt.Printf("%d %-10s %-12s %-4s %v\n", step, n.Op, n.Name, kind, out.Type())
	}
	// Output:
	// 0 MatMul     fc1          runs f32[32 128]
	// 1 Relu       act          runs f32[32 128]
	// 2 Reshape    split_heads  view f32[32 2 64]
	// 3 Reshape    reshape_3    view f32[32 128]
	// 4 MatMul     fc2          runs f32[32 10]
	// 5 Softmax    probs        runs f32[32 10]
}

// A view that reaches past its root is reported with the value's name and
// the class of the error.
func ExampleGraph_Validate() {
	b := ir.NewBuilder("bad")
	x := b.Input("x", ir.F32, 4, 8) // 128 bytes
	b.View("tail", x, 96, ir.F32, ir.Shape{2, 8}, nil)
	_, err := b.Build()
	fmt.Println(err)
	// Output:
	// ir: value 1 "tail": view of root 0 "x" addresses bytes [96, 160), outside [0, 128): view out of bounds
}

// Parse a graph file and print it back in the canonical layout.
func ExampleParse() {
	g, err := ir.Parse([]byte(`{"format": "memplan-graph", "version": 1, "name": "relu",
		"values": [{"id": 0, "name": "x", "dtype": "f32", "shape": [4], "flags": ["input"]},
		           {"id": 1, "name": "y", "dtype": "f32", "shape": [4], "flags": ["output"]}],
		"nodes": [{"id": 0, "name": "r", "op": "Relu", "inputs": [0], "outputs": [1]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := ir.Print(os.Stdout, g); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "format": "memplan-graph",
	//   "version": 1,
	//   "name": "relu",
	//   "values": [
	//     {"id": 0, "name": "x", "dtype": "f32", "shape": [4], "flags": ["input"]},
	//     {"id": 1, "name": "y", "dtype": "f32", "shape": [4], "flags": ["output"]}
	//   ],
	//   "nodes": [
	//     {"id": 0, "name": "r", "op": "Relu", "inputs": [0], "outputs": [1]}
	//   ]
	// }
}

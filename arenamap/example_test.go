package arenamap_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/memplan/memplan/arenamap"
)

func Example() {
	m := &arenamap.Map{
		Title: "two buffers share bytes over time",
		Blocks: []arenamap.Block{
			{ID: 0, Name: "x", Start: 0, End: 2, Offset: 0, Size: 64, Kind: "conv", Producer: "conv1 (Conv)"},
			{ID: 1, Name: "y", Start: 1, End: 3, Offset: 64, Size: 32, Kind: "elementwise", Producer: "relu (Relu)"},
			{ID: 2, Name: "z", Start: 2, End: 4, Offset: 0, Size: 64, Kind: "matmul", Producer: "fc (MatMul)"},
		},
		Barriers: []int64{2},
	}
	for _, s := range m.Live() {
		fmt.Printf("steps [%d,%d): %d live bytes\n", s.Start, s.End, s.Bytes)
	}
	var svg bytes.Buffer
	if err := arenamap.SVG(&svg, m, arenamap.Options{}); err != nil {
		fmt.Println(err)
	}
	fmt.Println(strings.Count(svg.String(), "data-buf="), "rectangles,",
		strings.Count(svg.String(), `class="bar" data-step`), "barrier mark")
	// Output:
	// steps [0,1): 64 live bytes
	// steps [1,3): 96 live bytes
	// steps [3,4): 64 live bytes
	// 3 rectangles, 1 barrier mark
}

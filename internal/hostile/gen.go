package hostile

import (
	"bufio"
	"fmt"
	"io"

	"github.com/memplan/memplan/internal/dsagen"
)

// InPlaceChain writes a graph of n Relu nodes, each the in-place candidate
// of the previous one's output: liveness merges all n values into one
// buffer, so anything quadratic in the chain's length shows.
func InPlaceChain(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "{\"format\":\"memplan-graph\",\"version\":1,\"name\":\"inplace_chain_%d\",\"values\":[\n", n)
	fmt.Fprintf(bw, "{\"id\":0,\"name\":\"x\",\"dtype\":\"f32\",\"shape\":[4],\"flags\":[\"input\"]}")
	for i := 1; i <= n; i++ {
		flags := ""
		if i == n {
			flags = ",\"flags\":[\"output\"]"
		}
		fmt.Fprintf(bw, ",\n{\"id\":%d,\"name\":\"t%d\",\"dtype\":\"f32\",\"shape\":[4]%s}", i, i, flags)
	}
	fmt.Fprintf(bw, "],\"nodes\":[\n")
	for i := 1; i <= n; i++ {
		if i > 1 {
			bw.WriteString(",\n")
		}
		fmt.Fprintf(bw, "{\"id\":%d,\"op\":\"Relu\",\"inputs\":[%d],\"outputs\":[%d]}", i-1, i-1, i)
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// ViewChain writes a graph whose output is computed from the end of a chain
// of n views, each a whole-size view of the one before: anything that walks
// the chain from every value is quadratic.
func ViewChain(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "{\"format\":\"memplan-graph\",\"version\":1,\"name\":\"view_chain_%d\",\"values\":[\n", n)
	fmt.Fprintf(bw, "{\"id\":0,\"name\":\"x\",\"dtype\":\"f32\",\"shape\":[4],\"flags\":[\"input\"]},\n")
	fmt.Fprintf(bw, "{\"id\":1,\"name\":\"h\",\"dtype\":\"f32\",\"shape\":[4]}")
	for i := 2; i < n+2; i++ {
		fmt.Fprintf(bw, ",\n{\"id\":%d,\"name\":\"v%d\",\"dtype\":\"f32\",\"shape\":[4],\"view\":{\"base\":%d,\"offset\":0}}", i, i, i-1)
	}
	fmt.Fprintf(bw, ",\n{\"id\":%d,\"name\":\"y\",\"dtype\":\"f32\",\"shape\":[4],\"flags\":[\"output\"]}", n+2)
	fmt.Fprintf(bw, "],\"nodes\":[\n{\"id\":0,\"op\":\"Relu\",\"inputs\":[0],\"outputs\":[1]},\n")
	fmt.Fprintf(bw, "{\"id\":1,\"op\":\"Neg\",\"inputs\":[%d],\"outputs\":[%d]}]}\n", n+1, n+2)
	return bw.Flush()
}

// ManyValues writes a valid graph of n values: n-1 small inputs, of which
// one feeds a Relu whose output is the graph's output. It stresses what
// the reader keeps per value.
func ManyValues(w io.Writer, n int) error { return manyValues(w, n, "f32") }

// BadLastValue writes ManyValues(n) with the dtype of its last input
// misspelt: a file that is wrong only at its end.
func BadLastValue(w io.Writer, n int) error { return manyValues(w, n, "f3") }

func manyValues(w io.Writer, n int, lastDType string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "{\"format\":\"memplan-graph\",\"version\":1,\"name\":\"many_values_%d\",\"values\":[\n", n)
	for i := 0; i < n-1; i++ {
		dt := "f32"
		if i == n-2 {
			dt = lastDType
		}
		fmt.Fprintf(bw, "{\"id\":%d,\"name\":\"x%d\",\"dtype\":\"%s\",\"shape\":[4],\"flags\":[\"input\"]},\n", i, i, dt)
	}
	fmt.Fprintf(bw, "{\"id\":%d,\"name\":\"y\",\"dtype\":\"f32\",\"shape\":[4],\"flags\":[\"output\"]}],\n", n-1)
	fmt.Fprintf(bw, "\"nodes\":[{\"id\":0,\"op\":\"Relu\",\"inputs\":[0],\"outputs\":[%d]}]}\n", n-1)
	return bw.Flush()
}

// CSVRows writes a DSA instance of n buffers with random lifespans (1 to
// 100 steps over n/10 steps) and sizes (64 B to 64 KiB, multiples of 64),
// drawn from seed.
func CSVRows(w io.Writer, n int, seed uint64) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("id,lower,upper,size\n")
	for i, b := range dsagen.Rows(n, seed) {
		fmt.Fprintf(bw, "%d,%d,%d,%d\n", i, b.Start, b.End, b.Size)
	}
	return bw.Flush()
}

// ManyLiveCSV writes n buffers of 64 bytes all live during [0, 1): the
// verifier's live set holds all of them at once.
func ManyLiveCSV(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("id,lower,upper,size\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(bw, "%d,0,1,64\n", i)
	}
	return bw.Flush()
}

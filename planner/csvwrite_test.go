package planner

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failAfter is a writer that fails once it has taken n bytes.
type failAfter struct{ n int }

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestWriteCSVLarge: past csvWriteParallel rows (blocks formatted on two
// goroutines) WriteCSV writes every row in order, as a plain row-by-row
// formatting does, with names quoted and alignments; a writer that fails
// midway gives its error back, naming the rows, and nothing hangs.
func TestWriteCSVLarge(t *testing.T) {
	bufs := synthetic(csvWriteParallel + 777)
	bufs[5].Name = "a,b"
	bufs[csvWriteParallel].Align = 64
	off := make([]int64, len(bufs))
	for i := range off {
		off[i] = int64(i) * 64
	}
	var want strings.Builder
	want.WriteString("id,lower,upper,size,alignment,offset\n")
	for i, b := range bufs {
		id := fmt.Sprint(b.ID)
		if b.Name != "" {
			id = csvField(b.Name)
		}
		fmt.Fprintf(&want, "%s,%d,%d,%d,%d,%d\n", id, b.Start, b.End, b.Size, max(b.Align, 1), off[i])
	}
	var got bytes.Buffer
	require.NoError(t, WriteCSV(&got, bufs, off))
	require.Equal(t, want.String(), got.String(), "the written file")
	assert.Contains(t, got.String(), "\n\"a,b\",", "the quoted name")

	err := WriteCSV(&failAfter{n: want.Len() / 2}, bufs, off)
	require.ErrorIsf(t, err, errFull, "%v", err)
	assert.Containsf(t, err.Error(), "writing csv rows", "%v", err)
}

package profile

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/memplan/memplan/internal/longtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPprofParsesAndIsValid(t *testing.T) {
	p := fixture()
	var buf bytes.Buffer
	noErr(t, p.WritePprof(&buf))
	prof, err := pprof.Parse(&buf)
	noErr(t, err)
	noErr(t, prof.CheckValid())

	eq(t, len(prof.SampleType), 2, "sample types")
	eq(t, prof.SampleType[0].Type, PprofTimeType, "time type")
	eq(t, prof.SampleType[1].Type, PprofBytesType, "bytes type")
	eq(t, len(prof.Sample), 4, "one sample per dispatch")

	var stacks []string
	var total, bytesTouched int64
	for _, s := range prof.Sample {
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		stacks = append(stacks, strings.Join(names, ";")+" kind="+s.Label["kind"][0])
		total += s.Value[0]
		bytesTouched += s.Value[1]
	}
	eq(t, stacks, []string{
		"conv1;g0;tiny kind=conv",
		"conv2;g0;tiny kind=conv",
		"relu;g1;tiny kind=elementwise",
		"matmul;g1;tiny kind=matmul",
	}, "stacks leaf to root")
	eq(t, total, int64(950), "time")
	eq(t, bytesTouched, int64(4096+2048+1024+8192), "bytes")

	// A dispatch without a group hangs directly under the graph.
	q := New()
	q.RecordDispatch(Dispatch{Label: "", Kind: "k", Index: 3, Group: -1, EndNs: 9})
	prof = q.Pprof()
	noErr(t, prof.CheckValid())
	eq(t, len(prof.Sample[0].Location), 2, "no group frame")
	eq(t, prof.Sample[0].Location[0].Line[0].Function.Name, "dispatch 3", "unnamed dispatch")
}

// TestPprofCorruptedIsRejected shows that the validity check the export
// relies on does catch a broken table.
func TestPprofCorruptedIsRejected(t *testing.T) {
	prof := fixture().Pprof()
	prof.Function[1].ID = prof.Function[0].ID
	require.Errorf(t, prof.CheckValid(), "CheckValid accepted duplicate function ids")
	prof = fixture().Pprof()
	prof.Sample[0].Value = prof.Sample[0].Value[:1]
	require.Errorf(t, prof.CheckValid(), "CheckValid accepted a short sample")
}

// TestGoToolPprofTop runs `go tool pprof -top` on the export when the go
// tool is at hand.
func TestGoToolPprofTop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	// go tool pprof is built on first use (Go 1.24+ ships no binary): with
	// a fresh build cache that is about 40 s on two cores, so CI runs this.
	longtest.Skip(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	path := filepath.Join(t.TempDir(), "p.pb.gz")
	f, err := os.Create(path)
	noErr(t, err)
	noErr(t, fixture().WritePprof(f))
	noErr(t, f.Close())
	out, err := exec.Command(goTool, "tool", "pprof", "-top", path).CombinedOutput()
	require.NoErrorf(t, err, "go tool pprof -top: %v\n%s", err, out)
	text := string(out)
	for _, op := range []string{"conv1", "conv2", "relu", "matmul", "tiny"} {
		assert.Containsf(t, text, op, "pprof -top lacks %q:\n%s", op, text)
	}
	assert.Containsf(t, text, "dispatch_time", "pprof -top does not use the dispatch_time sample type:\n%s", text)
}

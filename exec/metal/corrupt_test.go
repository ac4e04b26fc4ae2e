package metal

import (
	"context"
	"strings"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckRunFailsOnCorruptedRecording proves the recording checks can
// fail: each case corrupts one command of a good recording and expects the
// matching complaint.
func TestCheckRunFailsOnCorruptedRecording(t *testing.T) {
	sigs := mslSignatures(t)
	kernels, err := KernelNames()
	require.NoErrorf(t, err, "%v", err)
	var prog *exec.Program
	var plan *planner.Plan
	var rec []event
	var dev *fakeDevice
	for _, cg := range opGraphs(t) {
		if cg.name != "data" {
			continue
		}
		prog, plan, err = compilePlan(cg.g, exec.Inferred)
		require.NoErrorf(t, err, "%v", err)
		dev = newFakeDevice(kernels)
		if _, err := exec.RunOnce(context.Background(), newBackend(dev, Options{}), prog, randomInputs(t, cg.g, 1), exec.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		rec = dev.runs[0].events
	}
	require.NotEmptyf(t, prog.Barriers, "the data graph needs a barrier for this test")
	errs := checkRun(prog, plan, dev, &fakeCommands{events: rec}, false, sigs)
	require.Emptyf(t, errs, "good recording fails: %v", errs)
	first := func(kind string) int {
		for i, e := range rec {
			if e.kind == kind {
				return i
			}
		}
		t.Fatalf("no %s event", kind)
		return -1
	}
	tests := []struct {
		name    string
		corrupt func(evs []event) []event
		want    string
	}{
		{"offset shifted", func(evs []event) []event {
			evs[first("buffer")].off += 4
			return evs
		}, "program binding is"},
		{"wrong buffer", func(evs []event) []event {
			evs[first("buffer")].buf++
			return evs
		}, "program binding is"},
		{"barrier dropped", func(evs []event) []event {
			i := first("barrier")
			return append(evs[:i], evs[i+1:]...)
		}, "memranges put them"},
		{"extra barrier", func(evs []event) []event {
			i := first("mark")
			return append(evs[:i], append([]event{{kind: "barrier"}}, evs[i:]...)...)
		}, "memranges put them"},
		{"grid one group short", func(evs []event) []event {
			for i := len(evs) - 1; i >= 0; i-- {
				if evs[i].kind == "dispatch" {
					evs[i].groups--
					break
				}
			}
			return evs
		}, "grid"},
		{"argument byte flipped", func(evs []event) []event {
			evs[first("bytes")].data[4] ^= 1
			return evs
		}, "argument bytes decode"},
		{"too wide threadgroups", func(evs []event) []event {
			i := first("dispatch")
			evs[i].tpg, evs[i].groups = 2*dev.maxThreads, (evs[i].groups+1)/2
			return evs
		}, "threads per group"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := make([]event, len(rec))
			copy(evs, rec)
			for i := range evs {
				evs[i].data = append([]byte{}, rec[i].data...)
			}
			errs := checkRun(prog, plan, dev, &fakeCommands{events: tc.corrupt(evs)}, false, sigs)
			found := false
			for _, e := range errs {
				found = found || strings.Contains(e.Error(), tc.want)
			}
			assert.Truef(t, found, "errors %v do not mention %q", errs, tc.want)
		})
	}

	t.Run("plan offset differs from the binding", func(t *testing.T) {
		bad := *plan
		bad.Slots = append([]planner.Slot{}, plan.Slots...)
		moved := -1
		for v, sl := range bad.Slots {
			if !sl.External && prog.Values[v].Buffer == exec.ArenaBuffer && prog.Values[v].Shape != nil {
				bad.Slots[v].Offset += 64
				moved = v
				break
			}
		}
		require.GreaterOrEqualf(t, moved, 0, "no arena value")
		found := false
		for _, e := range checkRun(prog, &bad, dev, &fakeCommands{events: rec}, false, sigs) {
			found = found || strings.Contains(e.Error(), "the plan puts")
		}
		assert.Truef(t, found, "moving v%d in the plan is not caught", moved)
	})
}

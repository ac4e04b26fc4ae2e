package profile

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTraceIsValidJSONWithOneEventPerDispatch(t *testing.T) {
	p := fixture()
	var buf bytes.Buffer
	noErr(t, p.WriteTrace(&buf))
	if !json.Valid(buf.Bytes()) {
		t.Fatalf("invalid JSON:\n%s", buf.String())
	}
	var tr struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	noErr(t, json.Unmarshal(buf.Bytes(), &tr))

	var dispatches, groups, barriers, runs int
	lanes := map[float64]bool{}
	threadNames := map[float64]string{}
	for _, e := range tr.TraceEvents {
		ph, cat := e["ph"].(string), e["cat"]
		switch {
		case ph == "M" && e["name"] == "thread_name":
			threadNames[e["tid"].(float64)] = e["args"].(map[string]any)["name"].(string)
		case ph == "X" && cat == TraceCatGroup:
			groups++
		case ph == "X" && cat == TraceCatRun:
			runs++
		case ph == "X":
			dispatches++
			lanes[e["tid"].(float64)] = true
			_, ok := e["dur"]
			assert.Truef(t, ok, "dispatch event without dur: %v", e)
		case ph == "i" && cat == TraceCatBarrier:
			barriers++
		}
	}
	eq(t, dispatches, len(p.Dispatches()), "dispatch events")
	eq(t, groups, 2, "group events")
	eq(t, runs, 1, "run events")
	eq(t, barriers, 1, "barrier events")
	eq(t, lanes, map[float64]bool{1: true, 2: true}, "one track per lane")
	eq(t, threadNames, map[float64]string{0: "schedule", 1: "lane 0", 2: "lane 1"}, "track names")

	// Times are microseconds from the earliest record (the run at 0).
	tr2 := p.Trace()
	for _, e := range tr2.TraceEvents {
		if e.Name == "conv2" {
			eq(t, e.Ts, 0.2, "conv2 ts")
			eq(t, *e.Dur, 0.3, "conv2 dur")
			eq(t, e.Tid, 2, "conv2 lane 1 track")
		}
	}
}

package main

import (
	"fmt"
	"io"

	"github.com/memplan/memplan/memranges"
)

// -edges lists the dependency edges of the analysed dispatch order (the
// transitive reduction of the conflict DAG, memranges.Edges), each with the
// hazard that makes it necessary (memranges.EdgeCauses): its kind, the
// buffer, and the two byte ranges. It implies -barriers and shares its
// output: text lines after the barrier causes, or a "dependency_edges"
// array in the JSON report.

// edgeRecord is one dependency edge and its cause, for the JSON report.
// Positions index the analysed (possibly reordered) dispatch list; ranges
// are half-open [start, end) byte offsets in Buffer.
type edgeRecord struct {
	From      int      `json:"from"`
	FromName  string   `json:"from_name"`
	To        int      `json:"to"`
	ToName    string   `json:"to_name"`
	Hazard    string   `json:"hazard"`
	Buffer    string   `json:"buffer"`
	FromRange [2]int64 `json:"from_range"`
	ToRange   [2]int64 `json:"to_range"`
	FromUse   string   `json:"from_access"`
	ToUse     string   `json:"to_access"`
}

// edgeRecords returns every dependency edge of a's dispatches with its
// cause, sorted by (To, From) as memranges.Edges returns them.
func edgeRecords(a *memranges.Analysis) []edgeRecord {
	st := a.Stream
	ds := st.Dispatches
	causes := memranges.EdgeCauses(ds, memranges.Edges(ds))
	out := make([]edgeRecord, 0, len(causes))
	for _, c := range causes {
		buf := fmt.Sprintf("buf%d", c.SecondUse.Buf)
		if c.SecondUse.Buf >= 0 && int(c.SecondUse.Buf) < len(st.Buffers) {
			buf = st.Buffers[c.SecondUse.Buf].Name
		}
		out = append(out, edgeRecord{
			From: c.First, FromName: ds[c.First].Name, To: c.Second, ToName: ds[c.Second].Name,
			Hazard: c.Hazard.String(), Buffer: buf,
			FromRange: [2]int64{c.FirstUse.Off, c.FirstUse.End()}, ToRange: [2]int64{c.SecondUse.Off, c.SecondUse.End()},
			FromUse: c.FirstUse.Access.String(), ToUse: c.SecondUse.Access.String(),
		})
	}
	return out
}

// writeEdgesText prints one line per edge:
//
//	edge #0 q (MatMul) -> #1 k (MatMul): WAR on arena: read [0,64) -> write [0,64)
func writeEdgesText(w io.Writer, es []edgeRecord) error {
	if _, err := fmt.Fprintf(w, "dependency edges (transitive reduction of the conflict DAG): %d\n", len(es)); err != nil {
		return err
	}
	for _, e := range es {
		if _, err := fmt.Fprintf(w, "edge #%d %s -> #%d %s: %s on %s: %s [%d,%d) -> %s [%d,%d)\n",
			e.From, e.FromName, e.To, e.ToName, e.Hazard, e.Buffer,
			e.FromUse, e.FromRange[0], e.FromRange[1], e.ToUse, e.ToRange[0], e.ToRange[1]); err != nil {
			return err
		}
	}
	return nil
}

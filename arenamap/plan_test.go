package arenamap

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/memranges"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromBuffers(t *testing.T) {
	bufs := []planner.Buffer{
		{ID: 10, Start: 0, End: 2, Size: 8},
		{ID: 11, Name: "b1", Start: 1, End: 3, Size: 4},
		{ID: 12, Start: 2, End: 4, Size: 8},
	}
	m, err := FromBuffers("dsa", bufs, []int64{0, 8, 0})
	require.NoErrorf(t, err, "%v", err)
	if m.ArenaBytes != 12 || m.LowerBoundBytes != 12 {
		t.Fatalf("arena %d lower bound %d, want 12 and 12", m.ArenaBytes, m.LowerBoundBytes)
	}
	if m.Blocks[0].Name != "buffer 10" || m.Blocks[1].Name != "b1" || m.Blocks[2].ID != 2 {
		t.Fatalf("blocks %+v", m.Blocks)
	}
	_, err = FromBuffers("short", bufs, []int64{0})
	require.ErrorIsf(t, err, ErrMap, "offset count mismatch: %v", err)
	bad := append([]planner.Buffer(nil), bufs...)
	bad[0].End = bad[0].Start
	_, err = FromBuffers("bad", bad, []int64{0, 8, 0})
	require.ErrorIsf(t, err, ErrMap, "empty lifespan: %v", err)
}

func TestFromPlanBuffersEveryBufferOnce(t *testing.T) {
	var bufs []planner.Buffer
	for i := 0; i < 40; i++ {
		bufs = append(bufs, planner.Buffer{ID: int64(i), Start: int64(i % 13), End: int64(i%13 + 1 + i%5), Size: int64(64 * (1 + i%7))})
	}
	p, err := planner.PlanBuffers(context.Background(), bufs, planner.Options{Strategy: "size"})
	require.NoErrorf(t, err, "%v", err)
	m, err := FromPlan("plan", p, nil)
	require.NoErrorf(t, err, "%v", err)
	var b bytes.Buffer
	err = SVG(&b, m, Options{})
	require.NoErrorf(t, err, "%v", err)
	ids, merged := checkXML(t, b.Bytes())
	require.Falsef(t, merged != 0 || len(ids) != len(bufs), "%d ids + %d merged, want %d ids", len(ids), merged, len(bufs))
	for id, c := range ids {
		require.Equalf(t, 1, c, "buffer %d appears %d times", id, c)
	}
}

func TestBarrierSteps(t *testing.T) {
	// Schedule: node 5 at step 0, node 3 at step 1, node 4 at step 2, node
	// 7 at step 3. Node 3 is a view (no dispatch).
	order := []ir.NodeID{5, 3, 4, 7}
	ds := []memranges.Dispatch{{Node: 5}, {Node: 4}, {Node: 7}, {Node: -1}}
	bs := []memranges.Barrier{{Before: 1}, {Before: 2}, {Before: 3}, {Before: 9}}
	got := BarrierSteps(order, ds, bs)
	want := []int64{2, 3}
	require.Falsef(t, len(got) != len(want) || got[0] != want[0] || got[1] != want[1], "BarrierSteps = %v, want %v", got, want)
}

// graphMap plans a testdata graph with the size-ordered placer and builds
// its map with the barriers memranges places.
func graphMap(t *testing.T, name string) (*Map, *planner.Plan) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Skip(err)
	}
	g, err := ir.Parse(data)
	require.NoErrorf(t, err, "%v", err)
	p, err := planner.PlanGraph(context.Background(), g, nil, planner.Options{Strategy: "size"})
	require.NoErrorf(t, err, "%v", err)
	m, err := FromPlan(g.Name, p, g)
	require.NoErrorf(t, err, "%v", err)
	st, err := memranges.FromPlan(g, p.Order, p, memranges.BuildOptions{})
	require.NoErrorf(t, err, "%v", err)
	m.Barriers = BarrierSteps(p.Order, st.Dispatches, memranges.PlaceBarriers(memranges.Exact, st.Dispatches))
	return m, p
}

func TestGraphGolden(t *testing.T) {
	for _, name := range []string{"mlp", "resnet_block"} {
		t.Run(name, func(t *testing.T) {
			m, p := graphMap(t, name+".json")
			var svg, page bytes.Buffer
			err := SVG(&svg, m, Options{Width: 600, Height: 300})
			require.NoErrorf(t, err, "%v", err)
			err = HTML(&page, m, Options{Width: 600, Height: 300})
			require.NoErrorf(t, err, "%v", err)
			golden(t, name+".svg", svg.Bytes())
			golden(t, name+".html", page.Bytes())
			ids, merged := checkXML(t, svg.Bytes())
			// Every buffer is one rectangle or inside one merged path; on
			// the MLP every buffer is big enough for its own rectangle.
			if len(ids)+merged != len(p.Buffers) || (name == "mlp" && merged != 0) {
				t.Fatalf("%d rectangles + %d merged for %d buffers", len(ids), merged, len(p.Buffers))
			}
			for id, n := range ids {
				assert.Falsef(t, n != 1 || id < 0 || id >= int64(len(p.Buffers)), "buffer %d appears %d times", id, n)
			}
			for _, b := range m.Blocks {
				assert.Falsef(t, b.Kind == "" || b.Producer == "" || b.Name == "", "block %d lacks graph labels: %+v", b.ID, b)
			}
		})
	}
}

package planner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveCase states a graph in the irtest fixture language and the slots the
// planner must give it: live maps a value name to its buffer's lifespan
// "[s,e)" or "external"; same lists groups of values that share one buffer
// (in place, or a view and its root); every other pair of arena values is
// in different buffers; off gives a value's byte offset from its buffer's
// start where it is not 0.
type liveCase struct {
	name string
	src  string
	opts Options
	live map[string]string
	same [][]string
	off  map[string]int64
}

// f32[4,8] is 128 bytes, f32[1,8] 32 bytes; the default alignment is 64.
var liveCases = []liveCase{
	{
		name: "views read their root",
		src: `
x = input f32[4,8]
h = Exp x                        # step 0
r = Reshape h shape=[32]         # step 1: a view node, no dispatch, no read
sl = Slice h starts=[1] ends=[3] axes=[0]   # step 2: a view at byte 32
t = Transpose x perm=[1,0]       # step 3: never read, dies where born
u = Transpose sl perm=[1,0]      # step 4: reads h through sl; never read
v = Softmax r                    # step 5: reads h through r: h lives to 6
output v
`,
		opts: Options{DisableInPlace: true},
		live: map[string]string{"x": "external", "h": "[0,6)", "r": "[0,6)", "sl": "[0,6)", "t": "[3,4)", "u": "[4,5)", "v": "[5,6)"},
		same: [][]string{{"h", "r", "sl"}},
		off:  map[string]int64{"sl": 32},
	},
	{
		name: "outputs live to the end",
		src: `
x = input f32[4,8]
h = Exp x       # 0
a = Exp h       # 1: h is an output, so a cannot take its buffer
b = Exp a       # 2: a dies here: b takes a's buffer
c = Transpose b perm=[1,0]   # 3
output h c
`,
		live: map[string]string{"h": "[0,4)", "a": "[1,4)", "b": "[1,4)", "c": "[3,4)"},
		same: [][]string{{"a", "b"}},
	},
	{
		name: "pinned is whole-run and alone",
		src: `
x = input f32[4,8]
h = Exp x       # 0
p = Exp h       # 1: p is pinned: no in place into it
q = Exp p       # 2: nor out of it
output q
pin p "host reads it"
`,
		live: map[string]string{"h": "[0,2)", "p": "[0,3)", "q": "[2,3)"},
	},
	{
		name: "in place chain",
		src: `
x = input f32[4,8]
h = Exp x       # 0
a = Relu h      # 1: h dies here, same size: a takes h's buffer
b = Sigmoid a   # 2: and b takes it again
output b
`,
		live: map[string]string{"x": "external", "h": "[0,3)", "a": "[0,3)", "b": "[0,3)"},
		same: [][]string{{"h", "a", "b"}},
	},
	{
		name: "in place disabled",
		src: `
x = input f32[4,8]
h = Exp x
a = Relu h
b = Sigmoid a
output b
`,
		opts: Options{DisableInPlace: true},
		live: map[string]string{"h": "[0,2)", "a": "[1,3)", "b": "[2,3)"},
	},
	{
		name: "in place refused when read later",
		src: `
x = input f32[4,8]
h = Exp x       # 0
a = Relu h      # 1: h is read again at 2
c = Add a h     # 2: a dies here and h is another root: c takes a's buffer
output c
`,
		live: map[string]string{"h": "[0,3)", "a": "[1,3)", "c": "[1,3)"},
		same: [][]string{{"a", "c"}},
	},
	{
		name: "in place refused when read later through a view",
		src: `
x = input f32[4,8]
h = Exp x                  # 0
r = Reshape h shape=[32]   # 1 (view)
a = Relu h                 # 2: h is still read through r at 3
s = Transpose r perm=[0]   # 3
output a s
`,
		live: map[string]string{"h": "[0,4)", "r": "[0,4)", "a": "[2,4)", "s": "[3,4)"},
		same: [][]string{{"h", "r"}},
	},
	{
		name: "in place refused on size mismatch",
		src: `
x = input f32[4,8]
xs = input f32[1,8]
h = Exp xs      # 0: 32 bytes
y = Add h x     # 1: broadcast to 128 bytes: sizes differ
output y
`,
		live: map[string]string{"h": "[0,2)", "y": "[1,2)"},
	},
	{
		name: "in place refused on external input",
		src: `
x = input f32[4,8]
a = Relu x
output a
`,
		live: map[string]string{"x": "external", "a": "[0,1)"},
	},
	{
		name: "keep alive extends the range",
		src: `
x = input f32[4,8]
h = Exp x                    # 0
a = Transpose x perm=[1,0]   # 1
b = Transpose a perm=[1,0]   # 2: holds h alive
output b
keep b h
`,
		live: map[string]string{"h": "[0,3)", "a": "[1,3)", "b": "[2,3)"},
	},
	{
		name: "inputs placed as pinned whole-run buffers",
		src: `
x = input f32[4,8]
w = weight f32[8,8]
h = MatMul x w    # 0
a = Relu x        # 1: x is pinned in the arena: no in place
output h a
`,
		opts: Options{PlaceInputs: true},
		live: map[string]string{"x": "[0,2)", "w": "[0,2)", "h": "[0,2)", "a": "[1,2)"},
	},
}

func TestLivenessRules(t *testing.T) {
	for _, tc := range liveCases {
		t.Run(tc.name, func(t *testing.T) {
			g, names := irtest.MustBuild(t, tc.src)
			p, err := PlanGraph(context.Background(), g, nil, tc.opts)
			require.NoErrorf(t, err, "%v", err)
			if err := p.Verify(g); err != nil {
				t.Fatalf("plan does not verify: %v", err)
			}
			checkLive(t, g, p, names, tc)
		})
	}
}

func checkLive(t *testing.T, g *ir.Graph, p *Plan, names map[string]ir.ValueID, tc liveCase) {
	t.Helper()
	id := func(n string) ir.ValueID {
		v, ok := names[n]
		require.Truef(t, ok, "no value %q in the fixture", n)
		return v
	}
	for n, want := range tc.live {
		s := p.Slots[id(n)]
		got := "external"
		if !s.External {
			b := p.Buffers[s.Buffer]
			got = fmt.Sprintf("[%d,%d)", b.Start, b.End)
		}
		assert.Equalf(t, want, got, "%s lives %s, want %s", n, got, want)
	}
	group := map[string]int{}
	for i, grp := range tc.same {
		for _, n := range grp {
			group[n] = i + 1
		}
	}
	var arena []string
	for n := range tc.live {
		if !p.Slots[id(n)].External {
			arena = append(arena, n)
		}
	}
	sort.Strings(arena)
	for i, a := range arena {
		for _, b := range arena[i+1:] {
			shared := p.Slots[id(a)].Buffer == p.Slots[id(b)].Buffer
			want := group[a] != 0 && group[a] == group[b]
			assert.Equalf(t, want, shared, "%s and %s share a buffer: %v, want %v", a, b, shared, want)
		}
	}
	for _, n := range arena {
		s := p.Slots[id(n)]
		got := s.Offset - p.Offsets[s.Buffer]
		assert.Equalf(t, tc.off[n], got, "%s at byte %d of its buffer, want %d", n, got, tc.off[n])
	}
}

func TestPlanGraphRejectsBadInput(t *testing.T) {
	g, _ := irtest.MustBuild(t, "x = input f32[2]\nh = Exp x\nj = Exp h\noutput j\n")
	_, err := PlanGraph(context.Background(), nil, nil, Options{})
	assert.ErrorIsf(t, err, ErrGraph, "nil graph: %v", err)
	_, err = PlanGraph(context.Background(), g, []ir.NodeID{1, 0}, Options{})
	assert.Falsef(t, !errors.Is(err, ErrGraph) || !errors.Is(err, ir.ErrSchedule), "backwards schedule: %v", err)
	_, err = PlanGraph(context.Background(), g, nil, Options{Strategy: "nope"})
	assert.ErrorIsf(t, err, ErrUnknownStrategy, "unknown strategy: %v", err)
	g.Nodes[1].Inputs[0] = 99
	_, err = PlanGraph(context.Background(), g, nil, Options{})
	assert.Falsef(t, !errors.Is(err, ErrGraph) || !strings.Contains(err.Error(), "validate"), "invalid graph: %v", err)
}

// TestTestdataGraphsPlan plans every testdata graph with and without in
// place and checks the plans verify and respect LB <= arena <= unshared.
func TestTestdataGraphsPlan(t *testing.T) {
	for name := range irtest.Testdata {
		t.Run(name, func(t *testing.T) {
			g, err := irtest.Graph(name)
			require.NoErrorf(t, err, "%v", err)
			for _, opts := range []Options{{}, {DisableInPlace: true}, {PlaceInputs: true}, {Align: 256, Strategy: "lifespan"}} {
				p, err := PlanGraph(context.Background(), g, nil, opts)
				require.NoErrorf(t, err, "%v", err)
				if err := p.Verify(g); err != nil {
					t.Fatalf("%+v: %v", opts, err)
				}
				if p.LowerBoundBytes > p.ArenaBytes || p.ArenaBytes > p.UnsharedBytes {
					t.Errorf("%+v: LB %d arena %d unshared %d", opts, p.LowerBoundBytes, p.ArenaBytes, p.UnsharedBytes)
				}
			}
		})
	}
}

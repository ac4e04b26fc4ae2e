package metal

// Checks of a recorded run against its program: the MSL signatures read
// from the kernel source, the recorded commands split into dispatches,
// launches and barriers, and checkRun, which compares them with the
// program, the plan and the launches launch.Plan makes.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/require"
)

// mslSig is a kernel's signature as the MSL source declares it.
type mslSig struct {
	params  string // argument struct name
	buffers []int  // [[buffer(k)]] indices after 0
}

var (
	kernelRe   = regexp.MustCompile(`(?s)kernel void (\w+)\(constant (\w+)& p \[\[buffer\(0\)\]\],(.*?)\{`)
	bufferRe   = regexp.MustCompile(`\[\[buffer\((\d+)\)\]\]`)
	instanceRe = regexp.MustCompile(`host_name\("(\w+)"\)\]\] kernel \w+ (\w+)<`)
)

func mslSignatures(t *testing.T) map[string]mslSig {
	t.Helper()
	src, err := Source()
	require.NoErrorf(t, err, "%v", err)
	sigs := map[string]mslSig{}
	for _, m := range kernelRe.FindAllStringSubmatch(src, -1) {
		s := mslSig{params: m[2]}
		for _, b := range bufferRe.FindAllStringSubmatch(m[3], -1) {
			var k int
			fmt.Sscan(b[1], &k)
			s.buffers = append(s.buffers, k)
		}
		sigs[m[1]] = s
	}
	for _, m := range instanceRe.FindAllStringSubmatch(src, -1) {
		s, ok := sigs[m[2]]
		if !ok {
			t.Fatalf("instance %s of unknown template %s", m[1], m[2])
		}
		sigs[m[1]] = s
	}
	return sigs
}

func paramTypeName(rt reflect.Type) string {
	for _, p := range launch.ParamTypes {
		if p.Type == rt {
			return p.Name
		}
	}
	return "?" + rt.Name()
}

// launchRec is one launch as recorded.
type launchRec struct {
	kernel string
	params []byte
	binds  map[int][2]int64
	groups int
	tpg    int
}

// dispatchRec is one dispatch as recorded: its launches.
type dispatchRec struct {
	index    int
	launches []launchRec
}

// parseEvents splits a recorded run into dispatches and barrier positions
// (the number of dispatches encoded before each barrier).
func parseEvents(evs []event) (ds []dispatchRec, barriers []int, err error) {
	var cur *dispatchRec
	var l *launchRec
	for _, e := range evs {
		switch e.kind {
		case "mark":
			if !e.end {
				if cur != nil {
					return nil, nil, fmt.Errorf("dispatch %d starts inside dispatch %d", e.dispIdx, cur.index)
				}
				cur = &dispatchRec{index: e.dispIdx}
				continue
			}
			if cur == nil || cur.index != e.dispIdx {
				return nil, nil, fmt.Errorf("dispatch %d ends unopened", e.dispIdx)
			}
			ds = append(ds, *cur)
			cur = nil
		case "barrier":
			if cur != nil {
				return nil, nil, fmt.Errorf("barrier inside dispatch %d", cur.index)
			}
			barriers = append(barriers, len(ds))
		case "pipeline":
			if cur == nil {
				return nil, nil, fmt.Errorf("pipeline outside a dispatch")
			}
			l = &launchRec{kernel: e.kernel, binds: map[int][2]int64{}}
		case "bytes", "buffer", "dispatch":
			if l == nil || cur == nil {
				return nil, nil, fmt.Errorf("%s outside a launch", e.kind)
			}
		}
		switch e.kind {
		case "bytes":
			if e.index != 0 {
				return nil, nil, fmt.Errorf("arguments bound at index %d", e.index)
			}
			l.params = e.data
		case "buffer":
			if _, dup := l.binds[e.index]; dup {
				return nil, nil, fmt.Errorf("buffer index %d bound twice in one launch", e.index)
			}
			l.binds[e.index] = [2]int64{int64(e.buf), e.off}
		case "dispatch":
			l.groups, l.tpg = e.groups, e.tpg
			cur.launches = append(cur.launches, *l)
		}
	}
	return ds, barriers, nil
}

// elementBytes lists the byte offsets of every element of a binding.
func elementBytes(b exec.Binding) map[int64]bool {
	out := map[int64]bool{}
	total := launch.Numel(b.Shape)
	for e := int64(0); e < total; e++ {
		off, rem := b.OffsetBytes, e
		for k := len(b.Shape) - 1; k >= 0; k-- {
			off += (rem % b.Shape[k]) * b.StridesBytes[k]
			rem /= b.Shape[k]
		}
		out[off] = true
	}
	return out
}

// written lists the byte offsets (relative to the bound pointer, in units
// of the element) each thread of a launch writes.
func written(args any, threads int64) []int64 {
	var out []int64
	each := func(n int32, f func(i int32)) {
		for i := int32(0); int64(i) < threads && i < n; i++ {
			f(i)
		}
	}
	one := func(t *launch.Tensor, n int32) {
		each(n, func(i int32) { out = append(out, int64(off32(t, i))) })
	}
	switch a := args.(type) {
	case launch.UnaryParams:
		one(&a.Out, a.N)
	case launch.BinaryParams:
		one(&a.Out, a.N)
	case launch.WhereParams:
		one(&a.Out, a.N)
	case launch.BatchNormParams:
		one(&a.Out, a.N)
	case launch.MatMulParams:
		one(&a.Out, a.Total)
	case launch.ConvParams:
		one(&a.Out, a.Total)
	case launch.PoolParams:
		one(&a.Out, a.Total)
	case launch.CastParams:
		one(&a.Out, a.N)
	case launch.GatherParams:
		one(&a.Out, a.N)
	case launch.PadParams:
		one(&a.Out, a.N)
	case launch.CopyParams:
		each(a.N, func(i int32) { out = append(out, int64(a.OutBase+off32(&a.Out, i))) })
	case launch.RowParams:
		each(a.Rows, func(r int32) {
			if a.Op >= launch.RowReduceSum {
				out = append(out, int64(off32(&a.Out, r)))
				return
			}
			for c := int32(0); c < a.Cols; c++ {
				out = append(out, int64(off32(&a.Out, r*a.Cols+c)))
			}
		})
	}
	return out
}

// checkRun checks one recorded run of prog against the program.
func checkRun(prog *exec.Program, plan *planner.Plan, dev *fakeDevice, c *fakeCommands, serial bool, sigs map[string]mslSig) []error {
	var errs []error
	ds, barriers, err := parseEvents(c.events)
	if err != nil {
		return []error{err}
	}
	if len(ds) != len(prog.Dispatches) {
		return append(errs, fmt.Errorf("%d dispatches recorded, program has %d", len(ds), len(prog.Dispatches)))
	}
	want := prog.Barriers
	if serial {
		want = nil
	}
	if fmt.Sprint(barriers) != fmt.Sprint(want) {
		errs = append(errs, fmt.Errorf("barriers before dispatches %v, memranges put them before %v", barriers, want))
	}
	for k, rec := range ds {
		d := &prog.Dispatches[k]
		if rec.index != d.Index {
			return append(errs, fmt.Errorf("dispatch %d recorded as %d", d.Index, rec.index))
		}
		launches, err := launch.Plan(d)
		if err != nil {
			return append(errs, fmt.Errorf("dispatch %d: %v", d.Index, err))
		}
		var active []launch.Launch
		for _, l := range launches {
			if l.Threads > 0 {
				active = append(active, l)
			}
		}
		if len(active) != len(rec.launches) {
			return append(errs, fmt.Errorf("dispatch %d (%s): %d launches recorded, %d planned", d.Index, d.Op, len(rec.launches), len(active)))
		}
		bindingOf := map[ir.ValueID]exec.Binding{}
		for _, b := range append(append([]exec.Binding{}, d.Inputs...), d.Outputs...) {
			bindingOf[b.Value] = b
		}
		bound := map[ir.ValueID]bool{}
		covered := map[ir.ValueID]map[int64]bool{}
		for j, lr := range rec.launches {
			l := active[j]
			where := fmt.Sprintf("dispatch %d (%s %q) launch %d (%s)", d.Index, d.Op, d.Name, j, lr.kernel)
			// Argument struct: the bytes decode to the planned struct, whose
			// type is the one the MSL signature names.
			sig, ok := sigs[lr.kernel]
			if !ok {
				return append(errs, fmt.Errorf("%s: no MSL kernel of that name", where))
			}
			if got := paramTypeName(reflect.TypeOf(l.Args)); got != sig.params {
				errs = append(errs, fmt.Errorf("%s: Go arguments %s, MSL takes %s", where, got, sig.params))
			}
			dec := reflect.New(reflect.TypeOf(l.Args))
			if err := binary.Read(bytes.NewReader(lr.params), binary.LittleEndian, dec.Interface()); err != nil {
				return append(errs, fmt.Errorf("%s: %v", where, err))
			}
			if !reflect.DeepEqual(dec.Elem().Interface(), l.Args) {
				errs = append(errs, fmt.Errorf("%s: argument bytes decode to %+v, planned %+v", where, dec.Elem().Interface(), l.Args))
			}
			// Bindings: indices 1..k as the MSL signature declares, each at
			// exactly the program binding's buffer and offset.
			if len(sig.buffers) != len(lr.binds) {
				errs = append(errs, fmt.Errorf("%s: %d buffers bound, MSL declares %d", where, len(lr.binds), len(sig.buffers)))
			}
			for idx, k := range sig.buffers {
				if k != idx+1 {
					errs = append(errs, fmt.Errorf("%s: MSL buffer indices %v are not 1..k", where, sig.buffers))
				}
			}
			var out *launch.Bind
			for _, pb := range l.Buffers {
				got, ok := lr.binds[pb.Index]
				b, known := bindingOf[pb.Value]
				switch {
				case !ok:
					errs = append(errs, fmt.Errorf("%s: index %d never bound", where, pb.Index))
				case !known:
					errs = append(errs, fmt.Errorf("%s: index %d binds value %d, not an operand", where, pb.Index, pb.Value))
				case got != [2]int64{int64(b.Buffer), b.OffsetBytes}:
					errs = append(errs, fmt.Errorf("%s: index %d bound at buf%d+%d, program binding is %v", where, pb.Index, got[0], got[1], &b))
				case got[0] == exec.ArenaBuffer && plan != nil && got[1] != plan.Slots[pb.Value].Offset:
					errs = append(errs, fmt.Errorf("%s: index %d bound at arena+%d, the plan puts v%d at %d", where, pb.Index, got[1], pb.Value, plan.Slots[pb.Value].Offset))
				}
				bound[pb.Value] = true
				if pb.Write {
					if out != nil {
						errs = append(errs, fmt.Errorf("%s: two written operands", where))
					}
					out = &pb
				}
			}
			// Grid: whole threadgroups of at most the pipeline's width, at
			// most one of them partial.
			if lr.tpg <= 0 || lr.tpg > dev.maxThreads {
				errs = append(errs, fmt.Errorf("%s: %d threads per group, pipeline allows %d", where, lr.tpg, dev.maxThreads))
			}
			threads := int64(lr.groups) * int64(lr.tpg)
			if threads < l.Threads || threads-int64(lr.tpg) >= l.Threads {
				errs = append(errs, fmt.Errorf("%s: grid %d x %d for %d threads", where, lr.groups, lr.tpg, l.Threads))
			}
			if out == nil {
				errs = append(errs, fmt.Errorf("%s: writes nothing", where))
				continue
			}
			ob := bindingOf[out.Value]
			if covered[out.Value] == nil {
				covered[out.Value] = map[int64]bool{}
			}
			sz := int64(ob.DType.Size())
			for _, e := range written(l.Args, threads) {
				byteOff := out.OffsetBytes + e*sz
				if covered[out.Value][byteOff] {
					errs = append(errs, fmt.Errorf("%s: element at byte %d written twice", where, byteOff))
				}
				covered[out.Value][byteOff] = true
			}
		}
		for _, b := range d.Inputs {
			if !bound[b.Value] && launch.Numel(b.Shape) > 0 && launch.Numel(d.Outputs[0].Shape) > 0 {
				errs = append(errs, fmt.Errorf("dispatch %d (%s): input v%d never bound", d.Index, d.Op, b.Value))
			}
		}
		for _, b := range d.Outputs {
			want := elementBytes(b)
			got := covered[b.Value]
			if len(want) != len(got) {
				errs = append(errs, fmt.Errorf("dispatch %d (%s): output v%d: %d elements written, it has %d", d.Index, d.Op, b.Value, len(got), len(want)))
				continue
			}
			for off := range want {
				if !got[off] {
					errs = append(errs, fmt.Errorf("dispatch %d (%s): output v%d: element at byte %d not written", d.Index, d.Op, b.Value, off))
					break
				}
			}
		}
	}
	return errs
}

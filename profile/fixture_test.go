package profile

// fixture records a small two-lane run by hand:
//
//	run      [0, 1000)
//	group 0  [100, 500)   lane 0: conv1 [100,400)  lane 1: conv2 [200,500)
//	barrier before #2 at 500
//	group 1  [550, 900)   lane 0: relu [550,650), matmul [650,900)
func fixture() *Profiler {
	p := New()
	p.SetGraph("tiny")
	p.RecordDispatch(Dispatch{Label: "conv1", Kind: "conv", Index: 0, Group: 0, Lane: 0, StartNs: 100, EndNs: 400, Bytes: 4096})
	p.RecordDispatch(Dispatch{Label: "conv2", Kind: "conv", Index: 1, Group: 0, Lane: 1, StartNs: 200, EndNs: 500, Bytes: 2048})
	p.RecordGroup("g0", 100, 500)
	p.RecordBarrier(Barrier{Before: 2, AtNs: 500, Label: "conv2 -> relu"})
	p.RecordDispatch(Dispatch{Label: "relu", Kind: "elementwise", Index: 2, Group: 1, Lane: 0, StartNs: 550, EndNs: 650, Bytes: 1024})
	p.RecordDispatch(Dispatch{Label: "matmul", Kind: "matmul", Index: 3, Group: 1, Lane: 0, StartNs: 650, EndNs: 900, Bytes: 8192})
	p.RecordGroup("g1", 550, 900)
	p.Add("encode", 30)
	p.Add("encode", 10)
	p.RecordRun(0, 1000)
	return p
}

package profile_test

import (
	"fmt"
	"os"

	"github.com/memplan/memplan/profile"
)

func Example() {
	p := profile.New()
	p.SetGraph("mlp")
	// Two dispatches of one group ran side by side on two lanes.
	p.RecordDispatch(profile.Dispatch{Label: "fc1", Kind: "matmul", Index: 0, Group: 0, Lane: 0, StartNs: 0, EndNs: 600})
	p.RecordDispatch(profile.Dispatch{Label: "fc2", Kind: "matmul", Index: 1, Group: 0, Lane: 1, StartNs: 0, EndNs: 300})
	p.RecordGroup("group 0", 0, 600)
	p.RecordDispatch(profile.Dispatch{Label: "act", Kind: "elementwise", Index: 2, Group: 1, StartNs: 700, EndNs: 800})
	p.RecordGroup("group 1", 700, 800)
	p.RecordRun(0, 1000)

	_ = p.WriteDispatchTable(os.Stdout, 2)
	fmt.Println()
	_ = p.WriteKindTable(os.Stdout)
	// Output:
	// dispatch    count      total       mean        min        max   share
	// fc1             1      600ns      600ns      600ns      600ns   60.0%
	// fc2             1      300ns      300ns      300ns      300ns   30.0%
	// (1 more)               100ns                                    10.0%
	// total           3     1.00us
	//
	// kind             count       busy       wall   share
	// matmul               2      900ns      600ns   60.0%
	// elementwise          1      100ns      100ns   10.0%
	// (idle/driver)        0        0ns      300ns   30.0%
	// total                3     1.00us     1.00us  100.0%
	// wall                                  1.00us
}

func ExampleGPUClock() {
	var clk profile.GPUClock // zero value: ticks are nanoseconds
	fmt.Println(clk.Ns(100))
	_ = clk.Sync(1000, 50) // (host ns, device ticks) sampled together
	_ = clk.Sync(3000, 150)
	fmt.Println(clk.Ns(100), clk.NsPerTick())
	// Output:
	// 100
	// 2000 20
}

package metal

import (
	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
)

func cpuBackend() exec.Backend { return cpu.New(cpu.Options{Workers: 1}) }

package cuda

import (
	"embed"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/memplan/memplan/exec/launch"
)

// kernelFS holds the CUDA C sources: common.cuh and one .cu file per op
// family. They compile into one NVRTC program (Source) at the backend's
// first use on a device, once per process and compute capability.
//
//go:embed kernels/*.cuh kernels/*.cu
var kernelFS embed.FS

// Source returns the CUDA C source of the kernel module: the argument
// structs generated from exec/launch's Go types (launch.CDecls), then
// common.cuh, then the .cu files in name order.
func Source() (string, error) {
	decls, err := launch.CDecls()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCompile, err)
	}
	entries, err := kernelFS.ReadDir("kernels")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCompile, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".cu") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("// ---- argument structs (launch.CDecls) ----\n")
	b.WriteString(decls)
	for _, n := range append([]string{"common.cuh"}, names...) {
		data, err := kernelFS.ReadFile("kernels/" + n)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrCompile, err)
		}
		fmt.Fprintf(&b, "// ---- %s ----\n", n)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

var kernelDecl = regexp.MustCompile(`(?m)^extern "C" __global__ void (?:__launch_bounds__\([0-9]+\) )?([a-z0-9_]+)\(`)

// KernelNames lists the kernels the module exports, sorted.
func KernelNames() ([]string, error) {
	src, err := Source()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range kernelDecl.FindAllStringSubmatch(src, -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	return names, nil
}

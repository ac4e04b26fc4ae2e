package metal

import (
	"embed"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// kernelFS holds the MSL sources; they are compiled into one library at
// first use (newLibraryWithSource:options:error:), common.metal first.
//
//go:embed kernels/*.metal
var kernelFS embed.FS

// Source returns the MSL source of the kernel library: common.metal, then
// the other files in name order.
func Source() (string, error) {
	entries, err := kernelFS.ReadDir("kernels")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrKernel, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Name() != "common.metal" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range append([]string{"common.metal"}, names...) {
		data, err := kernelFS.ReadFile("kernels/" + n)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrKernel, err)
		}
		fmt.Fprintf(&b, "// ---- %s ----\n", n)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

var (
	kernelDecl   = regexp.MustCompile(`(?m)^kernel void ([a-z0-9_]+)\(|host_name\("([a-z0-9_]+)"\)`)
	templateDecl = regexp.MustCompile(`(?m)^template <typename T>\nkernel void ([a-z0-9_]+)\(`)
)

// KernelNames lists the functions the library exports, sorted: plain
// kernels and the named instances of kernel templates.
func KernelNames() ([]string, error) {
	src, err := Source()
	if err != nil {
		return nil, err
	}
	templates := map[string]bool{}
	for _, m := range templateDecl.FindAllStringSubmatch(src, -1) {
		templates[m[1]] = true
	}
	var names []string
	for _, m := range kernelDecl.FindAllStringSubmatch(src, -1) {
		// A template is exported only through its named instances.
		if !templates[m[1]] {
			names = append(names, m[1]+m[2])
		}
	}
	sort.Strings(names)
	return names, nil
}

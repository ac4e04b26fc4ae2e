//go:build linux

package cuda

// The real driver: libcuda.so.1 (driver API) and libnvrtc.so through
// purego, without cgo. Facts this relies on (checked on an H100 with driver
// 580 / CUDA 13):
//
//   - the current-ABI entry points are the _v2 symbols (cuMemAlloc_v2, ...);
//   - a CUDA context is current per OS thread, and Go moves goroutines
//     between threads: every call locks its goroutine to its thread and
//     makes the primary context current first (call);
//   - cuLaunchKernel and kernel graph nodes take an array of pointers, one
//     to each argument's value (packArgs).

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// api holds the driver entry points, loaded once per process.
type api struct {
	cuInit                      func(flags uint32) int32
	cuDeviceGet                 func(dev *int32, ordinal int32) int32
	cuDeviceGetCount            func(n *int32) int32
	cuDeviceGetAttribute        func(v *int32, attr int32, dev int32) int32
	cuDeviceGetName             func(name *byte, n int32, dev int32) int32
	cuDevicePrimaryCtxRetain    func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease   func(dev int32) int32
	cuCtxSetCurrent             func(ctx uintptr) int32
	cuGetErrorName              func(res int32, s *uintptr) int32
	cuMemAlloc                  func(p *uint64, bytes uintptr) int32
	cuMemFree                   func(p uint64) int32
	cuMemsetD8                  func(p uint64, v uint8, n uintptr) int32
	cuMemcpyHtoD                func(dst uint64, src uintptr, n uintptr) int32
	cuMemcpyDtoH                func(dst uintptr, src uint64, n uintptr) int32
	cuMemGetInfo                func(free, total *uintptr) int32
	cuModuleLoadData            func(mod *uintptr, image uintptr) int32
	cuModuleUnload              func(mod uintptr) int32
	cuModuleGetFunction         func(fn *uintptr, mod uintptr, name string) int32
	cuStreamCreate              func(s *uintptr, flags uint32) int32
	cuStreamSynchronize         func(s uintptr) int32
	cuStreamDestroy             func(s uintptr) int32
	cuLaunchKernel              func(fn uintptr, gx, gy, gz, bx, by, bz, shmem uint32, s uintptr, params uintptr, extra uintptr) int32
	cuEventCreate               func(e *uintptr, flags uint32) int32
	cuEventRecord               func(e, s uintptr) int32
	cuEventQuery                func(e uintptr) int32
	cuEventSynchronize          func(e uintptr) int32
	cuEventElapsedTime          func(ms *float32, start, end uintptr) int32
	cuEventDestroy              func(e uintptr) int32
	cuGraphCreate               func(g *uintptr, flags uint32) int32
	cuGraphAddKernelNode        func(node *uintptr, g uintptr, deps uintptr, n uintptr, p *kernelNodeParams) int32
	cuGraphAddEmptyNode         func(node *uintptr, g uintptr, deps uintptr, n uintptr) int32
	cuGraphInstantiateWithFlags func(x *uintptr, g uintptr, flags uint64) int32
	cuGraphLaunch               func(x, s uintptr) int32
	cuGraphExecDestroy          func(x uintptr) int32
	cuGraphDestroy              func(g uintptr) int32

	nvrtcCreateProgram     func(prog *uintptr, src string, name string, nHeaders int32, headers, names uintptr) int32
	nvrtcCompileProgram    func(prog uintptr, nOpts int32, opts uintptr) int32
	nvrtcGetPTXSize        func(prog uintptr, n *uintptr) int32
	nvrtcGetPTX            func(prog uintptr, buf *byte) int32
	nvrtcGetProgramLogSize func(prog uintptr, n *uintptr) int32
	nvrtcGetProgramLog     func(prog uintptr, buf *byte) int32
	nvrtcDestroyProgram    func(prog *uintptr) int32

	cudaPath, nvrtcPath string
}

// kernelNodeParams is CUDA_KERNEL_NODE_PARAMS_v2 (72 bytes on 64-bit).
type kernelNodeParams struct {
	fn                     uintptr
	gridX, gridY, gridZ    uint32
	blockX, blockY, blockZ uint32
	sharedMem              uint32
	kernelParams           uintptr
	extra                  uintptr
	kern                   uintptr // CUkernel; 0: use fn
	ctx                    uintptr // 0: the current context
}

var (
	apiMu    sync.Mutex
	apiCache = map[string]*api{} // by LibDirs
	ptxMu    sync.Mutex
	ptxCache = map[string][]byte{} // by NVRTC path and architecture
)

// dlopen tries each name in each directory, then through the dynamic
// loader's search path.
func dlopen(dirs []string, names ...string) (uintptr, string, error) {
	var tried []string
	var errs []error
	try := func(p string) (uintptr, bool) {
		h, err := purego.Dlopen(p, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			tried = append(tried, p)
			errs = append(errs, err)
			return 0, false
		}
		return h, true
	}
	for _, d := range dirs {
		for _, n := range names {
			p := filepath.Join(d, n)
			if h, ok := try(p); ok {
				return h, p, nil
			}
		}
	}
	for _, n := range names {
		if h, ok := try(n); ok {
			return h, n, nil
		}
	}
	return 0, "", fmt.Errorf("%w: cannot load %s (tried %v): %w", ErrNoDriver, names[0], tried, errors.Join(errs...))
}

// register binds every entry point, reporting each one missing.
func register(lib uintptr, syms map[string]any) error {
	var errs []error
	for name, fp := range syms {
		if _, err := purego.Dlsym(lib, name); err != nil {
			errs = append(errs, fmt.Errorf("%w: symbol %s: %w", ErrNoDriver, name, err))
			continue
		}
		purego.RegisterLibFunc(fp, lib, name)
	}
	return errors.Join(errs...)
}

// loadAPI opens the driver and NVRTC once per process and LibDirs, and
// initialises the driver.
func loadAPI(dirs []string) (*api, error) {
	key := fmt.Sprint(dirs)
	apiMu.Lock()
	defer apiMu.Unlock()
	if a, ok := apiCache[key]; ok {
		return a, nil
	}
	a := &api{}
	cu, cuPath, err := dlopen(dirs, "libcuda.so.1", "libcuda.so")
	if err != nil {
		return nil, err
	}
	nv, nvPath, err := dlopen(dirs, "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so")
	if err != nil {
		return nil, err
	}
	a.cudaPath, a.nvrtcPath = cuPath, nvPath
	elapsed := "cuEventElapsedTime_v2"
	if _, err := purego.Dlsym(cu, elapsed); err != nil {
		elapsed = "cuEventElapsedTime"
	}
	err = errors.Join(register(cu, map[string]any{
		"cuInit": &a.cuInit, "cuDeviceGet": &a.cuDeviceGet, "cuDeviceGetCount": &a.cuDeviceGetCount,
		"cuDeviceGetAttribute": &a.cuDeviceGetAttribute, "cuDeviceGetName": &a.cuDeviceGetName,
		"cuDevicePrimaryCtxRetain": &a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRelease_v2": &a.cuDevicePrimaryCtxRelease,
		"cuCtxSetCurrent": &a.cuCtxSetCurrent, "cuGetErrorName": &a.cuGetErrorName,
		"cuMemAlloc_v2": &a.cuMemAlloc, "cuMemFree_v2": &a.cuMemFree, "cuMemsetD8_v2": &a.cuMemsetD8,
		"cuMemcpyHtoD_v2": &a.cuMemcpyHtoD, "cuMemcpyDtoH_v2": &a.cuMemcpyDtoH, "cuMemGetInfo_v2": &a.cuMemGetInfo,
		"cuModuleLoadData": &a.cuModuleLoadData, "cuModuleUnload": &a.cuModuleUnload, "cuModuleGetFunction": &a.cuModuleGetFunction,
		"cuStreamCreate": &a.cuStreamCreate, "cuStreamSynchronize": &a.cuStreamSynchronize, "cuStreamDestroy_v2": &a.cuStreamDestroy,
		"cuLaunchKernel": &a.cuLaunchKernel,
		"cuEventCreate":  &a.cuEventCreate, "cuEventRecord": &a.cuEventRecord, "cuEventQuery": &a.cuEventQuery,
		"cuEventSynchronize": &a.cuEventSynchronize, elapsed: &a.cuEventElapsedTime, "cuEventDestroy_v2": &a.cuEventDestroy,
		"cuGraphCreate": &a.cuGraphCreate, "cuGraphAddKernelNode_v2": &a.cuGraphAddKernelNode, "cuGraphAddEmptyNode": &a.cuGraphAddEmptyNode,
		"cuGraphInstantiateWithFlags": &a.cuGraphInstantiateWithFlags, "cuGraphLaunch": &a.cuGraphLaunch,
		"cuGraphExecDestroy": &a.cuGraphExecDestroy, "cuGraphDestroy": &a.cuGraphDestroy,
	}), register(nv, map[string]any{
		"nvrtcCreateProgram": &a.nvrtcCreateProgram, "nvrtcCompileProgram": &a.nvrtcCompileProgram,
		"nvrtcGetPTXSize": &a.nvrtcGetPTXSize, "nvrtcGetPTX": &a.nvrtcGetPTX,
		"nvrtcGetProgramLogSize": &a.nvrtcGetProgramLogSize, "nvrtcGetProgramLog": &a.nvrtcGetProgramLog,
		"nvrtcDestroyProgram": &a.nvrtcDestroyProgram,
	}))
	if err != nil {
		return nil, err
	}
	if r := a.cuInit(0); r != 0 {
		return nil, fmt.Errorf("%w: %w", ErrNoDriver, a.fail("cuInit", r))
	}
	apiCache[key] = a
	return a, nil
}

// fail makes the DriverError of a failed call.
func (a *api) fail(call string, r int32) error {
	e := &DriverError{Call: call, Code: int(r)}
	var s uintptr
	if a.cuGetErrorName != nil && a.cuGetErrorName(r, &s) == 0 && s != 0 {
		e.Symbol = goString(s)
	}
	return e
}

// goString copies a NUL-terminated C string.
func goString(p uintptr) string {
	var b []byte
	for i := uintptr(0); i < 4096; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(nil), p+i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// cudaDriver is the driver on one device's primary context.
type cudaDriver struct {
	a    *api
	dev  int32
	ctx  uintptr
	mod  uintptr
	name string
}

// openDriver opens device ordinal on its primary context and loads the
// kernel module, compiling it with NVRTC on first use in the process.
func openDriver(dirs []string, ordinal int) (driver, error) {
	a, err := loadAPI(dirs)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var n int32
	if r := a.cuDeviceGetCount(&n); r != 0 {
		return nil, fmt.Errorf("%w: %w", ErrNoDriver, a.fail("cuDeviceGetCount", r))
	}
	if ordinal < 0 || int32(ordinal) >= n {
		return nil, fmt.Errorf("%w: device %d of %d", ErrNoDriver, ordinal, n)
	}
	d := &cudaDriver{a: a}
	if r := a.cuDeviceGet(&d.dev, int32(ordinal)); r != 0 {
		return nil, a.fail("cuDeviceGet", r)
	}
	name := make([]byte, 256)
	if r := a.cuDeviceGetName(&name[0], int32(len(name)), d.dev); r == 0 {
		d.name = goString(uintptr(unsafe.Pointer(&name[0])))
	}
	var major, minor int32
	if r := a.cuDeviceGetAttribute(&major, 75, d.dev); r != 0 {
		return nil, a.fail("cuDeviceGetAttribute", r)
	}
	if r := a.cuDeviceGetAttribute(&minor, 76, d.dev); r != 0 {
		return nil, a.fail("cuDeviceGetAttribute", r)
	}
	if r := a.cuDevicePrimaryCtxRetain(&d.ctx, d.dev); r != 0 {
		return nil, a.fail("cuDevicePrimaryCtxRetain", r)
	}
	if r := a.cuCtxSetCurrent(d.ctx); r != 0 {
		a.cuDevicePrimaryCtxRelease(d.dev)
		return nil, a.fail("cuCtxSetCurrent", r)
	}
	ptx, err := a.compile(fmt.Sprintf("compute_%d%d", major, minor))
	if err != nil {
		a.cuDevicePrimaryCtxRelease(d.dev)
		return nil, err
	}
	if r := a.cuModuleLoadData(&d.mod, uintptr(unsafe.Pointer(&ptx[0]))); r != 0 {
		a.cuDevicePrimaryCtxRelease(d.dev)
		return nil, a.fail("cuModuleLoadData", r)
	}
	runtime.KeepAlive(ptx)
	return d, nil
}

// compile turns Source into PTX for arch, once per process.
func (a *api) compile(arch string) ([]byte, error) {
	key := a.nvrtcPath + "|" + arch
	ptxMu.Lock()
	defer ptxMu.Unlock()
	if p, ok := ptxCache[key]; ok {
		return p, nil
	}
	src, err := Source()
	if err != nil {
		return nil, err
	}
	var prog uintptr
	if r := a.nvrtcCreateProgram(&prog, src, "memplan_kernels.cu", 0, 0, 0); r != 0 {
		return nil, fmt.Errorf("%w: nvrtcCreateProgram: error %d", ErrCompile, r)
	}
	defer a.nvrtcDestroyProgram(&prog)
	// --fmad=false: no fused multiply-adds, so sums round like the CPU
	// backend's (Go does not fuse on amd64).
	opts := []string{"--gpu-architecture=" + arch, "--fmad=false", "--std=c++17"}
	cs := make([][]byte, len(opts))
	ptrs := make([]uintptr, len(opts))
	for i, o := range opts {
		cs[i] = append([]byte(o), 0)
		ptrs[i] = uintptr(unsafe.Pointer(&cs[i][0]))
	}
	r := a.nvrtcCompileProgram(prog, int32(len(opts)), uintptr(unsafe.Pointer(&ptrs[0])))
	runtime.KeepAlive(cs)
	runtime.KeepAlive(ptrs)
	if r != 0 {
		var n uintptr
		log := ""
		if a.nvrtcGetProgramLogSize(prog, &n) == 0 && n > 1 {
			buf := make([]byte, n)
			if a.nvrtcGetProgramLog(prog, &buf[0]) == 0 {
				log = string(buf[:n-1])
			}
		}
		return nil, fmt.Errorf("%w: nvrtc error %d for %s:\n%s", ErrCompile, r, arch, log)
	}
	var n uintptr
	if r := a.nvrtcGetPTXSize(prog, &n); r != 0 || n == 0 {
		return nil, fmt.Errorf("%w: nvrtcGetPTXSize: error %d", ErrCompile, r)
	}
	ptx := make([]byte, n)
	if r := a.nvrtcGetPTX(prog, &ptx[0]); r != 0 {
		return nil, fmt.Errorf("%w: nvrtcGetPTX: error %d", ErrCompile, r)
	}
	ptxCache[key] = ptx
	return ptx, nil
}

// call runs f on a locked OS thread with the context current.
func (d *cudaDriver) call(name string, f func() int32) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := d.a.cuCtxSetCurrent(d.ctx); r != 0 {
		return d.a.fail("cuCtxSetCurrent", r)
	}
	if r := f(); r != 0 {
		return d.a.fail(name, r)
	}
	return nil
}

func (d *cudaDriver) deviceName() string { return d.name }

func (d *cudaDriver) memAlloc(bytes int64) (devPtr, error) {
	var p uint64
	err := d.call("cuMemAlloc_v2", func() int32 { return d.a.cuMemAlloc(&p, uintptr(bytes)) })
	return devPtr(p), err
}

func (d *cudaDriver) memFree(p devPtr) error {
	return d.call("cuMemFree_v2", func() int32 { return d.a.cuMemFree(uint64(p)) })
}

func (d *cudaDriver) memZero(p devPtr, bytes int64) error {
	return d.call("cuMemsetD8_v2", func() int32 { return d.a.cuMemsetD8(uint64(p), 0, uintptr(bytes)) })
}

func (d *cudaDriver) copyHtoD(dst devPtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	err := d.call("cuMemcpyHtoD_v2", func() int32 {
		return d.a.cuMemcpyHtoD(uint64(dst), uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)))
	})
	runtime.KeepAlive(src)
	return err
}

func (d *cudaDriver) copyDtoH(dst []byte, src devPtr) error {
	if len(dst) == 0 {
		return nil
	}
	err := d.call("cuMemcpyDtoH_v2", func() int32 {
		return d.a.cuMemcpyDtoH(uintptr(unsafe.Pointer(&dst[0])), uint64(src), uintptr(len(dst)))
	})
	runtime.KeepAlive(dst)
	return err
}

func (d *cudaDriver) memInfo() (int64, int64, error) {
	var free, total uintptr
	err := d.call("cuMemGetInfo_v2", func() int32 { return d.a.cuMemGetInfo(&free, &total) })
	return int64(free), int64(total), err
}

func (d *cudaDriver) function(name string) (handle, error) {
	var fn uintptr
	err := d.call("cuModuleGetFunction", func() int32 { return d.a.cuModuleGetFunction(&fn, d.mod, name) })
	if err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrKernel, name, err)
	}
	return handle(fn), nil
}

func (d *cudaDriver) streamCreate() (handle, error) {
	var s uintptr
	// Flags 0: a blocking stream, ordered after the legacy default stream
	// that the synchronous copies use.
	err := d.call("cuStreamCreate", func() int32 { return d.a.cuStreamCreate(&s, 0) })
	return handle(s), err
}

func (d *cudaDriver) streamSync(s handle) error {
	return d.call("cuStreamSynchronize", func() int32 { return d.a.cuStreamSynchronize(uintptr(s)) })
}

func (d *cudaDriver) streamDestroy(s handle) error {
	return d.call("cuStreamDestroy_v2", func() int32 { return d.a.cuStreamDestroy(uintptr(s)) })
}

func (d *cudaDriver) launch(s handle, l *kernelLaunch) error {
	block, ptrs := packArgs(l)
	err := d.call("cuLaunchKernel", func() int32 {
		return d.a.cuLaunchKernel(uintptr(l.fn), uint32(l.blocks), 1, 1, uint32(l.threads), 1, 1, 0, uintptr(s),
			uintptr(unsafe.Pointer(&ptrs[0])), 0)
	})
	runtime.KeepAlive(block)
	runtime.KeepAlive(ptrs)
	return err
}

func (d *cudaDriver) eventCreate() (handle, error) {
	var e uintptr
	err := d.call("cuEventCreate", func() int32 { return d.a.cuEventCreate(&e, 0) })
	return handle(e), err
}

func (d *cudaDriver) eventRecord(e, s handle) error {
	return d.call("cuEventRecord", func() int32 { return d.a.cuEventRecord(uintptr(e), uintptr(s)) })
}

// cudaErrorNotReady is CUDA_ERROR_NOT_READY.
const cudaErrorNotReady = 600

func (d *cudaDriver) eventQuery(e handle) (bool, error) {
	var r int32
	err := d.call("cuEventQuery", func() int32 {
		r = d.a.cuEventQuery(uintptr(e))
		if r == cudaErrorNotReady {
			return 0
		}
		return r
	})
	return err == nil && r == 0, err
}

func (d *cudaDriver) eventSync(e handle) error {
	return d.call("cuEventSynchronize", func() int32 { return d.a.cuEventSynchronize(uintptr(e)) })
}

func (d *cudaDriver) eventElapsedMs(start, end handle) (float32, error) {
	var ms float32
	err := d.call("cuEventElapsedTime", func() int32 { return d.a.cuEventElapsedTime(&ms, uintptr(start), uintptr(end)) })
	return ms, err
}

func (d *cudaDriver) eventDestroy(e handle) error {
	return d.call("cuEventDestroy_v2", func() int32 { return d.a.cuEventDestroy(uintptr(e)) })
}

func (d *cudaDriver) graphCreate() (handle, error) {
	var g uintptr
	err := d.call("cuGraphCreate", func() int32 { return d.a.cuGraphCreate(&g, 0) })
	return handle(g), err
}

// depsArg returns the address of deps' first element, or 0.
func depsArg(deps []handle) uintptr {
	if len(deps) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&deps[0]))
}

func (d *cudaDriver) graphAddKernel(g handle, deps []handle, l *kernelLaunch) (handle, error) {
	block, ptrs := packArgs(l)
	p := &kernelNodeParams{fn: uintptr(l.fn), gridX: uint32(l.blocks), gridY: 1, gridZ: 1,
		blockX: uint32(l.threads), blockY: 1, blockZ: 1, kernelParams: uintptr(unsafe.Pointer(&ptrs[0]))}
	var node uintptr
	err := d.call("cuGraphAddKernelNode_v2", func() int32 {
		return d.a.cuGraphAddKernelNode(&node, uintptr(g), depsArg(deps), uintptr(len(deps)), p)
	})
	runtime.KeepAlive(block)
	runtime.KeepAlive(ptrs)
	runtime.KeepAlive(deps)
	return handle(node), err
}

func (d *cudaDriver) graphAddEmpty(g handle, deps []handle) (handle, error) {
	var node uintptr
	err := d.call("cuGraphAddEmptyNode", func() int32 {
		return d.a.cuGraphAddEmptyNode(&node, uintptr(g), depsArg(deps), uintptr(len(deps)))
	})
	runtime.KeepAlive(deps)
	return handle(node), err
}

func (d *cudaDriver) graphInstantiate(g handle) (handle, error) {
	var x uintptr
	err := d.call("cuGraphInstantiateWithFlags", func() int32 { return d.a.cuGraphInstantiateWithFlags(&x, uintptr(g), 0) })
	return handle(x), err
}

func (d *cudaDriver) graphLaunch(x, s handle) error {
	return d.call("cuGraphLaunch", func() int32 { return d.a.cuGraphLaunch(uintptr(x), uintptr(s)) })
}

func (d *cudaDriver) graphExecDestroy(x handle) error {
	return d.call("cuGraphExecDestroy", func() int32 { return d.a.cuGraphExecDestroy(uintptr(x)) })
}

func (d *cudaDriver) graphDestroy(g handle) error {
	return d.call("cuGraphDestroy", func() int32 { return d.a.cuGraphDestroy(uintptr(g)) })
}

func (d *cudaDriver) close() error {
	err := d.call("cuModuleUnload", func() int32 { return d.a.cuModuleUnload(d.mod) })
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := d.a.cuDevicePrimaryCtxRelease(d.dev); r != 0 {
		err = errors.Join(err, d.a.fail("cuDevicePrimaryCtxRelease_v2", r))
	}
	return err
}

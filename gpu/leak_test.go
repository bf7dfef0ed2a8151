//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"testing"
	"time"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/testfile"
	"github.com/gpusim/gpusim/scene"
)

// rssBytes returns the process's resident set size (bytes) after a
// garbage collection that returns freed memory to the system.
func rssBytes(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	return testfile.ResidentBytes(t)
}

// TestBackendReleasesEverything makes, uses and closes a backend (its own
// instance and device) many times. Every Vulkan object must be released:
// with the validation layer on, vkDestroyDevice and vkDestroyInstance
// report objects left alive (checked by the validation messages), and the
// process's resident memory must stop growing with the number of cycles.
func TestBackendReleasesEverything(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=300"})
	if err != nil {
		t.Fatal(err)
	}
	cycle := func(validation bool) {
		opt := Options{Validation: validation}
		b, err := newBackend(opt)
		if errors.Is(err, errNoValidation) {
			opt.Validation = false
			b, err = newBackend(opt)
		}
		if err != nil {
			skipOrFail(t, err)
		}
		sim, err := engine.NewSim(&sc.Model, sc.Settings, b)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 2; k++ {
			if _, err := sim.Step(); err != nil {
				t.Fatal(err)
			}
		}
		d := b.d
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		checkValidation(t, d)
	}
	for i := 0; i < 3; i++ {
		cycle(os.Getenv("GPUSIM_VALIDATION") != "0")
	}
	if testing.Short() {
		return
	}
	// Memory, without the validation layer (its own bookkeeping is
	// noisy). Device.Close releases every buffer, kernel and batch the
	// device still tracks, so what could leak per cycle is an instance or
	// a device, or memory of the driver or loader. Two measures after 40
	// cycles of warm-up (the first 20–40 instances grow the process by
	// 1–3 MiB each: malloc arenas, the driver's thread pools and shader
	// caches, as a C program that only creates and destroys instances
	// shows):
	//
	//   - the C allocator's bytes in use (mallinfo2), which hold the
	//     loader's and the driver's objects and, on lavapipe, the device
	//     memory (the backend's buffers for this scene, about 1 MiB): over
	//     60 cycles they moved by a few KiB (1 782 944 → 1 788 688 B), so
	//     more than 64 KiB per cycle is something not released;
	//   - the resident memory, the median of three samples before and
	//     after, which also sees mappings outside malloc but swings with
	//     the allocator's caching and fragmentation: from −405 to +1076
	//     KiB per cycle over 63 cycles in runs without a leak (the
	//     Jacobian buffers, grown with the contacts, fragment the arena
	//     more than buffers made once at full size), so its bound is 4 MiB
	//     per cycle, a leaked device's scale.
	//
	// Leaks inside a live backend are TestDeviceObjectsFlat's business.
	const warmup, cycles, limitC, limitRSS = 40, 60, 64 << 10, 4 << 20
	for i := 0; i < warmup; i++ {
		cycle(false)
	}
	median3 := func() int64 {
		var v [3]int64
		for i := range v {
			cycle(false)
			v[i] = rssBytes(t)
		}
		sort.Slice(v[:], func(i, j int) bool { return v[i] < v[j] })
		return v[1]
	}
	before := median3()
	c0 := testfile.MallocInUse(t)
	for i := 0; i < cycles; i++ {
		cycle(false)
	}
	runtime.GC()
	c1 := testfile.MallocInUse(t)
	after := median3()
	perC := (c1 - c0) / cycles
	per := (after - before) / (cycles + 3)
	t.Logf("C memory in use %d → %d B over %d cycles: %+d B per cycle; RSS %.1f MiB → %.1f MiB over %d cycles: %+d KiB per cycle",
		c0, c1, cycles, perC, float64(before)/(1<<20), float64(after)/(1<<20), cycles+3, per>>10)
	if perC > limitC {
		t.Errorf("C memory in use grew by %d B per backend cycle after warm-up: an instance, a device or a buffer is not released", perC)
	}
	if per > limitRSS {
		t.Errorf("resident memory grew by %d KiB per backend cycle after warm-up: an instance or device is not released", per>>10)
	}
}

// deviceObjects counts what a device tracks: live buffers and their bytes,
// batches and kernels. Vectors that are no longer reachable give their
// buffers back through a cleanup after a garbage collection (LinAlg.NewVec),
// so it first collects, waits for the cleanups and drains l's queue. The
// arguments buffers of the batches' kept command buffers (args.go) are
// not counted: each kept command buffer holds as many as its longest
// recording needed, which a longer solve can raise once; TestCachedBatch
// bounds them.
func deviceObjects(d *Device, l *LinAlg) (buffers int, bytes int64, batches, kernels int) {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	if err := l.Flush(); err != nil {
		panic(err)
	}
	for b := range d.buffers {
		if !b.args {
			bytes += b.size
		}
	}
	return liveBuffers(d), bytes, len(d.batches), len(d.kernels)
}

// TestDeviceObjectsFlat checks that a backend does not accumulate device
// objects as it steps: after the pile has formed (the contact buffers
// have reached their size), 40 more steps of every solver path must leave
// the device with no more buffers, and the same batches and kernels. Anything allocated per step or per solve and not
// released (Device.Close would free it, but only at the end of the run)
// shows here.
func TestDeviceObjectsFlat(t *testing.T) {
	d := requireDevice(t)
	for _, solver := range []string{"apgd", "apgd-ar", "gs"} {
		t.Run(solver, func(t *testing.T) {
			sc, err := scene.LoadBuiltin("settle", []string{"n=300", "settings.warm_start=true", "settings.solver=" + solver, "settings.max_iter=50"})
			if err != nil {
				t.Fatal(err)
			}
			b, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			sim, err := engine.NewSim(&sc.Model, sc.Settings, b)
			if err != nil {
				t.Fatal(err)
			}
			steps := func(n int) {
				for k := 0; k < n; k++ {
					if _, err := sim.Step(); err != nil {
						t.Fatal(err)
					}
				}
			}
			steps(60) // 0.6 s: the 300 spheres have landed
			nb, bytes, nbat, nk := deviceObjects(d, b.l)
			steps(40)
			nb2, bytes2, nbat2, nk2 := deviceObjects(d, b.l)
			// Contact buffers may still grow (by a quarter, when the contact
			// count passes their capacity), so bytes are reported, not
			// compared; a leak adds buffers.
			t.Logf("device buffers %d (%d bytes) → %d (%d bytes)", nb, bytes, nb2, bytes2)
			if nb2 > nb || nbat2 != nbat || nk2 != nk {
				t.Errorf("after 40 more steps the device holds %d buffers (%d bytes), %d batches, %d kernels; before: %d (%d bytes), %d, %d",
					nb2, bytes2, nbat2, nk2, nb, bytes, nbat, nk)
			}
		})
	}
}

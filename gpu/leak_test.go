//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// rssBytes returns the process's resident set size from /proc/self/status.
func rssBytes(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "VmRSS:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmRSS in /proc/self/status")
	return 0
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
	// Resident memory, without the validation layer (its own bookkeeping
	// is noisy). Measured on lavapipe, the process grows by 1–3 MiB per
	// cycle for the first 20–40 instances (malloc arenas, the driver's
	// thread pools and shader caches; a C program that only creates and
	// destroys instances shows the same) and then stays flat to a few
	// KiB per cycle. A leak does not level off: one cycle holds a device,
	// an instance, ~40 buffers and a pipeline per kernel, and even a
	// leaked buffer set of this scene is ≈ 100 KiB. So the test passes
	// once two windows of 10 cycles in a row each grow by less than
	// 64 KiB per cycle, and fails if that has not happened in 10 windows.
	const window, limit, maxWindows = 10, 64 << 10, 10
	flat := 0
	for w := 0; w < maxWindows; w++ {
		before := rssBytes(t)
		for i := 0; i < window; i++ {
			cycle(false)
		}
		per := (rssBytes(t) - before) / window
		t.Logf("window %d: %+d KiB per cycle", w, per>>10)
		if per < limit {
			flat++
		} else {
			flat = 0
		}
		if flat == 2 {
			return
		}
	}
	t.Errorf("resident memory still grows by 64 KiB or more per backend cycle after %d cycles: something is not released", window*maxWindows)
}

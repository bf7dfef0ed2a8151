package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/scene"
)

// TestEstimateMemoryMeasured: the CPU model against the peak resident
// memory measured with /usr/bin/time -v (see the comment on the model),
// at the contacts those runs had: within 20 % from N = 4000 up (smaller
// runs are dominated by the Go runtime's fixed cost, which the model
// puts at 12 MiB).
func TestEstimateMemoryMeasured(t *testing.T) {
	for _, c := range []struct {
		bodies, contacts int
		kib              float64 // measured maximum resident set size
	}{
		{4000, 10377, 27956}, {16000, 45611, 75364}, {64000, 184558, 251384}, {16000, 6247, 36964}, {64000, 25060, 107764},
	} {
		est := float64(hostBaseBytes + hostBytesPerBody*int64(c.bodies) + hostBytesPerContact*int64(c.contacts))
		if r := est / (c.kib * 1024); r < 0.8 || r > 1.2 {
			t.Errorf("N = %d, %d contacts: model %.3g B, measured %.3g B (ratio %.2f)", c.bodies, c.contacts, est, c.kib*1024, r)
		}
	}
	e := EstimateMemory(1<<24, "cpu")
	// 12 MiB + 2²⁴ · (1160 + 4 · 900) B = 74.4 GiB.
	if e.Host < 74<<30 || e.Host > 75<<30 || e.Device != 0 {
		t.Errorf("EstimateMemory(2²⁴, cpu) = %+v: want 74.4 GiB of host memory", e)
	}
	if v := EstimateMemory(1000, "vulkan"); v.Device <= 0 || v.Host < v.Device+vulkanBaseBytes {
		t.Errorf("EstimateMemory(1000, vulkan) = %+v", v)
	}
}

func TestCheckMemory(t *testing.T) {
	err := CheckMemory(1<<24, "cpu", "", 8<<30)
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("CheckMemory(2²⁴ bodies, 8 GiB) = %v, want ErrOutOfMemory", err)
	}
	for _, want := range []string{"not enough memory: 16777216 bodies on the cpu backend need about 74.4 GiB", "GiB of host memory",
		"more than the 8 GiB available (--max-memory)", "1160 B per body and 900 B per contact at 4 contacts per body"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := CheckMemory(1<<24, "cpu", "", -1); err != nil {
		t.Errorf("a negative limit turns the check off: %v", err)
	}
	if err := CheckMemory(1000, "cpu", "", 1<<30); err != nil {
		t.Errorf("1000 bodies in 1 GiB: %v", err)
	}
	// The Vulkan path's host estimate holds its device buffers where they
	// may be host memory (a device of unified memory such as lavapipe, or
	// none found): 10⁵ bodies need 263 MiB of host memory without them
	// (the base, the driver and 1160 B per body) and about 480 MiB with
	// them. A discrete device keeps them in its own memory.
	defer func(f func(string) (gpu.DeviceInfo, error)) { chooseDevice = f }(chooseDevice)
	for _, c := range []struct {
		dev  gpu.DeviceInfo
		err  error
		fits bool
		says string
	}{
		{gpu.DeviceInfo{Name: "llvmpipe", UnifiedMemory: true}, nil, false, "the device buffers, which may be host memory"},
		{gpu.DeviceInfo{}, gpu.ErrNoDevice, false, "the device buffers, which may be host memory"},
		{gpu.DeviceInfo{Name: "NVIDIA H200"}, nil, true, ""},
	} {
		chooseDevice = func(string) (gpu.DeviceInfo, error) { return c.dev, c.err }
		err := CheckMemory(100000, "vulkan", "", 400<<20)
		if c.fits && err != nil || !c.fits && (!errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), c.says)) {
			t.Errorf("vulkan on %q (%v), 10⁵ bodies in 400 MiB: %v", c.dev.Name, c.err, err)
		}
		// On the discrete device the host's need is without the buffers,
		// and the message says where they are.
		if err := CheckMemory(100000, "vulkan", "", 200<<20); c.fits && !strings.Contains(fmt.Sprint(err), "the device buffers are on NVIDIA H200") {
			t.Errorf("vulkan on %q, 10⁵ bodies in 200 MiB: %v", c.dev.Name, err)
		}
	}
	if runtime.GOOS == "linux" {
		lim, from, ok := hostLimit()
		if !ok || lim <= 0 || from == "" {
			t.Errorf("hostLimit() = %d, %q, %v: want the machine's available memory", lim, from, ok)
		}
		// The machine cannot hold 2²⁴ bodies' 74.4 GiB unless it is very large.
		if lim < 70<<30 && CheckMemory(1<<24, "cpu", "", 0) == nil {
			t.Errorf("2²⁴ bodies passed the check with %d bytes available (%s)", lim, from)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"8G": 8 << 30, "512M": 512 << 20, "512MiB": 512 << 20, "1.5g": 3 << 29,
		"100": 100, "4k": 4096, "2TB": 2 << 40, "0": 0} {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "x", "-1G", "8X", "NaN", "1e30T"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q): no error", s)
		}
	}
}

// TestRunRefusesBeforeOutputs: Run checks memory before it opens the
// backend or makes the output folder.
func TestRunRefusesBeforeOutputs(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=60", "run.steps=2"})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	_, err = Run(context.Background(), sc, Options{Backend: "cpu", OutDir: out, MaxMemory: 1 << 20})
	if !errors.Is(err, ErrOutOfMemory) || !strings.HasPrefix(err.Error(), "builtin:settle: not enough memory: 65 bodies") {
		t.Errorf("Run with 1 MiB: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the output folder was made: %v", err)
	}
}

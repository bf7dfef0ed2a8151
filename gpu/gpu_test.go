package gpu

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

func TestErrNoDeviceIsUnavailable(t *testing.T) {
	if !errors.Is(ErrNoDevice, engine.ErrUnavailable) {
		t.Error("ErrNoDevice does not wrap engine.ErrUnavailable")
	}
	if errors.Is(ErrDeviceLost, engine.ErrUnavailable) {
		t.Error("ErrDeviceLost wraps engine.ErrUnavailable")
	}
}

// New returns the Vulkan backend, or without a device an error wrapping
// ErrNoDevice (and so engine.ErrUnavailable), so that the run falls back to
// the CPU path.
func TestNew(t *testing.T) {
	b, err := New(Options{})
	if err != nil {
		if !errors.Is(err, ErrNoDevice) || !errors.Is(err, engine.ErrUnavailable) {
			t.Fatalf("New: %v; want a backend or an error wrapping ErrNoDevice", err)
		}
		if os.Getenv("GPUSIM_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no device: %v", err)
	}
	if !strings.HasPrefix(b.Name(), "vulkan: ") {
		t.Errorf("Name() = %q, want vulkan: and the device", b.Name())
	}
	if s, ok := b.(interface{ Submits() int }); !ok || s.Submits() < 0 {
		t.Error("the backend has no Submits method")
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestPick(t *testing.T) {
	infos := []DeviceInfo{
		{Index: 0, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: CPUDevice, Float64: true},
		{Index: 1, Name: "Intel(R) UHD Graphics 620", Type: IntegratedGPU, Float64: false},
		{Index: 2, Name: "NVIDIA GeForce RTX 3080", Type: DiscreteGPU, Float64: true},
		{Index: 3, Name: "NVIDIA H200", Type: DiscreteGPU, Float64: true},
	}
	for _, c := range []struct {
		sel  string
		want int
		err  string // substring of the error; "" for none
		nodv bool   // the error wraps ErrNoDevice
	}{
		{"", 2, "", false},
		{"0", 0, "", false},
		{"3", 3, "", false},
		{"LLVMPIPE", 0, "", false},
		{"h200", 3, "", false},
		{"nvidia", -1, `"nvidia" matches 2 Vulkan devices`, false},
		{"7", -1, "no Vulkan device 7: there are 4", false},
		{"-1", -1, "no Vulkan device -1", false},
		{"radeon", -1, `no Vulkan device matches "radeon"`, false},
		{"intel", -1, "has no shaderFloat64", true},
		{"1", -1, "has no shaderFloat64", true},
	} {
		got, err := pick(infos, c.sel)
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("pick(%q) = %d, %v; want %d", c.sel, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) || errors.Is(err, ErrNoDevice) != c.nodv {
			t.Errorf("pick(%q) = %d, %v; want an error with %q (ErrNoDevice: %v)", c.sel, got, err, c.err, c.nodv)
		}
		if err != nil && !c.nodv && !strings.Contains(err.Error(), "llvmpipe") && !strings.Contains(err.Error(), "NVIDIA") {
			t.Errorf("pick(%q): %v; want the devices listed", c.sel, err)
		}
	}
	// Only devices with float64 compete; an integrated GPU beats a CPU.
	noF64 := []DeviceInfo{{Index: 0, Name: "a", Type: DiscreteGPU}, {Index: 1, Name: "b", Type: CPUDevice, Float64: true}, {Index: 2, Name: "c", Type: IntegratedGPU, Float64: true}}
	if got, err := pick(noF64, ""); err != nil || got != 2 {
		t.Errorf("pick = %d, %v; want 2", got, err)
	}
	if _, err := pick(noF64[:1], ""); !errors.Is(err, ErrNoDevice) {
		t.Errorf("pick without float64 devices: %v; want ErrNoDevice", err)
	}
}

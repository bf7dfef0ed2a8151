package gpu

import (
	"errors"
	"os"
	"slices"
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
	// Through engine.Backend, so that the test builds without Vulkan too.
	var be engine.Backend = b
	if s, ok := be.(engine.Submitter); !ok || s.Submits() < 0 {
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
		{Index: 2, Name: "NVIDIA GeForce RTX 3080", Type: DiscreteGPU, Float64: true, VendorID: vendorNVIDIA, PCI: "0000:af:00.0", UUID: uuid3080},
		{Index: 3, Name: "NVIDIA H200", Type: DiscreteGPU, Float64: true, VendorID: vendorNVIDIA, PCI: "0000:3b:00.0", UUID: uuidH200},
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
		{"GPU-8e3c1b2a-0d4f-4a51-9c3e-5b7d2f1e6a90", 2, "", false},
		{"gpu-8E3C1B2A", 2, "", false},
		{"8e3c1b2a0d4f4a519c3e5b7d2f1e6a90", 2, "", false},
		{"GPU-1f2e3d4c", 3, "", false},
		{"GPU-00000000", -1, `no Vulkan device has the UUID "GPU-00000000"`, false},
		{"0000:3b:00.0", 3, "", false},
		{"3b:00.0", 3, "", false},
		{"AF:00.0", 2, "", false},
		{"0000:3c:00.0", -1, `no Vulkan device has the PCI address "0000:3c:00.0"`, false},
	} {
		got, err := pick(infos, c.sel, nil)
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
	if got, err := pick(noF64, "", nil); err != nil || got != 2 {
		t.Errorf("pick = %d, %v; want 2", got, err)
	}
	if _, err := pick(noF64[:1], "", nil); !errors.Is(err, ErrNoDevice) {
		t.Errorf("pick without float64 devices: %v; want ErrNoDevice", err)
	}
}

var (
	uuid3080 = [16]byte{0x8e, 0x3c, 0x1b, 0x2a, 0x0d, 0x4f, 0x4a, 0x51, 0x9c, 0x3e, 0x5b, 0x7d, 0x2f, 0x1e, 0x6a, 0x90}
	uuidH200 = [16]byte{0x1f, 0x2e, 0x3d, 0x4c, 0x5b, 0x6a, 0x79, 0x88, 0x97, 0xa6, 0xb5, 0xc4, 0xd3, 0xe2, 0xf1, 0x00}
)

func TestUUIDString(t *testing.T) {
	d := DeviceInfo{UUID: uuid3080}
	if got, want := d.UUIDString(), "GPU-8e3c1b2a-0d4f-4a51-9c3e-5b7d2f1e6a90"; got != want {
		t.Errorf("UUIDString = %q, want %q", got, want)
	}
	if got := (DeviceInfo{}).UUIDString(); got != "" {
		t.Errorf("zero UUID: %q, want empty", got)
	}
}

// The automatic choice takes the scheduler's GPU from CUDA_VISIBLE_DEVICES:
// indices count NVIDIA GPUs in PCI order (the H200 at 3b:00.0 is CUDA's 0
// although Vulkan lists it after the RTX 3080 at af:00.0), UUIDs name
// GPUs, other vendors' devices stay visible, bad entries are errors naming
// the variable.
func TestPickCUDAVisible(t *testing.T) {
	infos := []DeviceInfo{
		{Index: 0, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: CPUDevice, Float64: true},
		{Index: 1, Name: "NVIDIA GeForce RTX 3080", Type: DiscreteGPU, Float64: true, VendorID: vendorNVIDIA, PCI: "0000:af:00.0", UUID: uuid3080},
		{Index: 2, Name: "NVIDIA H200", Type: DiscreteGPU, Float64: true, VendorID: vendorNVIDIA, PCI: "0000:3b:00.0", UUID: uuidH200},
	}
	for _, c := range []struct {
		cuda    string
		want    int    // the device picked
		visible []int  // Visible's list
		err     string // substring of the error
	}{
		{"0", 2, []int{2, 0}, ""},
		{"1", 1, []int{1, 0}, ""},
		{"1,0", 1, []int{1, 2, 0}, ""},
		{" 0 , 0 ", 2, []int{2, 0}, ""},
		{"GPU-8e3c1b2a-0d4f-4a51-9c3e-5b7d2f1e6a90", 1, []int{1, 0}, ""},
		{"GPU-1f2e3d4c,GPU-8e3c1b2a", 2, []int{2, 1, 0}, ""},
		{"", 0, []int{0}, ""},
		{"NoDevFiles", 0, []int{0}, ""},
		{"-1", 0, []int{0}, ""},
		{"2", -1, nil, `CUDA_VISIBLE_DEVICES="2": index 2, but the Vulkan loader lists 2 NVIDIA GPUs`},
		{"GPU-ffffffff", -1, nil, "GPU-ffffffff names 0 of the NVIDIA GPUs"},
		{"MIG-3b1e2f4a-1111-2222-3333-444455556666", -1, nil, "MIG instance"},
		{"gpu0", -1, nil, `"gpu0" is neither an index nor a GPU UUID`},
	} {
		v := c.cuda
		vis, note, err := visible(infos, &v)
		got, perr := pick(infos, "", &v)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || perr == nil || perr.Error() != err.Error() {
				t.Errorf("CUDA_VISIBLE_DEVICES=%q: visible %v, pick %d, %v; want the error %q", c.cuda, err, got, perr, c.err)
			}
			continue
		}
		var idx []int
		for _, d := range vis {
			idx = append(idx, d.Index)
		}
		if err != nil || perr != nil || got != c.want || !slices.Equal(idx, c.visible) {
			t.Errorf("CUDA_VISIBLE_DEVICES=%q: visible %v (%v), pick %d (%v); want %v and %d", c.cuda, idx, err, got, perr, c.visible, c.want)
		}
		if !strings.Contains(note, "CUDA_VISIBLE_DEVICES") {
			t.Errorf("CUDA_VISIBLE_DEVICES=%q: note %q does not name the variable", c.cuda, note)
		}
	}
	// An explicit Options.Device is not restricted by the variable.
	v := "1"
	if got, err := pick(infos, "h200", &v); err != nil || got != 2 {
		t.Errorf("pick(h200) with CUDA_VISIBLE_DEVICES=1 = %d, %v; want 2", got, err)
	}
	// Unset: every device.
	if vis, note, err := visible(infos, nil); err != nil || note != "" || len(vis) != 3 {
		t.Errorf("unset: %v %q %v", vis, note, err)
	}
	// Indices need PCI addresses when there are several NVIDIA GPUs.
	noPCI := slices.Clone(infos)
	noPCI[1].PCI = ""
	if _, _, err := visible(noPCI, &v); err == nil || !strings.Contains(err.Error(), "no PCI addresses") {
		t.Errorf("indices without PCI addresses: %v", err)
	}
	// With no NVIDIA GPU listed, a GPU assignment is noted, not an error:
	// the run falls back and says why.
	cpuOnly := infos[:1]
	vis, note, err := visible(cpuOnly, &v)
	if err != nil || len(vis) != 1 || !strings.Contains(note, "lists none") {
		t.Errorf("no NVIDIA GPU: %v %q %v", vis, note, err)
	}
	if got, err := pick(cpuOnly, "", &v); err != nil || got != 0 {
		t.Errorf("no NVIDIA GPU: pick %d, %v; want the CPU device", got, err)
	}
	// A malformed value is an error even then.
	for _, bad := range []string{"gpu0", "-2", "MIG-1"} {
		if _, _, err := visible(cpuOnly, &bad); !errors.Is(err, ErrBadSelection) {
			t.Errorf("CUDA_VISIBLE_DEVICES=%q without NVIDIA GPUs: %v; want ErrBadSelection", bad, err)
		}
	}
	// Selection errors are the user's, not a reason to fall back.
	w := "7"
	if _, err := pick(infos, "", &w); !errors.Is(err, ErrBadSelection) || errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("CUDA_VISIBLE_DEVICES=7: %v; want ErrBadSelection, not ErrUnavailable", err)
	}
	if _, err := pick(infos, "nope", nil); !errors.Is(err, ErrBadSelection) {
		t.Errorf("pick(nope): %v; want ErrBadSelection", err)
	}
}

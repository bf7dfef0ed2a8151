//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

func TestDevices(t *testing.T) {
	infos, err := Devices()
	if err != nil {
		skipOrFail(t, err)
	}
	if len(infos) == 0 {
		t.Fatal("Devices returned no device and no error")
	}
	for i, d := range infos {
		t.Logf("%s: Vulkan %s, float64 %v, subgroup %d, unified %v, heaps %+v", d, d.API, d.Float64, d.SubgroupSize, d.UnifiedMemory, d.Heaps)
		if d.Index != i || d.Name == "" || len(d.Heaps) == 0 || d.MaxWorkgroupInvocations == 0 ||
			d.MaxWorkgroupCount[0] == 0 || d.MaxStorageBufferRange == 0 {
			t.Errorf("device %d: implausible %+v", i, d)
		}
	}
}

func TestOpenBogusDevice(t *testing.T) {
	_, err := openDevice(Options{Device: "no-such-gpu"})
	if errors.Is(err, ErrNoDevice) {
		skipOrFail(t, err)
	}
	if err == nil || !strings.Contains(err.Error(), `"no-such-gpu"`) || !strings.Contains(err.Error(), "0: ") {
		t.Fatalf("Open(no-such-gpu) = %v; want an error naming it and listing the devices", err)
	}
	// A mistyped name is the user's error, not a reason to fall back.
	if errors.Is(err, engine.ErrUnavailable) {
		t.Errorf("%v wraps engine.ErrUnavailable", err)
	}
	if _, err := openDevice(Options{Device: "99"}); err == nil || !strings.Contains(err.Error(), "no Vulkan device 99") {
		t.Errorf("Open(99) = %v", err)
	}
}

func TestOpenByNameAndIndex(t *testing.T) {
	d := requireDevice(t)
	sels := []string{"0", strings.ToUpper(d.Info.Name[:4])}
	// Vulkan 1.1 devices have a UUID (lavapipe's is a hash of the driver
	// build), and it selects the device, whole or as a prefix.
	if u := d.Info.UUIDString(); u != "" {
		sels = append(sels, u, u[:12], strings.ReplaceAll(strings.TrimPrefix(u, "GPU-"), "-", ""))
	} else if d.Info.API >= "1.1" {
		t.Errorf("%s (Vulkan %s) has no UUID", d.Info, d.Info.API)
	}
	if d.Info.PCI != "" {
		sels = append(sels, d.Info.PCI)
	}
	for _, sel := range sels {
		if d.Info.Index != 0 && sel == "0" {
			continue
		}
		e := openFresh(t, Options{Device: sel})
		if e.Info.Name != d.Info.Name {
			t.Errorf("Open(%q) opened %s, want %s", sel, e.Info.Name, d.Info.Name)
		}
	}
}

// Open and Close release everything: 50 rounds, each building kernels and
// running a dot product, leave no object behind (the validation layer
// reports leaks at vkDestroyDevice) and no growing memory.
func TestOpenClose50(t *testing.T) {
	requireDevice(t)
	for i := range 50 {
		opt := Options{forceStaging: i%2 == 1}
		var d *Device
		var err error
		if i%10 == 0 {
			d, err = openDevice(opt) // with validation: it checks the teardown
		} else {
			d, err = Open(opt) // without: fast
		}
		if err != nil {
			t.Fatal(err)
		}
		l, err := NewLinAlg(d)
		if err != nil {
			t.Fatal(err)
		}
		x := l.NewVec(3000)
		l.Fill(x, 0.5)
		if got := l.Dot(x, x); got != 750 {
			t.Errorf("round %d: dot = %v, want 750", i, got)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		checkValidation(t, d)
		if err := d.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
}

// The validation layer is wired to errors: a reflection table that
// disagrees with the SPIR-V (a uniform buffer where the shader declares a
// storage buffer) fails pipeline creation with a validation error.
func TestValidationErrorsFail(t *testing.T) {
	d := openFresh(t, Options{})
	if d.handle == 0 {
		t.Skip("validation layer not installed or GPUSIM_VALIDATION=0")
	}
	m := shaders.Fill
	m.Name = "fill-as-uniform"
	m.Bindings = []shaders.Binding{{Binding: 0, Kind: shaders.UniformBuffer}}
	_, err := d.Kernel(m)
	if err == nil || !strings.Contains(err.Error(), "validation error") {
		t.Fatalf("Kernel with a wrong binding type: %v; want a validation error", err)
	}
	t.Log(err)
	d.ValidationMessages()
}

func TestKernelLimits(t *testing.T) {
	d := requireDevice(t)
	m := shaders.Fill
	m.Name = "fill-too-wide"
	m.LocalSize = [3]uint32{d.Info.MaxWorkgroupInvocations + 1, 1, 1}
	if _, err := d.Kernel(m); err == nil || !strings.Contains(err.Error(), "exceeds the device's limits") {
		t.Errorf("Kernel with a workgroup too large: %v", err)
	}
	k1, err := d.Kernel(shaders.Fill)
	if err != nil {
		t.Fatal(err)
	}
	if k2, _ := d.Kernel(shaders.Fill); k2 != k1 {
		t.Error("Kernel does not reuse the pipeline of a module")
	}
}

// TestChoose: Choose names the device that Open opens, for the default
// choice and for an index, without opening one; a selection that names no
// device gives Open's error.
func TestChoose(t *testing.T) {
	d := requireDevice(t)
	for _, sel := range []string{"", fmt.Sprint(d.Info.Index)} {
		c, err := Choose(sel)
		if err != nil {
			t.Fatalf("Choose(%q): %v", sel, err)
		}
		if c.Index != d.Info.Index || c.Name != d.Info.Name || c.UnifiedMemory != d.Info.UnifiedMemory {
			t.Errorf("Choose(%q) = %s (unified %v), Open gives %s (unified %v)", sel, c, c.UnifiedMemory, d.Info, d.Info.UnifiedMemory)
		}
	}
	_, err := Choose("no such device")
	_, oerr := openDevice(Options{Device: "no such device"})
	if err == nil || oerr == nil || err.Error() != oerr.Error() {
		t.Errorf("Choose of no device: %v, want Open's %v", err, oerr)
	}
}

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/gpu"
)

// gpusim devices lists every device gpu.Devices finds, with the fields
// gpusim cares about; on CI (GPUSIM_REQUIRE_VULKAN=1, Mesa installed) that
// includes lavapipe. Without a Vulkan driver it fails with a clear error.
func TestDevicesLists(t *testing.T) {
	code, out, errOut := runCLI(t, "devices")
	infos, err := gpu.Devices()
	if err != nil {
		if code != exitFailure || !strings.Contains(errOut, "no usable Vulkan device") {
			t.Errorf("without a device: exit %d, stderr %q", code, errOut)
		}
		if os.Getenv("GPUSIM_REQUIRE_VULKAN") == "1" {
			t.Fatalf("GPUSIM_REQUIRE_VULKAN=1 but: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, d := range infos {
		if !strings.Contains(out, d.Name) {
			t.Errorf("output does not list %s:\n%s", d.Name, out)
		}
	}
	for _, field := range []string{"memory", "float64", "subgroup size", "max size", "max range", "largest bed", "timestamps"} {
		if !strings.Contains(out, field) {
			t.Errorf("output lacks %q:\n%s", field, out)
		}
	}
	if os.Getenv("GPUSIM_REQUIRE_VULKAN") == "1" && !strings.Contains(out, "llvmpipe") {
		t.Errorf("lavapipe (llvmpipe) is not listed:\n%s", out)
	}
	t.Logf("\n%s", out)
}

func TestDevicesUsage(t *testing.T) {
	if code, _, _ := runCLI(t, "devices", "extra"); code != exitUsage {
		t.Errorf("devices extra: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := runCLI(t, "devices", "-h"); code != exitOK {
		t.Errorf("devices -h: exit %d, want %d", code, exitOK)
	}
}

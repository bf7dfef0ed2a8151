package run

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/gpu"
)

// A scheduler's CUDA_VISIBLE_DEVICES shapes the automatic choice and is
// reported: with no NVIDIA GPU among the Vulkan devices (this machine:
// lavapipe at most) "auto" runs on the CPU path and says that the
// variable names GPUs Vulkan does not list, "vulkan" still runs on what
// there is and says the same; a malformed value is an error wrapping
// gpu.ErrBadSelection; "cpu" ignores the variable.
func TestNewBackendCUDAVisible(t *testing.T) {
	if _, err := gpu.Devices(); err != nil {
		if os.Getenv("GPUSIM_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
	t.Setenv("CUDA_VISIBLE_DEVICES", "0")
	b, notice, err := NewBackend("auto", "", false, 1)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if b.Name() != "cpu" || !strings.Contains(notice, `CUDA_VISIBLE_DEVICES="0" assigns NVIDIA GPUs, but the Vulkan loader lists none`) {
		t.Errorf("auto: backend %s, notice %q", b.Name(), notice)
	}
	b, notice, err = NewBackend("vulkan", "", false, 1)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if !strings.HasPrefix(b.Name(), "vulkan") || !strings.Contains(notice, "lists none") {
		t.Errorf("vulkan: backend %s, notice %q", b.Name(), notice)
	}
	t.Setenv("CUDA_VISIBLE_DEVICES", "GPU-zz")
	for _, kind := range []string{"auto", "vulkan"} {
		if _, _, err := NewBackend(kind, "", false, 1); !errors.Is(err, gpu.ErrBadSelection) || !strings.Contains(err.Error(), "GPU-zz") {
			t.Errorf("%s with a malformed CUDA_VISIBLE_DEVICES: %v", kind, err)
		}
	}
	b, notice, err = NewBackend("cpu", "", false, 1)
	if err != nil || notice != "" {
		t.Errorf("cpu: %v, notice %q", err, notice)
	}
	b.Close()
}

package gpu

import (
	"errors"
	"strings"
	"testing"
)

// TestEstimateBytes checks EstimateBytes against device memory measured
// on lavapipe (see its doc comment): within −10 % and +25 %, the estimate
// being meant to err on the large side by Buffer.Grow's headroom at most.
func TestEstimateBytes(t *testing.T) {
	for _, c := range []struct {
		bodies, contacts int
		measured         float64 // bytes
	}{
		{2000, 4212, 11622400}, {2000, 778, 8876544}, {64000, 74572, 299 << 20},
	} {
		got := float64(EstimateBytes(c.bodies, c.contacts))
		if r := got / c.measured; r < 0.9 || r > 1.25 {
			t.Errorf("EstimateBytes(%d, %d) = %.3g, measured %.3g (ratio %.2f)", c.bodies, c.contacts, got, c.measured, r)
		}
	}
	if EstimateBytes(1<<24, 4<<24) < 100<<30 {
		t.Errorf("EstimateBytes(2²⁴ bodies) = %d: want over 100 GiB", EstimateBytes(1<<24, 4<<24))
	}
}

// TestCheckHeap: a model whose estimate fits the largest device-local
// heap loads; one past it is refused with ErrOutOfMemory naming both sizes
// and the CPU path; host-only heaps do not count.
func TestCheckHeap(t *testing.T) {
	info := DeviceInfo{Name: "small", Heaps: []MemoryHeap{{Size: 1 << 30, DeviceLocal: true}, {Size: 64 << 30}}}
	if err := checkHeap(10000, info); err != nil {
		t.Fatalf("10 000 bodies in 1 GiB: %v", err)
	}
	err := checkHeap(1_000_000, info)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "1024 MiB") || !strings.Contains(err.Error(), "--backend cpu") {
		t.Fatalf("1 000 000 bodies in 1 GiB: %v, want ErrOutOfMemory naming the heap's 1024 MiB and --backend cpu", err)
	}
	if err := checkHeap(1_000_000, DeviceInfo{}); err != nil {
		t.Fatalf("no heap known: %v, want no refusal", err)
	}
	// lavapipe's 128 MiB binding range: the Jacobian buffers of the first
	// step, 72 B for each of 8·bodies + 64 contact slots, fit up to
	// (2²⁷/72 − 64)/8 = 233 008 bodies.
	lp := DeviceInfo{Name: "llvmpipe", MaxStorageBufferRange: 1 << 27}
	if err := checkHeap(233_008, lp); err != nil {
		t.Fatalf("233 008 bodies in a 128 MiB range: %v", err)
	}
	err = checkHeap(233_009, lp)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "134217728 bytes") ||
		!strings.Contains(err.Error(), "at most 233008 bodies") || !strings.Contains(err.Error(), "--backend cpu") {
		t.Fatalf("233 009 bodies in a 128 MiB range: %v, want ErrOutOfMemory naming the range, the largest model and --backend cpu", err)
	}
}

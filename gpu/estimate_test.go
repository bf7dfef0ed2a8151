package gpu

import (
	"errors"
	"strings"
	"testing"
)

// TestEstimateBytes checks EstimateBytes against device memory measured
// on lavapipe (see its doc comment): within −10 % and +25 %, the estimate
// being meant to err on the large side, by Buffer.Grow's headroom and by
// the 48 B per body of loads that these models, which have none, do not
// hold (9–16 % above here).
func TestEstimateBytes(t *testing.T) {
	for _, c := range []struct {
		bodies, contacts int
		measured         float64 // bytes
		mixed            bool    // settings.precision "mixed"
		pairExtras       bool
	}{
		{2005, 7810, 5158912, false, false}, {2005, 4316, 3765248, false, false}, {2005, 171, 3015424, false, true},
		{64005, 185249, 136384256, false, false}, {64005, 185249, 107485440, true, false},
	} {
		got := float64(EstimateBytes(c.bodies, c.contacts, c.mixed, c.pairExtras))
		guard := float64(108*c.bodies + 36*c.contacts) // a run's guard, which the measurements leave out
		t.Logf("EstimateBytes(%d, %d, %v, %v) = %.0f, %.0f without the guard, measured %.0f", c.bodies, c.contacts, c.mixed, c.pairExtras, got, got-guard, c.measured)
		if r := got / c.measured; r < 0.9 || r > 1.25 {
			t.Errorf("EstimateBytes(%d, %d, %v, %v) = %.3g, measured %.3g (ratio %.2f)", c.bodies, c.contacts, c.mixed, c.pairExtras, got, c.measured, r)
		}
	}
	// Large models in int64: 2²⁴ bodies with 2²⁶ contacts hold at least
	// the per-contact term, 380 B × 2²⁶ = 23.8 GiB, and the bodies' and
	// capacities' on top.
	if got := EstimateBytes(1<<24, 4<<24, false, true); got < 380<<26+652<<24 {
		t.Errorf("EstimateBytes(2²⁴ bodies, 2²⁶ contacts) = %d: want over %d", got, int64(380<<26+652<<24))
	}
}

// TestCheckHeap: a model whose estimate fits the largest device-local
// heap loads; one past it is refused with ErrOutOfMemory naming both sizes
// and the CPU path; host-only heaps do not count.
func TestCheckHeap(t *testing.T) {
	info := DeviceInfo{Name: "small", Heaps: []MemoryHeap{{Size: 1 << 30, DeviceLocal: true}, {Size: 64 << 30}}}
	if err := checkHeap(10000, info, false, true); err != nil {
		t.Fatalf("10 000 bodies in 1 GiB: %v", err)
	}
	err := checkHeap(1_000_000, info, false, true)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "1024 MiB") || !strings.Contains(err.Error(), "--backend cpu") {
		t.Fatalf("1 000 000 bodies in 1 GiB: %v, want ErrOutOfMemory naming the heap's 1024 MiB and --backend cpu", err)
	}
	if err := checkHeap(1_000_000, DeviceInfo{}, false, true); err != nil {
		t.Fatalf("no heap known: %v, want no refusal", err)
	}
	// lavapipe's 128 MiB binding range: the Jacobian of the first steps,
	// 96 B for each of 3 contacts per body in one buffer, fits up to
	// ⌊2²⁷/288⌋ = 466 033 bodies (the collider's pair normals, 32 B for
	// each of 8·bodies + 64 pair slots, would allow 524 280).
	lp := DeviceInfo{Name: "llvmpipe", MaxStorageBufferRange: 1 << 27}
	if err := checkHeap(466_033, lp, false, true); err != nil {
		t.Fatalf("466 033 bodies in a 128 MiB range: %v", err)
	}
	err = checkHeap(466_034, lp, false, true)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "134217792 bytes") || !strings.Contains(err.Error(), "Jacobian rows") ||
		!strings.Contains(err.Error(), "at most 466033 bodies") || !strings.Contains(err.Error(), "--backend cpu") {
		t.Fatalf("466 034 bodies in a 128 MiB range: %v, want ErrOutOfMemory naming the buffer, its size, the largest model and --backend cpu", err)
	}
}

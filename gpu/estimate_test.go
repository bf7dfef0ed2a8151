package gpu

import (
	"errors"
	"strings"
	"testing"
)

// TestEstimateBytes checks EstimateBytes against device memory measured
// on lavapipe (see its doc comment), without a run's guard
// (Footprint.Guard), which the measurements leave out: within −10 % and
// +10 %, the estimate following
// the buffer sizes but for Buffer.Grow's and ReuseVec's headroom, which
// depends on how the counts grew (fitted into the bytes per contact
// found); and that each part of the Footprint adds bytes.
func TestEstimateBytes(t *testing.T) {
	ell := Footprint{PairExtras: true, Anisotropic: true}
	spheres := Footprint{Arms: true}
	for _, c := range []struct {
		bodies, contacts int
		measured         float64 // bytes
		f                Footprint
	}{
		{2005, 7810, 4598272, spheres}, {2005, 4316, 3350528, spheres}, {2005, 171, 2429952, ell},
		{64005, 185249, 114.5 * (1 << 20), spheres}, {64005, 185249, 87.5 * (1 << 20), Footprint{Arms: true, Mixed: true}},
	} {
		got := float64(EstimateBytes(c.bodies, c.contacts, c.f))
		t.Logf("EstimateBytes(%d, %d, %+v) = %.0f without the guard, measured %.0f", c.bodies, c.contacts, c.f, got, c.measured)
		if r := got / c.measured; r < 0.9 || r > 1.1 {
			t.Errorf("EstimateBytes(%d, %d, %+v) = %.3g without the guard, measured %.3g (ratio %.2f)", c.bodies, c.contacts, c.f, got, c.measured, r)
		}
	}
	least := EstimateBytes(1000, 3000, Footprint{})
	for _, f := range []Footprint{{Mixed: true}, {Arms: true}, {PairExtras: true}, {Materials: true}, {Loads: true}, {Anisotropic: true}, {Guard: true}} {
		e := EstimateBytes(1000, 3000, f)
		if less := f.Mixed || f.Arms; less && !(e < least) || !less && !(e > least) {
			t.Errorf("EstimateBytes(1000, 3000, %+v) = %d against %d for the zero Footprint", f, e, least)
		}
	}
	// Large models in int64: 2²⁴ bodies with 2²⁶ contacts hold at least
	// the per-contact term, 380 B × 2²⁶ = 23.8 GiB, and the bodies' 628 B
	// each and the capacities' on top.
	if got := EstimateBytes(1<<24, 4<<24, MostFootprint); got < 380<<26+628<<24 {
		t.Errorf("EstimateBytes(2²⁴ bodies, 2²⁶ contacts) = %d: want over %d", got, int64(380<<26+628<<24))
	}
}

// TestCheckHeap: a model whose estimate fits the largest device-local
// heap loads; one past it is refused with ErrOutOfMemory naming both sizes
// and the CPU path; host-only heaps do not count.
func TestCheckHeap(t *testing.T) {
	info := DeviceInfo{Name: "small", Heaps: []MemoryHeap{{Size: 1 << 30, DeviceLocal: true}, {Size: 64 << 30}}}
	if err := checkHeap(10000, info, MostFootprint); err != nil {
		t.Fatalf("10 000 bodies in 1 GiB: %v", err)
	}
	err := checkHeap(1_000_000, info, MostFootprint)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "1024 MiB") || !strings.Contains(err.Error(), "--backend cpu") {
		t.Fatalf("1 000 000 bodies in 1 GiB: %v, want ErrOutOfMemory naming the heap's 1024 MiB and --backend cpu", err)
	}
	if err := checkHeap(1_000_000, DeviceInfo{}, MostFootprint); err != nil {
		t.Fatalf("no heap known: %v, want no refusal", err)
	}
	// lavapipe's 128 MiB binding range: the Jacobian (96 B for each of 3
	// contacts per body) and the pair normals (32 B for each of 4·bodies +
	// 64 pair slots) are bound in four windows of 128 MiB and allow
	// ⌊2²⁹/288⌋ = 1 864 135 and ⌊(2²⁹ − 2048)/128⌋ = 4 194 288 bodies; the
	// contacts' normals and points, bound whole (24 B for each of
	// 3·bodies + 64 contact slots), allow ⌊(2²⁷ − 1536)/72⌋ = 1 864 113.
	lp := DeviceInfo{Name: "llvmpipe", MaxStorageBufferRange: 1 << 27}
	if err := checkHeap(1_864_113, lp, MostFootprint); err != nil {
		t.Fatalf("1 864 113 bodies in a 128 MiB range: %v", err)
	}
	err = checkHeap(1_864_114, lp, MostFootprint)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "134217744 bytes") || !strings.Contains(err.Error(), "normals and points") ||
		!strings.Contains(err.Error(), "at most 1864113 bodies") || !strings.Contains(err.Error(), "--backend cpu") {
		t.Fatalf("1 864 114 bodies in a 128 MiB range: %v, want ErrOutOfMemory naming the buffer, its size, the largest model and --backend cpu", err)
	}
	// A range of 192 MiB binds windows of 128 MiB: the Jacobian's four
	// allow 1 864 135 bodies, fewer than the 2 796 181 of the buffers bound
	// whole.
	odd := DeviceInfo{Name: "odd", MaxStorageBufferRange: 3 << 26}
	if err := checkHeap(1_864_135, odd, MostFootprint); err != nil {
		t.Fatalf("1 864 135 bodies in a 192 MiB range: %v", err)
	}
	err = checkHeap(1_864_136, odd, MostFootprint)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "Jacobian rows") || !strings.Contains(err.Error(), "4 windows of 134217728 bytes") ||
		!strings.Contains(err.Error(), "at most 1864135 bodies") {
		t.Fatalf("1 864 136 bodies in a 192 MiB range: %v, want ErrOutOfMemory naming the Jacobian's windows and the largest model", err)
	}
}

// MostBodies: the largest bed checkHeap takes, by the binding range and by
// the heap: one body more is refused.
func TestMostBodies(t *testing.T) {
	info := DeviceInfo{Name: "small", MaxStorageBufferRange: 1 << 27, Heaps: []MemoryHeap{{Size: 1 << 30, DeviceLocal: true}}}
	byRange, byMemory := MostBodies(info)
	if byRange != 1_864_113 {
		t.Errorf("by range: %d bodies, want 1 864 113 (TestCheckHeap)", byRange)
	}
	if byMemory <= 0 || byMemory >= byRange {
		t.Fatalf("by memory: %d bodies in 1 GiB, want fewer than by range", byMemory)
	}
	if err := checkHeap(int(byMemory), info, Footprint{Arms: true}); err != nil {
		t.Errorf("%d bodies: %v", byMemory, err)
	}
	if err := checkHeap(int(byMemory)+1, info, Footprint{Arms: true}); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("%d bodies: %v, want ErrOutOfMemory", byMemory+1, err)
	}
	if r, m := MostBodies(DeviceInfo{}); r != -1 || m != -1 {
		t.Errorf("no limits stated: %d, %d, want −1, −1", r, m)
	}
}

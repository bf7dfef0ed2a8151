//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// TestMemoryLimit: on a device capped at 64 KiB, buffers up to the cap
// are made, the one past it fails with ErrOutOfMemory naming its size, a
// Grow past it fails and leaves the buffer as it was, and releasing a
// buffer makes room again.
// On the staging path (a discrete GPU's) the same holds: the staging
// buffer, host memory, is not counted.
func TestMemoryLimit(t *testing.T) {
	for _, staging := range []bool{false, true} {
		t.Run(fmt.Sprintf("staging=%v", staging), func(t *testing.T) { testMemoryLimit(t, staging) })
	}
}

func testMemoryLimit(t *testing.T, staging bool) {
	const limit = 64 << 10
	d, err := openDevice(Options{MemoryLimit: limit, forceStaging: staging})
	if err != nil {
		skipOrFail(t, err)
	}
	defer func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
		checkValidation(t, d)
	}()
	if n := d.MemoryBytes(); n != 0 {
		t.Fatalf("a new device holds %d bytes of buffers; the test assumes none (no staging buffer yet)", n)
	}
	a, err := d.NewFloat64(4 << 10) // 32 KiB
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteFloat64(0, []float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	b, err := d.NewFloat64(2 << 10) // 16 KiB: 48 KiB in all
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.NewFloat64(4 << 10) // 32 KiB more: 80 KiB
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "allocate 32768 bytes") {
		t.Fatalf("a buffer past the limit: %v; want ErrOutOfMemory naming 32768 bytes", err)
	}
	if err := a.Grow(8 * (6 << 10)); !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("Grow past the limit: %v; want ErrOutOfMemory", err)
	}
	got := make([]float64, 3)
	if err := a.ReadFloat64(got, 0); err != nil || got[0] != 1 || got[2] != 3 || a.Len() != 4<<10 {
		t.Fatalf("after the failed Grow: %v, %v, length %d; want [1 2 3], 4096", got, err, a.Len())
	}
	b.Release()
	c, err := d.NewFloat64(4 << 10)
	if err != nil {
		t.Fatalf("after releasing 16 KiB, 32 KiB more: %v", err)
	}
	c.Release()
	a.Release()
}

// TestLoadOutOfMemory: a backend whose device is capped below what a
// scene needs fails Load with ErrOutOfMemory, an error that says what it
// was loading, and closes cleanly.
func TestLoadOutOfMemory(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=300"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := newBackend(Options{MemoryLimit: 16 << 10})
	if err != nil {
		skipOrFail(t, err)
	}
	err = b.Load(&sc.Model, &sc.Settings)
	if !errors.Is(err, ErrOutOfMemory) || errors.Is(err, engine.ErrUnavailable) {
		t.Fatalf("Load on a 16 KiB device: %v; want ErrOutOfMemory (not ErrUnavailable)", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("load %d bodies", len(sc.Model.Bodies))) {
		t.Errorf("error %q does not say what was being loaded", err)
	}
	t.Log(err)
	if err := b.Close(); err != nil {
		t.Error(err)
	}
}

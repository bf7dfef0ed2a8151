//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// forEachDevice runs f on the unified-memory device and on the staging
// one (device-local buffers, the discrete-GPU path).
func forEachDevice(t *testing.T, f func(t *testing.T, d *Device)) {
	t.Run("mapped", func(t *testing.T) { f(t, requireDevice(t)) })
	t.Run("staging", func(t *testing.T) { f(t, requireStagingDevice(t)) })
}

func TestBufferRoundTrip(t *testing.T) {
	forEachDevice(t, func(t *testing.T, d *Device) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, n := range []int{0, 1, 7, 2049, stagingChunk/8 + 5} {
			b, err := d.NewFloat64(n)
			if err != nil {
				t.Fatal(err)
			}
			zero := make([]float64, n)
			got := make([]float64, n)
			if err := b.ReadFloat64(got, 0); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, zero) {
				t.Errorf("n=%d: new buffer is not zeroed", n)
			}
			src := make([]float64, n)
			for i := range src {
				src[i] = r.NormFloat64()
			}
			if err := b.WriteFloat64(0, src); err != nil {
				t.Fatal(err)
			}
			if err := b.ReadFloat64(got, 0); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, src) {
				t.Errorf("n=%d: read back differs", n)
			}
			if n > 3 {
				part := make([]float64, 2)
				if err := b.ReadFloat64(part, n-2); err != nil || part[0] != src[n-2] || part[1] != src[n-1] {
					t.Errorf("n=%d: ReadFloat64 at an offset: %v, %v", n, part, err)
				}
			}
			b.Release()
			b.Release()
		}
		u, err := d.NewBuffer(4 * 10)
		if err != nil {
			t.Fatal(err)
		}
		defer u.Release()
		in := []uint32{1, 2, 3, math.MaxUint32}
		if err := u.WriteUint32(6, in); err != nil {
			t.Fatal(err)
		}
		out := make([]uint32, 10)
		if err := u.ReadUint32(out, 0); err != nil || !slices.Equal(out, []uint32{0, 0, 0, 0, 0, 0, 1, 2, 3, math.MaxUint32}) {
			t.Errorf("uint32 round trip: %v, %v", out, err)
		}
	})
}

func TestBufferOverflow(t *testing.T) {
	d := requireDevice(t)
	b, err := d.NewFloat64(10)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	for _, c := range []struct {
		off, n int
	}{{0, 11}, {5, 6}, {10, 1}, {-1, 1}} {
		if err := b.WriteFloat64(c.off, make([]float64, c.n)); err == nil || !strings.Contains(err.Error(), "overflows") {
			t.Errorf("write of %d at %d: %v", c.n, c.off, err)
		}
		if err := b.ReadFloat64(make([]float64, c.n), c.off); err == nil || !strings.Contains(err.Error(), "overflows") {
			t.Errorf("read of %d at %d: %v", c.n, c.off, err)
		}
	}
	if _, err := d.NewBuffer(int64(d.Info.MaxStorageBufferRange) + 1); err == nil || !strings.Contains(err.Error(), "maxStorageBufferRange") {
		t.Errorf("buffer over maxStorageBufferRange: %v", err)
	}
	if err := b.Grow(int64(d.Info.MaxStorageBufferRange) + 8); err == nil {
		t.Error("Grow over maxStorageBufferRange succeeded")
	}
}

// TestBufferGrow: Grow and GrowDiscard give the size asked for (never
// less than the buffer had). Grow keeps the contents and zeroes the new
// part; GrowDiscard reallocates without a submit of its own (Grow copies
// the old contents in one) and leaves the buffer zeroed where it
// reallocated and as it was where the capacity sufficed.
func TestBufferGrow(t *testing.T) {
	for _, keep := range []bool{true, false} {
		name := map[bool]string{true: "Grow", false: "GrowDiscard"}[keep]
		grow := func(b *Buffer, size int64) error {
			if keep {
				return b.Grow(size)
			}
			return b.GrowDiscard(size)
		}
		t.Run(name, func(t *testing.T) {
			forEachDevice(t, func(t *testing.T, d *Device) {
				b, err := d.NewFloat64(5)
				if err != nil {
					t.Fatal(err)
				}
				defer b.Release()
				src := []float64{1, 2, 3, 4, 5}
				for _, n := range []int{6, 100, 40000, 3} {
					if err := b.WriteFloat64(0, src); err != nil {
						t.Fatal(err)
					}
					before, capacity := d.Submits(), b.capacity
					if err := grow(b, 8*int64(n)); err != nil {
						t.Fatal(err)
					}
					realloc, submits := b.capacity != capacity, d.Submits()-before
					if want := max(n, 5); b.Len() < want || (n > 5 && b.Len() != n) {
						t.Fatalf("after %s(%d): Len %d, want %d", name, n, b.Len(), want)
					}
					got := make([]float64, b.Len())
					if err := b.ReadFloat64(got, 0); err != nil {
						t.Fatal(err)
					}
					kept := slices.Equal(got[:5], src)
					zeros := !slices.ContainsFunc(got[5:], func(v float64) bool { return v != 0 })
					switch {
					case keep || !realloc:
						if !kept || !zeros {
							t.Errorf("after %s(%d): contents %v…, want %v then zeros", name, n, got[:min(8, len(got))], src)
						}
					case submits != 0:
						t.Errorf("%s(%d) reallocated with %d submits, want none", name, n, submits)
					case !zeros || slices.ContainsFunc(got[:5], func(v float64) bool { return v != 0 }):
						t.Errorf("after %s(%d) reallocated: contents %v…, want zeros", name, n, got[:min(8, len(got))])
					}
				}
			})
		})
	}
}

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/shaders"
)

var benchSizes = []int{1_000, 10_000, 100_000, 1_000_000}

// benchDevice opens a device without the validation layer, which would
// dominate the timings.
func benchDevice(b *testing.B) *Device {
	b.Helper()
	d, err := Open(Options{})
	if err != nil {
		skipOrFail(b, err)
	}
	b.Cleanup(func() {
		if err := d.Close(); err != nil {
			b.Error(err)
		}
	})
	return d
}

// BenchmarkSubmit is the fixed cost of one submit-and-wait: an empty batch,
// and a batch with one dispatch over 256 elements.
func BenchmarkSubmit(b *testing.B) {
	d := benchDevice(b)
	bt, err := d.NewBatch()
	if err != nil {
		b.Fatal(err)
	}
	defer bt.Release()
	b.Run("empty", func(b *testing.B) {
		for b.Loop() {
			if err := bt.Begin(); err != nil {
				b.Fatal(err)
			}
			if err := bt.Submit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fill256", func(b *testing.B) {
		k, err := d.Kernel(shaders.Fill)
		if err != nil {
			b.Fatal(err)
		}
		x, err := d.NewFloat64(256)
		if err != nil {
			b.Fatal(err)
		}
		defer x.Release()
		for b.Loop() {
			if err := bt.Begin(); err != nil {
				b.Fatal(err)
			}
			if err := bt.Dispatch(k, [3]uint32{1, 1, 1}, shaders.FillArgs{V: 1, N: 256}, x); err != nil {
				b.Fatal(err)
			}
			if err := bt.Submit(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDot times Dot (the Vulkan one includes its submit and the
// read-back of the scalar) against cpuref's.
func BenchmarkDot(b *testing.B) {
	for _, n := range benchSizes {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		xs, ys := randVec(r, n), randVec(r, n)
		run := func(b *testing.B, la engine.LinAlg) {
			x, y := enginetest.VecOf(la, xs), enginetest.VecOf(la, ys)
			b.SetBytes(16 * int64(n))
			for b.Loop() {
				la.Dot(x, y)
			}
		}
		b.Run(fmt.Sprintf("cpu/n=%d", n), func(b *testing.B) { run(b, cpuref.New(0)) })
		b.Run(fmt.Sprintf("vulkan/n=%d", n), func(b *testing.B) {
			l := newLinAlg(b, benchDevice(b))
			run(b, l)
			b.ReportMetric(float64(l.b.GPUTime().Nanoseconds()), "gpu-ns/op")
		})
	}
}

// BenchmarkAxpby times one Axpby with its own submit (Flush) against
// cpuref's.
func BenchmarkAxpby(b *testing.B) {
	for _, n := range benchSizes {
		r := rand.New(rand.NewPCG(2, uint64(n)))
		xs, ys := randVec(r, n), randVec(r, n)
		b.Run(fmt.Sprintf("cpu/n=%d", n), func(b *testing.B) {
			la := cpuref.New(0)
			x, y, z := enginetest.VecOf(la, xs), enginetest.VecOf(la, ys), la.NewVec(n)
			b.SetBytes(24 * int64(n))
			for b.Loop() {
				la.Axpby(z, 0.5, x, 2, y)
			}
		})
		b.Run(fmt.Sprintf("vulkan/n=%d", n), func(b *testing.B) {
			l := newLinAlg(b, benchDevice(b))
			x, y, z := enginetest.VecOf(l, xs), enginetest.VecOf(l, ys), l.NewVec(n)
			b.SetBytes(24 * int64(n))
			for b.Loop() {
				l.Axpby(z, 0.5, x, 2, y)
				if err := l.Flush(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(l.b.GPUTime().Nanoseconds()), "gpu-ns/op")
		})
	}
}

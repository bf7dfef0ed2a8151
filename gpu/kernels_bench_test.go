//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// kernelBenchSizes is the size grid (spheres) of the per-kernel
// benchmarks below, the sizes of gpusim bench's settle rows.
func kernelBenchSizes() []int { return []int{1000, 8000, 64000} }

// kernelFixture is a backend loaded with enginetest.LatticeModel(n), collided and
// built, with two vectors of length 3nc (x holds a fixed pattern) and the
// block diagonal of N in d.
type kernelFixture struct {
	be       engine.Backend
	p        engine.Problem
	x, y, d  engine.Vec
	h        float64
	nc       int
	sync     func() error // waits for recorded work (no-op on the CPU)
	submits  func() int
	submits0 int
}

// benchKernel runs op on the CPU path and on the Vulkan path for each
// size of the grid, waiting for the device's work after every op. The
// Vulkan runs report the submits per op.
func benchKernel(b *testing.B, op func(f *kernelFixture) error) {
	for _, n := range kernelBenchSizes() {
		for _, path := range []string{"cpu", "vulkan"} {
			b.Run(fmt.Sprintf("%s/n=%d", path, n), func(b *testing.B) {
				f := &kernelFixture{sync: func() error { return nil }, submits: func() int { return 0 }}
				if path == "cpu" {
					f.be = cpuref.New(0)
				} else {
					gb, err := newBackendOn(benchDevice(b))
					if err != nil {
						b.Fatal(err)
					}
					f.be, f.sync, f.submits = gb, gb.sync, gb.Submits
				}
				defer f.be.Close()
				set := engine.DefaultSettings()
				f.h = set.Dt
				if err := f.be.Load(enginetest.LatticeModel(n), &set); err != nil {
					b.Fatal(err)
				}
				var err error
				if f.nc, err = f.be.Collide(); err != nil {
					b.Fatal(err)
				}
				if f.p, err = f.be.Build(f.h); err != nil {
					b.Fatal(err)
				}
				xs := make([]float64, 3*f.nc)
				for i := range xs {
					xs[i] = float64(i%7) - 3
				}
				f.x, f.y, f.d = f.p.NewVec(3*f.nc), f.p.NewVec(3*f.nc), f.p.NewVec(3*f.nc)
				f.p.Write(f.x, xs)
				f.p.BlockDiag(f.d)
				if err := f.sync(); err != nil {
					b.Fatal(err)
				}
				f.submits0 = f.submits()
				b.ResetTimer()
				for b.Loop() {
					if err := op(f); err != nil {
						b.Fatal(err)
					}
					if err := f.sync(); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(f.nc), "contacts")
				b.ReportMetric(float64(f.submits()-f.submits0)/float64(b.N), "submits/op")
			})
		}
	}
}

// BenchmarkBuild: free_velocity and jacobian (cpuref's Build): D and r.
func BenchmarkBuild(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { _, err := f.be.Build(f.h); return err })
}

// BenchmarkSchur: body_impulse and contact_velocity, y = N x matrix-free.
func BenchmarkSchur(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { f.p.Schur(f.y, f.x); return nil })
}

// BenchmarkProject: project, the cone projection of every contact.
func BenchmarkProject(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { f.p.Project(f.y, f.x); return nil })
}

// BenchmarkAntiRelax: anti_relax, y = r plus the anti-relaxation term.
func BenchmarkAntiRelax(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { f.p.AntiRelax(f.y, f.x); return nil })
}

// BenchmarkBlockDiag: block_diag, the diagonal blocks' traces of N.
func BenchmarkBlockDiag(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { f.p.BlockDiag(f.y); return nil })
}

// BenchmarkSweep: sweep, one projected Gauss–Seidel sweep (ω = 1, λ = 1).
func BenchmarkSweep(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { f.p.Sweep(f.y, f.d, 1, 1); return nil })
}

// BenchmarkIntegrate: body_impulse and integrate with γ = 0 (the bodies
// fall freely for b.N steps; the work per step does not depend on where
// they are).
func BenchmarkIntegrate(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { return f.be.Integrate(f.y, f.h) })
}

// BenchmarkFixedForce: fixed_force and sum, the force on fixed bodies.
func BenchmarkFixedForce(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { _, err := f.be.FixedForce(f.x, f.h); return err })
}

// BenchmarkWarmStart: collide_keys' merge (cpuref's map look-up) of the
// last step's impulses into γ.
func BenchmarkWarmStart(b *testing.B) {
	benchKernel(b, func(f *kernelFixture) error { return f.be.WarmStart(f.y) })
}

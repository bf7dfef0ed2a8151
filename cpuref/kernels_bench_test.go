package cpuref

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// benchProblem runs op over benchSizes on latticeBackend's problem, with
// x holding a fixed pattern, y zero and d the block diagonal of N. The
// same kernels on both paths are in package gpu (kernels_bench_test.go).
func benchProblem(b *testing.B, op func(be *Backend, p engine.Problem, x, y, d Vec) error) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			be, p := latticeBackend(b, n)
			nc := be.con.Len()
			x, y, d := make(Vec, 3*nc), make(Vec, 3*nc), make(Vec, 3*nc)
			for i := range x {
				x[i] = float64(i%7) - 3
			}
			p.BlockDiag(d)
			b.ResetTimer()
			for b.Loop() {
				if err := op(be, p, x, y, d); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(nc), "contacts")
		})
	}
}

// BenchmarkBuild measures Build: the Jacobian D and r.
func BenchmarkBuild(b *testing.B) {
	h := engine.DefaultSettings().Dt
	benchProblem(b, func(be *Backend, _ engine.Problem, _, _, _ Vec) error { _, err := be.Build(h); return err })
}

// BenchmarkAntiRelax measures AntiRelax: r plus the anti-relaxation term.
func BenchmarkAntiRelax(b *testing.B) {
	benchProblem(b, func(_ *Backend, p engine.Problem, x, y, _ Vec) error { p.AntiRelax(y, x); return nil })
}

// BenchmarkBlockDiag measures BlockDiag: the traces of N's diagonal blocks.
func BenchmarkBlockDiag(b *testing.B) {
	benchProblem(b, func(_ *Backend, p engine.Problem, _, y, _ Vec) error { p.BlockDiag(y); return nil })
}

// BenchmarkSweep measures one projected Gauss–Seidel sweep (ω = λ = 1).
func BenchmarkSweep(b *testing.B) {
	benchProblem(b, func(_ *Backend, p engine.Problem, _, y, d Vec) error { p.Sweep(y, d, 1, 1); return nil })
}

// BenchmarkColour measures the gs sweep's colouring of the contacts (made
// once per step, by the first sweep after Build) with the sweep's copies
// of the contacts' data in its order.
func BenchmarkColour(b *testing.B) {
	benchProblem(b, func(be *Backend, _ engine.Problem, _, _, _ Vec) error {
		be.col.valid = false
		be.sweepCopies()
		return nil
	})
}

// BenchmarkIntegrate measures Integrate with γ = 0 (the bodies fall freely
// for b.N steps; the work does not depend on where they are).
func BenchmarkIntegrate(b *testing.B) {
	h := engine.DefaultSettings().Dt
	benchProblem(b, func(be *Backend, _ engine.Problem, _, y, _ Vec) error { return be.Integrate(y, h) })
}

// BenchmarkFixedForce measures FixedForce: the force on fixed bodies.
func BenchmarkFixedForce(b *testing.B) {
	h := engine.DefaultSettings().Dt
	benchProblem(b, func(be *Backend, _ engine.Problem, x, _, _ Vec) error { _, err := be.FixedForce(x, h); return err })
}

// BenchmarkWarmStart measures WarmStart: the last step's impulses of the
// persisting contacts into γ.
func BenchmarkWarmStart(b *testing.B) {
	benchProblem(b, func(be *Backend, _ engine.Problem, _, y, _ Vec) error { return be.WarmStart(y) })
}

package cpuref

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// latticeBackend loads enginetest.LatticeModel(n), a settled-like pile
// of about 3 contacts per sphere, collides and builds it, with GOMAXPROCS
// workers.
func latticeBackend(b *testing.B, n int) (*Backend, engine.Problem) {
	b.Helper()
	return latticeBackendOn(b, n, 0)
}

// latticeBackendOn is latticeBackend on the given number of workers (0:
// GOMAXPROCS).
func latticeBackendOn(tb testing.TB, n, workers int) (*Backend, engine.Problem) {
	tb.Helper()
	m := enginetest.LatticeModel(n)
	s := engine.DefaultSettings()
	be := New(workers)
	if err := be.Load(m, &s); err != nil {
		tb.Fatal(err)
	}
	if _, err := be.Collide(); err != nil {
		tb.Fatal(err)
	}
	p, err := be.Build(s.Dt)
	if err != nil {
		tb.Fatal(err)
	}
	return be, p
}

var benchSizes = []int{1000, 8000, 64000}

// BenchmarkSchur measures one matrix-free product Dᵀ(M⁻¹(Dx)).
func BenchmarkSchur(b *testing.B) {
	benchProblem(b, func(_ *Backend, p engine.Problem, x, y, _ Vec) error { p.Schur(y, x); return nil })
}

// BenchmarkProject measures one cone projection of every contact.
func BenchmarkProject(b *testing.B) {
	benchProblem(b, func(_ *Backend, p engine.Problem, x, y, _ Vec) error { p.Project(y, x); return nil })
}

// BenchmarkCollide measures broadphase and narrowphase of a whole step.
func BenchmarkCollide(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			be, _ := latticeBackend(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := be.Collide(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

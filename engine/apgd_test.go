package engine_test

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// twoD is the 2-D example of section 3.1 of the anti-relaxation paper,
// N = diag(1, 3.5), r = (−0.0981, 2), μ = 0.2, embedded in one 3-D contact
// (the w direction decoupled with the same 3.5 and no load).
func twoD(t *testing.T) *cpuref.MatrixProblem {
	t.Helper()
	p, err := cpuref.NewMatrixProblem(1,
		[]cpuref.Entry{{Row: 0, Col: 0, Val: 1}, {Row: 1, Col: 1, Val: 3.5}, {Row: 2, Col: 2, Val: 3.5}},
		[]float64{-0.0981, 2, 0}, []float64{0.2}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func solve(t *testing.T, name string, p engine.Problem, tol float64) ([]float64, engine.SolveStats) {
	t.Helper()
	s, err := engine.NewSolver(name)
	if err != nil {
		t.Fatal(err)
	}
	g := p.NewVec(3 * p.Contacts())
	st, err := s.Solve(p, g, engine.SolveOptions{Tol: tol, MaxIter: 5000, Gd: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, g.Len())
	p.Read(out, g)
	return out, st
}

// TestTwoDExampleAntiRelaxed: the paper's analytic impulses γ = (0.0981,
// −0.01962): the ball slides, so friction is μγ_n opposing the slip.
func TestTwoDExampleAntiRelaxed(t *testing.T) {
	g, st := solve(t, "apgd-ar", twoD(t), 1e-12)
	want := []float64{0.0981, -0.01962, 0}
	for k := range want {
		// The fixed point is exact; 1e-9 leaves room for the residual
		// tolerance 1e-12 times the 3·nc·g_d scaling of eq. 25.
		if math.Abs(g[k]-want[k]) > 1e-9 {
			t.Fatalf("γ = %v, want %v (stats %+v)", g, want, st)
		}
	}
}

// TestTwoDExampleRelaxed: the relaxed CCP has its optimum on the cone
// boundary γ_t = −μγ_n with ½(1 + 3.5μ²)γ_n² − (0.0981 + 2μ)γ_n minimal,
// γ_n = 0.4981/1.14 ≈ 0.437: the artefact that launches the ball.
func TestTwoDExampleRelaxed(t *testing.T) {
	g, _ := solve(t, "apgd", twoD(t), 1e-12)
	gn := (0.0981 + 2*0.2) / (1 + 3.5*0.2*0.2)
	want := []float64{gn, -0.2 * gn, 0}
	for k := range want {
		if math.Abs(g[k]-want[k]) > 1e-9 { // as above
			t.Fatalf("γ = %v, want %v", g, want)
		}
	}
}

package engine_test

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// oneContact returns the one-contact problem N = I₃, r = (rn, 0, 0),
// μ = 0.5: separating for rn > 0 (γ = 0), resting for rn < 0
// (γ = (−rn, 0, 0), u = 0).
func oneContact(t *testing.T, rn float64) *cpuref.MatrixProblem {
	t.Helper()
	p, err := cpuref.NewMatrixProblem(1,
		[]cpuref.Entry{{Row: 0, Col: 0, Val: 1}, {Row: 1, Col: 1, Val: 1}, {Row: 2, Col: 2, Val: 1}},
		[]float64{rn, 0, 0}, []float64{0.5}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// longSolve runs the solver name on oneContact(rn) from γ = 0 for 7000
// iterations with tolerance 0 (g_d = 1/9, history kept) and returns the
// last iterate and the statistics; an error fails the test.
func longSolve(t *testing.T, name string, rn float64) ([]float64, engine.SolveStats) {
	t.Helper()
	p := oneContact(t, rn)
	s, err := engine.NewSolver(name)
	if err != nil {
		t.Fatal(err)
	}
	g := p.NewVec(3)
	st, err := s.Solve(p, g, engine.SolveOptions{Tol: 0, MaxIter: 7000, Gd: 1.0 / 9, History: true})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, 3)
	p.Read(out, g)
	return out, st
}

// TestAPGDLongSeparating: APGD and APGD-AR run 7000 iterations with
// tolerance 0 on a separating contact. The iterates stay at γ = 0, so the
// line search never raises L and lines 28–29 shrink it by 0.9 per
// iteration: without a floor 1/L overflowed at iteration 6737 (L₀ = 1) and
// the solve failed with "objective is NaN". With the floor εL₀ the step
// stops at exactly 2⁵² times the first (L₀ = √3/√3 = 1 exactly, and
// 0.9ᵏ < 2⁻⁵² from k = 343 on).
func TestAPGDLongSeparating(t *testing.T) {
	for _, name := range []string{"apgd", "apgd-ar"} {
		t.Run(name, func(t *testing.T) {
			out, st := longSolve(t, name, 1)
			if out[0] != 0 || out[1] != 0 || out[2] != 0 {
				t.Errorf("γ = %v, want 0", out)
			}
			if st.Iterations != 7000 || st.Residual != 0 || st.Objective != 0 {
				t.Errorf("stats: %d iterations, residual %g, objective %g; want 7000, 0, 0", st.Iterations, st.Residual, st.Objective)
			}
			h := st.History
			if h[0].Step != 1 {
				t.Fatalf("first step %v, want 1/L₀ = 1", h[0].Step)
			}
			for _, r := range h {
				if !(r.Step <= 0x1p52) {
					t.Fatalf("iteration %d: step %v, want at most 2⁵² (the floor εL₀ under L)", r.Iter, r.Step)
				}
			}
			if last := h[len(h)-1].Step; last != 0x1p52 {
				t.Errorf("last step %v, want 2⁵² = 1/(εL₀)", last)
			}
		})
	}
}

// TestSolversLongRun: every solver runs 7000 iterations with tolerance 0
// on a separating and a resting contact without failing, and ends at the
// exact solution (γ = 0, and γ = (1, 0, 0) with u = 0: the first
// projected-gradient steps land on it exactly in these sizes; PDIP, an
// interior method, stops at its duality-gap test within 1e-12 of it, an
// absolute bound 1e4 times ε on an impulse of 1). It guards the step-size
// parameters that persist from iteration to iteration (APGD's L, SPG's α,
// clamped to [α_min, α_max], Jacobi's and Gauss–Seidel's ω, λ, fixed; PDIP's
// barrier t = μm/gap is recomputed from the gap) against drift.
func TestSolversLongRun(t *testing.T) {
	for _, name := range []string{"apgd", "apgd-ar", "gs", "jacobi", "spg", "pdip"} {
		for _, c := range []struct {
			what string
			rn   float64
			want [3]float64
		}{{"separating", 1, [3]float64{}}, {"resting", -1, [3]float64{1, 0, 0}}} {
			t.Run(name+"/"+c.what, func(t *testing.T) {
				out, st := longSolve(t, name, c.rn)
				tol := 0.0
				if name == "pdip" {
					tol = 1e-12
				} else if st.Iterations != 7000 {
					t.Errorf("%d iterations, want 7000", st.Iterations)
				}
				for i := range out {
					if !(math.Abs(out[i]-c.want[i]) <= tol) {
						t.Fatalf("γ = %v, want %v", out, c.want)
					}
				}
				for _, r := range st.History {
					if math.IsNaN(r.Step) || math.IsInf(r.Step, 0) {
						t.Fatalf("iteration %d: step %v", r.Iter, r.Step)
					}
				}
			})
		}
	}
}

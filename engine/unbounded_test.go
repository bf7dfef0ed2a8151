package engine_test

import (
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// ccpProblem makes a problem of nc contacts from N's entries, r, μ and
// the cohesion impulses (nil: none).
func ccpProblem(t *testing.T, nc int, entries []cpuref.Entry, r, mu, coh []float64) *cpuref.MatrixProblem {
	t.Helper()
	p, err := cpuref.NewMatrixProblem(nc, entries, r, mu, coh, 1)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var allSolvers = []string{"apgd", "apgd-ar", "gs", "jacobi", "spg", "pdip"}

// classify runs the solver from γ₀ = 0 with the CLI's defaults (tol 1e-10,
// 10000 iterations, g_d = 1/(3nc)²) and returns the status.
func classify(t *testing.T, name string, p engine.Problem) (engine.Status, *engine.Certificate, engine.SolveStats, error) {
	t.Helper()
	s, err := engine.NewSolver(name)
	if err != nil {
		t.Fatal(err)
	}
	n := 3 * p.Contacts()
	g := p.NewVec(n)
	gd := 1 / float64(n*n)
	st, err := s.Solve(p, g, engine.SolveOptions{Tol: 1e-10, MaxIter: 10000, Gd: gd})
	status, c := engine.Classify(p, g, st, err)
	return status, c, st, err
}

// TestUnboundedZeroN: N = 0, r = (−1, 0, 0), μ = 0.5: the objective is
// −γ_n, unbounded along d = (1, 0, 0) ∈ K. APGD, APGD-AR and PDIP used to
// report convergence (γ_n ≈ 1e15, where g_d·u is below half an ulp of γ_n
// and the residual of eq. 25 rounds to 0); Gauss–Seidel, Jacobi and SPG
// fail on the zero block diagonal. Every one must now say unbounded, with
// N stored as no entries or as explicit zeros.
func TestUnboundedZeroN(t *testing.T) {
	zeros := []cpuref.Entry{{Row: 0, Col: 0}, {Row: 1, Col: 1}, {Row: 2, Col: 2}}
	for _, entries := range [][]cpuref.Entry{nil, zeros} {
		for _, name := range allSolvers {
			p := ccpProblem(t, 1, entries, []float64{-1, 0, 0}, []float64{0.5}, nil)
			status, c, st, err := classify(t, name, p)
			if status != engine.StatusUnbounded || c == nil {
				t.Errorf("%s, %d entries: status %q (stats %+v, error %v), want unbounded", name, len(entries), status, st, err)
				continue
			}
			// N = 0: no curvature at all, and the slope is −δ_n < 0.
			if c.Curvature != 0 || !(c.Slope < 0) || c.Ratio != 0 {
				t.Errorf("%s: certificate %+v, want curvature 0 and a negative slope", name, c)
			}
		}
	}
}

// TestUnboundedKernel: two contacts whose normal impulses cancel (N's
// normal block [[1, −1], [−1, 1]], tangential rows zero, no zero block
// diagonal) with r = (−1, 0, 0, −1, 0, 0): unbounded along d = (1, 0, 0,
// 1, 0, 0) ∈ K (Nd = 0, rᵀd = −2). No block is zero, so the certificate
// must come from the returned γ, for the solvers that run off along d.
func TestUnboundedKernel(t *testing.T) {
	entries := []cpuref.Entry{{Row: 0, Col: 0, Val: 1}, {Row: 0, Col: 3, Val: -1}, {Row: 3, Col: 0, Val: -1}, {Row: 3, Col: 3, Val: 1}}
	for _, name := range allSolvers {
		p := ccpProblem(t, 2, entries, []float64{-1, 0, 0, -1, 0, 0}, []float64{0.5, 0.5}, nil)
		status, c, st, err := classify(t, name, p)
		if status == engine.StatusConverged {
			t.Errorf("%s: converged (stats %+v)", name, st)
		}
		t.Logf("%s: status %s, certificate %+v, %d iterations, error %v", name, status, c, st.Iterations, err)
	}
}

// TestBoundedNotUnbounded: problems with a minimum are never called
// unbounded, and every solver converges on them: N = I with r = (±1, 0, 0)
// (γ = (1, 0, 0) resting, 0 separating), N = 0 with r = (1, 0, 0) (γ = 0,
// for the solvers that accept a zero block), and N = I, r = (10⁷, 0, 0)
// with cohesion 1, whose minimum γ = (−1, 0, 0) sits on the shifted cone's
// apex: there γ's own ratio γᵀNγ/(−rᵀγ) = 1e-7 would pass the test, so
// the certificate must test δ = γ + c projected onto K (here 0, no ray).
func TestBoundedNotUnbounded(t *testing.T) {
	eye := []cpuref.Entry{{Row: 0, Col: 0, Val: 1}, {Row: 1, Col: 1, Val: 1}, {Row: 2, Col: 2, Val: 1}}
	cases := []struct {
		what     string
		entries  []cpuref.Entry
		r, coh   []float64
		zeroDiag bool
	}{
		{"N = I, resting", eye, []float64{-1, 0, 0}, nil, false},
		{"N = I, separating", eye, []float64{1, 0, 0}, nil, false},
		{"N = 0, separating", nil, []float64{1, 0, 0}, nil, true},
		{"N = I, cohesive apex", eye, []float64{1e7, 0, 0}, []float64{1}, false},
	}
	for _, c := range cases {
		for _, name := range allSolvers {
			p := ccpProblem(t, 1, c.entries, c.r, []float64{0.5}, c.coh)
			status, cert, st, err := classify(t, name, p)
			want := engine.StatusConverged
			if c.zeroDiag && (name == "gs" || name == "jacobi" || name == "spg") {
				want = engine.StatusFailed // g_i = 0 is outside their domain
			}
			if status != want {
				t.Errorf("%s, %s: status %q (certificate %+v, stats %+v, error %v), want %q", c.what, name, status, cert, st, err, want)
			}
		}
	}
}

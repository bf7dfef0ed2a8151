//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"testing"
	"time"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// hostPCG hides the problem's SolvePCG, so that engine.PDIP runs its PCG
// loop from the host through the Problem's methods.
type hostPCG struct{ engine.Problem }

// TestDevicePCG: PDIP with the device PCG returns what PDIP driving PCG
// from the host returns on the same problem, and what it returns on
// cpuref, bit for bit (γ, iterations, residual, objective, history), on a
// random pile with frictionless contacts (the mask) and cohesion; and it
// submits less: the host-driven loop submits twice per PCG iteration.
func TestDevicePCG(t *testing.T) {
	requireUnfusedGo(t)
	tw, cp, gp := randomTwin(t, 29, 100, 0)
	n := 3 * tw.nc
	mu := make([]float64, tw.nc)
	gp.Cones(mu, make([]float64, tw.nc))
	frictionless := 0
	for _, m := range mu {
		if m == 0 {
			frictionless++
		}
	}
	if frictionless == 0 || frictionless == tw.nc {
		t.Fatalf("%d of %d contacts frictionless: the case no longer tests the mask", frictionless, tw.nc)
	}
	opt := engine.SolveOptions{MaxIter: 6, Gd: engine.DefaultSettings().Gd, History: true}
	solve := func(p engine.Problem) ([]float64, engine.SolveStats, int) {
		t.Helper()
		g := enginetest.VecOf(p, make([]float64, n))
		before, start := tw.gpu.Submits(), time.Now()
		st, err := (&engine.PDIP{}).Solve(p, g, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%T: %v", p, time.Since(start))
		return enginetest.ReadVec(p, g), st, tw.gpu.Submits() - before
	}
	dg, dst, dsub := solve(gp)
	hg, hst, hsub := solve(hostPCG{gp})
	cg, cst, _ := solve(cp)
	sameSolve(t, "driven from the host", dg, dst, hg, hst)
	sameSolve(t, "on cpuref", dg, dst, cg, cst)
	t.Logf("%d contacts (%d frictionless), %d iterations, residual %.3g; %d submits, %d driven from the host",
		tw.nc, frictionless, dst.Iterations, dst.Residual, dsub, hsub)
	if 3*dsub > hsub {
		t.Errorf("%d submits with the device PCG, %d without: want at most a third", dsub, hsub)
	}
}

// TestDevicePCGEnds: the ends engine's loop takes on systems PDIP does
// not make: a right-hand side that is not finite, and a first curvature
// dᵀ(N̂ + H)d ≤ 0, where x is the preconditioned right-hand side; a short
// solve after a short one records few blocks; and a solve to the
// tolerance solves the system.
func TestDevicePCGEnds(t *testing.T) {
	tw, _, gp := randomTwin(t, 31, 200, 0)
	nc := tw.nc
	n := 3 * nc
	d := gp.(engine.DevicePCG)
	sys := func(h float64) engine.PCGSystem {
		s := engine.PCGSystem{H: make([]float64, 7*nc), Prec: make([]float64, 6*nc), InvSN: 1, MaxIter: 2*n + 50, StopFactor: 1e-12}
		for i := range nc {
			s.H[7*i], s.H[7*i+1], s.H[7*i+2] = h, h, h
			s.Prec[6*i], s.Prec[6*i+1], s.Prec[6*i+2] = 1, 1, 1
		}
		return s
	}
	rhs := make([]float64, n)
	for i := range rhs {
		rhs[i] = float64(i%7) - 3
	}
	t.Run("curvature", func(t *testing.T) {
		x, b := enginetest.VecOf(gp, make([]float64, n)), enginetest.VecOf(gp, rhs)
		end, err := d.SolvePCG(x, b, sys(-1e9))
		if err != nil {
			t.Fatal(err)
		}
		if end.Fail != 0 || end.Iterations != 0 || !(end.Value <= 0) {
			t.Fatalf("end %+v, want no failure at iteration 0 with a curvature ≤ 0", end)
		}
		// P = I: z = b on every contact with μ > 0; (b_n, 0, 0) where μ = 0.
		mu := make([]float64, nc)
		gp.Cones(mu, make([]float64, nc))
		got := enginetest.ReadVec(gp, x)
		for i, v := range got {
			want := rhs[i]
			if mu[i/3] == 0 && i%3 != 0 {
				want = 0
			}
			if v != want {
				t.Fatalf("x[%d] = %v, want z = P⁻¹b = %v", i, v, want)
			}
		}
	})
	t.Run("rhs", func(t *testing.T) {
		bad := append([]float64(nil), rhs...)
		bad[0] = math.NaN()
		x, b := enginetest.VecOf(gp, make([]float64, n)), enginetest.VecOf(gp, bad)
		end, err := d.SolvePCG(x, b, sys(1))
		if err != nil {
			t.Fatal(err)
		}
		if end.Fail != engine.PCGRHS || !math.IsNaN(end.Value) {
			t.Fatalf("end %+v, want the right-hand side's failure", end)
		}
	})
	t.Run("short", func(t *testing.T) {
		// H = P = 10⁶ I: N̂ + H is nearly H, and PCG converges in a few
		// iterations. The first solve's submit holds 16 blocks (no last
		// system to go by); the second's as many as the first took, and
		// two more: far fewer dispatches, the same iterations.
		s := sys(1e6)
		for i := range nc {
			s.Prec[6*i], s.Prec[6*i+1], s.Prec[6*i+2] = 1e6, 1e6, 1e6
		}
		tw.gpu.pcgLast = 0
		var ends [2]engine.PCGEnd
		var dispatches [2]int
		for k := range 2 {
			x, b := enginetest.VecOf(gp, make([]float64, n)), enginetest.VecOf(gp, rhs)
			end, err := d.SolvePCG(x, b, s)
			if err != nil {
				t.Fatal(err)
			}
			ends[k], dispatches[k] = end, tw.gpu.l.b.Dispatches()
		}
		if ends[0] != ends[1] || ends[0].Fail != 0 || ends[0].Iterations > 3 {
			t.Fatalf("ends %+v, want the same short solve twice", ends)
		}
		if 2*dispatches[1] > dispatches[0] {
			t.Errorf("%d dispatches in the second solve's submit, %d in the first's: want fewer than half", dispatches[1], dispatches[0])
		}
		t.Logf("%d iterations; %d and %d dispatches", ends[0].Iterations, dispatches[0], dispatches[1])
	})
	t.Run("converges", func(t *testing.T) {
		// H = I, N̂ = N: N + I is positive definite; PCG reaches its
		// tolerance in fewer than n iterations, and x solves the system
		// to it: ‖(N + I)x − b‖ ≤ 1e-5‖b‖. With P = I the stop bounds
		// the recurred residual r by √StopFactor = 1e-6 of ‖b‖; the true
		// residual (N + I)x − b drifts from r by rounding, of order
		// iterations × ε × ‖N + I‖‖x‖ ≈ 1e-13 here, so a factor 10 of room
		// is ample and still fails a solve stopped a decade early.
		x, b := enginetest.VecOf(gp, make([]float64, n)), enginetest.VecOf(gp, rhs)
		end, err := d.SolvePCG(x, b, sys(1))
		if err != nil {
			t.Fatal(err)
		}
		if end.Fail != 0 || end.Iterations == 0 || end.Iterations >= n {
			t.Fatalf("end %+v", end)
		}
		ax := gp.NewVec(n)
		gp.Schur(ax, x)
		gp.Axpby(ax, 1, ax, 1, x)
		mu := make([]float64, nc)
		gp.Cones(mu, make([]float64, nc))
		got, xs := enginetest.ReadVec(gp, ax), enginetest.ReadVec(gp, x)
		var res, norm float64
		for i := range got {
			bi := rhs[i]
			if mu[i/3] == 0 && i%3 != 0 {
				bi = 0 // P⁻¹ is zero there: those rows stay at x = 0
				if xs[i] != 0 {
					t.Fatalf("x[%d] = %v on a frictionless contact's tangential row", i, xs[i])
				}
				continue
			}
			res += (got[i] - bi) * (got[i] - bi)
			norm += bi * bi
		}
		if math.Sqrt(res) > 1e-5*math.Sqrt(norm) {
			t.Errorf("‖(N + I)x − b‖ = %.3g, ‖b‖ = %.3g after %d iterations", math.Sqrt(res), math.Sqrt(norm), end.Iterations)
		}
	})
}

// TestDevicePCGJointsOnly: pdip on a hanging chain of spherical joints, no
// contacts (the device PCG's rows are joint rows only, nc = 0), equals
// cpuref's bit for bit over three steps.
func TestDevicePCGJointsOnly(t *testing.T) {
	requireUnfusedGo(t)
	m := enginetest.HangingChain(5, 9.81)
	set := engine.DefaultSettings()
	set.Solver, set.Tol, set.MaxIter, set.WarmStart = "pdip", 0, 20, true
	g := newStepper(t, newTestBackend(t), m, set, false)
	c := newStepper(t, cpuref.New(0), m, set, true)
	for step := 1; step <= 3; step++ {
		g.step(t)
		c.step(t)
		if g.nc != 0 || engine.Rows(g.p) != m.JointRows() {
			t.Fatalf("step %d: %d contacts, %d rows; want only the %d joint rows", step, g.nc, engine.Rows(g.p), m.JointRows())
		}
		if i := enginetest.FirstDiff(g.impulses(), c.impulses()); i >= 0 {
			t.Fatalf("step %d: γ[%d] = %v on the GPU, %v on cpuref", step, i, g.impulses()[i], c.impulses()[i])
		}
		sameState(t, step, g, c)
	}
}

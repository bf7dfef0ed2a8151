package enginetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// solverScene is the scene of Solvers: RandomModel(21, 300), about 4500
// contacts, so that vectors span several chunks of the backends' blocked
// dot products (2048 elements).
const (
	solverSeed  = 21
	solverScene = 300
)

// variant is a solver as Solvers runs it.
type variant struct {
	name  string
	new   func() engine.Solver
	fused string // the name in Impl.Fused of its fast path, "" for none
	iters int    // the iterations of the "fixed" case
}

// fusedOf is the Impl.Fused name of each engine.Device* interface, by the
// solver names engine.Solvers gives.
var fusedOf = map[string]string{"apgd": "apgd", "apgd-ar": "apgd-ar", "jacobi": "jacobi", "gs": "gs", "spg": "spg"}

// fixedIters are the iterations of the "fixed" case: a few dozen, enough
// for restarts, step-size changes and (SPG) line searches to occur and
// for the device solvers to run several blocks; PDIP's Newton steps each
// cost many products, so it takes fewer.
var fixedIters = map[string]int{"apgd": 60, "apgd-ar": 60, "jacobi": 70, "spg": 80, "gs": 30, "pdip": 3}

// variants lists every solver of engine.Solvers with its defaults, and
// Jacobi and Gauss–Seidel with a given ω and λ < 1 (the defaults take
// other code: ω estimated, λ = 1).
func variants(t *testing.T) []variant {
	var vs []variant
	for _, s := range engine.Solvers() {
		name, _, _ := strings.Cut(s, ":")
		if _, err := engine.NewSolver(name); err != nil {
			t.Fatal(err)
		}
		it := fixedIters[name]
		if it == 0 {
			it = 50 // a solver added since: see the package doc
		}
		vs = append(vs, variant{name, func() engine.Solver { s, _ := engine.NewSolver(name); return s }, fusedOf[name], it})
	}
	return append(vs,
		variant{"jacobi/omega=0.05,lambda=0.7", func() engine.Solver { return &engine.Jacobi{Omega: 0.05, Lambda: 0.7} }, "jacobi", 40},
		variant{"gs/omega=0.3,lambda=0.7", func() engine.Solver { return &engine.GaussSeidel{Omega: 0.3, Lambda: 0.7} }, "gs", 20},
	)
}

// result is a solve's outcome on the host.
type result struct {
	g   []float64
	st  engine.SolveStats
	err error
}

// Solvers runs every solver of engine.Solvers on a random scene built by
// the backend: the backend's own path (a fused solver where the Problem
// implements engine.DeviceAPGD, DeviceJacobi, DeviceGS or DeviceSPG) against
// engine's host-driven reference on the same Problem (hostPath), and
// against impl.Twin's problem where it is set, bit for bit (γ, iterations,
// residual, projected gradient, objective, convergence, history, errors),
// which the Device* interfaces require; a fused solve within the submit
// bound when impl.Submits is set. Cases: a fixed number of iterations
// with history, none, to a tolerance that stops the solve exactly where
// the host does (fused solvers), a guess with +Inf (an error that says so,
// or a finite γ), and for Jacobi a step ω that diverges. Invariants of every result: γ in its cones, the
// statistics consistent with γ (eq. 25), the objective below that of the
// projected guess.
func Solvers(t *testing.T, impl Impl) {
	b := newBackend(t, impl.New)
	l := load(t, b, RandomModel(solverSeed, solverScene), engine.DefaultSettings(), 2048)
	tp := twinOf(t, impl, l)
	p := l.p
	t.Logf("%d contacts", l.nc)

	// The fast paths the Problem has are the ones impl claims.
	for name, has := range map[string]bool{
		"apgd":    is[engine.DeviceAPGD](p),
		"apgd-ar": is[engine.DeviceAPGD](p),
		"jacobi":  is[engine.DeviceJacobi](p),
		"gs":      is[engine.DeviceGS](p),
		"spg":     is[engine.DeviceSPG](p),
	} {
		if has != impl.hasFused(name) {
			t.Errorf("fused %s: the Problem implements its interface: %v, Impl.Fused claims it: %v", name, has, impl.hasFused(name))
		}
	}

	rng := rand.New(rand.NewPCG(solverSeed, 1))
	guess := make([]float64, 3*l.nc)
	for i := range guess {
		guess[i] = 1e-3 * rng.NormFloat64()
	}
	gd := l.set.Gd
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			fused := v.fused != "" && impl.hasFused(v.fused)
			sc := &solverCase{impl: impl, l: l, tp: tp, v: v, fused: fused}
			fixed := sc.check(t, "fixed", guess, engine.SolveOptions{MaxIter: v.iters, Gd: gd, History: true})
			sc.invariants(t, guess, fixed)
			sc.check(t, "none", guess, engine.SolveOptions{MaxIter: 0, Gd: gd, History: true})
			inf := append([]float64(nil), guess...)
			inf[0] = math.Inf(1)
			// A guess with +Inf fails with an error that says so, or (a
			// solver that does not start from the guess) gives a finite γ.
			r := sc.check(t, "inf", inf, engine.SolveOptions{MaxIter: min(20, v.iters), Gd: gd})
			if r.err != nil && !strings.Contains(r.err.Error(), "not finite") && !strings.Contains(r.err.Error(), "NaN") {
				t.Errorf("inf: error %q does not say what is not finite", r.err)
			}
			for i, x := range r.g {
				if r.err == nil && (math.IsNaN(x) || math.IsInf(x, 0)) {
					t.Fatalf("inf: no error, and γ[%d] = %v", i, x)
				}
			}
			if fused {
				sc.stops(t, guess, fixed)
			}
		})
	}
	// A Jacobi step far past 2/ρ(BN) diverges: the same error at the same
	// iteration on every path.
	t.Run("jacobi/omega=1.99", func(t *testing.T) {
		v := variant{"jacobi", func() engine.Solver { return &engine.Jacobi{Omega: 1.99} }, "jacobi", 0}
		sc := &solverCase{impl: impl, l: l, tp: tp, v: v, fused: impl.hasFused("jacobi")}
		ones := make([]float64, 3*l.nc)
		for i := range ones {
			ones[i] = 1
		}
		res := sc.check(t, "diverges", ones, engine.SolveOptions{MaxIter: 5000, Gd: gd})
		if res.err == nil || !strings.Contains(res.err.Error(), "diverged") {
			t.Errorf("error %v, want the divergence", res.err)
		}
	})
}

func is[T any](p engine.Problem) bool { _, ok := p.(T); return ok }

type solverCase struct {
	impl  Impl
	l     *loaded
	tp    engine.Problem
	v     variant
	fused bool
}

// solve runs a new solver of the variant on p from guess.
func (sc *solverCase) solve(p engine.Problem, guess []float64, opt engine.SolveOptions) result {
	g := VecOf(p, guess)
	st, err := sc.v.new().Solve(p, g, opt)
	return result{ReadVec(p, g), st, err}
}

// check solves on the backend's path, engine's host path and the twin,
// fails unless they agree bit for bit, bounds the fused solve's submits,
// and returns the backend's result.
func (sc *solverCase) check(t *testing.T, what string, guess []float64, opt engine.SolveOptions) result {
	t.Helper()
	s0 := 0
	if sc.impl.Submits != nil {
		s0 = sc.impl.Submits(t, sc.l.b)
	}
	res := sc.solve(sc.l.p, guess, opt)
	// engine.APGD takes the host path for MaxIter = 0; a failed solve's
	// iterations are not reported.
	bounded := sc.fused && res.err == nil && (opt.MaxIter > 0 || !strings.HasPrefix(sc.v.fused, "apgd"))
	if sc.impl.Submits != nil && bounded {
		n := sc.impl.Submits(t, sc.l.b) - s0
		if bound := submitBound(sc.v, res.st.Iterations); n > bound {
			t.Errorf("%s: %d submits for %d iterations, over %d", what, n, res.st.Iterations, bound)
		}
	}
	if sc.fused {
		sameResult(t, what+", driven from the host", res, sc.solve(hostPath(sc.l.p), guess, opt))
	}
	if sc.tp != nil {
		sameResult(t, what+", on the twin", res, sc.solve(sc.tp, guess, opt))
	}
	return res
}

// submitBound is the round trips a fused solve of iter iterations may
// take on a device that keeps the solver's scalars (Impl.Submits): one per
// 10 iterations (the target; the device runs 16, 32, 64, …
// iterations per submit), plus for APGD 2 (the blocks in which step-size
// halvings took a block), for Jacobi 2 (the check of the block diagonal,
// engine.DeviceBlockDiag, and the last block) and 1 more when ω is estimated (the power
// iteration), for Gauss–Seidel 3 (the check of the block diagonal,
// the colouring of the first solve after Collide and the last block), for
// SPG 3 (the preconditioner's read-back and the blocks a
// reduction of λ ends).
func submitBound(v variant, iter int) int {
	b := (iter + 9) / 10
	switch v.fused {
	case "jacobi":
		b += 2
		if j, ok := v.new().(*engine.Jacobi); ok && j.Omega == 0 {
			b++
		}
	case "gs", "spg":
		b += 3
	default:
		b += 2
	}
	return b
}

// sameResult fails unless two solves agree bit for bit.
func sameResult(t *testing.T, what string, a, b result) {
	t.Helper()
	if (a.err == nil) != (b.err == nil) || (a.err != nil && a.err.Error() != b.err.Error()) {
		t.Errorf("%s: error %v, reference %v", what, a.err, b.err)
		return
	}
	if a.err != nil {
		return
	}
	if i := FirstDiff(a.g, b.g); i >= 0 {
		t.Errorf("%s: γ[%d] = %v, reference %v", what, i, a.g[i], b.g[i])
	}
	x, y := a.st, b.st
	if x.Iterations != y.Iterations || !sameBits(x.Residual, y.Residual) || !sameBits(x.ProjGrad, y.ProjGrad) ||
		!sameBits(x.Objective, y.Objective) || x.Converged != y.Converged || len(x.History) != len(y.History) {
		t.Errorf("%s: stats %+v, reference %+v", what, stripHistory(x), stripHistory(y))
		return
	}
	for k := range x.History {
		h, r := x.History[k], y.History[k]
		if h.Iter != r.Iter || !sameBits(h.Residual, r.Residual) || !sameBits(h.Objective, r.Objective) ||
			!sameBits(h.Step, r.Step) || h.Restart != r.Restart {
			t.Errorf("%s: iteration %d is %+v, reference %+v", what, k+1, h, r)
			return
		}
	}
}

func stripHistory(s engine.SolveStats) string {
	return fmt.Sprintf("{Iterations:%d Residual:%v ProjGrad:%v Objective:%v Converged:%v History:%d records}",
		s.Iterations, s.Residual, s.ProjGrad, s.Objective, s.Converged, len(s.History))
}

// stops: with the tolerance set to a residual the fixed solve reached in
// its second half, below every earlier one, the backend's path stops at
// the iteration after it (the test is r < τ: a tolerance just above the
// residual stops there, one equal to it does not), as the host does.
func (sc *solverCase) stops(t *testing.T, guess []float64, fixed result) {
	h := fixed.st.History
	k := len(h) / 2
	for k < len(h)-1 && !belowAll(h, k) {
		k++
	}
	if !belowAll(h, k) {
		t.Logf("no residual of the second half is below all earlier ones: stopping not checked")
		return
	}
	res := h[k].Residual
	for _, tc := range []struct {
		tol  float64
		stop int
	}{
		{math.Nextafter(res, math.Inf(1)), k + 1},
		{res, firstBelow(h, res)},
	} {
		opt := engine.SolveOptions{Tol: tc.tol, MaxIter: len(h), Gd: sc.l.set.Gd}
		r := sc.check(t, fmt.Sprintf("tolerance %v", tc.tol), guess, opt)
		if r.st.Iterations != tc.stop {
			t.Errorf("tolerance %v: stopped after %d iterations, want %d", tc.tol, r.st.Iterations, tc.stop)
		}
	}
}

// belowAll reports whether the residual of iteration k is below all
// earlier ones.
func belowAll(h []engine.IterRecord, k int) bool {
	for _, r := range h[:k] {
		if r.Residual <= h[k].Residual {
			return false
		}
	}
	return true
}

// firstBelow returns the iterations until a residual below tol, or len(h).
func firstBelow(h []engine.IterRecord, tol float64) int {
	for k, r := range h {
		if r.Residual < tol {
			return k + 1
		}
	}
	return len(h)
}

// invariants checks a result of the "fixed" case against what it claims:
//   - γ lies in its cones, within coneRoundings roundings of |γ_i|: every
//     solver returns a projection, a convex combination of projections
//     (Jacobi, Gauss–Seidel with λ < 1) or an interior point (PDIP);
//   - the history has one record per iteration, numbered from 1;
//   - ProjGrad = 3n_c·Residual bit for bit (every solver computes it so),
//     Converged is Residual < Tol;
//   - Residual is r of eq. 25 of γ (engine.Residual, one fresh product
//     with N) and Objective is ½γᵀNγ + rᵀγ (engine.Objective), within
//     statTol relative; APGD-AR's residual is of its anti-relaxed r and is
//     not recomputed;
//   - the objective is not above that of the projected guess: Jacobi and
//     Gauss–Seidel never increase it at their step sizes (see their docs),
//     and the others, run for dozens of iterations from a guess of 10⁻³
//     against impulses of order 10⁻², end far below it.
func (sc *solverCase) invariants(t *testing.T, guess []float64, res result) {
	// coneRoundings: the projection's roundings (see Kernels' projTol)
	// and a λ-mix of two points (2).
	const coneRoundings = 40
	// statTol: the recomputation takes the same operations on the same γ
	// in backends whose Schur and Dot are deterministic, and so usually
	// the same bits; solvers that keep Nγ as a combination of earlier
	// products (APGD's N y_k) or update it in place differ by the
	// rounding of a few operations, relative 1e-12 leaves orders of room.
	const statTol = 1e-12
	if res.err != nil {
		t.Fatalf("fixed: %v", res.err)
	}
	p, nc := sc.l.p, sc.l.nc
	mu, coh := make([]float64, nc), make([]float64, nc)
	p.Cones(mu, coh)
	g := res.g
	for i := range nc {
		n, tn := g[3*i]+coh[i], math.Hypot(g[3*i+1], g[3*i+2])
		tol := gammaK(coneRoundings) * (math.Abs(g[3*i]) + coh[i] + tn)
		if n < -tol || tn > mu[i]*n+tol {
			t.Fatalf("contact %d: γ = %v outside its cone (μ = %v, c = %v)", i, g[3*i:3*i+3], mu[i], coh[i])
		}
	}
	st := res.st
	if len(st.History) != st.Iterations {
		t.Errorf("%d history records for %d iterations", len(st.History), st.Iterations)
	}
	for k, h := range st.History {
		if h.Iter != k+1 {
			t.Errorf("history record %d has Iter %d", k, h.Iter)
			break
		}
	}
	if !sameBits(st.ProjGrad, st.Residual*float64(3*nc)) || st.Converged != (st.Residual < 0) {
		t.Errorf("ProjGrad %v, Converged %v for Residual %v with tolerance 0", st.ProjGrad, st.Converged, st.Residual)
	}
	hp := hostPath(p)
	gv := VecOf(p, g)
	if sc.v.name != "apgd-ar" {
		if r := engine.Residual(hp, gv, sc.l.set.Gd); math.Abs(r-st.Residual) > statTol*r {
			t.Errorf("Residual %v, eq. 25 of γ gives %v", st.Residual, r)
		}
	}
	f := engine.Objective(hp, gv)
	if math.Abs(f-st.Objective) > statTol*math.Abs(f) {
		t.Errorf("Objective %v, ½γᵀNγ + rᵀγ = %v", st.Objective, f)
	}
	g0 := VecOf(p, guess)
	p.Project(g0, g0)
	if f0 := engine.Objective(hp, g0); !(f <= f0) {
		t.Errorf("objective %v, above the projected guess's %v", f, f0)
	}
	t.Logf("%d iterations: residual %.3g, objective %.6g", st.Iterations, st.Residual, st.Objective)
}

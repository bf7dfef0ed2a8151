//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/scene"
)

// hostGS hides the problem's SolveGS (and every other method but
// engine.Problem's and engine.JointRows'), so that engine.GaussSeidel
// drives its sweeps from the host through Sweep, Schur and Dot.
type hostGS struct {
	engine.Problem
	engine.JointRows
}

// gsSubmitBound is the submits a device Gauss–Seidel solve of iter
// iterations may take: one per 10 iterations (the target; the
// device runs 16, 32, 64, … sweeps per submit), plus 3: the read-back of
// the block diagonal, the colouring (the first solve after Collide) and
// the last block.
func gsSubmitBound(iter int) int { return (iter+9)/10 + 3 }

// compareGS solves from gamma0 with s on gp (the device iterations where
// engine.GaussSeidel takes them) and driven from the host (hostGS), checks
// that the two agree bit for bit (γ, iterations, residual, objective,
// history) and that the device solve took at most gsSubmitBound submits,
// and returns its stats.
func compareGS(t *testing.T, b *Backend, gp engine.Problem, gamma0 []float64, s *engine.GaussSeidel, opt engine.SolveOptions) engine.SolveStats {
	t.Helper()
	solve := func(p engine.Problem) ([]float64, engine.SolveStats, int) {
		t.Helper()
		g := enginetest.VecOf(gp, gamma0)
		if err := b.sync(); err != nil {
			t.Fatal(err)
		}
		s0 := workSubmits(b)
		st, err := s.Solve(p, g, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.sync(); err != nil {
			t.Fatal(err)
		}
		return enginetest.ReadVec(gp, g), st, workSubmits(b) - s0
	}
	dg, dst, dn := solve(gp)
	hg, hst, hn := solve(hostGS{gp, gp.(engine.JointRows)})
	sameSolve(t, "driven from the host", dg, dst, hg, hst)
	if bound := gsSubmitBound(dst.Iterations); dn > bound {
		t.Errorf("%d submits for %d iterations, over %d", dn, dst.Iterations, bound)
	}
	t.Logf("%d iterations, residual %.3g, converged %v: %d submits on the device, %d driven from the host",
		dst.Iterations, dst.Residual, dst.Converged, dn, hn)
	return dst
}

// TestDeviceGS: Gauss–Seidel on the problem of one step of the settle
// scene (n = 300, after 30 steps on cpuref, so that the pile is settled
// and its contact network developed), with the defaults and with ω = 0.3,
// λ = 0.7, to a tolerance, with history and both: the device iterations
// (SolveGS) give the host-driven solve's results bit for bit in far fewer
// submits.
func TestDeviceGS(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=300"})
	if err != nil {
		t.Fatal(err)
	}
	m := advanced(t, sc, 30)
	set := sc.Settings
	tw := newTwin(t, m, set)
	_, gp := tw.build(t, set.Dt)
	if _, ok := gp.(engine.DeviceGS); !ok {
		t.Fatal("the problem does not implement engine.DeviceGS")
	}
	gamma0 := make([]float64, engine.Rows(gp))
	for _, c := range []struct {
		name string
		s    engine.GaussSeidel
		opt  engine.SolveOptions
	}{
		{"tolerance", engine.GaussSeidel{}, engine.SolveOptions{Tol: 1e-5, MaxIter: 300, Gd: set.Gd}},
		{"history", engine.GaussSeidel{Omega: 0.3, Lambda: 0.7}, engine.SolveOptions{MaxIter: 40, Gd: set.Gd, History: true}},
		{"tolerance+history", engine.GaussSeidel{}, engine.SolveOptions{Tol: 1e-5, MaxIter: 300, Gd: set.Gd, History: true}},
		{"none", engine.GaussSeidel{}, engine.SolveOptions{MaxIter: 0, Gd: set.Gd, History: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := compareGS(t, tw.gpu, gp, gamma0, &c.s, c.opt)
			if c.opt.MaxIter > 0 && st.Iterations < 20 {
				t.Errorf("only %d iterations: the case tests little batching", st.Iterations)
			}
			if c.opt.History && len(st.History) != st.Iterations {
				t.Errorf("%d history records for %d iterations", len(st.History), st.Iterations)
			}
		})
	}
}

// TestDeviceGSJoints: the device iterations take the joint rows (after the
// contacts, as gs_sweep does): enginetest.JointedModel, every joint kind
// with contacts on jointed bodies, solved to a tolerance with history,
// bit for bit the host-driven solve.
func TestDeviceGSJoints(t *testing.T) {
	m := enginetest.JointedModel(1)
	set := engine.DefaultSettings()
	gb := newTestBackend(t)
	if err := gb.Load(m, &set); err != nil {
		t.Fatal(err)
	}
	nc, err := gb.Collide()
	if err != nil {
		t.Fatal(err)
	}
	gp, err := gb.Build(set.Dt)
	if err != nil {
		t.Fatal(err)
	}
	if rows := engine.Rows(gp); nc == 0 || rows == 3*nc {
		t.Fatalf("%d contacts and %d rows: the case needs contacts and joint rows", nc, rows)
	}
	gamma0 := make([]float64, engine.Rows(gp))
	st := compareGS(t, gb, gp, gamma0, &engine.GaussSeidel{}, engine.SolveOptions{Tol: 1e-9, MaxIter: 100, Gd: set.Gd, History: true})
	if st.Iterations < 20 {
		t.Errorf("only %d iterations: the case tests little batching", st.Iterations)
	}
}

// TestDeviceGSNotFinite: a guess with +Inf, and a step ω = 1.99 past
// the per-contact bound ω λ_max(N_ii) < 2g_i (see engine.GaussSeidel)
// from γ = 1, which diverges, fail on the device with the host-driven
// solve's error (engine's progress: at the initial guess, at iteration k).
func TestDeviceGSNotFinite(t *testing.T) {
	tw, _, gp := randomTwin(t, 31, 300, 0)
	set := engine.DefaultSettings()
	n := engine.Rows(gp)
	inf := make([]float64, n)
	inf[0] = math.Inf(1)
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	for _, c := range []struct {
		name  string
		s     engine.GaussSeidel
		guess []float64
		opt   engine.SolveOptions
		want  string
	}{
		{"inf", engine.GaussSeidel{}, inf, engine.SolveOptions{Tol: 1e-6, MaxIter: 50, Gd: set.Gd, History: true}, "initial guess"},
		{"diverges", engine.GaussSeidel{Omega: 1.99}, ones, engine.SolveOptions{Tol: 1e-6, MaxIter: 5000, Gd: set.Gd}, "diverged"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errs [2]error
			for i, p := range []engine.Problem{gp, hostGS{gp, gp.(engine.JointRows)}} {
				_, errs[i] = c.s.Solve(p, enginetest.VecOf(gp, c.guess), c.opt)
			}
			if errs[0] == nil || errs[1] == nil || errs[0].Error() != errs[1].Error() {
				t.Fatalf("error %v on the device, %v driven from the host; want the same error", errs[0], errs[1])
			}
			if !strings.Contains(errs[0].Error(), c.want) {
				t.Errorf("error %q, want one that says %q", errs[0], c.want)
			}
			t.Log(errs[0])
			if err := tw.gpu.l.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

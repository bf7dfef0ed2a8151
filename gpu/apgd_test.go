//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"github.com/gpusim/gpusim/internal/testfile"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/scene"
)

// hostAPGD hides the problem's SolveAPGD, so that engine.APGD drives the
// iterations from the host through the Problem's methods (the path every
// backend without engine.DeviceAPGD takes).
type hostAPGD struct{ engine.Problem }

// apgdSubmitBound is the submits a device solve of iter iterations may
// take: one per apgdBlocks iteration blocks, counted generously as one per
// 10 iterations (the target), plus 2 for the submits in which
// step-size halvings took a block (a halving is rare after the first
// iterations: L shrinks by 0.9 per iteration and doubles on a halving).
func apgdSubmitBound(iter int) int { return (iter+9)/10 + 2 }

// workSubmits is the backend's submits of recorded work: all of them less
// the transfers of the caller's data (Device.Transfers: staging copies on
// a discrete GPU, none on unified memory), which the bounds do not count.
func workSubmits(b *Backend) int { return b.d.Submits() - b.d.Transfers() }

// apgdCase is one solve compared on the three paths.
type apgdCase struct {
	name string
	ar   bool
	opt  engine.SolveOptions
}

// compareAPGD solves from gamma0 with device APGD on gp, host-driven APGD
// on gp, engine's APGD on cpuref (gpuOrder: the generic loop) and cpuref's
// own fused APGD, and checks: the device solve equals each of them bit
// for bit (γ, iterations, residual, objective, history), cpuref summing
// in the device's order (cpuref/order.go); it took at most
// apgdSubmitBound submits. It returns the device's stats.
func compareAPGD(t *testing.T, b *Backend, cp, gp engine.Problem, gamma0 []float64, c apgdCase) engine.SolveStats {
	t.Helper()
	solver := &engine.APGD{AntiRelax: c.ar}
	solve := func(p engine.Problem, la engine.LinAlg) ([]float64, engine.SolveStats) {
		t.Helper()
		g := enginetest.VecOf(la, gamma0)
		st, err := solver.Solve(p, g, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		return enginetest.ReadVec(la, g), st
	}
	g0 := enginetest.VecOf(gp, gamma0)
	if err := b.sync(); err != nil {
		t.Fatal(err)
	}
	s0 := workSubmits(b)
	dst, err := solver.Solve(gp, g0, c.opt)
	if err != nil {
		t.Fatal(err)
	}
	submits := workSubmits(b) - s0
	dg := enginetest.ReadVec(gp, g0)
	hg, hst := solve(hostAPGD{gp}, gp)
	og, ost := solve(gpuOrder{cp}, cp)
	pg, pst := solve(cp, cp)

	if submits > apgdSubmitBound(dst.Iterations) {
		t.Errorf("%d submits for %d iterations, over %d", submits, dst.Iterations, apgdSubmitBound(dst.Iterations))
	}
	same := func(what string, g []float64, st engine.SolveStats) {
		t.Helper()
		if i := enginetest.FirstDiff(dg, g); i >= 0 {
			t.Errorf("γ[%d] = %v on the device, %v %s", i, dg[i], g[i], what)
		}
		if dst.Iterations != st.Iterations || dst.Products != st.Products || dst.Residual != st.Residual || dst.Converged != st.Converged ||
			math.Float64bits(dst.Objective) != math.Float64bits(st.Objective) || len(dst.History) != len(st.History) {
			t.Errorf("stats %+v on the device, %+v %s", dst, st, what)
			return
		}
		for k := range st.History {
			d, h := dst.History[k], st.History[k]
			if d.Iter != h.Iter || d.Residual != h.Residual || d.Objective != h.Objective || d.Step != h.Step || d.Restart != h.Restart {
				t.Errorf("iteration %d: %+v on the device, %+v %s", k+1, d, h, what)
				return
			}
		}
	}
	same("driven from the host", hg, hst)
	if testfile.GoFusesMultiplyAdd {
		t.Log("bit-identity with cpuref not checked: Go may fuse multiply-adds on this target")
	} else {
		same("on cpuref with the GPU's dot order", og, ost)
		same("on cpuref", pg, pst)
	}
	t.Logf("%s: %d iterations, residual %.3g, %d submits", c.name, dst.Iterations, dst.Residual, submits)
	return dst
}

// TestDeviceAPGD: device APGD and APGD-AR on random cone problems (the
// random scene of kernels_test.go) against the host-driven solve and
// cpuref, from a random guess, for a fixed number of iterations (with
// history) and to a tolerance.
func TestDeviceAPGD(t *testing.T) {
	tw, cp, gp := randomTwin(t, 21, 300, 0)
	r := rand.New(rand.NewPCG(21, 1))
	gamma0 := make([]float64, 3*tw.nc)
	for i := range gamma0 {
		gamma0[i] = 1e-3 * r.NormFloat64()
	}
	set := engine.DefaultSettings()
	for _, ar := range []bool{false, true} {
		for _, c := range []apgdCase{
			{"fixed", ar, engine.SolveOptions{MaxIter: 60, Gd: set.Gd, History: true}},
			{"tolerance", ar, engine.SolveOptions{Tol: 1e-6, MaxIter: 200, Gd: set.Gd}},
		} {
			name := c.name
			if ar {
				name += "-ar"
			}
			t.Run(name, func(t *testing.T) {
				compareAPGD(t, tw.gpu, cp, gp, gamma0, c)
			})
		}
	}
}

// TestDeviceAPGDScene: the problem of one step of the settle scene (after
// 30 steps on cpuref, so that the contact network is developed), solved to
// the scene's tolerance by device APGD and APGD-AR, against the
// host-driven solve and cpuref.
func TestDeviceAPGDScene(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=1000"})
	if err != nil {
		t.Fatal(err)
	}
	m := advanced(t, sc, 30)
	set := sc.Settings
	tw := newTwin(t, m, set)
	cp, gp := tw.build(t, set.Dt)
	gamma0 := make([]float64, 3*tw.nc)
	for _, ar := range []bool{false, true} {
		opt := engine.SolveOptions{Tol: set.Tol, MaxIter: set.MaxIter, Gd: set.Gd}
		st := compareAPGD(t, tw.gpu, cp, gp, gamma0, apgdCase{"settle", ar, opt})
		if st.Iterations < 20 {
			t.Errorf("only %d iterations: the case tests little batching", st.Iterations)
		}
	}
}

// TestDeviceAPGDSurvivesGC: the solve's buffers live until it ends while
// the garbage collector runs between its submits (a buffer held only by an
// unreachable Vec is released at the next submit).
func TestDeviceAPGDSurvivesGC(t *testing.T) {
	tw, _, gp := randomTwin(t, 23, 100, 0)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	g := gp.NewVec(3 * tw.nc)
	st, err := (&engine.APGD{}).Solve(gp, g, engine.SolveOptions{MaxIter: 100, Gd: engine.DefaultSettings().Gd})
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations != 100 {
		t.Errorf("%d iterations, want 100", st.Iterations)
	}
}

// TestDeviceAPGDLongSeparating: device APGD and APGD-AR run 3600
// iterations with tolerance 0 on one separating contact (two spheres 1 mm
// apart inside the envelope, no gravity): the iterates stay at γ = 0, so
// the line search never raises L and it shrinks by 0.9 per iteration.
// Without the floor εL₀ under L (apgd_scalar's Lmin, engine's apgdFloor)
// 1/L overflowed and the device reported "objective is NaN": after about
// 6750 iterations for unit masses, after about 3480 here, where masses of
// 1e150 kg make N = diag(2, 7, 7)·1e-150 and L₀ ≈ 5.8e-150 (so that
// lavapipe runs half the iterations; heavier bodies would underflow
// ‖N(γ₀ − 1)‖² in L₀'s secant and fall back to L₀ = 1). The solve must
// match cpuref in the GPU's dot order bit for bit, iterations and history
// included.
func TestDeviceAPGDLongSeparating(t *testing.T) {
	m, set := enginetest.SeparatingPair(1e150)
	tw := newTwin(t, m, set)
	if tw.nc != 1 {
		t.Fatalf("%d contacts, want the 1 separating one", tw.nc)
	}
	cp, gp := tw.build(t, set.Dt)
	opt := engine.SolveOptions{Tol: 0, MaxIter: 3600, Gd: set.Gd, History: true}
	for _, ar := range []bool{false, true} {
		solver := &engine.APGD{AntiRelax: ar}
		g := gp.NewVec(3)
		dst, err := solver.Solve(gp, g, opt)
		if err != nil {
			t.Fatalf("%s: %v", solver.Name(), err)
		}
		dg := enginetest.ReadVec(gp, g)
		if dg[0] != 0 || dg[1] != 0 || dg[2] != 0 || dst.Iterations != opt.MaxIter {
			t.Errorf("%s: γ = %v after %d iterations, want 0 after %d", solver.Name(), dg, dst.Iterations, opt.MaxIter)
		}
		// The case reaches the overflow: 1/(L₀·0.9ᵏ) is Inf for the last k
		// (t₀ = 1/L₀, the first step: no halving at Δ = 0).
		t0 := dst.History[0].Step
		if l := 1 / t0 * math.Pow(0.9, float64(opt.MaxIter-1)); !math.IsInf(1/l, 1) {
			t.Errorf("L₀·0.9^%d = %g: the case no longer reaches the overflow of 1/L", opt.MaxIter-1, l)
		}
		if testfile.GoFusesMultiplyAdd {
			t.Log("bit-identity with cpuref not checked: Go may fuse multiply-adds on this target")
			continue
		}
		cg := cp.NewVec(3)
		cst, err := solver.Solve(gpuOrder{cp}, cg, opt)
		if err != nil {
			t.Fatalf("%s on cpuref: %v", solver.Name(), err)
		}
		sameSolve(t, solver.Name()+" on cpuref with the GPU's dot order", dg, dst, enginetest.ReadVec(cp, cg), cst)
	}
}

// TestDeviceAPGDMixed: with settings.precision "mixed" the device APGD
// (the float32-storage kernels, shaders/lib/store.glsl) computes what
// cpuref's emulation computes bit for bit (γ, iterations, residual,
// objective, history), plain and anti-relaxed, on the random cone
// problems and on a settle step. Bit-identity needs float64 → float32
// conversions rounded to nearest, which lavapipe gives and Vulkan does not
// promise (another driver may round them otherwise: the test then checks
// the answer within 1e-6 relative to the largest impulse instead, about
// eight float32 roundings). It also checks that the answer differs from
// the float64 solve's, so that the float32 kernels did run.
func TestDeviceAPGDMixed(t *testing.T) {
	mixed := engine.DefaultSettings()
	mixed.Precision = engine.PrecisionMixed
	sc, err := scene.LoadBuiltin("settle", []string{"n=1000"})
	if err != nil {
		t.Fatal(err)
	}
	settle := advanced(t, sc, 30)
	for _, c := range []struct {
		name string
		m    *engine.Model
		opt  engine.SolveOptions
	}{
		{"random", randomModel(21, 300), engine.SolveOptions{MaxIter: 60, Gd: mixed.Gd, History: true}},
		{"random-tol", randomModel(21, 300), engine.SolveOptions{Tol: 1e-5, MaxIter: 300, Gd: mixed.Gd}},
		{"settle", settle, engine.SolveOptions{Tol: sc.Settings.Tol, MaxIter: 200, Gd: mixed.Gd, History: true}},
	} {
		for _, ar := range []bool{false, true} {
			name := c.name
			if ar {
				name += "-ar"
			}
			t.Run(name, func(t *testing.T) {
				tw := newTwin(t, c.m, mixed)
				cp, gp := tw.build(t, mixed.Dt)
				gamma0 := make([]float64, 3*tw.nc)
				r := rand.New(rand.NewPCG(21, 2))
				for i := range gamma0 {
					gamma0[i] = 1e-3 * r.NormFloat64()
				}
				solver := &engine.APGD{AntiRelax: ar}
				solve := func(p engine.Problem) ([]float64, engine.SolveStats) {
					t.Helper()
					g := enginetest.VecOf(p, gamma0)
					st, err := solver.Solve(p, g, c.opt)
					if err != nil {
						t.Fatal(err)
					}
					return enginetest.ReadVec(p, g), st
				}
				dg, dst := solve(gp)
				cg, cst := solve(cp)
				scale := 0.0
				for _, v := range dg {
					scale = max(scale, math.Abs(v))
				}
				if strings.HasPrefix(tw.gpu.d.Info.Name, "llvmpipe") && !testfile.GoFusesMultiplyAdd {
					if i := enginetest.FirstDiff(dg, cg); i >= 0 {
						t.Errorf("γ[%d] = %v on the device, %v on cpuref", i, dg[i], cg[i])
					}
					if dst.Iterations != cst.Iterations || dst.Residual != cst.Residual ||
						math.Float64bits(dst.Objective) != math.Float64bits(cst.Objective) || len(dst.History) != len(cst.History) {
						t.Errorf("stats %+v on the device, %+v on cpuref", dst, cst)
					}
					for k := range min(len(dst.History), len(cst.History)) {
						if dst.History[k] != cst.History[k] {
							t.Errorf("iteration %d: %+v on the device, %+v on cpuref", k+1, dst.History[k], cst.History[k])
							break
						}
					}
				} else {
					for i := range dg {
						if math.Abs(dg[i]-cg[i]) > 1e-6*scale {
							t.Errorf("γ[%d] = %v on the device, %v on cpuref (tolerance %.3g)", i, dg[i], cg[i], 1e-6*scale)
							break
						}
					}
				}
				// The float64 solve of the same problem differs.
				dbl := newTwin(t, c.m, engine.DefaultSettings())
				_, gp64 := dbl.build(t, mixed.Dt)
				g64 := enginetest.VecOf(gp64, gamma0)
				if _, err := solver.Solve(gp64, g64, c.opt); err != nil {
					t.Fatal(err)
				}
				if enginetest.FirstDiff(dg, enginetest.ReadVec(gp64, g64)) < 0 {
					t.Error("the mixed solve equals the float64 solve: were the float32 kernels used?")
				}
				t.Logf("%d contacts, %d iterations, residual %.3g (scale %.3g)", tw.nc, dst.Iterations, dst.Residual, scale)
			})
		}
	}
}

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// hostSPG hides the problem's SolveSPG, so that engine.SPG drives the
// iterations from the host through the Problem's methods.
type hostSPG struct{ engine.Problem }

// spgSubmitBound is the submits a device SPG solve of iter iterations may
// take: the read-back of the preconditioner (engine.SPG's, on the host),
// then one submit per 16, 32, 64, 64, … blocks, each an iteration or a
// reduction of λ (rare), counted generously as one per 10 iterations, plus
// 2.
func spgSubmitBound(iter int) int { return (iter+9)/10 + 3 }

// TestDeviceSPG: device P-SPG-FB on random cone problems (the random scene
// of kernels_test.go) against the host-driven solve on the same backend and
// the solve on cpuref in the GPU's dot order, bit for bit (x_FB,
// iterations, residual, objective, history), for a fixed number of
// iterations, to a tolerance and with none; and within the submit bound
// above (the host-driven solve takes about eight submits per iteration).
func TestDeviceSPG(t *testing.T) {
	tw, cp, gp := randomTwin(t, 41, 300, 0)
	r := rand.New(rand.NewPCG(41, 1))
	gamma0 := make([]float64, 3*tw.nc)
	for i := range gamma0 {
		gamma0[i] = 1e-3 * r.NormFloat64()
	}
	set := engine.DefaultSettings()
	for _, c := range []struct {
		name string
		opt  engine.SolveOptions
	}{
		{"fixed", engine.SolveOptions{MaxIter: 80, Gd: set.Gd, History: true}},
		// The random problem is hard for first-order methods (residual
		// 0.035 after 80 iterations): a tolerance reached within them.
		{"tolerance", engine.SolveOptions{Tol: 0.036, MaxIter: 400, Gd: set.Gd}},
		{"none", engine.SolveOptions{MaxIter: 0, Gd: set.Gd, History: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			solve := func(p engine.Problem, la engine.LinAlg) ([]float64, engine.SolveStats) {
				t.Helper()
				g := vecOf(la, gamma0)
				st, err := (&engine.SPG{}).Solve(p, g, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				return readVec(la, g), st
			}
			if err := tw.gpu.sync(); err != nil {
				t.Fatal(err)
			}
			s0 := tw.gpu.Submits()
			dg, dst := solve(gp, gp)
			submits := tw.gpu.Submits() - s0
			if b := spgSubmitBound(dst.Iterations); submits > b {
				t.Errorf("%d submits for %d iterations, over %d", submits, dst.Iterations, b)
			}
			if c.opt.Tol > 0 && (!dst.Converged || dst.Iterations >= c.opt.MaxIter) {
				t.Errorf("%d iterations, residual %g: the tolerance %g was meant to stop the solve", dst.Iterations, dst.Residual, c.opt.Tol)
			}
			s1 := tw.gpu.Submits()
			hg, hst := solve(hostSPG{gp}, gp)
			sameSolve(t, "driven from the host", dg, dst, hg, hst)
			if goFusesMultiplyAdd {
				t.Log("bit-identity with cpuref not checked: Go may fuse multiply-adds on this target")
			} else {
				og, ost := solve(gpuOrder{cp}, cp)
				sameSolve(t, "on cpuref with the GPU's dot order", dg, dst, og, ost)
			}
			t.Logf("%d iterations, residual %.3g: %d submits on the device, %d driven from the host",
				dst.Iterations, dst.Residual, submits, tw.gpu.Submits()-s1)
		})
	}
}

// A device SPG solve whose objective is not finite fails with engine.SPG's
// error, as the host-driven solve does.
func TestDeviceSPGNotFinite(t *testing.T) {
	tw, _, gp := randomTwin(t, 42, 300, 0)
	gamma0 := make([]float64, 3*tw.nc)
	gamma0[0] = math.Inf(1)
	opt := engine.SolveOptions{MaxIter: 20, Gd: engine.DefaultSettings().Gd}
	_, derr := (&engine.SPG{}).Solve(gp, vecOf(gp, gamma0), opt)
	_, herr := (&engine.SPG{}).Solve(hostSPG{gp}, vecOf(gp, gamma0), opt)
	if derr == nil || herr == nil || derr.Error() != herr.Error() || !strings.Contains(derr.Error(), "not finite") {
		t.Errorf("device: %v\nhost:   %v\nwant the same error", derr, herr)
	}
}

// countOps counts the products with N and the dot products of a
// host-driven solve.
type countOps struct {
	engine.Problem
	schur, dots *int
}

func (c countOps) Schur(d, x engine.Vec) { *c.schur++; c.Problem.Schur(d, x) }

func (c countOps) Dot(x, y engine.Vec) float64 { *c.dots++; return c.Problem.Dot(x, y) }

// The paths the random problem from a small guess does not take: from a
// guess of unit scale the line search reduces λ once in 200 iterations
// (so a block ends in the trial phase and the next goes on from there);
// on contacts that all separate (zero gravity, gaps inside the envelope,
// tolerance 0) γ = 0 is optimal, the preconditioned direction is zero,
// and the solver takes line 8's direction and α_max (no curvature). Device
// and host-driven solves agree bit for bit on both.
func TestDeviceSPGPaths(t *testing.T) {
	set := engine.DefaultSettings()
	// check compares the solves and returns the host-driven one's
	// reductions of λ and dot products per iteration past the initial
	// guess's three (engine.SPG takes one ⟨d, g⟩, two for the objective
	// of each trial, one ⟨s, y⟩, one for the BB step unless ⟨s, y⟩ ≤ 0,
	// and one for the residual; line 8 adds a ⟨d, g⟩).
	check := func(t *testing.T, gp engine.Problem, gamma0 []float64, opt engine.SolveOptions) (int, float64) {
		t.Helper()
		g := vecOf(gp, gamma0)
		dst, err := (&engine.SPG{}).Solve(gp, g, opt)
		if err != nil {
			t.Fatal(err)
		}
		products, dots := 0, 0
		h := vecOf(gp, gamma0)
		hst, err := (&engine.SPG{}).Solve(countOps{hostSPG{gp}, &products, &dots}, h, opt)
		if err != nil {
			t.Fatal(err)
		}
		sameSolve(t, "driven from the host", readVec(gp, g), dst, readVec(gp, h), hst)
		return products - 1 - hst.Iterations, float64(dots-3) / float64(hst.Iterations)
	}
	t.Run("backtrack", func(t *testing.T) {
		tw, _, gp := randomTwin(t, 41, 300, 0)
		r := rand.New(rand.NewPCG(7, 1))
		gamma0 := make([]float64, 3*tw.nc)
		for i := range gamma0 {
			gamma0[i] = r.NormFloat64()
		}
		if bt, _ := check(t, gp, gamma0, engine.SolveOptions{MaxIter: 200, Gd: set.Gd, History: true}); bt < 1 {
			t.Errorf("%d reductions of λ: the case no longer tests them", bt)
		}
	})
	t.Run("separating", func(t *testing.T) {
		m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
		for i := range 3 {
			b := engine.Body{Shape: engine.SphereShape(0.1), Pos: mgl64.Vec3{0.201 * float64(i), 0, 0}, Rot: mgl64.QuatIdent()}
			b.SetMass(1)
			m.Bodies = append(m.Bodies, b)
		}
		s := set
		s.Envelope = 0.01
		tw := newTwin(t, m, s)
		if tw.nc != 2 {
			t.Fatalf("%d contacts, want the 2 separating ones", tw.nc)
		}
		_, gp := tw.build(t, s.Dt)
		// Every iteration: ⟨d, g⟩ twice (line 8), two for the trial, ⟨s, y⟩
		// = 0 (so α_max and no BB dot), the residual: 6 dots.
		if _, per := check(t, gp, make([]float64, 3*tw.nc), engine.SolveOptions{MaxIter: 5, Gd: set.Gd, History: true}); per != 6 {
			t.Errorf("%g dot products per iteration, want 6: the case no longer takes line 8 with α_max", per)
		}
	})
}

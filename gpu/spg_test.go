//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// hostSPG hides the problem's SolveSPG, so that engine.SPG drives the
// iterations from the host through the Problem's methods.
type hostSPG struct{ engine.Problem }

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
		g := enginetest.VecOf(gp, gamma0)
		dst, err := (&engine.SPG{}).Solve(gp, g, opt)
		if err != nil {
			t.Fatal(err)
		}
		products, dots := 0, 0
		h := enginetest.VecOf(gp, gamma0)
		hst, err := (&engine.SPG{}).Solve(countOps{hostSPG{gp}, &products, &dots}, h, opt)
		if err != nil {
			t.Fatal(err)
		}
		sameSolve(t, "driven from the host", enginetest.ReadVec(gp, g), dst, enginetest.ReadVec(gp, h), hst)
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

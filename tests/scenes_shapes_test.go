package tests

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// The built-in scenes of scene/builtin_shapes.go (capsules, cylinders,
// convex hulls) at small sizes on the CPU path (joints).

// maxSpeed is the largest speed (m/s) of bodies from to to−1.
func maxSpeed(st *engine.State, from, to int) float64 {
	v := 0.0
	for i := from; i < to; i++ {
		v = math.Max(v, vec3(st.Vel, i).Len())
	}
	return v
}

// TestWreckingBall: a wall of 60 bricks stands still while the ball
// swings down at it (50 steps, 0.25 s); then, one step after the ball
// reaches the wall, each solver solves that step's problem from γ = 0 to
// the scene's tolerance within a cap (the SPG paper's Fig. 6), logged:
// each converges or says it did not.
func TestWreckingBall(t *testing.T) {
	sc, err := scene.LoadBuiltin("wrecking-ball", []string{"n=60"})
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Model
	links := int(sc.Params["links"])
	bricks0, bricks1 := 1+links, 1+links+60
	for i := bricks0; i < bricks1; i++ {
		if m.Bodies[i].Shape.Kind != engine.Box {
			t.Fatalf("body %d is a %v, want a brick (box)", i, m.Bodies[i].Shape.Kind)
		}
	}
	sim := newSim(t, m, sc.Settings, cpuref.New(0))
	_, st := stepFor(t, sim, 50)
	// The bricks start resting on each other and settle by the solver's
	// tolerance: measured 0.0028 m/s at most after 50 steps.
	if v := maxSpeed(&st, bricks0, bricks1); v > 0.02 {
		t.Errorf("a brick moves at %.3g m/s before the impact: the wall does not stand", v)
	}
	// The ball swings down from 60°: measured 2.1 m/s after 0.25 s.
	if v := vec3(st.Vel, 0).Len(); v < 1 {
		t.Errorf("the ball moves at %.3g m/s after 0.25 s, want it swinging", v)
	}
	t.Logf("after 50 steps: bricks' largest speed %.3g m/s, the ball's %.3g m/s", maxSpeed(&st, bricks0, bricks1), vec3(st.Vel, 0).Len())
	// Step until the ball's front reaches the wall's face (y = −0.1 m),
	// then one more.
	r := m.Bodies[0].Shape.Size[0]
	for k := 0; vec3(st.Pos, 0)[1]+r < -0.1; k++ {
		if k > 400 {
			t.Fatalf("the ball has not reached the wall after %d steps (at %v)", 50+k, vec3(st.Pos, 0))
		}
		_, st = stepFor(t, sim, 1)
	}
	stepFor(t, sim, 1)
	p := sim.Problem()
	set := sim.Settings()
	n := engine.Rows(p)
	const cap = 3000
	g := p.NewVec(n)
	for _, name := range []string{"apgd", "apgd-ar", "gs", "jacobi", "spg"} {
		s, err := engine.NewSolver(name)
		if err != nil {
			t.Fatal(err)
		}
		p.Fill(g, 0)
		ss, err := s.Solve(p, g, engine.SolveOptions{Tol: set.Tol, MaxIter: cap, Gd: set.Gd})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if math.IsNaN(ss.Residual) || ss.Iterations < 1 || ss.Iterations > cap || ss.Converged != (ss.Residual < set.Tol) {
			t.Errorf("%s: %d iterations, residual %v, converged %v", name, ss.Iterations, ss.Residual, ss.Converged)
		}
		verdict := "converged"
		if !ss.Converged {
			verdict = "did not converge"
		}
		t.Logf("step %d (%d rows): %-7s %4d iterations, residual %.3g (tol %g, cap %d): %s",
			sim.Steps(), n, name, ss.Iterations, ss.Residual, set.Tol, cap, verdict)
	}
}

// TestBulldozer: the bulldozer with 50 ellipsoids for 100 steps (0.01 s):
// both tracks stay closed loops (the gap at each of the 50 shoe joints,
// from the shoes' poses, is small) and the vehicle sets off forwards.
func TestBulldozer(t *testing.T) {
	sc, err := scene.LoadBuiltin("bulldozer", []string{"n=50"})
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Model
	const pitch, thick = 0.3, 0.05
	var shoes []int
	for s := range 2 {
		for i := range 25 {
			id := 2 + 32*s + 7 + i
			if b := m.Bodies[id]; b.Shape.Kind != engine.Box || b.Mass != 20 {
				t.Fatalf("body %d is a %v of %v kg, want a shoe", id, b.Shape.Kind, b.Mass)
			}
			shoes = append(shoes, id)
		}
	}
	// gap is the largest distance between the joint points of
	// neighbouring shoes: each shoe's ends on its inner face,
	// (±pitch/2, 0, thick/2) in its frame.
	gap := func(st *engine.State) float64 {
		worst := 0.0
		for s := range 2 {
			for i := range 25 {
				a, b := shoes[25*s+i], shoes[25*s+(i+1)%25]
				pa := vec3(st.Pos, a).Add(quat(st.Rot, a).Rotate(mgl64.Vec3{pitch / 2, 0, thick / 2}))
				pb := vec3(st.Pos, b).Add(quat(st.Rot, b).Rotate(mgl64.Vec3{-pitch / 2, 0, thick / 2}))
				worst = math.Max(worst, pa.Sub(pb).Len())
			}
		}
		return worst
	}
	sim := newSim(t, m, sc.Settings, cpuref.New(0))
	var st engine.State
	readState(t, sim, &st)
	// At t = 0 the loops close to rounding.
	if g := gap(&st); g > 1e-12 {
		t.Fatalf("the tracks start open by %.3g m", g)
	}
	worst := 0.0
	for range 10 {
		_, st = stepFor(t, sim, 10)
		worst = math.Max(worst, gap(&st))
	}
	v := vec3(st.Vel, 0)
	t.Logf("after 100 steps: chassis at x = %.4g m, velocity %.4g m/s; largest shoe joint gap %.3g m", st.Pos[0], v, worst)
	// Measured 1.2e-7 m (spg, tol 1e-5); 1e-4 m is a third of a per
	// cent of the pitch.
	if worst > 1e-4 {
		t.Errorf("a track opens by %.3g m at a shoe joint", worst)
	}
	// Measured 0.019 m/s after 0.01 s (and 1.38 m/s after 0.45 s, near
	// the sprockets' 4 rad/s × 0.362 m = 1.45 m/s).
	if !(v[0] > 0.005) || !(st.Pos[0] > 0) {
		t.Errorf("the chassis moves at %v m/s, at x = %.3g m: want it driving forwards (+x)", v, st.Pos[0])
	}
}

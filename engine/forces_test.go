package engine_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

func TestContactForcesArithmetic(t *testing.T) {
	got := engine.ContactForces(nil, []float64{0.1, 0.03, -0.04, -0.02, 0, 0}, 0.01)
	want := []engine.ContactForce{{Normal: 10, Friction: 5}, {Normal: -2, Friction: 0}}
	if len(got) != len(want) {
		t.Fatalf("got %d forces, want %d", len(got), len(want))
	}
	for k := range want {
		// A division and a hypot: a few ulps.
		if math.Abs(got[k].Normal-want[k].Normal) > 1e-12 || math.Abs(got[k].Friction-want[k].Friction) > 1e-12 {
			t.Errorf("contact %d: got %+v, want %+v", k, got[k], want[k])
		}
	}
}

// A sphere sliding on a plane (the rolling-ball scene of the APGD paper,
// §2.3) is held up by its weight and slowed by kinetic friction μ·m·g
// until it rolls, at t = 2v0/(7μg); then friction vanishes.
func TestContactForcesSlidingSphere(t *testing.T) {
	const (
		mu, v0, g, mass = 0.2, 2.0, 9.81, 1.0
		dt              = 0.0025
	)
	m := engine.Model{Materials: []engine.Material{{Name: "m", Friction: mu}}, Gravity: mgl64.Vec3{0, 0, -g}}
	ball := engine.Body{Shape: engine.SphereShape(1), Pos: mgl64.Vec3{0, 0, 1}, Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{v0, 0, 0}}
	ball.SetMass(mass)
	m.Bodies = []engine.Body{{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true}, ball}
	s := engine.DefaultSettings()
	s.Dt, s.Solver, s.Tol, s.MaxIter = dt, "apgd-ar", 1e-10, 1000
	sim, err := engine.NewSim(&m, s, cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	tRoll := 2 * v0 / (7 * mu * g) // 0.291 s
	var forces []engine.ContactForce
	for sim.Time() < 0.4 {
		st, err := sim.Step()
		if err != nil {
			t.Fatal(err)
		}
		forces = engine.ContactForces(forces, sim.Impulses(nil), dt)
		if len(forces) != 1 {
			t.Fatalf("t = %.4f s: %d contacts, want the one with the plane", st.Time, len(forces))
		}
		f := forces[0]
		// The solve reaches residual 1e-10 (m/s): relative errors of the
		// forces stay far below 1e-6.
		const rel = 1e-6
		if math.Abs(f.Normal-mass*g) > rel*mass*g {
			t.Fatalf("t = %.4f s: normal force %v N, want the weight %v N", st.Time, f.Normal, mass*g)
		}
		switch {
		case st.Time < tRoll-2*dt: // sliding: on the cone's edge
			if math.Abs(f.Friction-mu*f.Normal) > rel*mu*mass*g {
				t.Fatalf("t = %.4f s (sliding until %.3f s): friction %v N, want μN = %v N", st.Time, tRoll, f.Friction, mu*f.Normal)
			}
		case st.Time > tRoll+2*dt: // rolling: no friction needed
			if f.Friction > rel*mu*mass*g {
				t.Fatalf("t = %.4f s (rolling from %.3f s): friction %v N, want 0", st.Time, tRoll, f.Friction)
			}
		}
	}
}

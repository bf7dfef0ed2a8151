package tests

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// hanging builds a 1 kg sphere (r = 0.1 m) touching the underside of a
// fixed box, both materials with cohesion c (N) and μ = 0.5.
func hanging(c float64) *engine.Model {
	ceiling := engine.Body{Shape: engine.BoxShape(1, 1, 0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, 0.1}, Fixed: true}
	ball := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.1}}
	ball.SetMass(1)
	return &engine.Model{
		Bodies:    []engine.Body{ball, ceiling},
		Materials: []engine.Material{{Name: "sticky", Friction: 0.5, Cohesion: c}},
		Gravity:   mgl64.Vec3{0, 0, -9.81},
	}
}

// TestCohesionHolds: cohesion (APGD paper, section 2.4) lets a contact
// pull with up to ĉ; a sphere of weight 9.81 N hangs from a ceiling when
// ĉ = 20 N and falls when ĉ = 5 N.
func TestCohesionHolds(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		for _, c := range []struct {
			cohesion float64
			holds    bool
		}{{20, true}, {5, false}} {
			m := hanging(c.cohesion)
			s := engine.DefaultSettings()
			s.Dt = 0.001
			s.Tol = 1e-10
			s.MaxIter = 2000
			sim := newSim(t, m, s, newBackend())
			last, st := stepFor(t, sim, 200)
			z := st.Pos[2]
			if c.holds {
				// Hanging still: the sphere pulls the ceiling down with
				// its weight.
				// 1e-6 m drift bound: the solver tolerance times h over
				// 200 steps is far below it.
				if z < -0.1-1e-6 {
					t.Errorf("ĉ = %g N: the sphere fell to z = %.6f", c.cohesion, z)
				}
				if fz := -last.FixedForce[2]; fz < 9.81*(1-1e-6) || fz > 9.81*(1+1e-6) {
					t.Errorf("ĉ = %g N: pull on the ceiling %.9f N, want the weight 9.81 N", c.cohesion, fz)
				}
			} else if z > -0.1-0.05 {
				// Free fall from rest for 0.2 s drops ~0.2 m (minus
				// the first steps' cohesive pull of 5 N).
				t.Errorf("ĉ = %g N: the sphere is still at z = %.6f", c.cohesion, z)
			}
		}
	})
}

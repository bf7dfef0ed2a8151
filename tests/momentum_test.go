package tests

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

func momentum(m *engine.Model, s *engine.State) (p, l mgl64.Vec3) {
	for i, b := range m.Bodies {
		if b.Fixed {
			continue
		}
		v, x := vec3(s.Vel, i).Mul(b.Mass), vec3(s.Pos, i)
		p = p.Add(v)
		q := quat(s.Rot, i)
		w := vec3(s.Omega, i)
		jw := mgl64.Vec3{b.Inertia[0] * w[0], b.Inertia[1] * w[1], b.Inertia[2] * w[2]}
		l = l.Add(x.Cross(v)).Add(q.Rotate(jw))
	}
	return p, l
}

// TestFreeBodyMomentum: a free ellipsoid in zero gravity keeps its linear
// momentum exactly and its angular momentum up to the first-order error of
// the gyroscopic step (see TestCompoundAngularMomentum).
func TestFreeBodyMomentum(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		b := engine.Body{Shape: engine.EllipsoidShape(0.3, 0.2, 0.1), Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 1, 0}.Normalize()),
			Pos: mgl64.Vec3{1, 2, 3}, Vel: mgl64.Vec3{0.5, -0.2, 0.1}, Omega: mgl64.Vec3{1, 0.02, 0.03}}
		b.SetDensity(1000)
		m := &engine.Model{Bodies: []engine.Body{b}, Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
		s := engine.DefaultSettings()
		s.Dt = 1e-4
		sim := newSim(t, m, s, newBackend())
		var st engine.State
		readState(t, sim, &st)
		p0, l0 := momentum(m, &st)
		for k := 0; k < 1000; k++ {
			step(t, sim)
		}
		readState(t, sim, &st)
		p1, l1 := momentum(m, &st)
		// Linear momentum: untouched by the step up to rounding.
		if d := p1.Sub(p0).Len(); d > 1e-14*p0.Len() {
			t.Errorf("linear momentum changed by %g (of %g)", d, p0.Len())
		}
		// Angular momentum: the gyroscopic step has a local error
		// O(h²|ω|²); over 1000 steps of h = 1e-4 s the drift observed is
		// ~1e-6 relative; 1e-4 bounds it with margin.
		if d := l1.Sub(l0).Len(); d > 1e-4*l0.Len() {
			t.Errorf("angular momentum changed by %g (of %g)", d, l0.Len())
		}
	})
}

// TestCollisionMomentum: two spheres meeting off-centre with friction and
// no gravity; the contact impulses are equal and opposite, so the total
// linear momentum is conserved to rounding.
func TestCollisionMomentum(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		a := engine.Body{Shape: engine.SphereShape(0.5), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{-1, 0.3, 0}, Vel: mgl64.Vec3{2, 0, 0.1}}
		a.SetDensity(1000)
		c := engine.Body{Shape: engine.SphereShape(0.4), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{1, 0, 0}, Vel: mgl64.Vec3{-1, 0, 0}, Omega: mgl64.Vec3{0, 0, 3}}
		c.SetDensity(2000)
		m := &engine.Model{Bodies: []engine.Body{a, c}, Materials: []engine.Material{{Name: "m", Friction: 0.5}}}
		s := engine.DefaultSettings()
		s.Dt = 1e-3
		s.Tol = 1e-10
		sim := newSim(t, m, s, newBackend())
		var st engine.State
		readState(t, sim, &st)
		p0, _ := momentum(m, &st)
		touched := false
		for k := 0; k < 1500; k++ {
			if step(t, sim).Contacts > 0 {
				touched = true
			}
		}
		if !touched {
			t.Fatal("the spheres never touched")
		}
		readState(t, sim, &st)
		p1, _ := momentum(m, &st)
		// Rounding of O(1000) steps of O(1) impulses.
		if d := p1.Sub(p0).Len(); d > 1e-11*p0.Len() {
			t.Errorf("linear momentum changed by %g (of %g)", d, p0.Len())
		}
		// The spheres separate after the plastic impact: the DVI step is
		// inelastic, so the relative normal speed ends ≥ 0 and not larger
		// than before.
		va, vc := vec3(st.Vel, 0), vec3(st.Vel, 1)
		n := vec3(st.Pos, 1).Sub(vec3(st.Pos, 0)).Normalize()
		if rel := vc.Sub(va).Dot(n); rel < -1e-9 {
			t.Errorf("spheres still approach at %g m/s", rel)
		}
	})
}

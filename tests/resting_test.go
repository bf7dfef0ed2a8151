package tests

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TestResting: a body placed at rest on a support stays there: no sinking,
// no drift, no spin, and the support carries its weight. It exercises each
// narrowphase pair of a resting contact (box–plane with four corners,
// ellipsoid–plane, sphere–box, ellipsoid–box, sphere–ellipsoid) through a
// whole time step.
func TestResting(t *testing.T) {
	floorBox := engine.Body{Shape: engine.BoxShape(2, 2, 0.5), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.5}, Fixed: true}
	plane := engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true}
	bigEll := engine.Body{Shape: engine.EllipsoidShape(2, 2, 0.5), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.5}, Fixed: true}
	cases := []struct {
		name    string
		body    engine.Shape
		z       float64 // resting height of the centre (m)
		support engine.Body
	}{
		{"box on plane", engine.BoxShape(0.2, 0.1, 0.05), 0.05, plane},
		{"ellipsoid on plane", engine.EllipsoidShape(0.3, 0.2, 0.1), 0.1, plane},
		{"sphere on box", engine.SphereShape(0.1), 0.1, floorBox},
		{"ellipsoid on box", engine.EllipsoidShape(0.3, 0.2, 0.1), 0.1, floorBox},
		{"sphere on ellipsoid", engine.SphereShape(0.1), 0.1, bigEll},
	}
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		for _, c := range cases {
			b := engine.Body{Shape: c.body, Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, c.z}}
			b.SetMass(2)
			m := &engine.Model{Bodies: []engine.Body{b, c.support},
				Materials: []engine.Material{{Name: "m", Friction: 0.5}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
			s := engine.DefaultSettings()
			s.Tol = 1e-9
			s.MaxIter = 5000
			sim := newSim(t, m, s, newBackend())
			last, st := stepFor(t, sim, 100)
			pos, q := vec3(st.Pos, 0), quat(st.Rot, 0)
			// 1e-6 m and 1e-6 rad: the residual tolerance 1e-9 on
			// velocities (m/s) over 1 s of steps gives drifts far below;
			// a wrong contact set (a missing corner) tips the body by
			// whole degrees.
			if d := pos.Sub(mgl64.Vec3{0, 0, c.z}).Len(); d > 1e-6 {
				t.Errorf("%s: moved to %v (drift %.3g m)", c.name, pos, d)
			}
			if a := 2 * math.Acos(math.Min(1, math.Abs(q.W))); a > 1e-6 {
				t.Errorf("%s: turned by %.3g rad", c.name, a)
			}
			// The support carries the weight 2·9.81 N (to the solver's
			// tolerance).
			if fz := -last.FixedForce[2]; math.Abs(fz-2*9.81) > 1e-6*2*9.81 {
				t.Errorf("%s: support force %.9f N, want %.9f N", c.name, fz, 2*9.81)
			}
		}
	})
}

package cpuref

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TestCollideClosingBound: a contact found within the speculative margins
// is kept only when the two bodies can close its gap in the step along its
// normal. Two spheres (r = 0.5 m) 2 m apart on x (gap Φ = 1 m), h = 0.01 s,
// no gravity: body 1 moving along y at 1000 m/s has a margin of 10 m, which
// takes the pair into the narrowphase, but it slides past body 0 and
// cannot close the gap, so there is no contact (before the closing test
// the relaxed cone of that contact pushed the spheres apart); moving along
// −x at 150 m/s it approaches by 1.5 m > Φ and the contact is kept; at
// 50 m/s (0.5 m < Φ) it is not; spinning at 300 rad/s (h‖ω‖R = 1.5 m) it
// is kept whatever its translation, as a rotation bound must.
func TestCollideClosingBound(t *testing.T) {
	m := &engine.Model{
		Materials: []engine.Material{{Name: "m", Friction: 0.3}},
		Bodies: []engine.Body{
			{Shape: engine.Shape{Kind: engine.Sphere, Size: mgl64.Vec3{0.5, 0.5, 0.5}}, Rot: mgl64.QuatIdent(), Mass: 1, Inertia: mgl64.Vec3{0.1, 0.1, 0.1}},
			{Shape: engine.Shape{Kind: engine.Sphere, Size: mgl64.Vec3{0.5, 0.5, 0.5}}, Pos: mgl64.Vec3{2, 0, 0}, Rot: mgl64.QuatIdent(), Mass: 1, Inertia: mgl64.Vec3{0.1, 0.1, 0.1}},
		},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	s := engine.DefaultSettings()
	s.Dt = 0.01
	var c Collider
	c.Load(m, &s)
	pos := []float64{0, 0, 0, 2, 0, 0}
	rot := []float64{1, 0, 0, 0, 1, 0, 0, 0}
	invMass := []float64{1, 1}
	zero := make([]float64, 6)
	for _, tc := range []struct {
		name        string
		vel, omega  []float64
		wantContact bool
	}{
		{"sliding past at 1000 m/s", []float64{0, 0, 0, 0, 1000, 0}, zero, false},
		{"approaching at 150 m/s", []float64{0, 0, 0, -150, 0, 0}, zero, true},
		{"approaching at 50 m/s", []float64{0, 0, 0, -50, 0, 0}, zero, false},
		{"receding at 150 m/s", []float64{0, 0, 0, 150, 0, 0}, zero, false},
		{"spinning at 300 rad/s", zero, []float64{0, 0, 0, 0, 0, 300}, true},
	} {
		nc, err := c.Collide(pos, rot, tc.vel, tc.omega, invMass, zero)
		if err != nil {
			t.Fatal(err)
		}
		if got := nc > 0; got != tc.wantContact {
			t.Errorf("%s: %d contacts (margins %v), want a contact: %v", tc.name, nc, c.margin, tc.wantContact)
		}
	}
}

package tests

import (
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
			checkRests(t, c.name, engine.Body{Shape: c.body, Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, c.z}}, c.support, newBackend())
		}
	})
}

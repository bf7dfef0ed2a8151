package engine

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestArmsAlongNormal: which models hold their contacts' arms as ρ.
func TestArmsAlongNormal(t *testing.T) {
	sphere := Body{Shape: SphereShape(0.1)}
	for _, c := range []struct {
		what   string
		bodies []Body
		want   bool
	}{
		{"spheres", []Body{sphere, sphere}, true},
		{"spheres and a fixed box", []Body{sphere, {Shape: BoxShape(1, 1, 1), Fixed: true}}, true},
		{"spheres and a plane", []Body{sphere, {Shape: PlaneShape()}}, true},
		{"a kinematic sphere", []Body{sphere, {Shape: SphereShape(1), Motion: &Motion{}}}, true},
		{"a movable box", []Body{sphere, {Shape: BoxShape(1, 1, 1)}}, false},
		{"a box that translates", []Body{sphere, {Shape: BoxShape(1, 1, 1), Motion: &Motion{Vel: mgl64.Vec3{1, 0, 0}, Amplitude: mgl64.Vec3{0, 0, 1}, Frequency: 2}}}, true},
		{"a box that turns", []Body{sphere, {Shape: BoxShape(1, 1, 1), Motion: &Motion{Omega: mgl64.Vec3{0, 1e-9, 0}}}}, false},
		{"a movable ellipsoid", []Body{{Shape: EllipsoidShape(0.1, 0.1, 0.1)}}, false},
	} {
		m := Model{Bodies: c.bodies}
		if got := m.ArmsAlongNormal(); got != c.want {
			t.Errorf("%s: ArmsAlongNormal %v, want %v", c.what, got, c.want)
		}
	}
	// A translating box given a motion that turns it: its arm counts from
	// then on; a sphere's never does.
	m := Model{Bodies: []Body{sphere, {Shape: SphereShape(1), Motion: &Motion{}}, {Shape: BoxShape(1, 1, 1), Motion: &Motion{}}}}
	for _, c := range []struct {
		what string
		body int
		mv   Motion
		want bool
	}{
		{"the box moved", 2, Motion{Vel: mgl64.Vec3{1, 0, 0}}, true},
		{"the sphere turned", 1, Motion{Omega: mgl64.Vec3{1, 0, 0}}, true},
		{"the box turned", 2, Motion{Omega: mgl64.Vec3{1, 0, 0}}, false},
	} {
		a := NewArmsLayout(&m)
		if !a.Along {
			t.Fatal("spheres and a translating box: the arms held whole at Load")
		}
		if a.SetMotion(c.body, c.mv); a.Along != c.want {
			t.Errorf("%s: arms along the normals %v, want %v", c.what, a.Along, c.want)
		}
	}
}

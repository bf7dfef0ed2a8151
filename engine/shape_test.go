package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/geom"
)

// revolution integrates a solid of revolution about z, given the radius ρ(z)
// of its slice at height z on [lo, hi], by Simpson's rule on n intervals
// of each of the pieces split at cuts (where ρ² changes formula): the
// volume ∫πρ²dz, the moment about the axis ∫½ρ²·πρ²dz and about a
// diameter through z = 0, ∫(¼ρ² + z²)·πρ²dz. Within a piece ρ² is a
// polynomial of degree ≤ 2, the integrands of degree ≤ 6: Simpson's error
// on 2000 intervals is below 1e-14 of the values.
func revolution(rho2 func(z float64) float64, cuts []float64, n int) (vol, iz, ix float64) {
	for k := 0; k+1 < len(cuts); k++ {
		a, b := cuts[k], cuts[k+1]
		dz := (b - a) / float64(n)
		for i := 0; i <= n; i++ {
			w := 2.0
			switch {
			case i == 0 || i == n:
				w = 1
			case i%2 == 1:
				w = 4
			}
			z := a + float64(i)*dz
			r2 := rho2(z)
			dv := w * dz / 3 * math.Pi * r2
			vol += dv
			iz += dv * r2 / 2
			ix += dv * (r2/4 + z*z)
		}
	}
	return vol, iz, ix
}

// TestCapsuleCylinderMass checks Volume and UnitInertia of capsules and
// cylinders against the integrals over their slices (revolution).
func TestCapsuleCylinderMass(t *testing.T) {
	for _, c := range []struct{ r, h float64 }{{0.3, 0.5}, {1, 0.1}, {0.2, 2}, {0.5, 0}} {
		r, h := c.r, c.h
		capRho2 := func(z float64) float64 {
			if d := math.Abs(z) - h; d > 0 {
				return math.Max(0, r*r-d*d)
			}
			return r * r
		}
		shapes := []struct {
			s        Shape
			rho2     func(float64) float64
			cuts     []float64
			checkVol float64
		}{
			{CapsuleShape(r, h), capRho2, []float64{-h - r, -h, h, h + r}, 0},
			{CylinderShape(r, h), func(float64) float64 { return r * r }, []float64{-h, h}, 0},
		}
		for _, sh := range shapes {
			if sh.s.Validate() != nil {
				continue // a cylinder of height 0
			}
			vol, iz, ix := revolution(sh.rho2, sh.cuts, 2000)
			// 1e-12 relative: Simpson's error is far below (see revolution);
			// what is left is rounding.
			if got := sh.s.Volume(); math.Abs(got-vol) > 1e-12*vol {
				t.Errorf("%v r=%v h=%v: volume %.15g, want %.15g", sh.s.Kind, r, h, got, vol)
			}
			j := sh.s.UnitInertia()
			if math.Abs(j[2]-iz/vol) > 1e-12*iz/vol || math.Abs(j[0]-ix/vol) > 1e-12*ix/vol || j[0] != j[1] {
				t.Errorf("%v r=%v h=%v: unit inertia %v, want (%.15g, %.15g, %.15g)", sh.s.Kind, r, h, j, ix/vol, ix/vol, iz/vol)
			}
			if br := sh.s.BoundingRadius(); br != map[ShapeKind]float64{Capsule: r + h, Cylinder: math.Hypot(r, h)}[sh.s.Kind] {
				t.Errorf("%v: bounding radius %v", sh.s.Kind, br)
			}
		}
	}
}

// TestCapsuleCylinderInvalid: the sizes' errors name the shape and the
// field.
func TestCapsuleCylinderInvalid(t *testing.T) {
	for _, c := range []struct {
		s    Shape
		want string
	}{
		{CapsuleShape(0, 1), "capsule radius 0 must be positive"},
		{CapsuleShape(1, -1), "capsule half_height -1 must be non-negative"},
		{CapsuleShape(1, math.Inf(1)), "capsule half_height +Inf"},
		{CylinderShape(1, 0), "cylinder half_height 0 must be positive"},
		{CylinderShape(math.NaN(), 1), "cylinder radius NaN"},
	} {
		err := c.s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.s, err, c.want)
		}
	}
	if err := CapsuleShape(1, 0).Validate(); err != nil {
		t.Errorf("a capsule of length 0 (a ball): %v", err)
	}
	for _, name := range []string{"capsule", "cylinder"} {
		if k, err := ParseShapeKind(name); err != nil || k.String() != name {
			t.Errorf("ParseShapeKind(%q) = %v, %v", name, k, err)
		}
	}
}

// TestNewConvex: the hull of a box's corners, given rotated and moved in
// the body's frame, has the box's volume and principal moments, its centre
// of mass at the given centre and its principal frame along the box's
// axes (up to the order and signs of the axes).
func TestNewConvex(t *testing.T) {
	h := mgl64.Vec3{0.3, 0.2, 0.1}
	q0 := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	c0 := mgl64.Vec3{1, -2, 0.5}
	var pts []mgl64.Vec3
	for _, p := range geom.BoxCorners(h) {
		pts = append(pts, c0.Add(q0.Rotate(p)), c0) // the centre too: an interior point
	}
	s, c, q, err := NewConvex(pts)
	if err != nil {
		t.Fatal(err)
	}
	box := BoxShape(h[0], h[1], h[2])
	// 1e-12 relative: the mass properties sum a few dozen products of
	// O(1) coordinates (geom.PolyhedronMass), and the eigenvectors come
	// from Jacobi rotations to offDiagTol.
	if d := s.Volume() - box.Volume(); math.Abs(d) > 1e-12*box.Volume() {
		t.Errorf("volume %v, want %v", s.Volume(), box.Volume())
	}
	if c.Sub(c0).Len() > 1e-12 {
		t.Errorf("centre %v, want %v", c, c0)
	}
	// The principal axes are the box's up to order and sign: the moments
	// match as a set, and each body axis of q is ± an axis of q0.
	got, want := s.UnitInertia(), box.UnitInertia()
	for _, g := range got {
		found := false
		for _, w := range want {
			found = found || math.Abs(g-w) < 1e-12*w
		}
		if !found {
			t.Errorf("moments %v, want a permutation of %v", got, want)
		}
	}
	for i := range 3 {
		e := mgl64.Vec3{}
		e[i] = 1
		ax := q.Rotate(e)
		best := 0.0
		for j := range 3 {
			f := mgl64.Vec3{}
			f[j] = 1
			best = math.Max(best, math.Abs(ax.Dot(q0.Rotate(f))))
		}
		if 1-best > 1e-9 {
			t.Errorf("principal axis %d %v is not along a box axis", i, ax)
		}
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if r := s.BoundingRadius(); math.Abs(r-h.Len()) > 1e-12 {
		t.Errorf("bounding radius %v, want %v", r, h.Len())
	}
	for _, bad := range [][]mgl64.Vec3{pts[:3], {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, math.NaN()}}} {
		if _, _, _, err := NewConvex(bad); err == nil {
			t.Errorf("NewConvex(%v): no error", bad)
		} else {
			t.Log(err)
		}
	}
	if err := (Shape{Kind: Convex}).Validate(); err == nil {
		t.Error("a convex shape without its hull validates")
	}
}

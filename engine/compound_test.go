package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// compoundTol bounds the relative error of the compound's mass
// properties: sums of a few products (a few ulps each) and, where the
// tensor is not diagonal, Jacobi rotations run until the off-diagonal
// terms are below offDiagTol = 1e-14 of the trace; 1e-12 leaves a factor
// of 100 over both.
const compoundTol = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= compoundTol*math.Max(1, math.Abs(b)) }

// Two equal spheres of radius r at ±d on x: I_xx = 2·(2/5)m r²,
// I_yy = I_zz = 2·((2/5)m r² + m d²), each sphere of mass m. The tensor is
// diagonal, so the frame is kept exactly.
func TestCompoundTwoSpheres(t *testing.T) {
	const r, d, rho = 0.1, 0.3, 1000.0
	parts := []Part{
		{Shape: SphereShape(r), Pos: mgl64.Vec3{-d, 0, 0}, Rot: mgl64.QuatIdent()},
		{Shape: SphereShape(r), Pos: mgl64.Vec3{d, 0, 0}, Rot: mgl64.QuatIdent()},
	}
	s, c, q, err := NewCompound(parts)
	if err != nil {
		t.Fatal(err)
	}
	if c != (mgl64.Vec3{}) || q != mgl64.QuatIdent() {
		t.Errorf("centre %v, rotation %v; want the origin and the identity exactly", c, q)
	}
	b := Body{Shape: s}
	b.SetDensity(rho)
	m := rho * 4.0 / 3.0 * math.Pi * r * r * r
	want := mgl64.Vec3{2 * 0.4 * m * r * r, 2 * (0.4*m*r*r + m*d*d), 2 * (0.4*m*r*r + m*d*d)}
	if !near(b.Mass, 2*m) {
		t.Errorf("mass %v, want %v", b.Mass, 2*m)
	}
	for k := range want {
		if !near(b.Inertia[k], want[k]) {
			t.Errorf("inertia %v, want %v", b.Inertia, want)
			break
		}
	}
	if got := s.BoundingRadius(); !near(got, d+r) {
		t.Errorf("bounding radius %v, want %v", got, d+r)
	}
}

// An L of two equal boxes 2 × 0.2 × 0.2 m, one along x from the origin,
// one along y (their corner squares overlap and count twice, as
// documented). Each box of mass m about its centre has the moments
// m(b² + c²)/3 of its half-extents; the centres sit at (1, 0, 0) and
// (0, 1, 0), the centre of mass at (½, ½, 0), each box ½√2 from it along
// ±(1, −1, 0)/√2. In the L's frame:
//
//	I_xx = I_yy = m(0.02/3 + 1.01/3) + 2m·¼,  I_zz = 2m(1.01/3 + ½),  I_xy = +2m·¼
//
// so the principal moments are I_xx ± I_xy about (1, ±1, 0)/√2 and I_zz.
func TestCompoundLBoxes(t *testing.T) {
	parts := []Part{
		{Shape: BoxShape(1, 0.1, 0.1), Pos: mgl64.Vec3{1, 0, 0}, Rot: mgl64.QuatIdent()},
		{Shape: BoxShape(0.1, 1, 0.1), Pos: mgl64.Vec3{0, 1, 0}, Rot: mgl64.QuatIdent()},
	}
	s, c, q, err := NewCompound(parts)
	if err != nil {
		t.Fatal(err)
	}
	if !near(c[0], 0.5) || !near(c[1], 0.5) || c[2] != 0 {
		t.Errorf("centre of mass %v, want (0.5, 0.5, 0)", c)
	}
	const m = 1.0 // per box; the body's mass is 2
	ixx := m*(0.02/3+1.01/3) + 2*m*0.25
	ixy := 2 * m * 0.25
	izz := 2 * m * (1.01/3 + 0.5)
	b := Body{Shape: s}
	b.SetMass(2 * m)
	// Each principal axis, turned into the L's frame by q, must be the
	// expected one for its moment.
	for k := 0; k < 3; k++ {
		var axis mgl64.Vec3
		axis[k] = 1
		a := q.Rotate(axis)
		var want float64
		switch {
		case math.Abs(math.Abs(a[2])-1) < 1e-9:
			want = izz
		case math.Abs(a[0]*a[1]-0.5) < 1e-9: // along ±(1, 1, 0)/√2
			want = ixx + ixy
		case math.Abs(a[0]*a[1]+0.5) < 1e-9: // along ±(1, −1, 0)/√2
			want = ixx - ixy
		default:
			t.Fatalf("principal axis %d is %v in the L's frame: not z nor a diagonal of xy", k, a)
		}
		if !near(b.Inertia[k], want) {
			t.Errorf("principal moment %d (axis %v) is %v, want %v", k, a, b.Inertia[k], want)
		}
	}
	// The parts in the principal frame: the centre of mass at the origin,
	// each part at distance ½√2 and turned by q⁻¹.
	var sum mgl64.Vec3
	for i, p := range s.Compound.Parts {
		sum = sum.Add(p.Pos)
		if !near(p.Pos.Len(), math.Sqrt(0.5)) {
			t.Errorf("part %d at %v, want ½√2 from the centre of mass", i, p.Pos)
		}
		if w := q.Rotate(p.Pos).Add(c); w.Sub(parts[i].Pos).Len() > compoundTol {
			t.Errorf("part %d maps back to %v, want %v", i, w, parts[i].Pos)
		}
	}
	if sum.Len() > compoundTol {
		t.Errorf("centre of the parts %v in the principal frame, want 0", sum)
	}
	// The tensor of the parts as returned is diagonal (to offDiagTol).
	tt := unitInertiaTensor(s.Compound.Parts)
	tr := tt.At(0, 0) + tt.At(1, 1) + tt.At(2, 2)
	for _, ab := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
		if math.Abs(tt.At(ab[0], ab[1])) > compoundTol*tr {
			t.Errorf("principal tensor's (%d, %d) term is %v", ab[0], ab[1], tt.At(ab[0], ab[1]))
		}
	}
}

// A part turned by 90° about z: a box (1, 0.1, 0.1) so turned is the box
// (0.1, 1, 0.1), with the same mass properties.
func TestCompoundRotatedPart(t *testing.T) {
	turn := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1})
	a, _, _, err := NewCompound([]Part{{Shape: BoxShape(1, 0.1, 0.1), Rot: turn}, {Shape: SphereShape(0.2), Pos: mgl64.Vec3{0, 0, 1}, Rot: mgl64.QuatIdent()}})
	if err != nil {
		t.Fatal(err)
	}
	b, _, _, err := NewCompound([]Part{{Shape: BoxShape(0.1, 1, 0.1), Rot: mgl64.QuatIdent()}, {Shape: SphereShape(0.2), Pos: mgl64.Vec3{0, 0, 1}, Rot: mgl64.QuatIdent()}})
	if err != nil {
		t.Fatal(err)
	}
	ia, ib := a.UnitInertia(), b.UnitInertia()
	for k := range ia {
		if !near(ia[k], ib[k]) {
			t.Errorf("turned part: unit inertia %v, want %v", ia, ib)
			break
		}
	}
}

func TestCompoundInvalid(t *testing.T) {
	id := mgl64.QuatIdent()
	for _, c := range []struct {
		parts []Part
		want  string
	}{
		{nil, "no parts"},
		{[]Part{{Shape: SphereShape(1), Rot: id}, {Shape: PlaneShape(), Rot: id}}, "part 1: a plane cannot be a part"},
		{[]Part{{Shape: CompoundShape([]Part{{Shape: SphereShape(1), Rot: id}}), Rot: id}}, "part 0: compounds do not nest"},
		{[]Part{{Shape: SphereShape(0), Rot: id}}, "part 0: sphere radius 0"},
		{[]Part{{Shape: SphereShape(1), Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: id}}, "part 0: position"},
		{[]Part{{Shape: SphereShape(1)}}, "part 0: orientation"},
	} {
		_, _, _, err := NewCompound(c.parts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewCompound(%v): %v; want an error containing %q", c.parts, err, c.want)
		}
		if err := CompoundShape(c.parts).Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%v): %v; want an error containing %q", c.parts, err, c.want)
		}
	}
}

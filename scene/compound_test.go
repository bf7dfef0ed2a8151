package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// placeTol bounds the error of a part's world position or a body's world
// angular velocity recomputed through the centre of mass and principal
// frame: a few quaternion rotations of values of order 1, each a few
// ulps; 1e-12 leaves a wide margin.
const placeTol = 1e-12

// A compound's body sits at its centre of mass in its principal frame,
// and every part stays where the document put it: pos + rot·part.pos in
// the world. Its angular velocity, given in the parts' frame, is the same
// vector in the world.
func TestCompoundPlacement(t *testing.T) {
	sc, err := LoadFile("testdata/compound.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := sc.Doc.Bodies[1]
	b := sc.Model.Bodies[1]
	if b.Shape.Kind != engine.Compound || len(b.Shape.Compound.Parts) != 3 {
		t.Fatalf("body 1 is %v, want a compound of 3 parts", b.Shape.Kind)
	}
	p := mgl64.Vec3(*spec.Pos)
	r := mgl64.Quat{W: spec.Rot[0], V: mgl64.Vec3{spec.Rot[1], spec.Rot[2], spec.Rot[3]}}
	for i, part := range b.Shape.Compound.Parts {
		got := b.Pos.Add(b.Rot.Rotate(part.Pos))
		want := p.Add(r.Rotate(mgl64.Vec3(*spec.Shape.Parts[i].Pos)))
		if got.Sub(want).Len() > placeTol {
			t.Errorf("part %d in the world at %v, want %v", i, got, want)
		}
	}
	// The L's arms weigh alike and the sphere sits at the corner, so the
	// centre of mass lies on the diagonal x = y of the parts' frame, the
	// L's symmetry axis, which is then a principal axis.
	c := r.Conjugate().Rotate(b.Pos.Sub(p))
	if math.Abs(c[0]-c[1]) > placeTol || c[2] != 0 || !(c[0] > 0) {
		t.Errorf("centre of mass %v in the parts' frame, want on the diagonal x = y > 0", c)
	}
	if w := b.Rot.Rotate(b.Omega); w.Sub(r.Rotate(mgl64.Vec3{0, 0, 1})).Len() > placeTol {
		t.Errorf("angular velocity %v in the world, want %v", w, r.Rotate(mgl64.Vec3{0, 0, 1}))
	}
	vol := 2*8*0.5*0.05*0.05 + 4.0/3.0*math.Pi*0.001
	if math.Abs(b.Mass-1000*vol) > placeTol*b.Mass {
		t.Errorf("mass %v, want %v (the parts' volumes, overlaps counted twice, at 1000 kg/m³)", b.Mass, 1000*vol)
	}
}

// Errors that JSON cannot carry (a NaN pose) or that involve the body
// (an inertia for a compound) name their path.
func TestCompoundErrors(t *testing.T) {
	base := func() *Doc {
		f := 0.4
		return &Doc{
			Materials: []MaterialSpec{{Name: "m", Friction: &f}},
			Bodies: []BodySpec{{Shape: ShapeSpec{Type: "compound", Parts: []PartSpec{
				{Shape: ShapeSpec{Type: "sphere", Radius: &Size{Value: 0.1}}, Pos: &Vec3{-0.3, 0, 0}},
				{Shape: ShapeSpec{Type: "sphere", Radius: &Size{Value: 0.1}}, Pos: &Vec3{0.3, 0, 0}},
			}}, Mass: ptr(1.0)}},
		}
	}
	if _, err := base().build("s.json", defaultLimits()); err != nil {
		t.Fatalf("the base document: %v", err)
	}
	for _, c := range []struct {
		edit func(d *Doc)
		want string
	}{
		{func(d *Doc) { d.Bodies[0].Shape.Parts[1].Pos[1] = math.NaN() }, "s.json: bodies[0].shape.parts[1].pos: [0.3 NaN 0] is not finite"},
		{func(d *Doc) { d.Bodies[0].Shape.Parts[0].Rot = &Quat{math.NaN(), 0, 0, 0} }, "s.json: bodies[0].shape.parts[0].rot: [NaN 0 0 0] is not a unit quaternion"},
		{func(d *Doc) { d.Bodies[0].Inertia = &Vec3{1, 1, 1} }, "s.json: bodies[0].inertia: a compound's inertia comes from its parts"},
		{func(d *Doc) { d.Bodies[0].Shape.Parts[0].Shape = ShapeSpec{Type: "plane"} }, "s.json: bodies[0].shape.parts[0].shape.type: a plane cannot be a part"},
	} {
		d := base()
		c.edit(d)
		_, err := d.build("s.json", defaultLimits())
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("got %v, want an error starting %q", err, c.want)
		}
	}
}

// FromState writes a compound's parts in its principal frame at its
// centre of mass; the document builds the same body (to rounding: the
// parts' centre of mass, computed again, is zero to an ulp or so).
func TestCompoundFromState(t *testing.T) {
	sc, err := LoadFile("testdata/compound.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var st engine.State
	st.Resize(len(sc.Model.Bodies))
	for i, b := range sc.Model.Bodies {
		copy(st.Pos[3*i:], b.Pos[:])
		st.Rot[4*i], st.Rot[4*i+1], st.Rot[4*i+2], st.Rot[4*i+3] = b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]
		copy(st.Omega[3*i:], b.Omega[:])
	}
	doc, err := FromState(sc.Doc, &sc.Model, &st)
	if err != nil {
		t.Fatal(err)
	}
	back, err := doc.build("restart.json", defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	a, b := sc.Model.Bodies[1], back.Model.Bodies[1]
	if a.Pos.Sub(b.Pos).Len() > placeTol || !a.Rot.ApproxEqualThreshold(b.Rot, placeTol) ||
		math.Abs(a.Mass-b.Mass) > placeTol*a.Mass || a.Inertia.Sub(b.Inertia).Len() > placeTol*a.Inertia.Len() {
		t.Errorf("rebuilt compound at %v %v, mass %v, inertia %v; want %v %v, %v, %v", b.Pos, b.Rot, b.Mass, b.Inertia, a.Pos, a.Rot, a.Mass, a.Inertia)
	}
}

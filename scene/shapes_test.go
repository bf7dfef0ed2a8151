package scene

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TestShapeInputs: capsules, cylinders and convex shapes from a scene
// document, and their bad inputs, each error naming the field.
func TestShapeInputs(t *testing.T) {
	doc := func(shape string) string {
		return `{"materials": [{"name": "m", "friction": 0.5}], "bodies": [{"shape": ` + shape + `, "mass": 1, "pos": [0, 0, 1]}]}`
	}
	cube := `[[1,1,1],[1,1,-1],[1,-1,1],[1,-1,-1],[-1,1,1],[-1,1,-1],[-1,-1,1],[-1,-1,-1]]`
	for _, c := range []struct {
		name, shape, want string
	}{
		{"capsule without half_height", `{"type": "capsule", "radius": 0.1}`, "bodies[0].shape.half_height: missing (a capsule needs it)"},
		{"cylinder with semi_axes", `{"type": "cylinder", "radius": 0.1, "half_height": 0.2, "semi_axes": [1, 1, 1]}`, "bodies[0].shape.semi_axes: does not apply to a cylinder"},
		{"negative half_height", `{"type": "cylinder", "radius": 0.1, "half_height": -0.2}`, "bodies[0].shape.half_height: -0.2 must be positive"},
		{"sphere with half_height", `{"type": "sphere", "radius": 0.1, "half_height": 0.2}`, "bodies[0].shape.half_height: does not apply to a sphere"},
		{"convex without points", `{"type": "convex"}`, "bodies[0].shape.points: missing (a convex shape needs at least 4 points)"},
		{"convex with radius", `{"type": "convex", "radius": 1, "points": ` + cube + `}`, "bodies[0].shape.radius: does not apply to a convex shape"},
		{"three points", `{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0]]}`, "bodies[0].shape.points: geom: convex hull needs at least 4 points, got 3"},
		{"coplanar points", `{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}`, "bodies[0].shape.points: geom: convex hull: all 4 points are coplanar"},
		{"collinear points", `{"type": "convex", "points": [[0,0,0],[1,0,0],[2,0,0],[3,0,0]]}`, "collinear"},
		{"point out of range", `{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1e999]]}`, "bodies[0].shape.points[3][2]: number 1e999 is out of range"},
		{"points on a box", `{"type": "box", "half_extents": [1,1,1], "points": ` + cube + `}`, "bodies[0].shape.points: does not apply to a box (only to a convex shape)"},
		{"convex inertia", `{"type": "convex", "points": ` + cube + `}, "inertia": [1, 1, 1]`, "bodies[0].inertia: a convex shape's inertia comes from its hull"},
	} {
		_, err := Parse([]byte(doc(c.shape)), "shapes.json", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}

	// A convex body given off its centre of mass and rotated: the body
	// sits at the hull's centre, in its principal frame, with the mass
	// and moments of the box whose corners the points are.
	sc, err := Parse([]byte(`{"materials": [{"name": "m", "friction": 0.5}], "bodies": [
		{"shape": {"type": "convex", "points": [[0,0,0],[0.6,0,0],[0,0.4,0],[0.6,0.4,0],[0,0,0.2],[0.6,0,0.2],[0,0.4,0.2],[0.6,0.4,0.2]]}, "density": 1000, "pos": [1, 2, 3]},
		{"shape": {"type": "capsule", "radius": 0.1, "half_height": 0.2}, "density": 1000, "pos": [0, 0, 1]},
		{"shape": {"type": "cylinder", "radius": 0.1, "half_height": 0.2}, "density": 1000, "pos": [0, 0, 2]}]}`), "shapes.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := sc.Model.Bodies[0]
	box := engine.BoxShape(0.3, 0.2, 0.1)
	// 1e-12: the hull's mass properties are exact up to rounding.
	if b.Pos.Sub(mgl64.Vec3{1.3, 2.2, 3.1}).Len() > 1e-12 || math.Abs(b.Mass-1000*box.Volume()) > 1e-12*b.Mass {
		t.Errorf("convex body at %v with mass %v, want at (1.3, 2.2, 3.1) with %v", b.Pos, b.Mass, 1000*box.Volume())
	}
	if j := box.UnitInertia().Mul(b.Mass); b.Inertia.Sub(j).Len() > 1e-12*j.Len() {
		t.Errorf("convex inertia %v, want the box's %v", b.Inertia, j)
	}
	for i, k := range []engine.ShapeKind{engine.Convex, engine.Capsule, engine.Cylinder} {
		if got := sc.Model.Bodies[i].Shape.Kind; got != k {
			t.Errorf("body %d: %v, want %v", i, got, k)
		}
	}
	if m := sc.Model.Bodies[2].Mass; math.Abs(m-1000*2*math.Pi*0.01*0.2) > 1e-12*m {
		t.Errorf("cylinder mass %v", m)
	}
}

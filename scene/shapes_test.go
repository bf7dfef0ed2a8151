package scene

import (
	"math"
	"os"
	"path/filepath"
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

// TestMeshInputs: a mesh body from an OBJ file beside the scene (its path
// relative to the scene's folder, scaled), and the mesh's bad inputs.
func TestMeshInputs(t *testing.T) {
	dir := t.TempDir()
	obj := "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n"
	for name, text := range map[string]string{
		"floor.obj": obj,
		"nan.obj":   "v 0 0 0\nv 1 0 nan\nv 1 1 0\nf 1 2 3\n",
		"flat.obj":  "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n",
		"floor.ply": obj,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scene := func(body string) string {
		return `{"materials": [{"name": "m", "friction": 0.5}], "bodies": [` + body + `]}`
	}
	load := func(body string) (*Scene, error) {
		path := filepath.Join(dir, "s.json")
		if err := os.WriteFile(path, []byte(scene(body)), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadFile(path, nil)
	}
	sc, err := load(`{"shape": {"type": "mesh", "file": "floor.obj", "scale": 2}, "fixed": true}, {"shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "pos": [1, 1, 0.1]}`)
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model.Bodies[0].Shape
	if m.Kind != engine.Mesh || len(m.Mesh.Parts) != 2 || m.Mesh.Scale != 2 {
		t.Fatalf("mesh body %v with %d triangles, scale %v: want 2 triangles (a quad fanned), scale 2", m.Kind, len(m.Mesh.Parts), m.Mesh.Scale)
	}
	if r := m.BoundingRadius(); math.Abs(r-2*math.Sqrt2) > 1e-12 {
		t.Errorf("bounding radius %v, want 2√2 (the far corner at (2, 2, 0))", r)
	}
	for _, c := range []struct{ name, body, want string }{
		{"free mesh", `{"shape": {"type": "mesh", "file": "floor.obj"}, "mass": 1}`, "bodies[0].fixed: a mesh has no volume to weigh"},
		{"missing file", `{"shape": {"type": "mesh", "file": "none.obj"}, "fixed": true}`, "bodies[0].shape.file:"},
		{"NaN vertex", `{"shape": {"type": "mesh", "file": "nan.obj"}, "fixed": true}`, "bodies[0].shape.file:"},
		{"zero-area triangle", `{"shape": {"type": "mesh", "file": "flat.obj"}, "fixed": true}`, "bodies[0].shape.file:"},
		{"unknown extension", `{"shape": {"type": "mesh", "file": "floor.ply"}, "fixed": true}`, "bodies[0].shape.file:"},
		{"no file", `{"shape": {"type": "mesh"}, "fixed": true}`, "bodies[0].shape.file: missing"},
		{"negative scale", `{"shape": {"type": "mesh", "file": "floor.obj", "scale": -1}, "fixed": true}`, "bodies[0].shape.scale: -1 must be positive"},
		{"file on a sphere", `{"shape": {"type": "sphere", "radius": 1, "file": "floor.obj"}, "mass": 1}`, "bodies[0].shape.file: does not apply to a sphere"},
		{"mesh with mass", `{"shape": {"type": "mesh", "file": "floor.obj"}, "fixed": true, "mass": 1}`, "bodies[0]: a mesh has no mass"},
		{"mesh part", `{"shape": {"type": "compound", "parts": [{"shape": {"type": "mesh", "file": "floor.obj"}}]}, "mass": 1}`, "a mesh cannot be a part of a compound"},
		{"triangle", `{"shape": {"type": "triangle"}, "fixed": true}`, "bodies[0].shape.type: a triangle is a part of a mesh"},
	} {
		_, err := load(c.body)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

// TestDrumContainer: a cylinder container is a floor slab and sides walls
// whose inner faces touch the circle of its radius, and a lid if asked;
// its bad inputs name the field.
func TestDrumContainer(t *testing.T) {
	doc := func(c string) string {
		return `{"materials": [{"name": "m", "friction": 0.5}], "bodies": [{"shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "pos": [0, 0, 0.5]}], "containers": [` + c + `]}`
	}
	sc, err := Parse([]byte(doc(`{"type": "cylinder", "centre": [1, 2, 0], "radius": 0.5, "height": 0.4, "thickness": 0.05, "sides": 12, "lid": true}`)), "drum.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	bs := sc.Model.Bodies[1:]
	if len(bs) != 14 {
		t.Fatalf("%d container bodies, want 12 walls, a floor and a lid", len(bs))
	}
	for k, w := range bs[1:13] {
		// The wall's inner face: its centre less half the thickness
		// along its outward normal (its x axis), at the radius from the
		// axis; 1e-12: a rotation and a few sums.
		n := w.Rot.Rotate(mgl64.Vec3{1, 0, 0})
		inner := w.Pos.Sub(n.Mul(0.025)).Sub(mgl64.Vec3{1, 2, 0})
		if d := math.Hypot(inner[0], inner[1]); math.Abs(d-0.5) > 1e-12 || math.Abs(w.Pos[2]-0.2) > 1e-12 || !w.Fixed {
			t.Errorf("wall %d at %v: inner face %v m from the axis, want 0.5 at half height 0.2", k, w.Pos, d)
		}
	}
	if f, l := bs[0].Pos, bs[13].Pos; f[2] != -0.025 || math.Abs(l[2]-0.425) > 1e-15 {
		t.Errorf("floor at %v, lid at %v", f, l)
	}
	for _, c := range []struct{ spec, want string }{
		{`{"type": "cylinder", "radius": 0.5, "height": 0.4, "thickness": 0.05, "sides": 2}`, "containers[0].sides: 2 must be 3 to 1024"},
		{`{"type": "cylinder", "radius": -1, "height": 0.4, "thickness": 0.05}`, "containers[0].radius: -1 must be positive"},
		{`{"type": "cylinder", "radius": 1, "thickness": 0.05}`, "containers[0].height: 0 must be positive"},
		{`{"type": "cylinder", "radius": 1, "height": 1, "thickness": 0.05, "inner_min": [0, 0, 0]}`, "do not apply to cylinder containers"},
		{`{"type": "box", "inner_min": [0, 0, 0], "inner_max": [1, 1, 1], "thickness": 0.1, "radius": 1}`, "containers[0]: centre, radius, height and sides apply to cylinder containers only"},
	} {
		_, err := Parse([]byte(doc(c.spec)), "drum.json", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.spec, err, c.want)
		}
	}
}

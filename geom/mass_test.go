package geom

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// outward orients each triangle of a convex solid outward (its normal away
// from the vertices' mean), so that tests can list triangles in any order.
func outward(verts []mgl64.Vec3, tris [][3]int32) [][3]int32 {
	var c mgl64.Vec3
	for _, v := range verts {
		c = c.Add(v)
	}
	c = c.Mul(1 / float64(len(verts)))
	out := make([][3]int32, len(tris))
	for i, t := range tris {
		a, b, d := verts[t[0]], verts[t[1]], verts[t[2]]
		if b.Sub(a).Cross(d.Sub(a)).Dot(a.Sub(c)) < 0 {
			t[1], t[2] = t[2], t[1]
		}
		out[i] = t
	}
	return out
}

// boxMesh is the box a×b×c (m) centred on the origin: 8 corners (index bit
// k set: +half-extent along axis k) and 12 outward triangles.
func boxMesh(a, b, c float64) ([]mgl64.Vec3, [][3]int32) {
	verts := boxCorners(a, b, c)
	var tris [][3]int32
	for k := range 3 {
		for side := range 2 {
			var q []int32
			for i := range 8 {
				if i>>k&1 == side {
					q = append(q, int32(i))
				}
			}
			// q holds the face's corners in bit order: q0, q1, q3, q2 is a loop.
			tris = append(tris, [3]int32{q[0], q[1], q[3]}, [3]int32{q[0], q[3], q[2]})
		}
	}
	return verts, outward(verts, tris)
}

// near reports |got − want| ≤ rel·scale.
func near(got, want, rel, scale float64) bool { return math.Abs(got-want) <= rel*scale }

func checkTensor(t *testing.T, name string, got, want mgl64.Mat3, rel float64) {
	t.Helper()
	scale := 0.0
	for _, x := range want {
		scale = math.Max(scale, math.Abs(x))
	}
	for i := range got {
		if !near(got[i], want[i], rel, scale) {
			t.Fatalf("%s: inertia\n%v\nwant\n%v", name, got, want)
		}
	}
}

// The exact formulas are evaluated in float64 with some tens of operations
// per triangle about a reference point at the centroid: rounding leaves a
// relative error of a few 1e-16, so 1e-12 is a tight bound with margin.
const exactRel = 1e-12

func TestPolyhedronMassBox(t *testing.T) {
	a, b, c := 0.3, 1.7, 2.9
	verts, tris := boxMesh(a, b, c)
	vol, cen, in, err := PolyhedronMass(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	m := a * b * c
	if !near(vol, m, exactRel, m) || cen.Len() > exactRel*3 {
		t.Fatalf("box: volume %g centroid %v; want %g, 0", vol, cen, m)
	}
	want := mgl64.Diag3(mgl64.Vec3{m * (b*b + c*c) / 12, m * (a*a + c*c) / 12, m * (a*a + b*b) / 12})
	checkTensor(t, "box", in, want, exactRel)

	// The same box translated far off centre: the centroid moves, the
	// tensor about it does not.
	off := mgl64.Vec3{1e3, -250, 31.5}
	moved := make([]mgl64.Vec3, len(verts))
	for i, v := range verts {
		moved[i] = v.Add(off)
	}
	vol, cen, in, err = PolyhedronMass(moved, tris)
	if err != nil {
		t.Fatal(err)
	}
	// The coordinates themselves are rounded at 1e3·2⁻⁵³ ≈ 1e-13 m: allow
	// that relative to the box's size.
	if !near(vol, m, 1e-11, m) || cen.Sub(off).Len() > 1e-11*1e3 {
		t.Fatalf("translated box: volume %g centroid %v; want %g, %v", vol, cen, m, off)
	}
	checkTensor(t, "translated box", in, want, 1e-10)
}

func TestPolyhedronMassRotatedBox(t *testing.T) {
	a, b, c := 1.0, 2.0, 0.5
	verts, tris := boxMesh(a, b, c)
	q := mgl64.QuatRotate(1.1, mgl64.Vec3{0.3, -0.5, 0.8}.Normalize())
	r := q.Mat4().Mat3()
	for i, v := range verts {
		verts[i] = q.Rotate(v)
	}
	vol, _, in, err := PolyhedronMass(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	m := a * b * c
	if !near(vol, m, exactRel, m) {
		t.Fatalf("rotated box volume %g, want %g", vol, m)
	}
	d := mgl64.Diag3(mgl64.Vec3{m * (b*b + c*c) / 12, m * (a*a + c*c) / 12, m * (a*a + b*b) / 12})
	checkTensor(t, "rotated box", in, r.Mul3(d).Mul3(r.Transpose()), exactRel)
}

func TestPolyhedronMassTetrahedron(t *testing.T) {
	// Regular tetrahedron of edge L: alternate corners of a cube of side
	// L/√2. Volume L³/(6√2); the inertia about the centroid is isotropic,
	// m L²/20 about every axis.
	L := 0.7
	s := L / math.Sqrt2 / 2
	off := mgl64.Vec3{0.2, 0.1, -0.4}
	verts := []mgl64.Vec3{{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}}
	for i := range verts {
		verts[i] = verts[i].Add(off)
	}
	tris := outward(verts, [][3]int32{{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}})
	vol, cen, in, err := PolyhedronMass(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	m := L * L * L / (6 * math.Sqrt2)
	if !near(vol, m, exactRel, m) || cen.Sub(off).Len() > exactRel {
		t.Fatalf("tetrahedron: volume %g centroid %v; want %g, %v", vol, cen, m, off)
	}
	i0 := m * L * L / 20
	checkTensor(t, "tetrahedron", in, mgl64.Diag3(mgl64.Vec3{i0, i0, i0}), exactRel)
}

// fibonacciSphere returns n nearly uniform points on the sphere of radius r.
func fibonacciSphere(n int, r float64) []mgl64.Vec3 {
	pts := make([]mgl64.Vec3, n)
	golden := math.Pi * (3 - math.Sqrt(5))
	for i := range pts {
		z := 1 - (2*float64(i)+1)/float64(n)
		rho := math.Sqrt(1 - z*z)
		phi := golden * float64(i)
		pts[i] = mgl64.Vec3{rho * math.Cos(phi), rho * math.Sin(phi), z}.Mul(r)
	}
	return pts
}

func TestHullMassSphere(t *testing.T) {
	// An inscribed polyhedron with n nearly uniform vertices misses the
	// sphere by a layer of relative depth O(1/n): its volume and inertia
	// converge at that rate (the volume deficit is about 5.9/n here), so
	// the bounds are loose (0.4 % in volume, 0.7 % in inertia at n = 2000,
	// where the deficits are 0.29 % and 0.48 %) and the deficit must
	// shrink at least fivefold from n = 200 to 2000.
	r := 1.5
	vs := 4.0 / 3 * math.Pi * r * r * r
	is := 0.4 * vs * r * r
	var prev float64
	for _, n := range []int{200, 2000} {
		h, err := NewHull(fibonacciSphere(n, r))
		if err != nil {
			t.Fatal(err)
		}
		vol, cen, in, err := PolyhedronMass(h.Verts, hullTris(h))
		if err != nil {
			t.Fatal(err)
		}
		v2, c2, in2 := h.MassProperties()
		if v2 != vol || c2 != cen || in2 != in {
			t.Fatalf("MassProperties differs from PolyhedronMass of the fan")
		}
		ev := (vs - vol) / vs
		ei := (is - in[0]) / is
		t.Logf("n=%d: volume deficit %.3g, I_xx deficit %.3g, centroid %v", n, ev, ei, cen)
		if ev <= 0 || cen.Len() > 1e-3*r || math.Abs(in[0]-in[4]) > 1e-2*is || math.Abs(in[3]) > 1e-2*is {
			t.Fatalf("n=%d: volume %g inertia %v centroid %v", n, vol, in, cen)
		}
		if prev != 0 && !(ev < prev/5 && ev < 4e-3 && math.Abs(ei) < 7e-3) {
			t.Fatalf("n=%d: deficit %g after %g: no convergence", n, ev, prev)
		}
		prev = ev
	}
}

func hullTris(h *Hull) [][3]int32 {
	var tris [][3]int32
	for _, f := range h.Faces {
		for j := 1; j+1 < len(f.Verts); j++ {
			tris = append(tris, [3]int32{f.Verts[0], f.Verts[j], f.Verts[j+1]})
		}
	}
	return tris
}

func TestHullMassBox(t *testing.T) {
	h, err := NewHull(boxCorners(1, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	vol, cen, in := h.MassProperties()
	if !near(vol, 6, exactRel, 6) || cen.Len() > exactRel {
		t.Fatalf("hull box: volume %g centroid %v", vol, cen)
	}
	checkTensor(t, "hull box", in, mgl64.Diag3(mgl64.Vec3{6 * 13.0 / 12, 6 * 10.0 / 12, 6 * 5.0 / 12}), exactRel)
}

func TestPolyhedronMassErrors(t *testing.T) {
	verts, tris := boxMesh(1, 1, 1)
	inward := make([][3]int32, len(tris))
	for i, t := range tris {
		inward[i] = [3]int32{t[0], t[2], t[1]}
	}
	nanVerts := append([]mgl64.Vec3(nil), verts...)
	nanVerts[5][1] = math.NaN()
	for _, c := range []struct {
		name  string
		verts []mgl64.Vec3
		tris  [][3]int32
		want  string
	}{
		{"inward", verts, inward, "not positive"},
		{"open", verts, tris[1:], "not closed"},
		{"range", verts, append(tris[:11:11], [3]int32{0, 1, 8}), "out of range"},
		{"nan", nanVerts, tris, "vertex 5: y coordinate is NaN"},
		{"empty", verts, nil, "no triangles"},
	} {
		_, _, _, err := PolyhedronMass(c.verts, c.tris)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

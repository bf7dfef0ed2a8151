package geom

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// checkHull asserts the hull's invariants: valid topology (check: closed,
// consistently oriented, Euler's V − E + F = 2), every point inside or on
// every face plane within slack·tol, every face's vertices on its plane and
// its loop convex and counter-clockwise about its normal within slack·tol.
func checkHull(t testing.TB, h *Hull, pts []mgl64.Vec3, slack float64) {
	t.Helper()
	if err := h.check(); err != nil {
		t.Fatalf("invalid hull: %v", err)
	}
	halfEdges := 0
	for _, f := range h.Faces {
		halfEdges += len(f.Verts)
	}
	if v, e, f := len(h.Verts), halfEdges/2, len(h.Faces); halfEdges%2 != 0 || v-e+f != 2 {
		t.Fatalf("Euler: V − E + F = %d − %d + %d ≠ 2 (%d half-edges)", v, e, f, halfEdges)
	}
	eps := slack * h.tol
	for fi, f := range h.Faces {
		for i, p := range pts {
			if d := f.Normal.Dot(p) - f.Offset; d > eps {
				t.Fatalf("point %d is %g m outside face %d (tol %g)", i, d, fi, h.tol)
			}
		}
		n := len(f.Verts)
		for j := range n {
			a, b, c := h.Verts[f.Verts[j]], h.Verts[f.Verts[(j+1)%n]], h.Verts[f.Verts[(j+2)%n]]
			if d := math.Abs(f.Normal.Dot(a) - f.Offset); d > eps {
				t.Fatalf("face %d vertex %d is %g m off its plane", fi, f.Verts[j], d)
			}
			// Turn at b: (b−a)×(c−b)·n ≥ −eps·|c−b| for a convex CCW loop.
			if s := b.Sub(a).Cross(c.Sub(b)).Dot(f.Normal); s < -eps*(b.Sub(a).Len()+c.Sub(b).Len()) {
				t.Fatalf("face %d is not convex counter-clockwise at vertex %d (turn %g)", fi, f.Verts[(j+1)%n], s)
			}
		}
	}
}

func boxCorners(a, b, c float64) []mgl64.Vec3 {
	var pts []mgl64.Vec3
	for i := range 8 {
		pts = append(pts, mgl64.Vec3{
			a * (float64(i&1) - 0.5), b * (float64(i>>1&1) - 0.5), c * (float64(i>>2&1) - 0.5)})
	}
	return pts
}

func TestHullCube(t *testing.T) {
	pts := boxCorners(2, 2, 2)
	// Interior points, duplicates, and points on faces and edges.
	pts = append(pts, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, -0.2, 0.5}, pts[3], pts[5], pts[0],
		mgl64.Vec3{1, 0, 0}, mgl64.Vec3{1, 1, 0}, mgl64.Vec3{0.5, 1, -0.25}, mgl64.Vec3{0, 0, -1})
	// Put the extra points first so that they are seen before the corners.
	pts = append(pts[8:], pts[:8]...)
	h, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, pts, 1)
	if len(h.Verts) != 8 || len(h.Faces) != 6 {
		t.Fatalf("cube hull: %d vertices, %d faces; want 8, 6", len(h.Verts), len(h.Faces))
	}
	for fi, f := range h.Faces {
		if len(f.Verts) != 4 {
			t.Errorf("face %d has %d vertices, want 4", fi, len(f.Verts))
		}
		if math.Abs(f.Offset-1) > 1e-15 {
			t.Errorf("face %d offset %g, want 1", fi, f.Offset)
		}
	}
	for _, v := range h.Verts {
		for k := range 3 {
			if math.Abs(v[k]) != 1 {
				t.Fatalf("vertex %v is not a corner", v)
			}
		}
	}
}

func TestHullTetrahedron(t *testing.T) {
	pts := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.1, 0.1, 0.1}}
	h, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, pts, 1)
	if len(h.Verts) != 4 || len(h.Faces) != 4 {
		t.Fatalf("tetrahedron: %d vertices, %d faces", len(h.Verts), len(h.Faces))
	}
}

func spherePoints(rng *rand.Rand, n int, r float64) []mgl64.Vec3 {
	pts := make([]mgl64.Vec3, n)
	for i := range pts {
		v := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		pts[i] = v.Normalize().Mul(r)
	}
	return pts
}

func TestHullSphere(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{4, 10, 100, 1000} {
		pts := spherePoints(rng, n, 3)
		// Interior points too, within radius 2.4, inside the hull of 100 or
		// more random points on the sphere of radius 3 (whose largest gap
		// leaves it above radius 2.7).
		for range n / 4 {
			pts = append(pts, spherePoints(rng, 1, 2.4*rng.Float64())...)
		}
		h, err := NewHull(pts)
		if err != nil {
			t.Fatal(err)
		}
		checkHull(t, h, pts, 1)
		if n >= 100 && len(h.Verts) != n {
			t.Errorf("%d points on a sphere: %d hull vertices", n, len(h.Verts))
		}
	}
}

func TestHullJitteredBox(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := range 20 {
		pts := boxCorners(0.3, 0.1, 0.05)
		for i := range pts {
			for k := range 3 {
				pts[i][k] += 1e-12 * (2*rng.Float64() - 1)
			}
		}
		// Points near the faces, within the jitter.
		for range 20 {
			p := mgl64.Vec3{0.15 * (2*rng.Float64() - 1), 0.05 * (2*rng.Float64() - 1), 0.025 + 1e-12*rng.Float64()}
			pts = append(pts, p)
		}
		h, err := NewHull(pts)
		if err != nil {
			t.Fatal(err)
		}
		checkHull(t, h, pts, 1)
		if len(h.Faces) != 6 || len(h.Verts) != 8 {
			t.Fatalf("trial %d: jittered box: %d vertices, %d faces; want 8, 6", trial, len(h.Verts), len(h.Faces))
		}
	}
}

// TestHullCoplanarGrid: a grid of points on the faces of a box (many exactly
// coplanar and collinear points, the exact predicate's hard case).
func TestHullCoplanarGrid(t *testing.T) {
	var pts []mgl64.Vec3
	for i := range 5 {
		for j := range 4 {
			for k := range 3 {
				pts = append(pts, mgl64.Vec3{float64(i) * 0.25, float64(j) * 0.5, float64(k) * 0.1})
			}
		}
	}
	h, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, pts, 1)
	if len(h.Verts) != 8 || len(h.Faces) != 6 {
		t.Fatalf("grid: %d vertices, %d faces; want 8, 6", len(h.Verts), len(h.Faces))
	}
}

func TestHullErrors(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		pts  []mgl64.Vec3
		want string
	}{
		{"three", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, "at least 4 points, got 3"},
		{"nan", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, nan, 1}}, "point 3: y coordinate is NaN"},
		{"inf", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, math.Inf(-1)}, {0, 0, 1}}, "point 2: z coordinate is -Inf"},
		{"huge", []mgl64.Vec3{{0, 0, 0}, {1e300, 0, 0}, {0, 1, 0}, {0, 0, 1}}, "point 1: x coordinate 1e+300"},
		{"coincident", []mgl64.Vec3{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, "coincide"},
		{"collinear", []mgl64.Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {0.5, 0.5, 0.5}, {3, 3, 3}}, "collinear"},
		{"coplanar", []mgl64.Vec3{{0, 0, 5}, {1, 0, 5}, {0, 1, 5}, {1, 1, 5}, {0.3, 0.2, 5}}, "coplanar"},
		{"nearly coplanar", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1e-12}}, "coplanar"},
	} {
		_, err := NewHull(c.pts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestHullSupportTransformed(t *testing.T) {
	pts := boxCorners(2, 4, 6)
	h, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	_, v := h.Support(mgl64.Vec3{1, 1, 1})
	if v != (mgl64.Vec3{1, 2, 3}) {
		t.Errorf("support (1,1,1) = %v", v)
	}
	c := mgl64.Vec3{1, -2, 0.5}
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	g := h.Transformed(c, q)
	var moved []mgl64.Vec3
	for _, p := range pts {
		moved = append(moved, q.Conjugate().Rotate(p.Sub(c)))
	}
	checkHull(t, g, moved, 10)
	for i, v := range g.Verts {
		back := q.Rotate(v).Add(c)
		if back.Sub(h.Verts[i]).Len() > 1e-14 {
			t.Fatalf("vertex %d: %v back to %v, want %v", i, v, back, h.Verts[i])
		}
	}
}

// pointsFromBytes decodes fuzz input: each 6 bytes are a point whose
// coordinates are int16 (so that exact coincidences are common), scaled by
// the first byte's power of two.
func pointsFromBytes(data []byte) []mgl64.Vec3 {
	if len(data) == 0 {
		return nil
	}
	scale := math.Ldexp(1, int(int8(data[0]))/4)
	data = data[1:]
	var pts []mgl64.Vec3
	for len(data) >= 6 && len(pts) < 200 {
		var p mgl64.Vec3
		for k := range 3 {
			p[k] = float64(int16(binary.LittleEndian.Uint16(data[2*k:]))) * scale
		}
		pts = append(pts, p)
		data = data[6:]
	}
	return pts
}

func FuzzHull(f *testing.F) {
	enc := func(scale int8, pts ...[3]int16) []byte {
		b := []byte{byte(scale)}
		for _, p := range pts {
			for _, x := range p {
				b = binary.LittleEndian.AppendUint16(b, uint16(x))
			}
		}
		return b
	}
	f.Add(enc(0, [3]int16{0, 0, 0}, [3]int16{1, 0, 0}, [3]int16{0, 1, 0}, [3]int16{0, 0, 1}))
	f.Add(enc(-8, [3]int16{-1, -1, -1}, [3]int16{1, -1, -1}, [3]int16{-1, 1, -1}, [3]int16{1, 1, -1},
		[3]int16{-1, -1, 1}, [3]int16{1, -1, 1}, [3]int16{-1, 1, 1}, [3]int16{1, 1, 1}, [3]int16{0, 0, 1}))
	f.Add(enc(4, [3]int16{0, 0, 0}, [3]int16{1, 1, 1}, [3]int16{2, 2, 2}, [3]int16{3, 3, 3}))
	f.Fuzz(func(t *testing.T, data []byte) {
		pts := pointsFromBytes(data)
		h, err := NewHull(pts)
		if err != nil {
			return
		}
		checkHull(t, h, pts, 1)
	})
}

// TestHullThin: a slab 1e-7 thick, about 70 times the tolerance, keeps its
// 6 faces (its two large faces, tol apart in neither, never merge), and a
// flat lens of points on a thin ellipsoid gives a valid hull.
func TestHullThin(t *testing.T) {
	pts := boxCorners(1, 1, 1e-7)
	h, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, pts, 1)
	if len(h.Verts) != 8 || len(h.Faces) != 6 {
		t.Fatalf("slab: %d vertices, %d faces; want 8, 6", len(h.Verts), len(h.Faces))
	}
	rng := rand.New(rand.NewSource(4))
	lens := spherePoints(rng, 300, 1)
	for i := range lens {
		lens[i][2] *= 1e-6
	}
	h, err = NewHull(lens)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, lens, 1)
}

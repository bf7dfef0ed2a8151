package scene

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// scaleHullPoints are a convex generator's points: seven points off the
// frame's origin (so that the hull's centre of mass moves as it scales)
// whose hull has three distinct principal moments.
var scaleHullPoints = [][3]float64{
	{0.1, 0.2, 0.3}, {0.3, 0.2, 0.3}, {0.1, 0.32, 0.3}, {0.1, 0.2, 0.36},
	{0.24, 0.29, 0.33}, {0.15, 0.23, 0.39}, {0.22, 0.21, 0.35},
}

func scaleHullJSON() string {
	var b strings.Builder
	for i, p := range scaleHullPoints {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%v, %v, %v]", p[0], p[1], p[2])
	}
	return `{"type": "convex", "points": [` + b.String() + `]}`
}

// checkScaledHull checks a convex body of scale s and density rho against
// the hull that geom.NewHull makes of the points scaled by s: its mass is
// rho times that hull's volume, and its principal moments are the
// diagonal of that hull's inertia tensor turned into the principal frame
// q of the unscaled hull (engine.NewConvex), whose off-diagonal terms
// vanish. Tolerances: the body's hull is the unscaled hull's vertices
// times s, the reference the hull of the points times s; the two differ
// by the rounding of the products (an ulp, 1e-16 relative), each mass
// property sum rounds at about 1e-15 relative, and q diagonalises the
// tensor to engine's offDiagTol (1e-14 of the trace). 1e-12 (mass) and
// 1e-10 (inertia, of the trace) leave a wide margin above all of that and
// far below the s³ and s⁵ of a wrong scale.
func checkScaledHull(t *testing.T, i int, b engine.Body, s, rho float64, q mgl64.Quat) {
	t.Helper()
	pts := make([]mgl64.Vec3, len(scaleHullPoints))
	for k, p := range scaleHullPoints {
		pts[k] = mgl64.Vec3(p).Mul(s)
	}
	h, err := geom.NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	vol, _, tensor := h.MassProperties()
	if m := rho * vol; math.Abs(b.Mass-m) > 1e-12*m {
		t.Errorf("body %d (scale %v): mass %v, want %v = density × hull volume", i, s, b.Mass, m)
	}
	r := q.Mat4().Mat3()
	tb := r.Transpose().Mul3(tensor).Mul3(r).Mul(rho)
	tr := tb.At(0, 0) + tb.At(1, 1) + tb.At(2, 2)
	for j := range 3 {
		if d := math.Abs(b.Inertia[j] - tb.At(j, j)); d > 1e-10*tr {
			t.Errorf("body %d (scale %v): inertia %v, want the diagonal of %v", i, s, b.Inertia, tb)
		}
		if o := tb.At(j, (j+1)%3); math.Abs(o) > 1e-10*tr {
			t.Errorf("body %d (scale %v): the scaled hull's tensor %v is not diagonal in the unscaled hull's principal frame", i, s, tb)
		}
	}
}

// TestConvexScale builds convex generators with a distributed scale: a
// lattice whose scale draws the documented stream reproduces (three
// jitter draws, then the scale), a random one with a normal scale and
// random orientations, and one with a mass instead of a density.
func TestConvexScale(t *testing.T) {
	const rho = 2500
	base := make([]mgl64.Vec3, len(scaleHullPoints))
	for k, p := range scaleHullPoints {
		base[k] = mgl64.Vec3(p)
	}
	unit, _, q, err := engine.NewConvex(base)
	if err != nil {
		t.Fatal(err)
	}
	maxCoord := func(sh engine.Shape) float64 {
		m := 0.0
		for _, v := range sh.Hull.Verts {
			m = math.Max(m, math.Max(math.Abs(v[0]), math.Max(math.Abs(v[1]), math.Abs(v[2]))))
		}
		return m
	}

	t.Run("lattice", func(t *testing.T) {
		src := `{"materials": [{"name": "m", "friction": 0.3}],
		  "generators": [{"type": "lattice", "count": 64, "seed": 7, "density": 2500, "origin": [0, 0, 1],
		    "shape": ` + scaleHullJSON() + `, "scale": {"dist": "uniform", "min": 0.5, "max": 1.5}}]}`
		sc, err := Parse([]byte(src), "convex.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		bs := sc.Model.Bodies
		if len(bs) != 64 {
			t.Fatalf("%d bodies", len(bs))
		}
		rng := &SplitMix64{State: 7}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, b := range bs {
			rng.Float64() // the jitter of x, y, z
			rng.Float64()
			rng.Float64()
			s := 0.5 + rng.Float64()*(1.5-0.5)
			lo, hi = math.Min(lo, s), math.Max(hi, s)
			for k, v := range b.Shape.Hull.Verts {
				if v != unit.Hull.Verts[k].Mul(s) {
					t.Fatalf("body %d: vertex %d is %v, not %v × %v", i, k, v, s, unit.Hull.Verts[k])
				}
			}
			for k, f := range b.Shape.Hull.Faces {
				if u := unit.Hull.Faces[k]; f.Normal != u.Normal || f.Offset != u.Offset*s || !reflect.DeepEqual(f.Verts, u.Verts) {
					t.Fatalf("body %d: face %d is %+v, not %+v scaled by %v", i, k, f, u, s)
				}
			}
			if b.Rot != mgl64.QuatIdent() {
				t.Errorf("body %d turned: %v", i, b.Rot)
			}
			checkScaledHull(t, i, b, s, rho, q)
			// Volume s³, inertia s⁵ at a fixed density; 1e-12 relative as
			// in checkScaledHull (the volume's sums round at 1e-15).
			if want := rho * unit.Volume() * s * s * s; math.Abs(b.Mass-want) > 1e-12*want {
				t.Errorf("body %d: mass %v, want %v × s³", i, b.Mass, want)
			}
		}
		// 64 uniform draws on [0.5, 1.5] (this seed's: deterministic).
		if lo > 0.6 || hi < 1.4 {
			t.Errorf("scales span only [%v, %v] of [0.5, 1.5]", lo, hi)
		}
		// The default spacing holds the largest body (scale 1.5): no two
		// bodies' bounding boxes (the bodies are not turned) overlap.
		for i, b := range bs {
			for j, c := range bs[:i] {
				d := b.Pos.Sub(c.Pos)
				gap := maxCoord(b.Shape) + maxCoord(c.Shape)
				if math.Abs(d[0]) < gap && math.Abs(d[1]) < gap && math.Abs(d[2]) < gap {
					t.Fatalf("bodies %d at %v and %d at %v overlap", j, c.Pos, i, b.Pos)
				}
			}
		}
		// 1e-12 m: the spacing and the lattice positions are a few
		// products of numbers of order 1 (rounding ~1e-16 m).
		if d, want := bs[1].Pos[0]-bs[0].Pos[0], 2.1*1.5*maxCoord(unit); math.Abs(d-want) > 1e-12 {
			t.Errorf("spacing %v, want 2.1 × the largest body's half-size %v", d, want)
		}
		again, err := Parse([]byte(src), "convex.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.Model.Bodies, bs) {
			t.Error("the same seed gave other bodies")
		}
		other, err := Parse([]byte(strings.Replace(src, `"seed": 7`, `"seed": 8`, 1)), "convex.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		if other.Model.Bodies[0].Mass == bs[0].Mass {
			t.Error("another seed gave the same first scale")
		}
	})

	t.Run("random", func(t *testing.T) {
		src := `{"materials": [{"name": "m", "friction": 0.3}],
		  "generators": [{"type": "random", "count": 80, "seed": 11, "density": 2500, "random_orientation": true,
		    "region": {"min": [0, 0, 0], "max": [2.5, 2.5, 2.5]},
		    "shape": ` + scaleHullJSON() + `, "scale": {"dist": "normal", "mean": 1, "std": 0.4, "min": 0.6, "max": 1.4}}]}`
		sc, err := Parse([]byte(src), "convex.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		bs := sc.Model.Bodies
		r1 := unit.Hull.Radius()
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, b := range bs {
			// The body's scale, read off its hull's radius.
			s := b.Shape.Hull.Radius() / r1
			// 1e-15 relative: the radius ratio recovers s to a rounding
			// or two of the scaled vertices.
			if s < 0.6*(1-1e-15) || s > 1.4*(1+1e-15) {
				t.Fatalf("body %d: scale %v outside [0.6, 1.4]", i, s)
			}
			lo, hi = math.Min(lo, s), math.Max(hi, s)
			checkScaledHull(t, i, b, s, rho, q)
			r := b.Shape.BoundingRadius()
			for c := range 3 {
				if b.Pos[c]-r < 0 || b.Pos[c]+r > 2.5 {
					t.Fatalf("body %d at %v (bounding radius %v) leaves the region", i, b.Pos, r)
				}
			}
			for j, c := range bs[:i] {
				if b.Pos.Sub(c.Pos).Len() < r+c.Shape.BoundingRadius() {
					t.Fatalf("bodies %d and %d overlap", j, i)
				}
			}
		}
		if lo > 0.7 || hi < 1.3 {
			t.Errorf("scales span only [%v, %v] of [0.6, 1.4]", lo, hi)
		}
	})

	t.Run("mass", func(t *testing.T) {
		// A given mass stays the mass; the inertia scales with s².
		src := `{"materials": [{"name": "m", "friction": 0.3}],
		  "generators": [{"type": "lattice", "count": 20, "seed": 3, "mass": 0.5,
		    "shape": ` + scaleHullJSON() + `, "scale": {"dist": "uniform", "min": 0.5, "max": 2}}]}`
		sc, err := Parse([]byte(src), "convex.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		rng := &SplitMix64{State: 3}
		for i, b := range sc.Model.Bodies {
			rng.Float64()
			rng.Float64()
			rng.Float64()
			s := 0.5 + rng.Float64()*(2-0.5)
			if b.Mass != 0.5 {
				t.Errorf("body %d: mass %v, want 0.5", i, b.Mass)
			}
			want := unit.UnitInertia().Mul(0.5 * s * s)
			for j := range 3 {
				// 1e-12 relative: the unit inertia times 0.5 s², a few
				// roundings (as checkScaledHull's mass).
				if math.Abs(b.Inertia[j]-want[j]) > 1e-12*want[j] {
					t.Errorf("body %d (scale %v): inertia %v, want %v", i, s, b.Inertia, want)
				}
			}
		}
	})
}

// TestSphereScale checks a scale on top of a radius distribution: each
// body's radius is its radius draw times its scale draw, drawn in the
// documented order (jitter x, y, z, the radius, the scale), and the
// default spacing is 2.1 × the largest radius times the largest scale.
func TestSphereScale(t *testing.T) {
	src := `{"materials": [{"name": "m", "friction": 0.3}],
	  "generators": [{"type": "lattice", "count": 30, "seed": 5, "density": 1000, "jitter": 0.01, "max_per_row": 3,
	    "shape": {"type": "sphere", "radius": {"dist": "uniform", "min": 0.05, "max": 0.1}},
	    "scale": {"dist": "uniform", "min": 0.5, "max": 2}}]}`
	sc, err := Parse([]byte(src), "spheres.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	bs := sc.Model.Bodies
	if len(bs) != 30 {
		t.Fatalf("%d bodies", len(bs))
	}
	rng := &SplitMix64{State: 5}
	// As the builder computes it, in float64 (not as one exact constant).
	rmaxDraw, smax, factor := 0.1, 2.0, 2.1
	spacing := factor * (rmaxDraw * smax)
	var rmin, rmax = math.Inf(1), math.Inf(-1)
	for n, b := range bs {
		i, j, k := n%3, (n/3)%3, n/9
		pos := mgl64.Vec3{(float64(i) - 1) * spacing, (float64(j) - 1) * spacing, float64(k) * spacing}
		for c := range 3 {
			pos[c] += (2*rng.Float64() - 1) * 0.01
		}
		r := 0.05 + rng.Float64()*(0.1-0.05)
		s := 0.5 + rng.Float64()*(2-0.5)
		want := engine.Body{Shape: engine.SphereShape(r * s), Pos: pos, Rot: mgl64.QuatIdent()}
		want.SetDensity(1000)
		if !reflect.DeepEqual(b, want) {
			t.Fatalf("body %d: %+v, want %+v (radius %v × scale %v)", n, b, want, r, s)
		}
		rmin, rmax = math.Min(rmin, r*s), math.Max(rmax, r*s)
		for m, c := range bs[:n] {
			if b.Pos.Sub(c.Pos).Len() < b.Shape.Size[0]+c.Shape.Size[0] {
				t.Fatalf("bodies %d and %d overlap", m, n)
			}
		}
	}
	if rmin > 0.04 || rmax < 0.15 {
		t.Errorf("radii span only [%v, %v] of [0.025, 0.2]", rmin, rmax)
	}

	// A random generator: every body inside the region, none overlapping.
	src = `{"materials": [{"name": "m", "friction": 0.3}],
	  "generators": [{"type": "random", "count": 100, "seed": 6, "mass": 1, "region": {"min": [0, 0, 0], "max": [1, 1, 1]},
	    "shape": {"type": "sphere", "radius": {"dist": "normal", "mean": 0.04, "std": 0.01, "min": 0.03, "max": 0.05}},
	    "scale": {"dist": "normal", "mean": 1, "std": 0.5, "min": 0.5, "max": 2}}]}`
	if sc, err = Parse([]byte(src), "spheres.json", nil); err != nil {
		t.Fatal(err)
	}
	for n, b := range sc.Model.Bodies {
		r := b.Shape.Size[0]
		if r < 0.015 || r > 0.1 {
			t.Errorf("body %d: radius %v outside [0.015, 0.1]", n, r)
		}
		for c := range 3 {
			if b.Pos[c]-r < 0 || b.Pos[c]+r > 1 {
				t.Fatalf("body %d at %v (radius %v) leaves the region", n, b.Pos, r)
			}
		}
		for m, c := range sc.Model.Bodies[:n] {
			if b.Pos.Sub(c.Pos).Len() < r+c.Shape.Size[0] {
				t.Fatalf("bodies %d and %d overlap", m, n)
			}
		}
	}
}

// TestScaleNoDraw checks that a scale that is a number takes no draw: a
// document with "scale": 1 builds exactly the bodies of the document
// without it, and "scale": 2 the same positions and orientations with
// every length doubled.
func TestScaleNoDraw(t *testing.T) {
	for _, gen := range []string{
		`"type": "lattice", "count": 27, "seed": 9, "jitter": 0.02, "spacing": 0.5, "random_orientation": true`,
		`"type": "random", "count": 27, "seed": 9, "random_orientation": true, "region": {"min": [0, 0, 0], "max": [2, 2, 2]}`,
	} {
		doc := func(scale string) []engine.Body {
			t.Helper()
			src := `{"materials": [{"name": "m", "friction": 0.3}], "generators": [{` + gen + scale + `, "density": 1000,
			  "shape": {"type": "ellipsoid", "semi_axes": [{"dist": "uniform", "min": 0.05, "max": 0.1}, 0.06, {"dist": "normal", "mean": 0.05, "std": 0.01, "min": 0.03, "max": 0.07}]}}]}`
			sc, err := Parse([]byte(src), "noscale.json", nil)
			if err != nil {
				t.Fatal(err)
			}
			return sc.Model.Bodies
		}
		none, one, two := doc(""), doc(`, "scale": 1`), doc(`, "scale": 2`)
		if !reflect.DeepEqual(none, one) {
			t.Errorf("%s: \"scale\": 1 changed the bodies", gen)
		}
		if strings.Contains(gen, "lattice") {
			for i := range none {
				a, b := none[i], two[i]
				if a.Pos != b.Pos || a.Rot != b.Rot || b.Shape.Size != a.Shape.Size.Mul(2) || b.Mass != 8*a.Mass {
					t.Errorf("body %d: %+v with scale 2, %+v without", i, b, a)
				}
			}
		}
	}
}

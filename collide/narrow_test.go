package collide

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// Tolerances of the narrowphase tests, relative to the size of the shapes
// (the sum of their bounding radii, or 1 m for analytic tables whose shapes
// are of order 1 m).
const (
	// closedFormTol: closed forms and Eberly's root take a few dozen
	// roundings of O(1) quantities, a few 1e-15; 1e-12 leaves a margin of
	// about 100 for accumulated rounding.
	closedFormTol = 1e-12
	// iterativeTol: Newton's method on the sphere ends within ~1e-12 rad
	// of the optimal normal (its last step is at most 1e-6 rad), which puts
	// the gap within ~1e-24·scale of the optimum (the gap is quadratic in
	// the normal's error there); what is left is rounding in the support
	// functions, a few 1e-15. The contract is 1e-10 relative; these tests
	// also pass at 1e-13.
	iterativeTol = 1e-10
	// iterativeVecTol bounds the error of normals and contact points found
	// by Newton's method: its last step, at most 1e-6 rad, leaves the
	// normal within ~1e-12 rad in the quadratic regime, and the support
	// points move by the size times that; 1e-9 allows for ill-conditioned
	// pairs (the measured error in these tables is below 1e-13).
	iterativeVecTol = 1e-9
	// unitTol: a normal normalised once is unit to a few 1e-16.
	unitTol = 1e-14
	// surfaceTol: contact points are support points or projections computed
	// with a handful of roundings; on the surface to ~1e-15·scale.
	surfaceTol = 1e-12
)

var (
	identityRot = mgl64.QuatIdent()
	unitX       = mgl64.Vec3{1, 0, 0}
	unitY       = mgl64.Vec3{0, 1, 0}
	unitZ       = mgl64.Vec3{0, 0, 1}
)

// rotAbout returns the rotation by deg degrees about axis.
func rotAbout(deg float64, axis mgl64.Vec3) mgl64.Quat {
	return mgl64.QuatRotate(mgl64.DegToRad(deg), axis.Normalize())
}

// narrow calls Narrow and fails the test on an error.
func narrow(t *testing.T, a engine.Shape, pa Pose, b engine.Shape, pb Pose, env float64) []ContactPoint {
	t.Helper()
	cs, err := Narrow(a, pa, b, pb, env, nil)
	if err != nil {
		t.Fatalf("Narrow(%v, %v): %v", a.Kind, b.Kind, err)
	}
	return cs
}

// pairScale returns the size of a pair: the sum of bounding radii, planes
// counting 0.
func pairScale(a, b engine.Shape) float64 {
	s := 0.0
	for _, x := range []engine.Shape{a, b} {
		if x.Kind != engine.Plane {
			s += x.BoundingRadius()
		}
	}
	return s
}

// surfaceDist returns the signed distance of world point p from the surface
// of shape s at pose ps (negative inside); for an ellipsoid, ‖y/s‖ − 1
// scaled by its smallest semi-axis, a value of the same order near the
// surface.
func surfaceDist(s engine.Shape, ps Pose, p mgl64.Vec3) float64 {
	y := ps.Rot.Conjugate().Rotate(p.Sub(ps.Pos))
	switch s.Kind {
	case engine.Sphere:
		return y.Len() - s.Size[0]
	case engine.Ellipsoid:
		q := mgl64.Vec3{y[0] / s.Size[0], y[1] / s.Size[1], y[2] / s.Size[2]}
		return (q.Len() - 1) * math.Min(s.Size[0], math.Min(s.Size[1], s.Size[2]))
	case engine.Box:
		var out mgl64.Vec3
		in := math.Inf(-1)
		for i := range 3 {
			d := math.Abs(y[i]) - s.Size[i]
			out[i] = math.Max(d, 0)
			in = math.Max(in, d)
		}
		if in > 0 {
			return out.Len()
		}
		return in
	case engine.Capsule:
		h := s.Size[1]
		return y.Sub(mgl64.Vec3{0, 0, math.Max(-h, math.Min(h, y[2]))}).Len() - s.Size[0]
	case engine.Cylinder:
		dr, dz := math.Hypot(y[0], y[1])-s.Size[0], math.Abs(y[2])-s.Size[1]
		if dr > 0 || dz > 0 {
			return math.Hypot(math.Max(dr, 0), math.Max(dz, 0))
		}
		return math.Max(dr, dz)
	case engine.Triangle:
		v1, v2 := mgl64.Vec3{s.Size[0], 0, 0}, mgl64.Vec3{s.Size[1], s.Size[2], 0}
		return closestOnTriangle(y, mgl64.Vec3{}, v1, v2).Sub(y).Len()
	case engine.Convex:
		// The largest height above a face's plane: the signed distance
		// inside and on the surface (0 there), a lower bound outside.
		d := math.Inf(-1)
		for _, f := range s.Hull.Faces {
			d = math.Max(d, f.Normal.Dot(y)-f.Offset)
		}
		return d
	}
	return y[2]
}

// supportOf returns max over x in shape s at pose ps of x·m.
func supportOf(s engine.Shape, ps Pose, m mgl64.Vec3) float64 {
	ml := ps.Rot.Conjugate().Rotate(m)
	h := ps.Pos.Dot(m)
	switch s.Kind {
	case engine.Sphere:
		return h + s.Size[0]*m.Len()
	case engine.Ellipsoid:
		return h + mgl64.Vec3{s.Size[0] * ml[0], s.Size[1] * ml[1], s.Size[2] * ml[2]}.Len()
	case engine.Capsule:
		return h + s.Size[1]*math.Abs(ml[2]) + s.Size[0]*ml.Len()
	case engine.Cylinder:
		return h + s.Size[1]*math.Abs(ml[2]) + s.Size[0]*math.Hypot(ml[0], ml[1])
	case engine.Triangle:
		return h + math.Max(0, math.Max(s.Size[0]*ml[0], s.Size[1]*ml[0]+s.Size[2]*ml[1]))
	case engine.Convex:
		best := math.Inf(-1)
		for _, v := range s.Hull.Verts {
			best = math.Max(best, v.Dot(ml))
		}
		return h + best
	}
	return h + s.Size[0]*math.Abs(ml[0]) + s.Size[1]*math.Abs(ml[1]) + s.Size[2]*math.Abs(ml[2])
}

// separationAlong returns the gap between a and b along unit m:
// min over b of x·m − max over a of x·m.
func separationAlong(a engine.Shape, pa Pose, b engine.Shape, pb Pose, m mgl64.Vec3) float64 {
	return -supportOf(b, pb, m.Mul(-1)) - supportOf(a, pa, m)
}

// checkContact checks the invariants every contact keeps: a unit normal,
// Phi = (PB − PA)·Normal, PA on a's surface and PB on b's, and Phi below the
// envelope.
func checkContact(t *testing.T, a engine.Shape, pa Pose, b engine.Shape, pb Pose, env float64, c ContactPoint) {
	t.Helper()
	sc := math.Max(pairScale(a, b), 1)
	if d := math.Abs(c.Normal.Len() - 1); d > unitTol {
		t.Errorf("%v–%v: |Normal| − 1 = %g", a.Kind, b.Kind, d)
	}
	if d := math.Abs(c.PB.Sub(c.PA).Dot(c.Normal) - c.Phi); d > closedFormTol*sc {
		t.Errorf("%v–%v: (PB − PA)·Normal − Phi = %g", a.Kind, b.Kind, d)
	}
	stol := surfaceTol
	if viaConvexPair(a.Kind, b.Kind) {
		stol = convexTol
	}
	if d := surfaceDist(a, pa, c.PA); math.Abs(d) > stol*sc {
		t.Errorf("%v–%v: PA %v is %g off a's surface", a.Kind, b.Kind, c.PA, d)
	}
	if d := surfaceDist(b, pb, c.PB); math.Abs(d) > stol*sc {
		t.Errorf("%v–%v: PB %v is %g off b's surface", a.Kind, b.Kind, c.PB, d)
	}
	if !(c.Phi < env) {
		t.Errorf("%v–%v: Phi %g not below envelope %g", a.Kind, b.Kind, c.Phi, env)
	}
}

// analyticCase is one row of an analytic table: the expected contacts, or
// none when n is 0.
type analyticCase struct {
	name   string
	a      engine.Shape
	pa     Pose
	b      engine.Shape
	pb     Pose
	env    float64
	n      int        // number of contacts expected
	phi    float64    // expected Phi of every contact
	normal mgl64.Vec3 // expected Normal (skipped when zero)
	pA, pB mgl64.Vec3 // expected points (checked when pts)
	pts    bool
	tol    float64 // closedFormTol or iterativeTol, for Phi
}

// runAnalytic runs each case as a subtest: the number of contacts, their
// invariants (checkContact), and Phi, Normal and the points against the
// expected values.
func runAnalytic(t *testing.T, cases []analyticCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := narrow(t, tc.a, tc.pa, tc.b, tc.pb, tc.env)
			if len(cs) != tc.n {
				t.Fatalf("got %d contacts %+v, want %d", len(cs), cs, tc.n)
			}
			for _, c := range cs {
				checkContact(t, tc.a, tc.pa, tc.b, tc.pb, tc.env, c)
				if math.Abs(c.Phi-tc.phi) > tc.tol {
					t.Errorf("Phi = %.17g, want %.17g (diff %g)", c.Phi, tc.phi, c.Phi-tc.phi)
				}
				vtol := closedFormTol
				if tc.tol == iterativeTol {
					vtol = iterativeVecTol
				}
				if tc.normal != (mgl64.Vec3{}) && c.Normal.Sub(tc.normal).Len() > vtol {
					t.Errorf("Normal = %v, want %v", c.Normal, tc.normal)
				}
				if tc.pts && (c.PA.Sub(tc.pA).Len() > vtol || c.PB.Sub(tc.pB).Len() > vtol) {
					t.Errorf("PA, PB = %v, %v, want %v, %v", c.PA, c.PB, tc.pA, tc.pB)
				}
			}
		})
	}
}

func TestNarrowSphereSphere(t *testing.T) {
	a, b := engine.SphereShape(1), engine.SphereShape(0.5)
	o := Pose{Rot: identityRot}
	at := func(x, y, z float64) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: identityRot} }
	d := mgl64.Vec3{1, 2, 2}.Mul(1.0 / 3) // a unit diagonal
	cases := []analyticCase{
		{name: "touching", a: a, pa: o, b: b, pb: at(1.5, 0, 0), env: 0.1, n: 1, phi: 0, normal: unitX,
			pA: unitX, pB: unitX, pts: true, tol: closedFormTol},
		{name: "within envelope", a: a, pa: o, b: b, pb: at(1.6, 0, 0), env: 0.2, n: 1, phi: 0.1, normal: unitX,
			pA: unitX, pB: mgl64.Vec3{1.1, 0, 0}, pts: true, tol: closedFormTol},
		{name: "beyond envelope", a: a, pa: o, b: b, pb: at(2, 0, 0), env: 0.2},
		{name: "at the envelope", a: a, pa: o, b: b, pb: at(1.75, 0, 0), env: 0.25},
		{name: "overlapping diagonal", a: a, pa: o, b: b, pb: Pose{Pos: d.Mul(1.2), Rot: rotAbout(30, unitY)}, env: 0, n: 1,
			phi: -0.3, normal: d, pA: d, pB: d.Mul(0.7), pts: true, tol: closedFormTol},
	}
	runAnalytic(t, cases)
	// Coincident centres: the normal is ±z (+z from the first of the pair
	// in Narrow's fixed order), the points follow it.
	c := mgl64.Vec3{1, 2, 3}
	for _, cs := range [][]ContactPoint{narrow(t, a, at(1, 2, 3), b, at(1, 2, 3), 0), narrow(t, b, at(1, 2, 3), a, at(1, 2, 3), 0)} {
		if len(cs) != 1 {
			t.Fatalf("coincident: %d contacts", len(cs))
		}
		g := cs[0]
		if g.Normal != unitZ && g.Normal != unitZ.Mul(-1) || g.Phi != -1.5 {
			t.Errorf("coincident: %+v, want Normal ±z and Phi −1.5", g)
		}
		if ra := g.PA.Sub(c).Dot(g.Normal); ra != 1 && ra != 0.5 || g.PA.Sub(c).Dot(g.Normal)-g.PB.Sub(c).Dot(g.Normal) != 1.5 {
			t.Errorf("coincident: points %v, %v", g.PA, g.PB)
		}
	}
}

func TestNarrowSpherePlane(t *testing.T) {
	s := engine.SphereShape(0.5)
	var cases []analyticCase
	for i, rot := range []mgl64.Quat{identityRot, rotAbout(30, unitX), rotAbout(135, mgl64.Vec3{1, 1, 0}), rotAbout(180, unitY)} {
		np := rot.Rotate(unitZ)
		p0 := mgl64.Vec3{1, -2, 0.5}
		tan := rot.Rotate(mgl64.Vec3{0.3, -0.7, 0})
		for _, h := range []float64{0.5, 0.55, 0.2, -1} {
			c := p0.Add(np.Mul(h)).Add(tan)
			cases = append(cases, analyticCase{
				name: "rot" + string(rune('0'+i)) + "/h" + ftoa(h), a: s, pa: Pose{Pos: c, Rot: rotAbout(40, unitY)},
				b: engine.PlaneShape(), pb: Pose{Pos: p0, Rot: rot}, env: 0.1, n: 1, phi: h - 0.5, normal: np.Mul(-1),
				pA: c.Sub(np.Mul(0.5)), pB: c.Sub(np.Mul(h)), pts: true, tol: closedFormTol,
			})
		}
		cases = append(cases, analyticCase{name: "rot" + string(rune('0'+i)) + "/beyond", a: s,
			pa: Pose{Pos: p0.Add(np.Mul(0.61)), Rot: identityRot}, b: engine.PlaneShape(), pb: Pose{Pos: p0, Rot: rot}, env: 0.1})
	}
	runAnalytic(t, cases)
}

// ftoa formats a table parameter for a subtest name.
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

func TestNarrowSphereBox(t *testing.T) {
	s, bx := engine.SphereShape(0.5), engine.BoxShape(1, 2, 3)
	o := Pose{Rot: identityRot}
	at := func(x, y, z float64) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: identityRot} }
	e := mgl64.Vec3{0.3, 0.4, 0}.Normalize()
	c := mgl64.Vec3{1, 2, 3}.Normalize()
	cases := []analyticCase{
		{name: "face", a: s, pa: at(1.7, 0.3, -0.4), b: bx, pb: o, env: 0.5, n: 1, phi: 0.2, normal: unitX.Mul(-1),
			pA: mgl64.Vec3{1.2, 0.3, -0.4}, pB: mgl64.Vec3{1, 0.3, -0.4}, pts: true, tol: closedFormTol},
		{name: "edge", a: s, pa: at(1.3, 2.4, 1), b: bx, pb: o, env: 0.5, n: 1, phi: 0, normal: e.Mul(-1),
			pA: mgl64.Vec3{1, 2, 1}, pB: mgl64.Vec3{1, 2, 1}, pts: true, tol: closedFormTol},
		{name: "corner", a: s, pa: Pose{Pos: mgl64.Vec3{1, 2, 3}.Add(c.Mul(0.3)), Rot: identityRot}, b: bx, pb: o, env: 0, n: 1,
			phi: -0.2, normal: c.Mul(-1), pA: mgl64.Vec3{1, 2, 3}.Sub(c.Mul(0.2)), pB: mgl64.Vec3{1, 2, 3}, pts: true, tol: closedFormTol},
		{name: "centre inside", a: s, pa: at(0.8, 0.5, -1), b: bx, pb: o, env: 0, n: 1, phi: -0.7, normal: unitX.Mul(-1),
			pA: mgl64.Vec3{0.3, 0.5, -1}, pB: mgl64.Vec3{1, 0.5, -1}, pts: true, tol: closedFormTol},
		{name: "centre inside near -z", a: s, pa: at(0, 0.5, -2.9), b: bx, pb: o, env: 0, n: 1, phi: -0.6, normal: unitZ,
			pA: mgl64.Vec3{0, 0.5, -2.4}, pB: mgl64.Vec3{0, 0.5, -3}, pts: true, tol: closedFormTol},
		{name: "beyond", a: s, pa: at(1.7, 0.3, -0.4), b: bx, pb: o, env: 0.15},
	}
	// The same table with the box moved and rotated, and the sphere carried
	// along.
	q := rotAbout(70, mgl64.Vec3{1, -2, 0.5})
	sh := mgl64.Vec3{-3, 1, 2}
	n := len(cases)
	for i := range n {
		tc := cases[i]
		tc.name += " (rotated box)"
		tc.pa.Pos = sh.Add(q.Rotate(tc.pa.Pos))
		tc.pb = Pose{Pos: sh, Rot: q}
		if tc.normal != (mgl64.Vec3{}) {
			tc.normal = q.Rotate(tc.normal)
			tc.pA, tc.pB = sh.Add(q.Rotate(tc.pA)), sh.Add(q.Rotate(tc.pB))
		}
		cases = append(cases, tc)
	}
	runAnalytic(t, cases)
}

func TestNarrowEllipsoidPlane(t *testing.T) {
	e := engine.EllipsoidShape(0.6, 0.4, 0.2)
	pl := engine.PlaneShape()
	var cases []analyticCase
	for _, deg := range []float64{0, 25, 90, 140} {
		th := mgl64.DegToRad(deg)
		low := math.Sqrt(0.4*0.4*math.Sin(th)*math.Sin(th) + 0.2*0.2*math.Cos(th)*math.Cos(th))
		for _, z := range []float64{0.5, 0.3, 0.1} {
			cases = append(cases, analyticCase{name: "about x " + ftoa(deg) + " z " + ftoa(z), a: e,
				pa: Pose{Pos: mgl64.Vec3{0.2, -0.1, z}, Rot: rotAbout(deg, unitX)}, b: pl, pb: Pose{Rot: identityRot},
				env: 0.5, n: 1, phi: z - low, normal: unitZ.Mul(-1), tol: closedFormTol})
		}
	}
	// A tilted plane with the ellipsoid tilted the same way: the gap is that
	// of the axis-aligned pair.
	q := rotAbout(37, mgl64.Vec3{1, 2, 3})
	p0 := mgl64.Vec3{4, -1, 2}
	np := q.Rotate(unitZ)
	for _, z := range []float64{0.25, 0.2, 0.15} {
		c := p0.Add(q.Rotate(mgl64.Vec3{0.3, 0.1, z}))
		cases = append(cases, analyticCase{name: "tilted plane z " + ftoa(z), a: pl, pa: Pose{Pos: p0, Rot: q},
			b: e, pb: Pose{Pos: c, Rot: q}, env: 0.1, n: 1, phi: z - 0.2, normal: np,
			pA: c.Sub(np.Mul(z)), pB: c.Sub(np.Mul(0.2)), pts: true, tol: closedFormTol})
	}
	cases = append(cases, analyticCase{name: "beyond", a: e, pa: Pose{Pos: mgl64.Vec3{0, 0, 0.31}, Rot: identityRot},
		b: pl, pb: Pose{Rot: identityRot}, env: 0.1})
	runAnalytic(t, cases)
}

func TestNarrowEllipsoidSphere(t *testing.T) {
	e := engine.EllipsoidShape(3, 2, 1)
	s := engine.SphereShape(0.5)
	o := Pose{Rot: identityRot}
	at := func(x, y, z float64) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: identityRot} }
	cases := []analyticCase{
		{name: "along x", a: e, pa: o, b: s, pb: at(3.7, 0, 0), env: 1, n: 1, phi: 0.2, normal: unitX,
			pA: mgl64.Vec3{3, 0, 0}, pB: mgl64.Vec3{3.2, 0, 0}, pts: true, tol: closedFormTol},
		{name: "along -y", a: e, pa: o, b: s, pb: at(0, -2.6, 0), env: 1, n: 1, phi: 0.1, normal: unitY.Mul(-1),
			pA: mgl64.Vec3{0, -2, 0}, pB: mgl64.Vec3{0, -2.1, 0}, pts: true, tol: closedFormTol},
		{name: "along z touching", a: e, pa: o, b: s, pb: at(0, 0, 1.5), env: 0.1, n: 1, phi: 0, normal: unitZ,
			pA: unitZ, pB: unitZ, pts: true, tol: closedFormTol},
		{name: "rotated 90 about z, along x", a: e, pa: Pose{Rot: rotAbout(90, unitZ)}, b: s, pb: at(2.7, 0, 0), env: 1, n: 1,
			phi: 0.2, normal: unitX, tol: closedFormTol},
		{name: "overlapping along x", a: e, pa: o, b: s, pb: at(3.2, 0, 0), env: 0, n: 1, phi: -0.3, normal: unitX,
			pA: mgl64.Vec3{3, 0, 0}, pB: mgl64.Vec3{2.7, 0, 0}, pts: true, tol: closedFormTol},
		// Centre inside on the shortest axis: the nearest surface point is
		// that axis's vertex, depth c − z plus the radius.
		{name: "deep along z", a: e, pa: o, b: s, pb: at(0, 0, 0.4), env: 0, n: 1, phi: -1.1, normal: unitZ,
			pA: unitZ, pB: mgl64.Vec3{0, 0, -0.1}, pts: true, tol: closedFormTol},
		{name: "beyond", a: e, pa: o, b: s, pb: at(3.7, 0, 0), env: 0.2},
	}
	// Sphere first: the mirror of the table.
	n := len(cases)
	for i := range n {
		tc := cases[i]
		tc.name += " (sphere first)"
		tc.a, tc.pa, tc.b, tc.pb = tc.b, tc.pb, tc.a, tc.pa
		tc.normal = tc.normal.Mul(-1)
		tc.pA, tc.pB = tc.pB, tc.pA
		cases = append(cases, tc)
	}
	runAnalytic(t, cases)
}

// TestNarrowEllipsoidSphereInside checks the closest point for a sphere
// centre inside an ellipsoid off its axes against a brute-force search over
// the surface.
func TestNarrowEllipsoidSphereInside(t *testing.T) {
	e := engine.EllipsoidShape(3, 2, 1)
	s := engine.SphereShape(0.1)
	for _, y := range []mgl64.Vec3{{0.5, 0, 0}, {0, 0, 0}, {1, 0.5, 0}, {2, 1, 0.2}, {0, 1.5, 0}} {
		cs := narrow(t, s, Pose{Pos: y, Rot: identityRot}, e, Pose{Rot: identityRot}, 0)
		if len(cs) != 1 {
			t.Fatalf("centre %v: %d contacts", y, len(cs))
		}
		// Brute force: the surface point nearest y over a fine grid of
		// (θ, φ), refined by a local grid.
		best := math.Inf(1)
		th0, ph0, step := 0.0, 0.0, math.Pi/400
		for th := 0.0; th <= math.Pi; th += step {
			for ph := -math.Pi; ph < math.Pi; ph += step {
				p := mgl64.Vec3{3 * math.Sin(th) * math.Cos(ph), 2 * math.Sin(th) * math.Sin(ph), math.Cos(th)}
				if d := p.Sub(y).Len(); d < best {
					best, th0, ph0 = d, th, ph
				}
			}
		}
		for range 40 {
			step /= 2
			for _, dt := range []float64{-step, 0, step} {
				for _, dp := range []float64{-step, 0, step} {
					th, ph := th0+dt, ph0+dp
					p := mgl64.Vec3{3 * math.Sin(th) * math.Cos(ph), 2 * math.Sin(th) * math.Sin(ph), math.Cos(th)}
					if d := p.Sub(y).Len(); d < best {
						best, th0, ph0 = d, th, ph
					}
				}
			}
		}
		// The grid search converges to ~1e-12 in distance (the distance is
		// quadratic in the angle error at the minimum); Eberly's root is
		// exact to rounding.
		if want := -best - 0.1; math.Abs(cs[0].Phi-want) > 1e-9 {
			t.Errorf("centre %v: Phi = %.15g, brute force %.15g", y, cs[0].Phi, want)
		}
		checkContact(t, s, Pose{Pos: y, Rot: identityRot}, e, Pose{Rot: identityRot}, 0, cs[0])
	}
}

func TestNarrowEllipsoidEllipsoid(t *testing.T) {
	a := engine.EllipsoidShape(3, 2, 1)
	b := engine.EllipsoidShape(1, 2, 3)
	o := Pose{Rot: identityRot}
	at := func(x, y, z float64, q mgl64.Quat) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: q} }
	round := engine.EllipsoidShape(1, 2, 2)
	cases := []analyticCase{
		{name: "along x", a: a, pa: o, b: b, pb: at(4.5, 0, 0, identityRot), env: 1, n: 1, phi: 0.5, normal: unitX,
			pA: mgl64.Vec3{3, 0, 0}, pB: mgl64.Vec3{3.5, 0, 0}, pts: true, tol: iterativeTol},
		{name: "along y", a: a, pa: o, b: b, pb: at(0, -4.25, 0, identityRot), env: 1, n: 1, phi: 0.25, normal: unitY.Mul(-1),
			pA: mgl64.Vec3{0, -2, 0}, pB: mgl64.Vec3{0, -2.25, 0}, pts: true, tol: iterativeTol},
		{name: "along z touching", a: a, pa: o, b: b, pb: at(0, 0, 4, identityRot), env: 0.1, n: 1, phi: 0, normal: unitZ,
			pA: unitZ, pB: unitZ, pts: true, tol: iterativeTol},
		// b rotated 90° about z: its axes 1 and 2 swap, so it reaches 2
		// along x.
		{name: "b rotated about z", a: a, pa: o, b: b, pb: at(5.1, 0, 0, rotAbout(90, unitZ)), env: 1, n: 1, phi: 0.1,
			normal: unitX, pA: mgl64.Vec3{3, 0, 0}, pB: mgl64.Vec3{3.1, 0, 0}, pts: true, tol: iterativeTol},
		// Both rotated and moved together: the same gap.
		{name: "pair rotated", a: a, pa: at(1, 2, 3, rotAbout(50, mgl64.Vec3{1, 1, 1})), b: b,
			pb:  Pose{Pos: mgl64.Vec3{1, 2, 3}.Add(rotAbout(50, mgl64.Vec3{1, 1, 1}).Rotate(mgl64.Vec3{4.3, 0, 0})), Rot: rotAbout(50, mgl64.Vec3{1, 1, 1})},
			env: 1, n: 1, phi: 0.3, normal: rotAbout(50, mgl64.Vec3{1, 1, 1}).Rotate(unitX), tol: iterativeTol},
		{name: "overlapping along x", a: a, pa: o, b: b, pb: at(3.9, 0, 0, identityRot), env: 0, n: 1, phi: -0.1, normal: unitX,
			pA: mgl64.Vec3{3, 0, 0}, pB: mgl64.Vec3{2.9, 0, 0}, pts: true, tol: iterativeTol},
		// Two (1, 2, 2) ellipsoids 1.5 apart along x overlap by 0.5, and x
		// is the direction of least penetration: f(n) = 2√(4 − 3n_x²) −
		// 1.5 n_x decreases on [−1, 1] to its minimum 0.5 at n_x = 1.
		{name: "deep along x", a: round, pa: o, b: round, pb: at(1.5, 0, 0, identityRot), env: 0, n: 1, phi: -0.5, normal: unitX,
			pA: mgl64.Vec3{1, 0, 0}, pB: mgl64.Vec3{0.5, 0, 0}, pts: true, tol: iterativeTol},
		{name: "beyond", a: a, pa: o, b: b, pb: at(4.5, 0, 0, identityRot), env: 0.4},
	}
	runAnalytic(t, cases)
}

// TestNarrowRoundMatchesSphere checks that ellipsoids with equal semi-axes
// give the sphere closed forms on random poses.
func TestNarrowRoundMatchesSphere(t *testing.T) {
	// Eberly's root and Newton's method converge to rounding for round
	// shapes; 1e-9 is the brief's bound.
	const tol = 1e-9
	rng := rand.New(rand.NewPCG(7, 1))
	for i := range 200 {
		ra, rb := 0.2+rng.Float64(), 0.2+rng.Float64()
		pa, pb := randomShapePose(rng, 2), randomShapePose(rng, 2)
		d := randomDirection(rng).Mul((ra + rb) * (0.3 + 0.9*rng.Float64()))
		pb.Pos = pa.Pos.Add(d)
		want := narrow(t, engine.SphereShape(ra), pa, engine.SphereShape(rb), pb, 10)
		for _, pair := range [][2]engine.Shape{
			{engine.EllipsoidShape(ra, ra, ra), engine.SphereShape(rb)},
			{engine.SphereShape(ra), engine.EllipsoidShape(rb, rb, rb)},
			{engine.EllipsoidShape(ra, ra, ra), engine.EllipsoidShape(rb, rb, rb)},
		} {
			got := narrow(t, pair[0], pa, pair[1], pb, 10)
			if len(got) != 1 || len(want) != 1 {
				t.Fatalf("case %d %v–%v: %d and %d contacts", i, pair[0].Kind, pair[1].Kind, len(got), len(want))
			}
			g, w := got[0], want[0]
			if math.Abs(g.Phi-w.Phi) > tol || g.Normal.Sub(w.Normal).Len() > tol || g.PA.Sub(w.PA).Len() > tol || g.PB.Sub(w.PB).Len() > tol {
				t.Errorf("case %d %v–%v: got %+v, sphere–sphere %+v", i, pair[0].Kind, pair[1].Kind, g, w)
			}
		}
		// A round ellipsoid against a box gives sphere–box.
		bx := engine.BoxShape(0.3+rng.Float64(), 0.3+rng.Float64(), 0.3+rng.Float64())
		pb.Pos = pa.Pos.Add(randomDirection(rng).Mul((ra + bx.BoundingRadius()) * (0.3 + 0.9*rng.Float64())))
		want = narrow(t, engine.SphereShape(ra), pa, bx, pb, 10)
		got := narrow(t, engine.EllipsoidShape(ra, ra, ra), pa, bx, pb, 10)
		if len(got) != 1 || len(want) != 1 {
			t.Fatalf("case %d ellipsoid–box: %d and %d contacts", i, len(got), len(want))
		}
		if g, w := got[0], want[0]; math.Abs(g.Phi-w.Phi) > tol || g.Normal.Sub(w.Normal).Len() > 1e-6 {
			// The normal of a sphere touching a face is that face's normal
			// exactly; near an edge or corner both are the direction to the
			// nearest box point, found to ~1e-8 by Newton's method stopping
			// at a gradient of 1e-13·scale (error ~ gradient/curvature).
			t.Errorf("case %d ellipsoid–box: got %+v, sphere–box %+v", i, g, w)
		}
	}
}

func TestNarrowEllipsoidBox(t *testing.T) {
	e := engine.EllipsoidShape(1, 2, 0.5)
	bx := engine.BoxShape(2, 2, 1)
	o := Pose{Rot: identityRot}
	at := func(x, y, z float64, q mgl64.Quat) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: q} }
	var cases []analyticCase
	for _, g := range []float64{0.01, 0, -0.05} {
		cases = append(cases, analyticCase{name: "on top face " + ftoa(g), a: e, pa: at(0.3, -0.2, 1.5+g, identityRot), b: bx, pb: o,
			env: 0.1, n: 1, phi: g, normal: unitZ.Mul(-1), pA: mgl64.Vec3{0.3, -0.2, 1 + g}, pB: mgl64.Vec3{0.3, -0.2, 1},
			pts: true, tol: iterativeTol})
	}
	// Box rotated about its vertical axis: still the top face.
	cases = append(cases, analyticCase{name: "box turned about z", a: bx, pa: at(0, 0, 0, rotAbout(45, unitZ)), b: e,
		pb: at(0.5, 0.2, 1.52, identityRot), env: 0.1, n: 1, phi: 0.02, normal: unitZ, tol: iterativeTol})
	// Ellipsoid rotated about x: lowest point sqrt(b² sin² + c² cos²) below
	// its centre.
	th := mgl64.DegToRad(30)
	low := math.Sqrt(4*math.Sin(th)*math.Sin(th) + 0.25*math.Cos(th)*math.Cos(th))
	cases = append(cases, analyticCase{name: "ellipsoid about x", a: e, pa: at(0.2, 0.1, 1+low-0.03, rotAbout(30, unitX)), b: bx,
		pb: o, env: 0.1, n: 1, phi: -0.03, normal: unitZ.Mul(-1), tol: iterativeTol})
	// Box rotated 45° about y: an edge along y on top at height √2·1 for a
	// (1, 1, 1) cube; the ellipsoid's lowest point sits above it.
	cube := engine.BoxShape(1, 1, 1)
	for _, g := range []float64{0.05, 0, -0.02} {
		cases = append(cases, analyticCase{name: "on an edge " + ftoa(g), a: e, pa: at(0, 0.3, math.Sqrt2+0.5+g, identityRot), b: cube,
			pb: at(0, 0, 0, rotAbout(45, unitY)), env: 0.1, n: 1, phi: g, normal: unitZ.Mul(-1),
			pA: mgl64.Vec3{0, 0.3, math.Sqrt2 + g}, pB: mgl64.Vec3{0, 0.3, math.Sqrt2}, pts: true, tol: iterativeTol})
	}
	// Cube with its diagonal (1, 1, 1) turned to +z: a corner on top at √3.
	up := mgl64.QuatBetweenVectors(mgl64.Vec3{1, 1, 1}.Normalize(), unitZ)
	for _, g := range []float64{0.05, 0, -0.01} {
		cases = append(cases, analyticCase{name: "on a corner " + ftoa(g), a: e, pa: at(0, 0, math.Sqrt(3)+0.5+g, identityRot), b: cube,
			pb: at(0, 0, 0, up), env: 0.1, n: 1, phi: g, normal: unitZ.Mul(-1),
			pA: mgl64.Vec3{0, 0, math.Sqrt(3) + g}, pB: mgl64.Vec3{0, 0, math.Sqrt(3)}, pts: true, tol: iterativeTol})
	}
	cases = append(cases, analyticCase{name: "beyond", a: e, pa: at(0.3, -0.2, 1.62, identityRot), b: bx, pb: o, env: 0.1})
	runAnalytic(t, cases)
}

func TestNarrowBoxPlane(t *testing.T) {
	bx := engine.BoxShape(1, 2, 0.5)
	pl := engine.PlaneShape()
	at := func(z float64, q mgl64.Quat) Pose { return Pose{Pos: mgl64.Vec3{3, -1, z}, Rot: q} }
	// Tilted 10° about y: the corners at x = +1 drop by sin 10° and rise by
	// 0.5(1 − cos 10°) relative to resting.
	th := mgl64.DegToRad(10)
	lowEdge := 0.5*math.Cos(th) + math.Sin(th)
	// Tilted about a generic axis: one lowest corner.
	q := rotAbout(20, mgl64.Vec3{1, 2, 0})
	lowest := math.Inf(-1)
	for k := range 8 {
		c := mgl64.Vec3{1, 2, 0.5}
		for i := range 3 {
			if k&(1<<i) != 0 {
				c[i] = -c[i]
			}
		}
		lowest = math.Max(lowest, -q.Rotate(c)[2])
	}
	cases := []analyticCase{
		{name: "resting", a: bx, pa: at(0.5, identityRot), b: pl, pb: Pose{Rot: identityRot}, env: 0.01, n: 4, phi: 0,
			normal: unitZ.Mul(-1), tol: closedFormTol},
		{name: "sunk", a: bx, pa: at(0.45, identityRot), b: pl, pb: Pose{Rot: identityRot}, env: 0.01, n: 4, phi: -0.05,
			normal: unitZ.Mul(-1), tol: closedFormTol},
		{name: "tilted about y: 2 corners", a: bx, pa: at(lowEdge, rotAbout(10, unitY)), b: pl, pb: Pose{Rot: identityRot},
			env: 0.01, n: 2, phi: 0, normal: unitZ.Mul(-1), tol: closedFormTol},
		{name: "tilted: 1 corner", a: bx, pa: at(lowest-0.001, q), b: pl, pb: Pose{Rot: identityRot}, env: 0.01, n: 1,
			phi: -0.001, normal: unitZ.Mul(-1), tol: closedFormTol},
		{name: "inside: 8 corners", a: pl, pa: Pose{Pos: mgl64.Vec3{0, 0, 10}, Rot: identityRot}, b: bx, pb: at(0, identityRot),
			env: 0, n: 8, phi: math.NaN(), normal: unitZ, tol: closedFormTol},
		{name: "beyond", a: bx, pa: at(0.52, identityRot), b: pl, pb: Pose{Rot: identityRot}, env: 0.01},
	}
	for _, tc := range cases {
		if math.IsNaN(tc.phi) {
			// Mixed gaps: check the corners' heights instead.
			cs := narrow(t, tc.a, tc.pa, tc.b, tc.pb, tc.env)
			if len(cs) != tc.n {
				t.Fatalf("%s: %d contacts, want %d", tc.name, len(cs), tc.n)
			}
			for _, c := range cs {
				checkContact(t, tc.a, tc.pa, tc.b, tc.pb, tc.env, c)
				if want := c.PB[2] - 10; math.Abs(c.Phi-want) > closedFormTol {
					t.Errorf("%s: Phi %g, want %g", tc.name, c.Phi, want)
				}
			}
			continue
		}
		runAnalytic(t, []analyticCase{tc})
	}
}

func TestNarrowBoxBox(t *testing.T) {
	big := engine.BoxShape(1, 1, 1)
	small := engine.BoxShape(0.5, 0.5, 0.5)
	flat := engine.BoxShape(1, 1, 0.5)
	o := Pose{Rot: identityRot}
	at := func(x, y, z float64, q mgl64.Quat) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: q} }
	cases := []analyticCase{
		{name: "stacked", a: big, pa: o, b: small, pb: at(0.2, 0.1, 1.49, identityRot), env: 0.01, n: 4, phi: -0.01,
			normal: unitZ, tol: closedFormTol},
		{name: "stacked, b below", a: small, pa: at(0.2, 0.1, 1.49, identityRot), b: big, pb: o, env: 0.01, n: 4, phi: -0.01,
			normal: unitZ.Mul(-1), tol: closedFormTol},
		{name: "stacked within envelope", a: big, pa: o, b: small, pb: at(0.2, 0.1, 1.52, identityRot), env: 0.05, n: 4, phi: 0.02,
			normal: unitZ, tol: closedFormTol},
		{name: "turned 45° about z", a: big, pa: o, b: small, pb: at(0, 0, 1.49, rotAbout(45, unitZ)), env: 0.01, n: 4,
			phi: -0.01, normal: unitZ, tol: closedFormTol},
		// A (1, 1, 0.5) box turned 45° on a cube's top face: its bottom
		// square overhangs the face and clips to an octagon.
		{name: "octagon", a: big, pa: o, b: flat, pb: at(0, 0, 1.49, rotAbout(45, unitZ)), env: 0.01, n: 8,
			phi: -0.01, normal: unitZ, tol: closedFormTol},
		// Edge on edge: a turned 45° about x (top edge along x at √2), b
		// turned 45° about y (bottom edge along y at its centre − √2).
		{name: "edge on edge", a: big, pa: at(0, 0, 0, rotAbout(45, unitX)), b: big,
			pb: at(0.1, -0.2, 2*math.Sqrt2-0.02, rotAbout(45, unitY)), env: 0.01, n: 1, phi: -0.02, normal: unitZ,
			pA: mgl64.Vec3{0.1, 0, math.Sqrt2}, pB: mgl64.Vec3{0.1, 0, math.Sqrt2 - 0.02}, pts: true, tol: closedFormTol},
		{name: "beyond", a: big, pa: o, b: small, pb: at(0.2, 0.1, 1.52, identityRot), env: 0.01},
	}
	runAnalytic(t, cases)
}

func TestNarrowPlanePlane(t *testing.T) {
	out := []ContactPoint{{Phi: 1}}
	got, err := Narrow(engine.PlaneShape(), Pose{Rot: identityRot}, engine.PlaneShape(), Pose{Rot: rotAbout(180, unitX)}, 1, out)
	if err != nil || len(got) != 1 || got[0].Phi != 1 {
		t.Errorf("plane–plane: %v, %v; want out unchanged, nil", got, err)
	}
}

// TestPairTable checks the shape-pair table against its ordering rule:
// an entry for every pair of kinds ka ≤ kb, none below the diagonal, as
// many kinds as engine names (a kind added to engine and not to the table
// fails here), none for Compound, which the Collider splits into its
// parts, and narrowPairs testing every entry but plane–plane.
func TestPairTable(t *testing.T) {
	if s := numKinds.String(); !strings.HasPrefix(s, "ShapeKind(") {
		t.Errorf("engine names a kind %q beyond the table's %d: it needs its row in the table", s, numKinds)
	}
	if s := (numKinds - 1).String(); strings.HasPrefix(s, "ShapeKind(") {
		t.Errorf("the table has %d kinds, engine names only up to %s", numKinds, s)
	}
	tested := map[[2]engine.ShapeKind]bool{}
	for _, pk := range narrowPairs {
		tested[[2]engine.ShapeKind{min(pk[0], pk[1]), max(pk[0], pk[1])}] = true
	}
	for ka := range numKinds {
		for kb := range numKinds {
			switch f := pairs[ka][kb]; {
			case ka == engine.Compound || kb == engine.Compound || ka == engine.Mesh || kb == engine.Mesh:
				if f != nil {
					t.Errorf("pairs[%v][%v] is set: the Collider splits compounds and meshes into their parts", ka, kb)
				}
			case ka > kb && f != nil:
				t.Errorf("pairs[%v][%v] is set: only ka ≤ kb has entries", ka, kb)
			case ka <= kb && f == nil:
				t.Errorf("pairs[%v][%v] is missing", ka, kb)
			case ka <= kb && !neverMeet(ka, kb) && !tested[[2]engine.ShapeKind{ka, kb}]:
				t.Errorf("%v–%v is not in narrowPairs", ka, kb)
			}
		}
	}
}

func TestNarrowUnsupported(t *testing.T) {
	odd := engine.Shape{Kind: 200, Size: mgl64.Vec3{1, 1, 1}}
	out := []ContactPoint{{Phi: 1}}
	got, err := Narrow(engine.SphereShape(1), Pose{Rot: identityRot}, odd, Pose{Rot: identityRot}, 1, out)
	if err == nil || len(got) != 1 {
		t.Errorf("sphere–ShapeKind(200): %v, %v; want out unchanged and an error", got, err)
	}
	if err != nil {
		t.Log(err)
	}
}

// TestNarrowZeroRotation checks that the zero quaternion counts as the
// identity and a non-unit one is normalised.
func TestNarrowZeroRotation(t *testing.T) {
	e := engine.EllipsoidShape(1, 2, 0.5)
	want := narrow(t, e, Pose{Pos: mgl64.Vec3{0, 0, 0.4}, Rot: identityRot}, engine.PlaneShape(), Pose{Rot: identityRot}, 0)
	for _, q := range []mgl64.Quat{{}, {W: 3}} {
		got := narrow(t, e, Pose{Pos: mgl64.Vec3{0, 0, 0.4}}, engine.PlaneShape(), Pose{Rot: q}, 0)
		if len(got) != 1 || got[0] != want[0] {
			t.Errorf("rotation %v: %+v, want %+v", q, got, want)
		}
	}
}

// randomDirection returns a uniformly random unit vector.
func randomDirection(rng *rand.Rand) mgl64.Vec3 {
	for {
		v := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		if l := v.Len(); l > 1e-3 {
			return v.Mul(1 / l)
		}
	}
}

// randomShapePose returns a pose with centre uniform in the cube
// [−spread, spread]³ and a uniformly random orientation.
func randomShapePose(rng *rand.Rand, spread float64) Pose {
	q := mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}
	return Pose{
		Pos: mgl64.Vec3{spread * (2*rng.Float64() - 1), spread * (2*rng.Float64() - 1), spread * (2*rng.Float64() - 1)},
		Rot: q.Normalize(),
	}
}

// randomNarrowShape returns a shape of kind k with sizes uniform in
// [0.2, 1.2] m.
func randomNarrowShape(rng *rand.Rand, k engine.ShapeKind) engine.Shape {
	s := func() float64 { return 0.2 + rng.Float64() }
	switch k {
	case engine.Sphere:
		return engine.SphereShape(s())
	case engine.Ellipsoid:
		return engine.EllipsoidShape(s(), s(), s())
	case engine.Box:
		return engine.BoxShape(s(), s(), s())
	case engine.Capsule:
		return engine.CapsuleShape(s(), s())
	case engine.Cylinder:
		return engine.CylinderShape(s(), s())
	case engine.Convex:
		return randomHull(rng, s(), s(), s())
	case engine.Triangle:
		return engine.Shape{Kind: engine.Triangle, Size: mgl64.Vec3{2 * s(), 2*s() - 1.2, 2 * s()}}
	}
	return engine.PlaneShape()
}

// randomNarrowPair returns shapes of kinds ka, kb at random poses whose
// centres are between 0.2 and 1.2 times the sum of their bounding radii
// apart (with a plane: the other shape's centre is that many bounding
// radii above it): some overlap, some are apart.
func randomNarrowPair(rng *rand.Rand, ka, kb engine.ShapeKind) (engine.Shape, Pose, engine.Shape, Pose) {
	a, b := randomNarrowShape(rng, ka), randomNarrowShape(rng, kb)
	pa, pb := randomShapePose(rng, 3), randomShapePose(rng, 3)
	f := 0.2 + rng.Float64()
	switch {
	case ka == engine.Plane:
		pb.Pos = pa.Pos.Add(pa.Rot.Rotate(mgl64.Vec3{rng.Float64(), rng.Float64(), f * b.BoundingRadius()}))
	case kb == engine.Plane:
		pa.Pos = pb.Pos.Add(pb.Rot.Rotate(mgl64.Vec3{rng.Float64(), rng.Float64(), f * a.BoundingRadius()}))
	default:
		pb.Pos = pa.Pos.Add(randomDirection(rng).Mul(f * (a.BoundingRadius() + b.BoundingRadius())))
	}
	return a, pa, b, pb
}

// narrowPairs lists the pairs of kinds Narrow supports, one per unordered
// pair (plane–plane aside).
var narrowPairs = [][2]engine.ShapeKind{
	{engine.Sphere, engine.Sphere},
	{engine.Sphere, engine.Plane},
	{engine.Sphere, engine.Box},
	{engine.Ellipsoid, engine.Plane},
	{engine.Ellipsoid, engine.Sphere},
	{engine.Ellipsoid, engine.Ellipsoid},
	{engine.Ellipsoid, engine.Box},
	{engine.Box, engine.Plane},
	{engine.Box, engine.Box},
	{engine.Sphere, engine.Capsule},
	{engine.Sphere, engine.Cylinder},
	{engine.Ellipsoid, engine.Capsule},
	{engine.Ellipsoid, engine.Cylinder},
	{engine.Box, engine.Capsule},
	{engine.Box, engine.Cylinder},
	{engine.Capsule, engine.Plane},
	{engine.Cylinder, engine.Plane},
	{engine.Capsule, engine.Capsule},
	{engine.Capsule, engine.Cylinder},
	{engine.Cylinder, engine.Cylinder},
	{engine.Sphere, engine.Convex},
	{engine.Ellipsoid, engine.Convex},
	{engine.Box, engine.Convex},
	{engine.Convex, engine.Plane},
	{engine.Capsule, engine.Convex},
	{engine.Cylinder, engine.Convex},
	{engine.Convex, engine.Convex},
	{engine.Sphere, engine.Triangle},
	{engine.Ellipsoid, engine.Triangle},
	{engine.Box, engine.Triangle},
	{engine.Capsule, engine.Triangle},
	{engine.Cylinder, engine.Triangle},
	{engine.Convex, engine.Triangle},
}

// TestNarrowMirror checks on seeded random poses that swapping a and b
// mirrors the contacts: same gaps, negated normals, PA and PB swapped. Both
// calls run the same computation, so the match is exact.
func TestNarrowMirror(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, pk := range narrowPairs {
		t.Run(pk[0].String()+"-"+pk[1].String(), func(t *testing.T) {
			total := 0
			for i := range 300 {
				a, pa, b, pb := randomNarrowPair(rng, pk[0], pk[1])
				ab := narrow(t, a, pa, b, pb, 0.5)
				ba := narrow(t, b, pb, a, pa, 0.5)
				if len(ab) != len(ba) {
					t.Fatalf("case %d: %d contacts one way, %d the other", i, len(ab), len(ba))
				}
				for k := range ab {
					x, y := ab[k], ba[k]
					if x.Phi != y.Phi || x.Normal != y.Normal.Mul(-1) || x.PA != y.PB || x.PB != y.PA {
						t.Errorf("case %d contact %d: %+v, mirrored %+v", i, k, x, y)
					}
					checkContact(t, a, pa, b, pb, 0.5, x)
				}
				total += len(ab)
			}
			if total == 0 {
				t.Errorf("no contacts in 300 random cases")
			}
		})
	}
}

// TestNarrowMaximalSeparation checks on seeded random poses that Phi is the
// signed distance: the largest separation, max over unit m of
// (min over b of x·m − max over a of x·m), attained at Normal. The maximum
// is sought independently by sampling 500 directions and refining the best
// by compass search on the sphere.
func TestNarrowMaximalSeparation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, pk := range narrowPairs {
		if pk[0] == engine.Plane || pk[1] == engine.Plane || pk == [2]engine.ShapeKind{engine.Box, engine.Box} {
			// Half-spaces have unbounded support functions; box–box
			// reports separating-axis gaps (see TestNarrowBoxBoxBound).
			continue
		}
		t.Run(pk[0].String()+"-"+pk[1].String(), func(t *testing.T) {
			for i := range 200 {
				a, pa, b, pb := randomNarrowPair(rng, pk[0], pk[1])
				cs := narrow(t, a, pa, b, pb, 100)
				if len(cs) != 1 && !multiContact(pk) {
					t.Fatalf("case %d: %d contacts, want 1", i, len(cs))
				}
				if len(cs) == 0 {
					t.Fatalf("case %d: no contact", i)
				}
				c := cs[0] // the deepest: the signed distance
				for _, x := range cs[1:] {
					if x.Phi < c.Phi {
						c = x
					}
				}
				sc := pairScale(a, b)
				if len(cs) > 1 {
					// A manifold: its points' Phi are heights above
					// a reference face, which need not be the
					// separation along its normal (a corner of the
					// other shape beyond the face may be nearer). No
					// direction may separate the shapes by more than
					// the least Phi: to convexTol apart, to epaTol
					// overlapping (EPA's polytope).
					tol := 1e-6 + convexTol
					if c.Phi < 0 {
						tol = epaTol
					}
					if d := maxSeparation(rng, a, pa, b, pb); d > c.Phi+tol*sc {
						t.Errorf("case %d: least Phi %.15g below the separation %.15g found", i, c.Phi, d)
					}
					continue
				}
				sepTol, maxTol := closedFormTol, iterativeTol
				if viaConvexPair(a.Kind, b.Kind) {
					sepTol, maxTol = convexNormalTol, convexTol
					if c.Phi < -(coreMargin(a) + coreMargin(b)) {
						maxTol = epaTol
					}
				}
				if d := separationAlong(a, pa, b, pb, c.Normal) - c.Phi; math.Abs(d) > sepTol*sc {
					t.Errorf("case %d: separationAlong along Normal − Phi = %g", i, d)
				}
				if best := maxSeparation(rng, a, pa, b, pb); best > c.Phi+maxTol*sc {
					t.Errorf("case %d: %v %+v vs %v %+v: found separationAlong %.15g > Phi %.15g (by %g)", i, a, pa, b, pb, best, c.Phi, best-c.Phi)
				}
			}
		})
	}
}

// maxSeparation seeks max over unit m of separationAlong(a, b, m) by sampling
// and compass search.
func maxSeparation(rng *rand.Rand, a engine.Shape, pa Pose, b engine.Shape, pb Pose) float64 {
	best, bm := math.Inf(-1), mgl64.Vec3{}
	for range 500 {
		m := randomDirection(rng)
		if s := separationAlong(a, pa, b, pb, m); s > best {
			best, bm = s, m
		}
	}
	step := 0.1
	for step > 1e-12 {
		t1, t2 := tangentPair(bm)
		moved := false
		for _, d := range []mgl64.Vec3{t1, t1.Mul(-1), t2, t2.Mul(-1), t1.Add(t2), t1.Sub(t2), t2.Sub(t1), t1.Add(t2).Mul(-1)} {
			m := bm.Add(d.Mul(step)).Normalize()
			if s := separationAlong(a, pa, b, pb, m); s > best {
				best, bm, moved = s, m, true
			}
		}
		if !moved {
			step /= 2
		}
	}
	return best
}

// TestNarrowBoxBoxRandom checks box–box on random poses against brute
// force. Apart: the least Phi is the distance (the least over corner–box and
// edge–edge distances), or below it for an edge–edge axis, and there is no
// contact when the distance is beyond the envelope. Overlapping: the least
// Phi is no deeper than 1/(1 − boxEdgeBias) times the penetration depth (the
// largest separation over the 15 axes, exact for polytopes): a face axis is
// kept over an edge axis whose depth is above 1 − boxEdgeBias of the face's.
func TestNarrowBoxBoxRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const env = 0.3
	apart, over := 0, 0
	for i := range 1000 {
		a, pa, b, pb := randomNarrowPair(rng, engine.Box, engine.Box)
		cs := narrow(t, a, pa, b, pb, env)
		sc := pairScale(a, b)
		lo := math.Inf(1)
		for _, c := range cs {
			checkContact(t, a, pa, b, pb, env, c)
			lo = math.Min(lo, c.Phi)
		}
		if depth := -satSeparation(a, pa, b, pb); depth > 0 {
			over++
			if len(cs) == 0 || lo < -depth/(1-boxEdgeBias)-closedFormTol*sc {
				t.Errorf("case %d: least Phi %g, penetration %g", i, lo, depth)
			}
			continue
		}
		d := boxDistance(a, pa, b, pb)
		if d >= env {
			if len(cs) != 0 {
				t.Errorf("case %d: distance %g beyond the envelope, got %+v", i, d, cs)
			}
			continue
		}
		apart++
		// GJK ends on an exact closest pair of two polytopes, to rounding.
		if len(cs) == 0 || lo > d+closedFormTol*sc {
			t.Errorf("case %d: least Phi %g, distance %g", i, lo, d)
		}
	}
	if apart < 50 || over < 50 {
		t.Errorf("only %d apart and %d overlapping cases within the envelope", apart, over)
	}
}

// satSeparation returns the largest separation of two boxes over the 15
// separating axes.
func satSeparation(a engine.Shape, pa Pose, b engine.Shape, pb Pose) float64 {
	best := math.Inf(-1)
	var ax, bx [3]mgl64.Vec3
	for i := range 3 {
		var e mgl64.Vec3
		e[i] = 1
		ax[i], bx[i] = pa.Rot.Rotate(e), pb.Rot.Rotate(e)
	}
	axes := append(ax[:], bx[:]...)
	for i := range 3 {
		for j := range 3 {
			if l := ax[i].Cross(bx[j]); l.Len() > 1e-6 {
				axes = append(axes, l.Normalize())
			}
		}
	}
	for _, l := range axes {
		best = math.Max(best, math.Max(separationAlong(a, pa, b, pb, l), separationAlong(a, pa, b, pb, l.Mul(-1))))
	}
	return best
}

// boxCorners returns the 8 world corners of a box.
func boxCorners(s engine.Shape, p Pose) [8]mgl64.Vec3 {
	var c [8]mgl64.Vec3
	for k := range 8 {
		v := s.Size
		for i := range 3 {
			if k&(1<<i) != 0 {
				v[i] = -v[i]
			}
		}
		c[k] = p.Pos.Add(p.Rot.Rotate(v))
	}
	return c
}

// boxDistance returns the distance between two boxes apart: the least of
// the distances from each box's corners to the other box and between their
// edges.
func boxDistance(a engine.Shape, pa Pose, b engine.Shape, pb Pose) float64 {
	ca, cb := boxCorners(a, pa), boxCorners(b, pb)
	d := math.Inf(1)
	for k := range 8 {
		d = math.Min(d, math.Max(surfaceDist(b, pb, ca[k]), 0))
		d = math.Min(d, math.Max(surfaceDist(a, pa, cb[k]), 0))
	}
	for _, ea := range boxEdges(ca) {
		for _, eb := range boxEdges(cb) {
			d = math.Min(d, segmentDistance(ea[0], ea[1], eb[0], eb[1]))
		}
	}
	return d
}

// boxEdges returns the 12 edges of a box from its corners (corners k and
// k^(1<<i) share the edge along axis i).
func boxEdges(c [8]mgl64.Vec3) [][2]mgl64.Vec3 {
	var e [][2]mgl64.Vec3
	for k := range 8 {
		for i := range 3 {
			if k&(1<<i) == 0 {
				e = append(e, [2]mgl64.Vec3{c[k], c[k|1<<i]})
			}
		}
	}
	return e
}

// segmentDistance returns the distance between segments p1q1 and p2q2
// (Ericson, Real-Time Collision Detection, 5.1.9).
func segmentDistance(p1, q1, p2, q2 mgl64.Vec3) float64 {
	d1, d2, r := q1.Sub(p1), q2.Sub(p2), p1.Sub(p2)
	a, e, f := d1.Dot(d1), d2.Dot(d2), d2.Dot(r)
	c, b := d1.Dot(r), d1.Dot(d2)
	den := a*e - b*b
	s := 0.0
	if den > 0 {
		s = mgl64.Clamp((b*f-c*e)/den, 0, 1)
	}
	u := (b*s + f) / e
	if u < 0 {
		u, s = 0, mgl64.Clamp(-c/a, 0, 1)
	} else if u > 1 {
		u, s = 1, mgl64.Clamp((b-c)/a, 0, 1)
	}
	return p1.Add(d1.Mul(s)).Sub(p2.Add(d2.Mul(u))).Len()
}

// TestNarrowAllocs checks that Narrow allocates nothing when out has room,
// for pairs apart, overlapping and with coincident centres (EPA's path).
func TestNarrowAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	out := make([]ContactPoint, 0, 16)
	for _, pk := range narrowPairs {
		for i := range 10 {
			a, pa, b, pb := randomNarrowPair(rng, pk[0], pk[1])
			if i == 0 && pk[0] != engine.Plane && pk[1] != engine.Plane {
				pb.Pos = pa.Pos.Add(mgl64.Vec3{1e-3, 0, 0})
			}
			n := testing.AllocsPerRun(5, func() {
				out, _ = Narrow(a, pa, b, pb, 0.5, out[:0])
			})
			if n != 0 {
				t.Errorf("%v–%v: %v allocations per call", pk[0], pk[1], n)
			}
		}
	}
}

// TestNarrowFinite checks degenerate inputs: coincident centres, identical
// shapes at identical poses, and tiny or huge distances all give finite
// contacts.
func TestNarrowFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, pk := range narrowPairs {
		for i := range 50 {
			a, pa, b, pb := randomNarrowPair(rng, pk[0], pk[1])
			switch i % 3 {
			case 0:
				pb.Pos = pa.Pos
			case 1:
				pb.Pos = pa.Pos.Add(randomDirection(rng).Mul(1e-9))
			default:
				b, pb = a, pa
			}
			if (a.Kind == engine.Plane) != (b.Kind == engine.Plane) && i%3 == 2 {
				continue
			}
			cs := narrow(t, a, pa, b, pb, 0.1)
			for _, c := range cs {
				for _, x := range []float64{c.Phi, c.Normal[0], c.Normal[1], c.Normal[2], c.PA[0], c.PA[1], c.PA[2], c.PB[0], c.PB[1], c.PB[2]} {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("%v–%v case %d: non-finite contact %+v", a.Kind, b.Kind, i, c)
					}
				}
				if a.Kind != engine.Plane && b.Kind != engine.Plane && a.Kind != engine.Box {
					checkContact(t, a, pa, b, pb, 0.1, c)
				}
			}
		}
	}
}

// BenchmarkNarrow times Narrow per pair of kinds on 256 seeded random
// pairs moved to a gap within ±1 % of their size along the line of
// centres (the plane's normal for planes): the near-contact pairs a
// simulation step hands the narrowphase.
func BenchmarkNarrow(b *testing.B) {
	for _, pk := range narrowPairs {
		b.Run(pk[0].String()+"-"+pk[1].String(), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(13, 14))
			type pair struct {
				a, b   engine.Shape
				pa, pb Pose
			}
			ps := make([]pair, 256)
			for i := range ps {
				p := &ps[i]
				p.a, p.pa, p.b, p.pb = nearContact(b, rng, pk[0], pk[1])
			}
			out := make([]ContactPoint, 0, 16)
			b.ReportAllocs()
			i, contacts := 0, 0
			for b.Loop() {
				p := &ps[i%len(ps)]
				out, _ = Narrow(p.a, p.pa, p.b, p.pb, 0.05, out[:0])
				contacts += len(out)
				i++
			}
			if contacts > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(contacts), "ns/contact")
				b.ReportMetric(float64(contacts)/float64(i), "contacts/op")
			}
		})
	}
}

// nearContact returns a random pair of kinds ka, kb moved apart along the
// line of centres (the non-plane shape along the plane's normal) by
// bisection until their least Phi is a random target within ±1 % of their
// size.
func nearContact(b *testing.B, rng *rand.Rand, ka, kb engine.ShapeKind) (engine.Shape, Pose, engine.Shape, Pose) {
	sa, pa, sb, pb := randomNarrowPair(rng, ka, kb)
	sc := pairScale(sa, sb)
	target := (2*rng.Float64() - 1) * 0.01 * sc
	place := func(d float64) (Pose, Pose) {
		qa, qb := pa, pb
		switch {
		case ka == engine.Plane:
			qb.Pos = pa.Pos.Add(pa.Rot.Rotate(unitZ).Mul(d))
		case kb == engine.Plane:
			qa.Pos = pb.Pos.Add(pb.Rot.Rotate(unitZ).Mul(d))
		default:
			qb.Pos = pa.Pos.Add(pb.Pos.Sub(pa.Pos).Normalize().Mul(d))
		}
		return qa, qb
	}
	lo, hi := -2*sc, 2*sc
	if ka != engine.Plane && kb != engine.Plane {
		lo = 0
	}
	for range 60 {
		mid := (lo + hi) / 2
		qa, qb := place(mid)
		cs, err := Narrow(sa, qa, sb, qb, math.Inf(1), nil)
		if err != nil {
			b.Fatal(err)
		}
		least := math.Inf(1)
		for _, c := range cs {
			least = math.Min(least, c.Phi)
		}
		if least < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	pa, pb = place(lo)
	return sa, pa, sb, pb
}

// FuzzNarrow checks that Narrow, on any shapes of sizes 0.01 to 10 m at
// any poses within 20 m of the origin, returns no error for the supported
// kinds, and finite contacts with unit normals and Phi below the envelope.
func FuzzNarrow(f *testing.F) {
	f.Add(uint8(1), uint8(2), 1.0, 2.0, 0.5, 0.4, 0.3, 0.2, 0.0, 0.0, 0.0, 1.5, 0.1, -0.2, 1.0, 0.1, 0.2, 0.3, 0.9, 0.1, 0.0, 0.3, 0.1)
	f.Add(uint8(2), uint8(2), 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 1.49, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.38, 0.01)
	f.Add(uint8(1), uint8(1), 3.0, 2.0, 1.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.1)
	f.Fuzz(func(t *testing.T, ka, kb uint8, a0, a1, a2, b0, b1, b2, x0, x1, x2, y0, y1, y2, qw, qx, qy, qz, rw, rx, ry, rz, env float64) {
		size := func(v float64) float64 { return 0.01 + math.Mod(math.Abs(v), 10) }
		pos := func(v float64) float64 { return math.Mod(v, 20) }
		for _, v := range []float64{a0, a1, a2, b0, b1, b2, x0, x1, x2, y0, y1, y2, qw, qx, qy, qz, rw, rx, ry, rz, env} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return
			}
		}
		a := engine.Shape{Kind: engine.ShapeKind(ka) % numKinds, Size: mgl64.Vec3{size(a0), size(a1), size(a2)}}
		b := engine.Shape{Kind: engine.ShapeKind(kb) % numKinds, Size: mgl64.Vec3{size(b0), size(b1), size(b2)}}
		if a.Kind == engine.Compound || b.Kind == engine.Compound || a.Kind == engine.Mesh || b.Kind == engine.Mesh {
			return // the Collider splits compounds and meshes into parts
		}
		if a.Kind == engine.Convex {
			a = octahedron(a.Size)
		}
		if b.Kind == engine.Convex {
			b = octahedron(b.Size)
		}
		if a.Kind == engine.Sphere {
			a.Size = mgl64.Vec3{a.Size[0], a.Size[0], a.Size[0]}
		}
		if b.Kind == engine.Sphere {
			b.Size = mgl64.Vec3{b.Size[0], b.Size[0], b.Size[0]}
		}
		qa := mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}
		qb := mgl64.Quat{W: rw, V: mgl64.Vec3{rx, ry, rz}}
		if qa.Len() < 1e-3 || qb.Len() < 1e-3 || qa.Len() > 1e3 || qb.Len() > 1e3 {
			return
		}
		pa := Pose{Pos: mgl64.Vec3{pos(x0), pos(x1), pos(x2)}, Rot: qa.Normalize()}
		pb := Pose{Pos: mgl64.Vec3{pos(y0), pos(y1), pos(y2)}, Rot: qb.Normalize()}
		envelope := math.Mod(math.Abs(env), 1)
		cs, err := Narrow(a, pa, b, pb, envelope, nil)
		if err != nil {
			t.Fatalf("%v–%v: %v", a.Kind, b.Kind, err)
		}
		for _, c := range cs {
			for _, x := range []float64{c.Phi, c.Normal[0], c.Normal[1], c.Normal[2], c.PA[0], c.PA[1], c.PA[2], c.PB[0], c.PB[1], c.PB[2]} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%v %+v – %v %+v: non-finite contact %+v", a, pa, b, pb, c)
				}
			}
			if d := math.Abs(c.Normal.Len() - 1); d > unitTol || !(c.Phi < envelope) {
				t.Fatalf("%v %+v – %v %+v: contact %+v (|n| − 1 = %g, envelope %g)", a, pa, b, pb, c, d, envelope)
			}
		}
		// The pair swapped gives the mirrored contacts, bit for bit —
		// unless the two are the same shape at the same pose, a pair that
		// is its own mirror (no order tells A from B; Narrow then returns
		// the same contacts both ways).
		if !orderedBefore(&a, &pa, &b, &pb) && !orderedBefore(&b, &pb, &a, &pa) {
			return
		}
		ms, err := Narrow(b, pb, a, pa, envelope, nil)
		if err != nil {
			t.Fatalf("%v–%v swapped: %v", b.Kind, a.Kind, err)
		}
		if len(ms) != len(cs) {
			t.Fatalf("%v %+v – %v %+v: %d contacts, %d swapped", a, pa, b, pb, len(cs), len(ms))
		}
		for k, x := range cs {
			if y := ms[k]; x.Phi != y.Phi || x.Normal != y.Normal.Mul(-1) || x.PA != y.PB || x.PB != y.PA {
				t.Fatalf("%v %+v – %v %+v: contact %d %+v, swapped %+v", a, pa, b, pb, k, x, y)
			}
		}
	})
}

// TestApartSpheres: apart, the shortcut that drops a pair of spheres before
// the narrowphase, never drops a pair to which Narrow gives a contact: pairs
// at random scales and directions whose distance is the reach (radii plus
// envelope) times 1 + k·2⁻⁵², k from −64 to 2²⁵ (about 7e-9, past the
// slack), in both orders. It must also drop the pairs clearly beyond reach,
// or it saves nothing.
func TestApartSpheres(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	kept, dropped := 0, 0
	for range 20000 {
		scale := math.Pow(10, 4*rng.Float64()-3) // 1 mm … 10 m
		ra, rb := scale*(0.1+rng.Float64()), scale*(0.1+rng.Float64())
		env := scale * 0.1 * rng.Float64()
		dir := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		k := float64(rng.IntN(1<<25+64) - 64)
		if rng.IntN(2) == 0 {
			k = float64(rng.IntN(128) - 64) // near the boundary itself
		}
		d := (ra + rb + env) * (1 + k*0x1p-52)
		ca := mgl64.Vec3{scale * rng.NormFloat64(), scale * rng.NormFloat64(), scale * rng.NormFloat64()}
		cb := ca.Add(dir.Mul(d))
		pos := []float64{ca[0], ca[1], ca[2], cb[0], cb[1], cb[2]}
		sa, sb := engine.SphereShape(ra), engine.SphereShape(rb)
		id := mgl64.QuatIdent()
		for _, ij := range [][2]int{{0, 1}, {1, 0}} {
			i, j := ij[0], ij[1]
			shapes := [2]engine.Shape{sa, sb}
			if !Apart(&shapes[i], &shapes[j], pos, i, j, env) {
				kept++
				continue
			}
			dropped++
			cps, err := Narrow(shapes[i], Pose{vec3At(pos, i), id}, shapes[j], Pose{vec3At(pos, j), id}, env, nil)
			if err != nil || len(cps) != 0 {
				t.Fatalf("apart dropped spheres %g, %g at %g (reach %g, env %g) to which Narrow gives %d contacts (%v)", ra, rb, d, ra+rb+env, env, len(cps), err)
			}
		}
	}
	if dropped < 10000 || kept < 10000 {
		t.Fatalf("apart dropped %d pairs and kept %d; the test wants many of each", dropped, kept)
	}
	box := engine.BoxShape(0.1, 0.1, 0.1)
	if s := engine.SphereShape(0.1); Apart(&s, &box, []float64{0, 0, 0, 100, 0, 0}, 0, 1, 0) {
		t.Fatal("apart dropped a sphere–box pair: it is for two spheres only")
	}
}

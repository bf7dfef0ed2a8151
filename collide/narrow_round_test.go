package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// Tolerances of the pairs that go through convexPair (GJK, EPA).
const (
	// convexTol: GJK on a curved core (an ellipsoid's, a cylinder's
	// rim) stops when its bounds on the distance agree to convexRelTol
	// (1e-10); the normal and the witnesses then carry errors of about
	// the square root of that in the worst conditioned cases measured
	// (1e-10 to 1e-9 of the size): 1e-8 relative bounds them with a
	// margin of 10.
	convexTol = 1e-8
	// convexNormalTol: the gap is quadratic in the normal's error at the
	// optimum, so GJK's stop at a gap within 1e-10 leaves the normal
	// within about 1e-5 rad; the contact points, on the shapes along
	// that normal, differ from the support points along it by up to the
	// size times that (1.4e-5 measured): 1e-4 relative.
	convexNormalTol = 1e-4
	// epaTol: when the cores overlap, EPA's polytope (at most epaMaxVerts
	// vertices) resolves a curved surface to about 1e-3 of the size in
	// the deepest random overlaps (a third of the size); 5e-3 leaves a
	// margin of 2.
	epaTol = 5e-3
)

// viaConvexPair reports whether Narrow computes the pair of kinds ka, kb
// (in either order) through convexPair, wholly or for one of its contacts.
func viaConvexPair(ka, kb engine.ShapeKind) bool {
	ka, kb = min(ka, kb), max(ka, kb)
	if kb == engine.Triangle {
		return ka != engine.Sphere
	}
	if kb == engine.Convex {
		return ka != engine.Plane
	}
	if kb != engine.Capsule && kb != engine.Cylinder {
		return false
	}
	return ka == engine.Ellipsoid || ka == engine.Box || ka == engine.Capsule && kb == engine.Cylinder || ka == engine.Cylinder
}

// multiContact reports whether a pair of kinds may give several contacts
// away from planes: a box and a capsule (its two end balls and its
// segment), two capsules along each other, the face manifolds of
// polytopes and cylinders.
func multiContact(pk [2]engine.ShapeKind) bool {
	ka, kb := min(pk[0], pk[1]), max(pk[0], pk[1])
	return kb == engine.Capsule && (ka == engine.Box || ka == engine.Capsule) ||
		kb == engine.Cylinder && (ka == engine.Box || ka == engine.Cylinder) ||
		kb == engine.Convex && (ka == engine.Box || ka == engine.Convex || ka == engine.Cylinder || ka == engine.Capsule) ||
		kb == engine.Triangle && (ka == engine.Box || ka == engine.Convex || ka == engine.Capsule || ka == engine.Cylinder)
}

// neverMeet reports the pairs of kinds whose table entry gives no
// contact: planes and triangles with each other (fixed or kinematic
// bodies both).
func neverMeet(ka, kb engine.ShapeKind) bool {
	flat := func(k engine.ShapeKind) bool { return k == engine.Plane || k == engine.Triangle }
	return flat(ka) && flat(kb)
}

// randomHull returns the convex shape of 16 random points on the
// ellipsoid of semi-axes a, b, c (engine.NewConvex; its frame and centre
// moved to the hull's principal frame and centre of mass).
func randomHull(rng *rand.Rand, a, b, c float64) engine.Shape {
	pts := make([]mgl64.Vec3, 16)
	for i := range pts {
		d := randomDirection(rng)
		pts[i] = mgl64.Vec3{a * d[0], b * d[1], c * d[2]}
	}
	s, _, _, err := engine.NewConvex(pts)
	if err != nil {
		panic(err)
	}
	return s
}

// octahedron returns the convex hull of (±s0, 0, 0), (0, ±s1, 0), (0, 0,
// ±s2), for FuzzNarrow.
func octahedron(s mgl64.Vec3) engine.Shape {
	h, _, _, err := engine.NewConvex([]mgl64.Vec3{{s[0], 0, 0}, {-s[0], 0, 0}, {0, s[1], 0}, {0, -s[1], 0}, {0, 0, s[2]}, {0, 0, -s[2]}})
	if err != nil {
		panic(err)
	}
	return h
}

// coreMargin returns the margin GJK works without: a capsule's radius,
// an ellipsoid's ellipsoidMargin, 0 for the others.
func coreMargin(s engine.Shape) float64 {
	switch s.Kind {
	case engine.Capsule:
		return s.Size[0]
	case engine.Ellipsoid:
		return ellipsoidMargin(s.Size)
	}
	return 0
}

// at returns a pose at p with rotation q.
func at(p mgl64.Vec3, q mgl64.Quat) Pose { return Pose{Pos: p, Rot: q} }

// TestNarrowRoundAnalytic checks the capsule and cylinder pairs on poses
// whose contacts follow from the geometry: rests on planes and boxes
// (how many points, where, how deep), balls against caps, sides and rims,
// capsules across and along each other, cylinders stacked and side by
// side.
func TestNarrowRoundAnalytic(t *testing.T) {
	capsule, cylinder := engine.CapsuleShape(0.2, 0.5), engine.CylinderShape(0.3, 0.4)
	plane, ground := engine.PlaneShape(), at(mgl64.Vec3{}, identityRot)
	lying := rotAbout(90, unitX) // the body z axis along world −y
	box := engine.BoxShape(1, 1, 0.5)
	boxPose := at(mgl64.Vec3{0, 0, -0.5}, identityRot) // top face at z = 0
	down := unitZ.Mul(-1)
	runAnalytic(t, []analyticCase{
		// Capsules.
		{name: "capsule lying on plane", a: capsule, pa: at(mgl64.Vec3{0, 0, 0.19}, lying), b: plane, pb: ground,
			env: 0.05, n: 2, phi: -0.01, normal: down, tol: closedFormTol},
		{name: "capsule standing on plane", a: capsule, pa: at(mgl64.Vec3{0, 0, 0.69}, identityRot), b: plane, pb: ground,
			env: 0.05, n: 1, phi: -0.01, normal: down, pts: true, pA: mgl64.Vec3{0, 0, -0.01}, pB: mgl64.Vec3{}, tol: closedFormTol},
		{name: "capsule lying on box", a: capsule, pa: at(mgl64.Vec3{0, 0, 0.21}, lying), b: box, pb: boxPose,
			env: 0.05, n: 2, phi: 0.01, normal: down, tol: closedFormTol},
		{name: "sphere on capsule's side", a: engine.SphereShape(0.1), pa: at(mgl64.Vec3{0, 0.3, 0.35}, identityRot), b: capsule, pb: at(mgl64.Vec3{}, lying),
			env: 0.1, n: 1, phi: 0.05, normal: down, pts: true, pA: mgl64.Vec3{0, 0.3, 0.25}, pB: mgl64.Vec3{0, 0.3, 0.2}, tol: closedFormTol},
		{name: "capsules crossing", a: capsule, pa: at(mgl64.Vec3{0, 0, 0.45}, rotAbout(90, unitY)), b: capsule, pb: at(mgl64.Vec3{}, lying),
			env: 0.1, n: 1, phi: 0.05, normal: unitZ.Mul(-1), pts: true, pA: mgl64.Vec3{0, 0, 0.25}, pB: mgl64.Vec3{0, 0, 0.2}, tol: closedFormTol},
		{name: "capsules along each other", a: capsule, pa: at(mgl64.Vec3{0, 0.3, 0.39}, lying), b: capsule, pb: at(mgl64.Vec3{}, lying),
			env: 0.1, n: 2, phi: -0.01, normal: down, tol: closedFormTol},
		// Cylinders.
		{name: "cylinder lying on plane", a: cylinder, pa: at(mgl64.Vec3{0, 0, 0.29}, lying), b: plane, pb: ground,
			env: 0.05, n: 2, phi: -0.01, normal: down, tol: closedFormTol},
		{name: "cylinder standing on plane", a: cylinder, pa: at(mgl64.Vec3{0, 0, 0.39}, identityRot), b: plane, pb: ground,
			env: 0.05, n: 4, phi: -0.01, normal: down, tol: closedFormTol},
		{name: "cylinder standing on box", a: box, pa: boxPose, b: cylinder, pb: at(mgl64.Vec3{0.2, 0, 0.39}, identityRot),
			env: 0.05, n: 4, phi: -0.01, normal: unitZ, tol: closedFormTol},
		{name: "cylinder lying on box", a: box, pa: boxPose, b: cylinder, pb: at(mgl64.Vec3{0, 0, 0.31}, lying),
			env: 0.05, n: 2, phi: 0.01, normal: unitZ, tol: closedFormTol},
		{name: "sphere on cylinder's cap", a: engine.SphereShape(0.1), pa: at(mgl64.Vec3{0.1, 0, 0.55}, identityRot), b: cylinder, pb: ground,
			env: 0.1, n: 1, phi: 0.05, normal: down, pts: true, pA: mgl64.Vec3{0.1, 0, 0.45}, pB: mgl64.Vec3{0.1, 0, 0.4}, tol: closedFormTol},
		{name: "sphere at cylinder's rim", a: engine.SphereShape(0.1), pa: at(mgl64.Vec3{0.33, 0, 0.44}, identityRot), b: cylinder, pb: ground,
			env: 0.1, n: 1, phi: 0.05 - 0.1, normal: mgl64.Vec3{-0.6, 0, -0.8}, pts: true, pA: mgl64.Vec3{0.27, 0, 0.36}, pB: mgl64.Vec3{0.3, 0, 0.4}, tol: closedFormTol},
		{name: "sphere inside cylinder", a: engine.SphereShape(0.1), pa: at(mgl64.Vec3{0.25, 0, 0}, identityRot), b: cylinder, pb: ground,
			env: 0.1, n: 1, phi: -0.05 - 0.1, normal: unitX.Mul(-1), pts: true, pA: mgl64.Vec3{0.15, 0, 0}, pB: mgl64.Vec3{0.3, 0, 0}, tol: closedFormTol},
		{name: "cylinders stacked", a: cylinder, pa: ground, b: engine.CylinderShape(0.1, 0.2), pb: at(mgl64.Vec3{0.1, 0, 0.59}, identityRot),
			env: 0.05, n: 4, phi: -0.01, normal: unitZ, tol: closedFormTol},
		{name: "cylinders side by side", a: cylinder, pa: at(mgl64.Vec3{0, 0, 0}, lying), b: cylinder, pb: at(mgl64.Vec3{0, 0.1, 0.59}, lying),
			env: 0.05, n: 2, phi: -0.01, normal: unitZ, tol: closedFormTol},
	})
}

// TestNarrowRoundClipped: a cylinder lying half over a box's edge rests on
// the part of its line over the face, from the edge to its end.
func TestNarrowRoundClipped(t *testing.T) {
	box := engine.BoxShape(1, 1, 0.5)
	cyl := engine.CylinderShape(0.3, 0.4)
	// Axis along x, centre over the face's edge x = 1: the line runs
	// from x = 0.6 to 1.4, clipped at 1.
	cs := narrow(t, box, at(mgl64.Vec3{0, 0, -0.5}, identityRot), cyl, at(mgl64.Vec3{1, 0, 0.29}, rotAbout(90, unitY)), 0.05)
	if len(cs) != 2 {
		t.Fatalf("%d contacts %+v, want 2", len(cs), cs)
	}
	xs := []float64{cs[0].PB[0], cs[1].PB[0]}
	if math.Abs(math.Min(xs[0], xs[1])-0.6) > closedFormTol || math.Abs(math.Max(xs[0], xs[1])-1) > closedFormTol {
		t.Errorf("contacts at x = %v, want 0.6 and 1", xs)
	}
	for _, c := range cs {
		if math.Abs(c.Phi+0.01) > closedFormTol {
			t.Errorf("Phi %v, want −0.01", c.Phi)
		}
	}
}

// boxHull returns the convex shape of the corners of a box with
// half-extents h (its principal frame is the box's: NewConvex keeps it).
func boxHull(t *testing.T, h mgl64.Vec3) engine.Shape {
	t.Helper()
	s, c, q, err := engine.NewConvex(geom.BoxCorners(h))
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() > 1e-15 || q != mgl64.QuatIdent() {
		t.Fatalf("box hull centred at %v, rotated by %v: want the box's frame", c, q)
	}
	return s
}

// sameContactSets reports whether a and b hold the same contacts in any
// order, within tol (m).
func sameContactSets(a, b []ContactPoint, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
	for _, x := range a {
		found := false
		for j, y := range b {
			if !used[j] && x.Normal.Sub(y.Normal).Len() < tol && x.PA.Sub(y.PA).Len() < tol && x.PB.Sub(y.PB).Len() < tol && math.Abs(x.Phi-y.Phi) < tol {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// TestNarrowHullAsBox: the convex hull of a box's corners collides as the
// box: against a plane, at random tilts, the same corner contacts as
// boxPlane; resting flat on a box or on another such hull, offset so that
// the faces overlap partly, the four corners of the overlap at the gap.
func TestNarrowHullAsBox(t *testing.T) {
	h := mgl64.Vec3{0.3, 0.2, 0.1}
	hull, box := boxHull(t, h), engine.BoxShape(h[0], h[1], h[2])
	rng := rand.New(rand.NewPCG(21, 22))
	plane := engine.PlaneShape()
	for i := range 100 {
		p := randomShapePose(rng, 1)
		p.Pos[2] = 0.3 * rng.Float64()
		hc := narrow(t, hull, p, plane, Pose{Rot: identityRot}, 0.05)
		bc := narrow(t, box, p, plane, Pose{Rot: identityRot}, 0.05)
		// closedFormTol: both are the corners R·v + p, computed with the
		// same rotation; the hull's corners are the box's exactly.
		if !sameContactSets(hc, bc, closedFormTol) {
			t.Fatalf("case %d: hull–plane %+v, box–plane %+v", i, hc, bc)
		}
	}
	big := engine.BoxShape(1, 1, 0.5)
	for _, c := range []struct {
		name string
		a    engine.Shape
		pa   Pose
	}{
		{"hull on box", big, at(mgl64.Vec3{0, 0, -0.5}, identityRot)},
		{"hull on hull", hull, at(mgl64.Vec3{0, 0, -0.1}, identityRot)},
	} {
		// The upper hull offset by (0.4, 0.1): the faces overlap on
		// x in [0.1, 0.3], y in [−0.1, 0.2] (on the lower hull), or the
		// upper face whole on the big box.
		cs := narrow(t, c.a, c.pa, hull, at(mgl64.Vec3{0.4, 0.1, 0.099}, identityRot), 0.05)
		if len(cs) != 4 {
			t.Fatalf("%s: %d contacts %+v, want 4", c.name, len(cs), cs)
		}
		for _, x := range cs {
			if math.Abs(x.Phi+0.001) > closedFormTol || x.Normal.Sub(unitZ).Len() > closedFormTol {
				t.Errorf("%s: contact %+v, want Phi −0.001 along +z", c.name, x)
			}
			checkContact(t, c.a, c.pa, hull, at(mgl64.Vec3{0.4, 0.1, 0.099}, identityRot), 0.05, x)
		}
		if c.name == "hull on hull" {
			lo, hi := mgl64.Vec3{0.1, -0.1}, mgl64.Vec3{0.3, 0.2}
			for _, x := range cs {
				if x.PB[0] < lo[0]-closedFormTol || x.PB[0] > hi[0]+closedFormTol || x.PB[1] < lo[1]-closedFormTol || x.PB[1] > hi[1]+closedFormTol {
					t.Errorf("%s: point %v outside the overlap", c.name, x.PB)
				}
			}
		}
	}
}

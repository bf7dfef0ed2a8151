package collide

import (
	"math"

	"github.com/gpusim/gpusim/engine"
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
	if kb != engine.Capsule && kb != engine.Cylinder {
		return false
	}
	return ka == engine.Ellipsoid || ka == engine.Box || ka == engine.Capsule && kb == engine.Cylinder || ka == engine.Cylinder
}

// multiContact reports whether a pair of kinds may give several contacts
// away from planes: a box and a capsule (its two end balls and its
// segment), two capsules along each other.
func multiContact(pk [2]engine.ShapeKind) bool {
	ka, kb := min(pk[0], pk[1]), max(pk[0], pk[1])
	return kb == engine.Capsule && (ka == engine.Box || ka == engine.Capsule)
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

var _ = math.Abs

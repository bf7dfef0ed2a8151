package engine

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/geom"
)

// ConvexShape returns the convex shape of hull h, which must already be
// in a principal frame of the body with its origin at the centre of mass
// (as NewConvex puts it).
func ConvexShape(h *geom.Hull) Shape { return Shape{Kind: Convex, Hull: h} }

// NewConvex makes a convex body's shape, the convex hull of points given
// in any frame F of the body (m): it builds the hull (geom.NewHull), finds
// its centre of mass c (in F) and a rotation q from a principal frame P to
// F from its exact mass properties (geom.Hull.MassProperties), and returns
// the shape with the hull in P, centred on c. As for NewCompound, a body
// placed at pose (p, r) with the points as given in F is the body at pose
// (p + r·c, r ⊗ q) with the returned shape, and q is the identity, exactly,
// when the points are already in a principal frame.
func NewConvex(points []mgl64.Vec3) (s Shape, c mgl64.Vec3, q mgl64.Quat, err error) {
	h, err := geom.NewHull(points)
	if err != nil {
		return Shape{}, c, q, err
	}
	vol, c, inertia := h.MassProperties()
	if !(vol > 0) || math.IsInf(vol, 0) || !finite3(c) {
		return Shape{}, c, q, fmt.Errorf("convex: the hull's volume %v or centre %v is not finite and positive", vol, c)
	}
	q = principalRotation(inertia)
	return ConvexShape(h.Transformed(c, q)), c, q, nil
}

// validateHull checks a convex shape's hull: present, with at least 4
// vertices and 4 faces, finite, and holding its centre of mass at the
// origin (to 1e-9 of its size: NewConvex puts it there).
func validateHull(h *geom.Hull) error {
	if h == nil || len(h.Verts) < 4 || len(h.Faces) < 4 {
		return fmt.Errorf("convex shape has no hull (make it with NewConvex)")
	}
	for i, v := range h.Verts {
		if !finite3(v) {
			return fmt.Errorf("convex hull vertex %d %v is not finite", i, v)
		}
	}
	vol, c, _ := h.MassProperties()
	if !(vol > 0) {
		return fmt.Errorf("convex hull has volume %v", vol)
	}
	if r := h.Radius(); c.Len() > 1e-9*r {
		return fmt.Errorf("convex hull's centre of mass %v is not at the body origin (make it with NewConvex)", c)
	}
	return nil
}

// hullUnitInertia returns the diagonal of a hull's inertia tensor per unit
// mass about the origin (m²): its principal moments when the hull is in a
// principal frame centred on its centre of mass.
func hullUnitInertia(h *geom.Hull) mgl64.Vec3 {
	if h == nil {
		return mgl64.Vec3{}
	}
	vol, c, t := h.MassProperties()
	// t is about the centroid; the origin is the centroid up to rounding
	// (validateHull), so the parallel-axis term is negligible but kept.
	cc := c.Dot(c)
	return mgl64.Vec3{
		(t.At(0, 0) + vol*(cc-c[0]*c[0])) / vol,
		(t.At(1, 1) + vol*(cc-c[1]*c[1])) / vol,
		(t.At(2, 2) + vol*(cc-c[2]*c[2])) / vol,
	}
}

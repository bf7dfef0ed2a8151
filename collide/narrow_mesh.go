package collide

import (
	"github.com/go-gl/mathgl/mgl64"
)

// The pairs of mesh triangles (engine.Triangle: the parts the Collider
// makes of a mesh body, vertices (0, 0, 0), (a, 0, 0), (b, c, 0) of the
// triangle's frame, Size = (a, b, c), normal the frame's z). A triangle
// has two sides: a shape on either is pushed out on its side. Against a
// sphere, the closest point of the triangle; against a capsule, its end
// balls' and, when deeper, its segment's (as boxCapsule); against a box
// or a hull, convexPair's contact and the face manifold (polyManifold,
// the triangle's face as reference or incident face); against the other
// round shapes, convexPair's contact. Triangles meet no planes and no
// triangles: a mesh belongs to a fixed or kinematic body, and those never
// collide with each other.

var (
	ellipsoidTriangle = roundPair(convexEllipsoid, convexTriangle)
)

// triangleVerts returns the world vertices of a triangle of size s in
// frame f.
func triangleVerts(s mgl64.Vec3, f *bodyFrame) (mgl64.Vec3, mgl64.Vec3, mgl64.Vec3) {
	return f.c, f.c.Add(f.r[0].Mul(s[0])), f.c.Add(f.r[0].Mul(s[1])).Add(f.r[1].Mul(s[2]))
}

// closestOnTriangle returns the point of triangle abc closest to p
// (Ericson, Real-Time Collision Detection, §5.1.5: the Voronoi regions of
// the vertices, the edges and the face).
func closestOnTriangle(p, a, b, c mgl64.Vec3) mgl64.Vec3 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.Add(ab.Mul(d1 / (d1 - d3)))
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.Add(ac.Mul(d2 / (d2 - d6)))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.Add(c.Sub(b).Mul((d4 - d3) / ((d4 - d3) + (d5 - d6))))
	}
	den := 1 / (va + vb + vc)
	return a.Add(ab.Mul(vb * den)).Add(ac.Mul(vc * den))
}

// sphereTriangle is the ball of radius sa[0] at fa.c against the point q
// of the triangle closest to its centre: Normal from the ball towards q,
// Phi = |c − q| − R; a centre within 1e-12 of the size of the triangle's
// plane and over its face is pushed out along the normal on the side it
// is (+z on the plane).
func sphereTriangle(sa mgl64.Vec3, fa bodyFrame, st mgl64.Vec3, ft bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	r, c := sa[0], fa.c
	v0, v1, v2 := triangleVerts(st, &ft)
	q := closestOnTriangle(c, v0, v1, v2)
	d := c.Sub(q) // from the triangle to the centre
	dist := d.Len()
	phi := dist - r
	if !(phi < env) {
		return out
	}
	var n mgl64.Vec3 // from the triangle to the ball
	if dist > 1e-12*(r+st[0]) {
		n = d.Mul(1 / dist)
	} else {
		n = ft.r[2]
		if d.Dot(n) < 0 {
			n = n.Mul(-1)
		}
		phi = d.Dot(n) - r
	}
	return appendContact(out, n.Mul(-1), c.Sub(n.Mul(r)), q, phi, env)
}

// capsuleTriangle gives the contacts of a capsule and a triangle
// (capsuleEnds): each end ball's whose point is on the end's cap, so that
// a capsule lying on a mesh rests on two points, and the segment's through
// convexPair when it is deeper than those.
func capsuleTriangle(sa mgl64.Vec3, fa bodyFrame, st mgl64.Vec3, ft bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return capsuleEnds(convexTriangle, sa, fa, st, ft, env, out)
}

// boxTriangle and hullTriangle: convexPair's contact, then the face
// manifold (polyManifold).
func boxTriangle(sa mgl64.Vec3, fa bodyFrame, st mgl64.Vec3, ft bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return polyPair(convexBox, convexTriangle, sa, fa, st, ft, env, out)
}

func hullTriangle(sa mgl64.Vec3, fa bodyFrame, st mgl64.Vec3, ft bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return polyPair(convexHull, convexTriangle, sa, fa, st, ft, env, out)
}

// noContact gives no contacts: the pairs of shapes that never meet (two
// planes, a triangle and a plane or another triangle: fixed or kinematic
// both).
func noContact(_ mgl64.Vec3, _ bodyFrame, _ mgl64.Vec3, _ bodyFrame, _ float64, out []ContactPoint) []ContactPoint {
	return out
}

// triangleSupport returns the vertex of a triangle (round =
// roundTriangle: vertices c, c + h0·r0, c + h1·r0 + h2·r1) farthest along
// d, the first on ties.
func (s *convexShape) triangleSupport(d mgl64.Vec3) mgl64.Vec3 {
	v := s.triangle()
	p, best := v[0], v[0].Dot(d)
	for _, q := range v[1:] {
		if x := q.Dot(d); x > best {
			p, best = q, x
		}
	}
	return p
}

// triangle returns a triangle's vertices (round = roundTriangle).
func (s *convexShape) triangle() [3]mgl64.Vec3 {
	return [3]mgl64.Vec3{s.c, s.c.Add(s.r[0].Mul(s.h[0])), s.c.Add(s.r[0].Mul(s.h[1])).Add(s.r[1].Mul(s.h[2]))}
}

// triangleFace puts the triangle's face whose normal (±r2) is nearer d in
// f, counter-clockwise seen from that side, and returns its alignment.
func (s *convexShape) triangleFace(d mgl64.Vec3, f *polyFace) float64 {
	v := s.triangle()
	v0, v1, v2 := v[0], v[1], v[2]
	f.np = 3
	al := s.r[2].Dot(d)
	if al >= 0 {
		f.n = s.r[2]
		f.p[0], f.p[1], f.p[2] = v0, v1, v2
		return al
	}
	f.n = s.r[2].Mul(-1)
	f.p[0], f.p[1], f.p[2] = v0, v2, v1
	return -al
}

// cylinderTriangle is polyCylinder with the triangle as the polytope,
// mirrored (the table has the cylinder first).
func cylinderTriangle(sc mgl64.Vec3, fc bodyFrame, st mgl64.Vec3, ft bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return mirrored(out, polyCylinder(convexTriangle, st, ft, sc, fc, env, out))
}

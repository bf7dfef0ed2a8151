package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// The pairs of convex hulls (engine.Convex: the hull of points, its
// vertices and faces in geom.Hull, carried to the pair functions in the
// frame, bodyFrame.hull). Against a plane, every vertex below the
// envelope is a contact (as a box's corners). Against a box or another
// hull, convexPair (GJK, EPA) gives the deepest contact and its normal;
// when that normal is a face's of either shape (within faceAligned), the
// face of the other most opposed to it is clipped to the reference face's
// side planes, as boxFace does for two boxes, so that a hull resting on a
// face rests on the corners of the overlap of the two faces. Against the
// round shapes, convexPair's one contact.

var (
	sphereConvex    = roundPair(convexSphere, convexHull)
	ellipsoidConvex = roundPair(convexEllipsoid, convexHull)
)

// hullSupport returns the vertex of a hull (round = roundHull) farthest
// along d, c + R·v with v maximising (Rᵀd)·v, the first on ties.
func (s *convexShape) hullSupport(d mgl64.Vec3) mgl64.Vec3 {
	dl := mgl64.Vec3{s.r[0].Dot(d), s.r[1].Dot(d), s.r[2].Dot(d)}
	best, bi := math.Inf(-1), 0
	for i, v := range s.hull.Verts {
		if x := dl.Dot(v); x > best {
			best, bi = x, i
		}
	}
	if len(s.hull.Verts) == 0 {
		return s.c
	}
	v := s.hull.Verts[bi]
	return s.c.Add(s.r[0].Mul(v[0])).Add(s.r[1].Mul(v[1])).Add(s.r[2].Mul(v[2]))
}

// planeConvex gives one contact per vertex of the hull (frame fc) whose
// height above the plane of frame fp is below the envelope.
func planeConvex(_ mgl64.Vec3, fp bodyFrame, _ mgl64.Vec3, fc bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	if fc.hull == nil {
		return out
	}
	np := fp.r[2]
	for _, v := range fc.hull.Verts {
		p := fc.toWorld(v)
		if g := p.Sub(fp.c).Dot(np); g < env {
			out = append(out, ContactPoint{Normal: np, PA: p.Sub(np.Mul(g)), PB: p, Phi: g})
		}
	}
	return out
}

// boxConvex and convexConvex: convexPair's contact, then the face
// manifold (polyManifold).
func boxConvex(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return polyPair(convexBox, convexHull, sa, fa, sb, fb, env, out)
}

func convexConvex(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return polyPair(convexHull, convexHull, sa, fa, sb, fb, env, out)
}

// polyPair is the pair of polytopes (boxes, hulls, triangles) of kinds ka
// in frame fa and kb in frame fb.
func polyPair(ka, kb int, sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	if ka == convexHull && fa.hull == nil || kb == convexHull && fb.hull == nil {
		return out
	}
	n0 := len(out)
	out = roundContact(ka, kb, sa, fa, sb, fb, env, out)
	if len(out) == n0 {
		return out
	}
	a, b := makeConvex(ka, sa, fa, mgl64.Vec3{}), makeConvex(kb, sb, fb, mgl64.Vec3{})
	var m [maxManifold]ContactPoint
	scale := boundOf(ka, sa, &fa) + boundOf(kb, sb, &fb)
	return withManifold(out, n0, polyManifold(&a, &b, out[n0].Normal, env, m[:0]), scale)
}

// withManifold replaces the one contact out[n0] by the manifold cs, unless
// cs is empty; the contact stays too when it is deeper than every point of
// cs by more than 1e-6 of the pair's size scale (a deep overlap that the
// faces' clipping misses), so that the least Phi stays the signed distance
// (1e-6: above convexPair's error on a face contact, the normal's error
// times the size, a few 1e-9).
func withManifold(out []ContactPoint, n0 int, cs []ContactPoint, scale float64) []ContactPoint {
	if len(cs) == 0 {
		return out
	}
	main := out[n0]
	least := math.Inf(1)
	for _, c := range cs {
		least = math.Min(least, c.Phi)
	}
	out = append(out[:n0], cs...)
	if main.Phi < least-1e-6*scale {
		out = append(out, main)
	}
	return out
}

const (
	// maxFaceVerts is the most vertices of a face polyManifold clips; a
	// pair whose faces have more keeps convexPair's one contact.
	maxFaceVerts = 16
	// maxManifold is the most contacts polyManifold gives: a face clipped
	// to another has at most 2·maxFaceVerts corners, of which the deepest
	// and others spread along the polygon are kept.
	maxManifold = 8
)

// polyFace is a face of a box or a hull in the world frame: its outward
// unit normal n and its vertices p[:np], counter-clockwise seen from
// outside.
type polyFace struct {
	n  mgl64.Vec3
	p  [maxFaceVerts]mgl64.Vec3
	np int
}

// bestFace puts in f the face of s (a box, a hull or a triangle) whose outward normal
// is most aligned with unit d and returns that alignment n·d; −2 when the
// face has more than maxFaceVerts vertices.
func (s *convexShape) bestFace(d mgl64.Vec3, f *polyFace) float64 {
	if s.round == roundTriangle {
		return s.triangleFace(d, f)
	}
	if s.round == roundHull {
		dl := mgl64.Vec3{s.r[0].Dot(d), s.r[1].Dot(d), s.r[2].Dot(d)}
		h := s.hull
		bi, best := -1, math.Inf(-1)
		for i := range h.Faces {
			if x := h.Faces[i].Normal.Dot(dl); x > best {
				bi, best = i, x
			}
		}
		if bi < 0 || len(h.Faces[bi].Verts) > maxFaceVerts {
			return -2
		}
		fc := &h.Faces[bi]
		f.n = s.dirToWorld(fc.Normal)
		f.np = len(fc.Verts)
		for i, vi := range fc.Verts {
			f.p[i] = s.c.Add(s.dirToWorld(h.Verts[vi]))
		}
		return best
	}
	// A box: face ±r_k; (u, v, n) right-handed, so u+v, −u+v, −u−v, u−v
	// runs counter-clockwise seen from outside.
	k, best := 0, math.Inf(-1)
	sign := 1.0
	for i := range 3 {
		x := s.r[i].Dot(d)
		if math.Abs(x) > best {
			k, best = i, math.Abs(x)
			sign = math.Copysign(1, x)
		}
	}
	k1, k2 := (k+1)%3, (k+2)%3
	n := s.r[k].Mul(sign)
	u, v := s.r[k1].Mul(s.h[k1]), s.r[k2].Mul(s.h[k2])
	if sign < 0 {
		u, v = v, u
	}
	c := s.c.Add(n.Mul(s.h[k]))
	f.n, f.np = n, 4
	f.p[0], f.p[1], f.p[2], f.p[3] = c.Add(u).Add(v), c.Sub(u).Add(v), c.Sub(u).Sub(v), c.Add(u).Sub(v)
	return best
}

// dirToWorld returns R·v for a body-frame vector v (axes r).
func (s *convexShape) dirToWorld(v mgl64.Vec3) mgl64.Vec3 {
	return s.r[0].Mul(v[0]).Add(s.r[1].Mul(v[1])).Add(s.r[2].Mul(v[2]))
}

// polyManifold gives the contacts of the polytopes a and b (boxes or
// hulls) whose deepest contact has normal n (from a to b), when n is
// within faceAligned of a face normal of either: the reference face (a's
// face along n, or b's along −n, whichever is better aligned), the
// incident face (the other's face most opposed to the reference's normal)
// clipped to the reference face's side planes, and a contact for each
// clipped corner p whose height g above the reference face is below env:
// from p − g·n_ref on the reference face to p, along ±n_ref. It returns
// out unchanged when n is along no face (an edge or a corner contact) or
// nothing is left after clipping.
func polyManifold(a, b *convexShape, n mgl64.Vec3, env float64, out []ContactPoint) []ContactPoint {
	var fa, fb, inc polyFace
	ala := a.bestFace(n, &fa)
	alb := b.bestFace(n.Mul(-1), &fb)
	if math.Max(ala, alb) < faceAligned {
		return out
	}
	ref, refIsA := &fa, true
	other := b
	if alb > ala {
		ref, refIsA, other = &fb, false, a
	}
	if other.bestFace(ref.n.Mul(-1), &inc) < -1 {
		return out
	}
	var poly, tmp [2 * maxFaceVerts]mgl64.Vec3
	np := copy(poly[:], inc.p[:inc.np])
	for i := 0; i < ref.np && np > 0; i++ {
		p, q := ref.p[i], ref.p[(i+1)%ref.np]
		m := q.Sub(p).Cross(ref.n) // outward for a counter-clockwise face
		np = clipPolygonN(poly[:], np, tmp[:], m, m.Dot(p))
	}
	// The corners below the envelope, the deepest first, then spread
	// along the polygon when there are more than maxManifold.
	var g [2 * maxFaceVerts]float64
	deep, nd := -1, 0
	for i := range np {
		g[i] = poly[i].Sub(ref.p[0]).Dot(ref.n)
		if g[i] < env {
			nd++
			if deep < 0 || g[i] < g[deep] {
				deep = i
			}
		}
	}
	if deep < 0 {
		return out
	}
	stride := max(1, (nd+maxManifold-1)/maxManifold)
	k := 0
	for j := range np {
		i := (deep + j) % np
		if !(g[i] < env) {
			continue
		}
		if k%stride == 0 && len(out) < cap(out) {
			p := poly[i]
			q := p.Sub(ref.n.Mul(g[i]))
			if refIsA {
				out = append(out, ContactPoint{Normal: ref.n, PA: q, PB: p, Phi: g[i]})
			} else {
				out = append(out, ContactPoint{Normal: ref.n.Mul(-1), PA: p, PB: q, Phi: g[i]})
			}
		}
		k++
	}
	return out
}

// clipPolygonN clips the convex polygon poly[:np] to the half-space
// x·d ≤ off (Sutherland–Hodgman) as clipPolygon, with the scratch tmp of
// the same length as poly, and returns the new count (at most len(poly)).
func clipPolygonN(poly []mgl64.Vec3, np int, tmp []mgl64.Vec3, d mgl64.Vec3, off float64) int {
	if np == 0 {
		return 0
	}
	k := 0
	prev := poly[np-1]
	dp := off - prev.Dot(d)
	for i := range np {
		cur := poly[i]
		dc := off - cur.Dot(d)
		if (dp >= 0) != (dc >= 0) && k < len(tmp) {
			tmp[k] = prev.Add(cur.Sub(prev).Mul(dp / (dp - dc)))
			k++
		}
		if dc >= 0 && k < len(tmp) {
			tmp[k] = cur
			k++
		}
		prev, dp = cur, dc
	}
	copy(poly, tmp[:k])
	return k
}

// cylinderConvex is polyCylinder with the hull as the polytope (the table
// has the cylinder first): its contacts mirrored.
func cylinderConvex(sc mgl64.Vec3, fc bodyFrame, sh mgl64.Vec3, fh bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return mirrored(out, polyCylinder(convexHull, sh, fh, sc, fc, env, out))
}

// capsuleConvex is polyRound for a capsule with the hull as the polytope,
// mirrored (the table has the capsule first): a capsule lying on a hull's
// face rests on the two ends of its line there.
func capsuleConvex(sc mgl64.Vec3, fc bodyFrame, sh mgl64.Vec3, fh bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return mirrored(out, polyRound(convexHull, convexCapsule, sh, fh, sc, fc, env, out))
}

package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

const (
	// boxEdgeBias: an edge–edge axis wins over the best face axis only when
	// its separation exceeds the face's by boxEdgeBias·|face separation| +
	// boxEdgeFloor·scale, so that faces (several contacts) are preferred
	// when they are as good; ODE's dBoxBox uses the same 5 % bias.
	boxEdgeBias  = 0.05
	boxEdgeFloor = 1e-9
	// boxParallel: a cross-product axis shorter than this (the sine of the
	// angle between the edges) comes from near-parallel edges, whose
	// contact the face axes describe; it is skipped.
	boxParallel = 1e-6
	// boxGJKTol: GJK on two polytopes ends on an exact closest pair; this
	// relative tolerance only absorbs rounding (~1e-16 per operation).
	boxGJKTol = 1e-12
)

// boxBox gives the contacts between a box with half-extents ha in frame fa
// and one with half-extents hb in frame fb by separating axes (Gottschalk's
// 15 axes: 3 face normals of each box and the 9 cross products of their
// edges). The separation along unit axis L is
//
//	s(L) = |T·L| − Σ ha_i |A_i·L| − Σ hb_j |B_j·L|,  T = cb − ca,
//
// and the axis of largest s gives the contact. There is none when some
// s ≥ env. For a face axis, the face of the other (incident) box that most
// opposes it is clipped against the side planes of the reference face
// (Sutherland–Hodgman), and each clipped corner below the envelope gives a
// contact: up to 8. For an edge–edge axis, the closest points of the two
// supporting edges give one contact with Phi = s(L). For boxes apart, whose
// distance the axes only bound from below, GJK gives the distance: none when
// it is at least env, and one more contact at the closest points when the
// axis's contacts all lie farther apart than they do.
func boxBox(ha mgl64.Vec3, fa bodyFrame, hb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	t := fb.c.Sub(fa.c)
	scale := ha.Len() + hb.Len()
	if t.Len()-scale >= env {
		return out
	}
	sep := func(l mgl64.Vec3) float64 {
		s := math.Abs(t.Dot(l))
		for k := range 3 {
			s -= ha[k]*math.Abs(fa.r[k].Dot(l)) + hb[k]*math.Abs(fb.r[k].Dot(l))
		}
		return s
	}
	best, axis := math.Inf(-1), -1
	for k := range 6 {
		l := fa.r[k%3]
		if k >= 3 {
			l = fb.r[k-3]
		}
		s := sep(l)
		if !(s < env) {
			return out
		}
		if s > best {
			best, axis = s, k
		}
	}
	if axis < 0 {
		return out
	}
	faceBest := best
	var edgeL mgl64.Vec3
	for i := range 3 {
		for j := range 3 {
			l := fa.r[i].Cross(fb.r[j])
			ll := l.Len()
			if ll < boxParallel {
				continue
			}
			l = l.Mul(1 / ll)
			s := sep(l)
			if !(s < env) {
				return out
			}
			if s > best && s > faceBest+boxEdgeBias*math.Abs(faceBest)+boxEdgeFloor*scale {
				best, axis, edgeL = s, 6+3*i+j, l
			}
		}
	}
	// Apart, the axes only bound the distance from below: GJK gives it,
	// with the closest points, relative to a's centre.
	var dist float64
	var gn, gpa, gpb mgl64.Vec3
	apart := false
	if best > 0 {
		ca := convexShape{h: ha, r: fa.r}
		cb := convexShape{c: t, h: hb, r: fb.r}
		var sx gjkSimplex
		v, overlap, beyond := gjkDistance(&ca, &cb, env, scale, boxGJKTol, &sx)
		if beyond {
			return out
		}
		if !overlap && sx.n > 0 {
			dist = v.Len()
			gpa, gpb = sx.witnesses()
			gn, gpa, gpb, apart = v.Mul(-1/dist), fa.c.Add(gpa), fa.c.Add(gpb), true
		}
	}
	n0 := len(out)
	switch {
	case axis >= 6:
		out = boxEdgeEdge(ha, &fa, hb, &fb, (axis-6)/3, (axis-6)%3, edgeL, best, env, out)
	case axis < 3:
		n := fa.r[axis]
		if t.Dot(n) < 0 {
			n = n.Mul(-1)
		}
		out = boxFace(ha, &fa, axis, n, hb, &fb, false, env, out)
	default:
		n := fb.r[axis-3]
		if t.Dot(n) > 0 {
			n = n.Mul(-1)
		}
		out = boxFace(hb, &fb, axis-3, n, ha, &fa, true, env, out)
	}
	if !apart {
		return out
	}
	// Add GJK's closest points when the axis's contacts miss them: a face
	// clipped away from where the boxes come closest, corner to corner.
	least := math.Inf(1)
	for _, c := range out[n0:] {
		least = math.Min(least, c.Phi)
	}
	if least > dist+boxGJKTol*scale {
		out = appendContact(out, gn, gpa, gpb, dist, env)
	}
	return out
}

// boxFace gives the contacts of a face contact: the reference box (hr, fr)
// with face k whose outward normal n points towards the incident box
// (hi, fi). The incident box's face most opposed to n is clipped to the
// reference face's side planes; each clipped point p with height
// g = (p − face centre)·n below env gives a contact between p (on the
// incident box) and p − g·n (on the reference face). refIsB says the
// reference box is b, so the normal from a to b is −n.
func boxFace(hr mgl64.Vec3, fr *bodyFrame, k int, n mgl64.Vec3, hi mgl64.Vec3, fi *bodyFrame, refIsB bool, env float64, out []ContactPoint) []ContactPoint {
	fc := fr.c.Add(n.Mul(hr[k]))
	k1, k2 := (k+1)%3, (k+2)%3
	u, v := fr.r[k1], fr.r[k2]
	// Incident face: the axis of the incident box most parallel to n, its
	// side facing the reference box.
	j := 0
	for i := 1; i < 3; i++ {
		if math.Abs(fi.r[i].Dot(n)) > math.Abs(fi.r[j].Dot(n)) {
			j = i
		}
	}
	m := fi.r[j]
	if m.Dot(n) > 0 {
		m = m.Mul(-1)
	}
	ic := fi.c.Add(m.Mul(hi[j]))
	j1, j2 := (j+1)%3, (j+2)%3
	eu, ev := fi.r[j1].Mul(hi[j1]), fi.r[j2].Mul(hi[j2])
	var poly, tmp [8]mgl64.Vec3
	poly[0], poly[1], poly[2], poly[3] = ic.Add(eu).Add(ev), ic.Sub(eu).Add(ev), ic.Sub(eu).Sub(ev), ic.Add(eu).Sub(ev)
	np := 4
	np = clipPolygon(&poly, np, &tmp, u, fc.Dot(u)+hr[k1])
	np = clipPolygon(&poly, np, &tmp, u.Mul(-1), -fc.Dot(u)+hr[k1])
	np = clipPolygon(&poly, np, &tmp, v, fc.Dot(v)+hr[k2])
	np = clipPolygon(&poly, np, &tmp, v.Mul(-1), -fc.Dot(v)+hr[k2])
	nn := n
	if refIsB {
		nn = n.Mul(-1)
	}
	for i := range np {
		p := poly[i]
		g := p.Sub(fc).Dot(n)
		if !(g < env) {
			continue
		}
		q := p.Sub(n.Mul(g))
		if refIsB {
			out = append(out, ContactPoint{Normal: nn, PA: p, PB: q, Phi: g})
		} else {
			out = append(out, ContactPoint{Normal: nn, PA: q, PB: p, Phi: g})
		}
	}
	return out
}

// clipPolygon clips the convex polygon poly[:np] to the half-space
// x·d ≤ off (Sutherland–Hodgman), in place (tmp is scratch), and returns the
// new vertex count. Clipping a quadrilateral by four half-spaces leaves at
// most 8 vertices.
func clipPolygon(poly *[8]mgl64.Vec3, np int, tmp *[8]mgl64.Vec3, d mgl64.Vec3, off float64) int {
	return clipPolygonN(poly[:], np, tmp[:], d, off)
}

// boxEdgeEdge gives the contact of an edge–edge axis l = ±(A_i × B_j),
// oriented from a to b, with separation s: the edge of a along A_i farthest
// along l and the edge of b along B_j farthest along −l, and the closest
// points of their lines, clamped to the edges. All points of those edges
// have the same height along l, so Phi = s.
func boxEdgeEdge(ha mgl64.Vec3, fa *bodyFrame, hb mgl64.Vec3, fb *bodyFrame, i, j int, l mgl64.Vec3, s, env float64, out []ContactPoint) []ContactPoint {
	if fb.c.Sub(fa.c).Dot(l) < 0 {
		l = l.Mul(-1)
	}
	pa, pb := fa.c, fb.c
	for k := range 3 {
		if k != i {
			sg := 1.0
			if fa.r[k].Dot(l) < 0 {
				sg = -1
			}
			pa = pa.Add(fa.r[k].Mul(sg * ha[k]))
		}
		if k != j {
			sg := 1.0
			if fb.r[k].Dot(l) > 0 {
				sg = -1
			}
			pb = pb.Add(fb.r[k].Mul(sg * hb[k]))
		}
	}
	da, db := fa.r[i], fb.r[j]
	r := pa.Sub(pb)
	b, c, f := da.Dot(db), da.Dot(r), db.Dot(r)
	den := 1 - b*b
	sa := 0.0
	if den > 0 {
		sa = (b*f - c) / den
	}
	sa = math.Max(-ha[i], math.Min(ha[i], sa))
	sb := math.Max(-hb[j], math.Min(hb[j], b*sa+f))
	sa = math.Max(-ha[i], math.Min(ha[i], b*sb-c))
	return appendContact(out, l, pa.Add(da.Mul(sa)), pb.Add(db.Mul(sb)), s, env)
}

package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// The pairs of capsules and cylinders. A capsule (engine.Capsule: radius
// r = Size[0] about the segment from −h to h, h = Size[1], along its body z
// axis) is a segment plus a ball: its pairs with spheres, planes and
// capsules are closed forms on the segment's closest points. A cylinder
// (engine.Cylinder: radius r = Size[0], half-height h = Size[1], axis z) has
// closed forms against spheres and planes. The other pairs go through
// convexPair: GJK on the cores (a capsule's core is its segment), EPA when
// the cores overlap.

// segmentOf returns the ends c − h·a and c + h·a of the axis segment of a
// capsule or cylinder of half-length h in frame f (a = f.r[2]).
func segmentOf(h float64, f *bodyFrame) (mgl64.Vec3, mgl64.Vec3) {
	d := f.r[2].Mul(h)
	return f.c.Sub(d), f.c.Add(d)
}

// closestOnSegment returns the point of the segment from p0 to p1 closest to
// q: p0 + t(p1 − p0), t = (q − p0)·(p1 − p0)/|p1 − p0|² clamped to [0, 1]
// (t = 0 for a segment of length 0).
func closestOnSegment(p0, p1, q mgl64.Vec3) mgl64.Vec3 {
	d := p1.Sub(p0)
	dd := d.Dot(d)
	if !(dd > 0) {
		return p0
	}
	t := math.Max(0, math.Min(1, q.Sub(p0).Dot(d)/dd))
	return p0.Add(d.Mul(t))
}

// closestSegments returns the closest points of the segments p1–q1 and
// p2–q2 (Ericson, Real-Time Collision Detection, §5.1.9): s and t minimise
// |p1 + s·d1 − p2 − t·d2| over [0, 1]², the parallel case taking s = 0.
func closestSegments(p1, q1, p2, q2 mgl64.Vec3) (mgl64.Vec3, mgl64.Vec3) {
	d1, d2, r := q1.Sub(p1), q2.Sub(p2), p1.Sub(p2)
	a, e, f := d1.Dot(d1), d2.Dot(d2), d2.Dot(r)
	var s, t float64
	switch {
	case !(a > 0) && !(e > 0):
		return p1, p2
	case !(a > 0):
		t = math.Max(0, math.Min(1, f/e))
	default:
		c := d1.Dot(r)
		if !(e > 0) {
			s = math.Max(0, math.Min(1, -c/a))
		} else {
			b := d1.Dot(d2)
			if den := a*e - b*b; den > 0 {
				s = math.Max(0, math.Min(1, (b*f-c*e)/den))
			}
			t = (b*s + f) / e
			if t < 0 {
				t, s = 0, math.Max(0, math.Min(1, -c/a))
			} else if t > 1 {
				t, s = 1, math.Max(0, math.Min(1, (b-c)/a))
			}
		}
	}
	return p1.Add(d1.Mul(s)), p2.Add(d2.Mul(t))
}

// ballBall appends the contact of balls of radii ra at ca and rb at cb
// (sphereSphere's closed form), with normal ±n0 when the centres are
// within 1e-9 of the radii of each other.
// The balls are those of capsules about the closest points of their
// segments: n0 must be across the segments, so that the contact points
// stay on the capsules' surfaces.
func ballBall(ra float64, ca mgl64.Vec3, rb float64, cb mgl64.Vec3, n0 mgl64.Vec3, env float64, out []ContactPoint) []ContactPoint {
	d := cb.Sub(ca)
	dist := d.Len()
	phi := dist - ra - rb
	if !(phi < env) {
		return out
	}
	n := n0
	if dist > 1e-9*(ra+rb) {
		n = d.Mul(1 / dist)
	} else {
		// The centres within rounding of each other: d's direction is
		// noise, n0 keeps the points on the surfaces.
		if d.Dot(n) < 0 {
			n = n.Mul(-1)
		}
		phi = d.Dot(n) - ra - rb
	}
	return appendContact(out, n, ca.Add(n.Mul(ra)), cb.Sub(n.Mul(rb)), phi, env)
}

// acrossAxes returns a unit vector across both unit axes u and v (u × v,
// or across u alone when they are parallel), for ballBall's n0.
func acrossAxes(u, v mgl64.Vec3) mgl64.Vec3 {
	x := u.Cross(v)
	if l := x.Len(); l > 1e-9 {
		return x.Mul(1 / l)
	}
	t, _ := tangentPair(u)
	return t
}

// sphereCapsule is the ball of radius sa[0] at fa.c against the capsule's
// ball about the point q of its segment closest to fa.c.
func sphereCapsule(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	p0, p1 := segmentOf(sb[1], &fb)
	return ballBall(sa[0], fa.c, sb[0], closestOnSegment(p0, p1, fa.c), acrossAxes(fb.r[2], fb.r[2]), env, out)
}

// capsulePlane gives one contact per end of the capsule (one for a
// capsule of length 0): a capsule lying on the plane rests on two points.
// At the end e whose cap faces the plane (its outward axis ±a against the
// plane's normal np) the point is the ball's lowest, e − r·np; at the
// other end it is the lowest point of the side's rim there, e − r·u with
// u the unit component of np across the axis (none when the axis is along
// np: the upper end is then the far cap).
func capsulePlane(sa mgl64.Vec3, fa bodyFrame, _ mgl64.Vec3, fp bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	r, h := sa[0], sa[1]
	np, a := fp.r[2], fa.r[2]
	na := np.Dot(a)
	u := np.Sub(a.Mul(na))
	ul := u.Len()
	for _, s := range [2]float64{-1, 1} {
		if s > 0 && !(h > 0) {
			break
		}
		e := fa.c.Add(a.Mul(s * h))
		var p mgl64.Vec3
		switch {
		case s*na <= 0: // the cap faces the plane
			p = e.Sub(np.Mul(r))
		case ul > 1e-9:
			p = e.Sub(u.Mul(r / ul))
		default:
			continue
		}
		g := p.Sub(fp.c).Dot(np)
		if g < env {
			out = append(out, ContactPoint{Normal: np.Mul(-1), PA: p, PB: p.Sub(np.Mul(g)), Phi: g})
		}
	}
	return out
}

// capsuleParallel is the sine² below which two capsules' axes count as
// parallel: capsuleCapsule then gives a contact at each end of the
// stretch where they face each other, so that a capsule lying along
// another rests on two points. 1e-6 is 0.06°.
const capsuleParallel = 1e-6

// capsuleCapsule is the ball–ball contact at the closest points of the
// two segments; for parallel axes that overlap along their length, two
// contacts: one at each end of the overlap (the points of a's segment
// there and their closest points on b's).
func capsuleCapsule(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	a0, a1 := segmentOf(sa[1], &fa)
	b0, b1 := segmentOf(sb[1], &fb)
	ua, ub := fa.r[2], fb.r[2]
	if x := ua.Cross(ub); sa[1] > 0 && sb[1] > 0 && x.Dot(x) < capsuleParallel {
		// The overlap of b's projection on a's axis with a's segment.
		t0, t1 := b0.Sub(fa.c).Dot(ua), b1.Sub(fa.c).Dot(ua)
		lo, hi := math.Max(-sa[1], math.Min(t0, t1)), math.Min(sa[1], math.Max(t0, t1))
		if hi-lo > 1e-9*(sa[1]+sb[1]) {
			for _, t := range [2]float64{lo, hi} {
				p := fa.c.Add(ua.Mul(t))
				out = ballBall(sa[0], p, sb[0], closestOnSegment(b0, b1, p), acrossAxes(ua, ub), env, out)
			}
			return out
		}
	}
	pa, pb := closestSegments(a0, a1, b0, b1)
	return ballBall(sa[0], pa, sb[0], pb, acrossAxes(ua, ub), env, out)
}

// sphereCylinder is the closed form for a ball of radius sa[0] at fa.c
// against a cylinder, as sphereBox: with y the centre in the cylinder's
// frame, ρ its distance from the axis and q the point of the cylinder
// closest to y (ρ clamped to r, y_z to [−h, h]): outside, Phi = |y − q| − R
// along y − q; inside, the ball leaves through the nearer of the side
// (depth r − ρ, along the radial direction, +x on the axis) and the
// nearer cap (depth h − |y_z|).
func sphereCylinder(sa mgl64.Vec3, fa bodyFrame, sc mgl64.Vec3, fc bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	R, c := sa[0], fa.c
	r, h := sc[0], sc[1]
	y := fc.dirToBody(c.Sub(fc.c))
	rho := math.Hypot(y[0], y[1])
	q := y
	if rho > r {
		q[0], q[1] = y[0]*(r/rho), y[1]*(r/rho)
	}
	q[2] = math.Max(-h, math.Min(h, y[2]))
	d := y.Sub(q)
	dist := d.Len()
	var m mgl64.Vec3 // the cylinder's outward normal at q, its frame
	var phi float64
	if dist > 0 {
		m = d.Mul(1 / dist)
		phi = dist - R
	} else {
		side, cap := r-rho, h-math.Abs(y[2])
		if side < cap {
			m = mgl64.Vec3{1, 0, 0}
			if rho > 0 {
				m = mgl64.Vec3{y[0] / rho, y[1] / rho, 0}
			}
			q[0], q[1] = m[0]*r, m[1]*r
			phi = -side - R
		} else {
			m[2] = 1
			if y[2] < 0 {
				m[2] = -1
			}
			q[2] = m[2] * h
			phi = -cap - R
		}
	}
	if !(phi < env) {
		return out
	}
	mw := fc.dirToWorld(m)
	return appendContact(out, mw.Mul(-1), c.Sub(mw.Mul(R)), fc.toWorld(q), phi, env)
}

// cylinderFlat is the sine of the tilt below which a cylinder's cap counts
// as facing a plane: cylinderPlane then rests it on four points of the
// cap's rim (0.01 is 0.57°).
const cylinderFlat = 0.01

// cylinderPlane gives the contacts of a cylinder with the plane of frame
// fp, normal np: per cap (centre c ± h·a), the rim point farthest along
// −np, c ± h·a − r·u with u the unit component of np across the axis a.
// Lying on its side the cylinder rests on those two points, the ends of
// its line of contact. When the axis is within cylinderFlat of np, u is
// ill-defined and the lower cap gives four rim points instead, at ±x and
// ±y of the cylinder's frame, so that a cylinder standing on its face rests
// on a square of its rim. Each point's Phi is its height above the plane.
func cylinderPlane(sc mgl64.Vec3, fc bodyFrame, _ mgl64.Vec3, fp bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	r, h := sc[0], sc[1]
	np := fp.r[2]
	a := fc.r[2]
	na := np.Dot(a)
	u := np.Sub(a.Mul(na))
	ul := u.Len()
	add := func(p mgl64.Vec3) {
		g := p.Sub(fp.c).Dot(np)
		if g < env {
			out = append(out, ContactPoint{Normal: np.Mul(-1), PA: p, PB: p.Sub(np.Mul(g)), Phi: g})
		}
	}
	if ul > cylinderFlat {
		u = u.Mul(r / ul)
		for _, s := range [2]float64{-h, h} {
			add(fc.c.Add(a.Mul(s)).Sub(u))
		}
		return out
	}
	s := -h // the cap whose outward normal faces the plane: against np
	if na < 0 {
		s = h
	}
	cc := fc.c.Add(a.Mul(s))
	for _, d := range [4]mgl64.Vec3{fc.r[0], fc.r[1], fc.r[0].Mul(-1), fc.r[1].Mul(-1)} {
		add(cc.Add(d.Mul(r)))
	}
	return out
}

// The generic convex path: the shape kinds convexShape describes beyond
// ellipsoids and boxes.
const (
	roundNone     = iota // an ellipsoid or a box
	roundSegment         // a capsule: the segment c ± hl·ax, margin its radius
	roundCylinder        // a cylinder: c ± hl·ax, radius rad
	roundHull            // a convex hull: the vertices of hull about c along the axes r
	roundTriangle        // a mesh triangle: c, c + h0·r0, c + h1·r0 + h2·r1
)

// makeConvex returns a shape of kind k (roundNone with ellipsoid for an
// ellipsoid, roundNone for a box, roundSegment for a capsule,
// roundCylinder for a cylinder) of size s in frame f as a convexShape
// centred at f.c − o. The frame comes by value, as in pairFunc.
func makeConvex(k int, s mgl64.Vec3, f bodyFrame, o mgl64.Vec3) convexShape {
	c := f.c.Sub(o)
	switch k {
	case convexEllipsoid:
		return convexShape{ellipsoid: true, c: c, g: ellipsoidGram(s, &f), margin: ellipsoidMargin(s)}
	case convexCapsule:
		return convexShape{round: roundSegment, c: c, ax: f.r[2], hl: s[1], margin: s[0]}
	case convexCylinder:
		return convexShape{round: roundCylinder, c: c, ax: f.r[2], hl: s[1], rad: s[0]}
	case convexSphere:
		return convexShape{round: roundSegment, c: c, ax: f.r[2], margin: s[0]}
	case convexHull:
		return convexShape{round: roundHull, c: c, r: f.r, hull: f.hull}
	case convexTriangle:
		return convexShape{round: roundTriangle, c: c, r: f.r, h: s}
	}
	return convexShape{c: c, h: s, r: f.r}
}

// The kinds roundPair takes.
const (
	convexEllipsoid = iota
	convexBox
	convexCapsule
	convexCylinder
	convexSphere // a capsule of length 0
	convexHull
	convexTriangle
)

// boundOf returns the bounding radius of a shape of kind k (as makeConvex)
// and size s in frame f.
func boundOf(k int, s mgl64.Vec3, f *bodyFrame) float64 {
	switch k {
	case convexHull:
		return f.hull.Radius()
	case convexTriangle:
		return math.Max(s[0], math.Hypot(s[1], s[2]))
	case convexEllipsoid:
		return math.Max(s[0], math.Max(s[1], s[2]))
	case convexCapsule:
		return s[0] + s[1]
	case convexCylinder:
		return math.Hypot(s[0], s[1])
	case convexSphere:
		return s[0]
	}
	return s.Len()
}

// convexRelTol is the relative gap between GJK's bounds on the distance
// of the cores at which convexPair stops: the distance to 1e-10 of its
// value, as close as a curved core's slow convergence allows within
// gjkMaxIter iterations.
const convexRelTol = 1e-10

// convexDeepTol is EPA's tolerance in convexPair, relative to the pair's
// size: the depth of an overlap to within 1e-7 of the size (EPA's
// polytope, at most epaMaxVerts vertices, stops earlier on a curved
// surface: about 1e-3 of the size for a cylinder's rim).
const convexDeepTol = 1e-7

// convexPair gives one contact between convex shapes a and b, centred
// about the world point o (so that their coordinates stay small), whose
// sizes add to scale: when their cores are apart, GJK's closest points,
// moved out by the margins, along the line between them; when the cores
// overlap, EPA's normal n, Phi the gap along it, min over b of x·n minus
// max over a, and the support points of a along n and of b along −n.
// with the shapes apart (or touching through margins only) Phi is their
// distance to convexRelTol; overlapping it is the depth EPA's polytope
// resolves (see convexDeepTol).
func convexPair(a, b *convexShape, o mgl64.Vec3, scale, env float64, out []ContactPoint) []ContactPoint {
	var s gjkSimplex
	v, overlap, beyond := gjkDistance(a, b, env+a.margin+b.margin, scale, convexRelTol, &s)
	if beyond {
		return out
	}
	if !overlap {
		l := v.Len()
		n := v.Mul(-1 / l)
		wa, wb := s.witnesses()
		pa, pb := a.surfacePoint(wa, n), b.surfacePoint(wb, n.Mul(-1))
		return appendContact(out, n, pa.Add(o), pb.Add(o), pb.Sub(pa).Dot(n), env)
	}
	var p epaPolytope
	var n mgl64.Vec3
	if p.init(a, b, &s, scale) {
		n = p.expandTo(a, b, convexDeepTol*scale)
	} else {
		n = b.c.Sub(a.c)
		if l := n.Len(); l > 0 {
			n = n.Mul(1 / l)
		} else {
			n = mgl64.Vec3{0, 0, 1}
		}
	}
	pa, pb := a.support(n), b.support(n.Mul(-1))
	return appendContact(out, n, pa.Add(o), pb.Add(o), pb.Sub(pa).Dot(n), env)
}

// surfacePoint returns the point of the shape's surface for GJK's witness
// w on its core, n the unit normal out of the shape there: w + margin·n
// for a capsule; the support point along n for an ellipsoid (w, a convex
// combination of points of a curved core, lies a little inside); w itself
// for a box (on a face, edge or corner); for a cylinder, where the ray
// from w along n leaves it (w may lie inside the curved side).
func (s *convexShape) surfacePoint(w, n mgl64.Vec3) mgl64.Vec3 {
	switch {
	case s.round == roundSegment:
		return w.Add(n.Mul(s.margin))
	case s.round == roundCylinder:
		p, nz := w.Sub(s.c), n.Dot(s.ax)
		pz := p.Dot(s.ax)
		t := math.Inf(1)
		if nz != 0 {
			h := s.hl
			if nz < 0 {
				h = -h
			}
			t = (h - pz) / nz
		}
		pr, nr := p.Sub(s.ax.Mul(pz)), n.Sub(s.ax.Mul(nz))
		if a := nr.Dot(nr); a > 0 {
			b, c := pr.Dot(nr), pr.Dot(pr)-s.rad*s.rad
			t = math.Min(t, (-b+math.Sqrt(math.Max(0, b*b-a*c)))/a)
		}
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return w
		}
		// t < 0 moves a witness that rounding put just outside back
		// onto the surface.
		return w.Add(n.Mul(t))
	case s.ellipsoid:
		return s.support(n)
	}
	return w
}

// roundContact gives the contact of a shape of kind ka against one of
// kind kb (makeConvex's kinds) through convexPair, after a
// bounding-sphere test.
func roundContact(ka, kb int, sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	ba, bb := boundOf(ka, sa, &fa), boundOf(kb, sb, &fb)
	if fa.c.Sub(fb.c).Len()-ba-bb >= env {
		return out
	}
	a, b := makeConvex(ka, sa, fa, fb.c), makeConvex(kb, sb, fb, fb.c)
	return convexPair(&a, &b, fb.c, ba+bb, env, out)
}

// roundPair returns roundContact for kinds ka and kb as a pairFunc.
func roundPair(ka, kb int) pairFunc {
	return func(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
		return roundContact(ka, kb, sa, fa, sb, fb, env, out)
	}
}

var (
	ellipsoidCapsule  = roundPair(convexEllipsoid, convexCapsule)
	ellipsoidCylinder = roundPair(convexEllipsoid, convexCylinder)
	capsuleCylinder   = roundPair(convexCapsule, convexCylinder)
)

// boxCapsule gives the contacts of a box and a capsule: each end ball's
// (sphereBox's closed form, mirrored) whose point on the ball lies on the
// end's cap (the hemisphere beyond the segment's end), so that a capsule
// lying on a face rests on two points, and the segment's through
// convexPair when it is deeper than those by more than 1e-9 of the size
// (a capsule across an edge, its ends clear of the box, or an end's ball
// point inside the capsule).
func boxCapsule(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return mirrored(out, capsuleEnds(convexBox, sb, fb, sa, fa, env, out))
}

// capsuleEnds gives the contacts of a capsule (size sc, frame fc, as a)
// and a box or a mesh triangle (kind ko, as b): each end ball's whose
// point lies on the end's cap, then the segment's through convexPair when
// it is deeper than those by more than 1e-9 of the size.
func capsuleEnds(ko int, sc mgl64.Vec3, fc bodyFrame, so mgl64.Vec3, fo bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	c0, c1 := segmentOf(sc[1], &fc)
	least := math.Inf(1)
	for k, e := range [2]mgl64.Vec3{c0, c1} {
		if k == 1 && !(sc[1] > 0) {
			break
		}
		m := len(out)
		if ko == convexBox {
			out = sphereBox(sc, bodyFrame{c: e}, so, fo, env, out)
		} else {
			out = sphereTriangle(sc, bodyFrame{c: e}, so, fo, env, out)
		}
		if len(out) > m {
			// The ball's point is e + r·n (n from the ball to the
			// other): on the cap when n points out of the segment's end.
			// (1e-9: a normal across the axis, up to rounding, is on
			// the cap's rim.)
			if s := out[m].Normal.Dot(fc.r[2]); k == 0 && s > 1e-9 || k == 1 && s < -1e-9 {
				out = out[:m]
				continue
			}
			least = math.Min(least, out[m].Phi)
		}
	}
	var seg [1]ContactPoint
	if cs := roundContact(convexCapsule, ko, sc, fc, so, fo, env, seg[:0]); len(cs) == 1 && cs[0].Phi < least-1e-9*(sc[0]+sc[1]+boundOf(ko, so, &fo)) {
		out = append(out, cs[0])
	}
	return out
}

// planeCapsule and planeCylinder are capsulePlane and cylinderPlane for
// the table's order (plane first), mirrored.
func planeCapsule(sp mgl64.Vec3, fp bodyFrame, sc mgl64.Vec3, fc bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return mirrored(out, capsulePlane(sc, fc, sp, fp, env, out))
}

func planeCylinder(sp mgl64.Vec3, fp bodyFrame, sc mgl64.Vec3, fc bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return mirrored(out, cylinderPlane(sc, fc, sp, fp, env, out))
}

// mirrored swaps a and b in the contacts that out has beyond before:
// normal negated, PA and PB exchanged.
func mirrored(before, out []ContactPoint) []ContactPoint {
	for i := len(before); i < len(out); i++ {
		c := &out[i]
		c.Normal = c.Normal.Mul(-1)
		c.PA, c.PB = c.PB, c.PA
	}
	return out
}

// faceAligned is the cosine above which a contact normal counts as a
// face's normal (2.6°): the manifolds of cylinders and polytopes are built
// on that face.
const faceAligned = 0.999

// boxCylinder, cylinderConvex and cylinderTriangle give the contacts of a
// polytope (a box, a hull, a mesh triangle) and a cylinder. convexPair
// gives the deepest contact; when its normal is a face's of the polytope
// (within faceAligned) and the cylinder rests on that face flat (its cap
// within cylinderFlat of the face) or on its side (its axis within
// cylinderFlat of the face's plane), the contacts are instead those of
// the cylinder's incident feature clipped to the face (as boxFace for two
// boxes): four points of the cap's rim (at ±x, ±y of the cylinder's
// frame), or the line of the side facing the face, each below the
// envelope giving a contact along the face's normal. A tilted cylinder,
// or one on an edge or a corner, has the one contact.
func boxCylinder(sa mgl64.Vec3, fa bodyFrame, sc mgl64.Vec3, fc bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return polyCylinder(convexBox, sa, fa, sc, fc, env, out)
}

// polyCylinder is polyRound for a cylinder.
func polyCylinder(kp int, sp mgl64.Vec3, fp bodyFrame, sc mgl64.Vec3, fc bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	return polyRound(kp, convexCylinder, sp, fp, sc, fc, env, out)
}

// polyRound is the pair of a polytope of kind kp (convexBox, convexHull
// or convexTriangle) in frame fp and a cylinder or a capsule (kind kr) in
// frame fr, with the round shape as b: convexPair's contact, replaced by
// the round shape's feature resting on the polytope's face (roundFeature)
// clipped to that face when the contact's normal is the face's.
func polyRound(kp, kr int, sp mgl64.Vec3, fp bodyFrame, sr mgl64.Vec3, fr bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	if kp == convexHull && fp.hull == nil {
		return out
	}
	n0 := len(out)
	out = roundContact(kp, kr, sp, fp, sr, fr, env, out)
	if len(out) == n0 {
		return out
	}
	poly := makeConvex(kp, sp, fp, mgl64.Vec3{})
	var face polyFace
	if poly.bestFace(out[n0].Normal, &face) < faceAligned {
		return out
	}
	var pts [4]mgl64.Vec3
	var np int
	if kr == convexCapsule {
		np = capsuleFeature(sr, &fr, face.n, &pts)
	} else {
		np = cylinderFeature(sr, &fr, face.n, &pts)
	}
	if np == 0 {
		return out
	}
	var m [2 * maxFaceVerts]ContactPoint
	cs := face.clip(pts[:np], env, m[:0])
	return withManifold(out, n0, cs, boundOf(kp, sp, &fp)+boundOf(kr, sr, &fr))
}

// capsuleFeature puts in pts the points of the capsule (size sc, frame fc)
// that rest on a flat support whose outward normal n points at it, and
// returns their count: when the axis is within cylinderFlat of the
// support's plane, the two ends of the side's line facing the support
// (e − r·u at each end e, u the unit part of n across the axis); none otherwise (an
// end ball's one point is convexPair's contact).
func capsuleFeature(sc mgl64.Vec3, fc *bodyFrame, n mgl64.Vec3, pts *[4]mgl64.Vec3) int {
	a := fc.r[2]
	if !(sc[1] > 0) || math.Abs(n.Dot(a)) >= cylinderFlat {
		return 0
	}
	// Across the axis exactly (u, n's part across it), so that the
	// points lie on the side.
	u := n.Sub(a.Mul(n.Dot(a))).Normalize()
	p0, p1 := segmentOf(sc[1], fc)
	pts[0], pts[1] = p0.Sub(u.Mul(sc[0])), p1.Sub(u.Mul(sc[0]))
	return 2
}

// cylinderFeature puts in pts the points of the cylinder (size sc, frame
// fc) that rest on a flat support whose outward normal n points at the
// cylinder, and returns their count: the four rim points of the cap facing
// the support (at ±x, ±y of the cylinder's frame) when the axis is within
// cylinderFlat of n, the two ends of the side's line facing the support
// when the axis is within cylinderFlat of the support's plane, none
// otherwise.
func cylinderFeature(sc mgl64.Vec3, fc *bodyFrame, n mgl64.Vec3, pts *[4]mgl64.Vec3) int {
	r, h := sc[0], sc[1]
	a := fc.r[2]
	na := n.Dot(a)
	u := n.Sub(a.Mul(na))
	ul := u.Len()
	switch {
	case ul < cylinderFlat:
		s := h // the cap facing the support: its outward normal against n
		if na > 0 {
			s = -h
		}
		cc := fc.c.Add(a.Mul(s))
		for i, d := range [4]mgl64.Vec3{fc.r[0], fc.r[1], fc.r[0].Mul(-1), fc.r[1].Mul(-1)} {
			pts[i] = cc.Add(d.Mul(r))
		}
		return 4
	case math.Abs(na) < cylinderFlat:
		side := fc.c.Sub(u.Mul(r / ul))
		pts[0], pts[1] = side.Sub(a.Mul(h)), side.Add(a.Mul(h))
		return 2
	}
	return 0
}

// clip clips the incident feature pts (a segment of two points, or a
// convex polygon of up to four) to the face's side planes and appends,
// for each point p left with height g = (p − face)·n below env, the
// contact from p − g·n on the face to p, along n (the face is a's; p is
// on b).
func (f *polyFace) clip(pts []mgl64.Vec3, env float64, out []ContactPoint) []ContactPoint {
	var poly, tmp [2 * maxFaceVerts]mgl64.Vec3
	np := copy(poly[:], pts)
	if np == 2 {
		p0, p1, ok := f.clipSegment(pts[0], pts[1])
		if !ok {
			return out
		}
		poly[0], poly[1] = p0, p1
	} else {
		for i := 0; i < f.np && np > 0; i++ {
			p, q := f.p[i], f.p[(i+1)%f.np]
			m := q.Sub(p).Cross(f.n) // outward for a counter-clockwise face
			np = clipPolygonN(poly[:], np, tmp[:], m, m.Dot(p))
		}
	}
	for _, p := range poly[:np] {
		g := p.Sub(f.p[0]).Dot(f.n)
		if g < env && len(out) < cap(out) {
			out = append(out, ContactPoint{Normal: f.n, PA: p.Sub(f.n.Mul(g)), PB: p, Phi: g})
		}
	}
	return out
}

// clipSegment clips the segment p0–p1 to the face's side planes
// (Liang–Barsky on the parameter), reporting false when nothing is left.
func (f *polyFace) clipSegment(p0, p1 mgl64.Vec3) (mgl64.Vec3, mgl64.Vec3, bool) {
	d := p1.Sub(p0)
	t0, t1 := 0.0, 1.0
	for i := range f.np {
		p, q := f.p[i], f.p[(i+1)%f.np]
		m := q.Sub(p).Cross(f.n)               // inside: x·m ≤ p·m
		num, den := p.Sub(p0).Dot(m), d.Dot(m) // p0 + t·d inside: t·den ≤ num
		switch {
		case den == 0:
			if num < 0 {
				return p0, p1, false
			}
		case den > 0:
			t1 = math.Min(t1, num/den)
		default:
			t0 = math.Max(t0, num/den)
		}
	}
	if t0 > t1 {
		return p0, p1, false
	}
	return p0.Add(d.Mul(t0)), p0.Add(d.Mul(t1)), true
}

// cylinderCylinder gives the contacts of two cylinders: convexPair's
// deepest contact, or, when their axes are parallel (sine² below
// capsuleParallel), two side by side (the normal across the axes) rest on
// the two ends of the stretch where their sides face each other, as
// capsuleCapsule's, and two stacked cap to cap (the normal along the axes)
// on the rim points (cylinderFeature) of each cap that lie over the other
// cap's disc.
func cylinderCylinder(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	n0 := len(out)
	out = roundContact(convexCylinder, convexCylinder, sa, fa, sb, fb, env, out)
	if len(out) == n0 {
		return out
	}
	ua, ub := fa.r[2], fb.r[2]
	if x := ua.Cross(ub); x.Dot(x) >= capsuleParallel {
		return out
	}
	scale := math.Hypot(sa[0], sa[1]) + math.Hypot(sb[0], sb[1])
	n := out[n0].Normal
	switch na := n.Dot(ua); {
	case math.Abs(na) < cylinderFlat:
		b0, b1 := segmentOf(sb[1], &fb)
		t0, t1 := b0.Sub(fa.c).Dot(ua), b1.Sub(fa.c).Dot(ua)
		lo, hi := math.Max(-sa[1], math.Min(t0, t1)), math.Min(sa[1], math.Max(t0, t1))
		if !(hi-lo > 1e-9*(sa[1]+sb[1])) {
			return out
		}
		// n across a's axis exactly, for coincident axes.
		across := n.Sub(ua.Mul(na)).Normalize()
		m := len(out)
		for _, t := range [2]float64{lo, hi} {
			p := fa.c.Add(ua.Mul(t))
			out = ballBall(sa[0], p, sb[0], closestOnSegment(b0, b1, p), across, env, out)
		}
		if len(out) > m {
			var cs [2]ContactPoint
			return withManifold(out[:m], n0, append(cs[:0], out[m:]...), scale)
		}
	case math.Abs(na) > 1-cylinderFlat*cylinderFlat/2:
		// The cap of a facing b (normal n from a, now along a's axis
		// exactly) and b's facing a.
		n = ua
		if na < 0 {
			n = ua.Mul(-1)
		}
		var pa, pb [4]mgl64.Vec3
		cylinderFeature(sa, &fa, n.Mul(-1), &pa)
		cylinderFeature(sb, &fb, n, &pb)
		ca, cb := capCentre(sa, &fa, n), capCentre(sb, &fb, n.Mul(-1))
		m := len(out)
		for _, p := range pb { // b's rim over a's cap: a's cap is the face
			if q := p.Sub(ca); q.Sub(n.Mul(q.Dot(n))).Len() <= sa[0] {
				g := q.Dot(n)
				if g < env {
					out = append(out, ContactPoint{Normal: n, PA: p.Sub(n.Mul(g)), PB: p, Phi: g})
				}
			}
		}
		for _, p := range pa { // a's rim over b's cap
			if q := cb.Sub(p); q.Sub(n.Mul(q.Dot(n))).Len() <= sb[0] {
				g := q.Dot(n)
				if g < env {
					out = append(out, ContactPoint{Normal: n, PA: p, PB: p.Add(n.Mul(g)), Phi: g})
				}
			}
		}
		if len(out) > m {
			var cs [8]ContactPoint
			return withManifold(out[:m], n0, append(cs[:0], out[m:]...), scale)
		}
	}
	return out
}

// capCentre returns the centre of the cylinder's cap whose outward normal
// is nearest n.
func capCentre(s mgl64.Vec3, f *bodyFrame, n mgl64.Vec3) mgl64.Vec3 {
	if n.Dot(f.r[2]) < 0 {
		return f.c.Sub(f.r[2].Mul(s[1]))
	}
	return f.c.Add(f.r[2].Mul(s[1]))
}

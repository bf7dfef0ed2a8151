package collide

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// Pose places a shape in the world: centre Pos (m) and orientation Rot
// (unit quaternion, body to world).
type Pose struct {
	Pos mgl64.Vec3
	Rot mgl64.Quat
}

// ContactPoint is one contact between shape a and shape b.
type ContactPoint struct {
	Normal mgl64.Vec3 // unit normal, world frame, pointing from a towards b
	PA, PB mgl64.Vec3 // the contact points on the surfaces of a and b, world frame
	Phi    float64    // signed gap (m) = (PB − PA)·Normal; negative when they overlap (= −penetration depth)
}

// Narrow appends to out the contacts between shape a at pose pa and shape b
// at pose pb whose gap Phi is below envelope (m, ≥ 0), and returns the
// extended slice. It handles every ordered pair of kinds it supports: it
// swaps internally and mirrors the result, so Normal always points from a to
// b and PA is on a. It returns an error only for an unsupported pair (saying
// which), and never panics.
//
// For a pair with a sphere or an ellipsoid, Narrow gives one contact whose
// Phi is the signed distance between the shapes: their distance when they
// are apart, minus the depth of the smallest translation that separates
// them when they overlap. Equivalently Phi = max over unit n of
// (min over b of b·n − max over a of a·n), Normal is the maximising n and PA,
// PB are the points of a and b farthest along n and −n. The methods:
//
//   - sphere–sphere, sphere–plane, sphere–box, ellipsoid–plane: closed
//     forms; for coincident sphere centres Normal is ±z;
//   - sphere–ellipsoid: the point of the ellipsoid closest to the sphere's
//     centre (Eberly's root of the secular equation);
//   - ellipsoid–ellipsoid, ellipsoid–box: GJK on the shapes' cores (an
//     ellipsoid less a ball of 0.9 times its least radius of curvature) for
//     a first normal, or EPA on the shapes when even the cores overlap, then
//     Newton's method on the unit sphere (for the box, cell by cell of its
//     normal fan) for the maximising normal, to rounding error. Apart, or
//     overlapping by less than the two margins, the maximum is the global
//     one; deeper it is the best local maximum reached from EPA's normal
//     and three probe directions.
//
// The other pairs:
//
//   - box–plane: one contact per box corner below the envelope (up to 4 for
//     a box resting on the plane, 8 when it is fully inside);
//   - box–box: the best of the 15 separating axes (a face axis unless an
//     edge–edge axis is 5 % shallower) gives either the face of the other
//     box clipped against that face, one contact per clipped corner (up to
//     8), or one edge–edge contact. For boxes apart GJK gives their exact
//     distance: no contacts when it is at least the envelope, and one more
//     contact at the closest points when the axis's contacts miss them;
//   - plane–plane: none (planes are fixed).
//
// A zero Rot (the zero value of mgl64.Quat) counts as the identity; any
// other Rot is normalised. Two shapes of the same kind are put in a fixed
// order (by pose, then size) before the computation, so swapping a and b
// mirrors the contacts exactly.
func Narrow(a engine.Shape, pa Pose, b engine.Shape, pb Pose, envelope float64, out []ContactPoint) ([]ContactPoint, error) {
	return narrowAt(&a, &pa, &b, &pb, envelope, out)
}

// narrowAt is Narrow on pointers to the shapes and poses, which it only
// reads: the Collider's PairContacts calls it with its own shapes, without
// the copies of Shape and Pose values that Go passes through memory.
func narrowAt(a *engine.Shape, pa *Pose, b *engine.Shape, pb *Pose, envelope float64, out []ContactPoint) ([]ContactPoint, error) {
	swap := a.Kind > b.Kind || (a.Kind == b.Kind && orderedBefore(b, pb, a, pa))
	if swap {
		a, b, pa, pb = b, a, pb, pa
	}
	var pair pairFunc
	if b.Kind < numKinds { // a.Kind ≤ b.Kind
		pair = pairs[a.Kind][b.Kind]
	}
	if pair == nil {
		if swap {
			a, b = b, a
		}
		return out, fmt.Errorf("collide: narrowphase: no contact between a %v and a %v", a.Kind, b.Kind)
	}
	if a.Kind == engine.Convex && a.Hull == nil || b.Kind == engine.Convex && b.Hull == nil {
		return out, fmt.Errorf("collide: narrowphase: a convex shape without its hull (make it with engine.NewConvex)")
	}
	n0 := len(out)
	// A sphere's frame is its centre alone in sphereSphere, spherePlane
	// and sphereBox (b is a sphere only in sphereSphere): the rotation
	// matrix is made only where the pair reads it.
	fa, fb := bodyFrame{c: pa.Pos}, bodyFrame{c: pb.Pos}
	if a.Kind != engine.Sphere || (b.Kind != engine.Sphere && b.Kind != engine.Plane && b.Kind != engine.Box) {
		fa = makeBodyFrame(*pa)
	}
	if b.Kind != engine.Sphere {
		fb = makeBodyFrame(*pb)
	}
	fa.hull, fb.hull = a.Hull, b.Hull
	out = pair(a.Size, fa, b.Size, fb, envelope, out)
	if swap {
		for i := n0; i < len(out); i++ {
			c := &out[i]
			c.Normal = c.Normal.Mul(-1)
			c.PA, c.PB = c.PB, c.PA
		}
	}
	return out, nil
}

// numKinds is the number of shape kinds the table indexes: every kind
// engine names. engine.Compound's row and column stay empty: the
// Collider splits a compound into its parts.
const numKinds = engine.NumShapeKinds

// A pairFunc appends to out the contacts of a shape of size sa (the
// engine.Shape's Size: a sphere's radius in sa[0], an ellipsoid's
// semi-axes, a box's half-extents; a plane's is unused) in frame fa
// against one of size sb in frame fb whose gap is below env (m), with
// Normal from a to b and PA on a, and returns the extended slice. It must
// not allocate when out has room, and never panics. The frames come by
// value: a call through the table cannot prove a pointer does not escape.
type pairFunc func(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint

// pairs is the narrowphase's shape-pair table, as Box2D v3's
// s_registers[shapeA][shapeB] (contact.c): pairs[ka][kb] computes the
// contacts of a shape of kind ka against one of kind kb. The ordering rule:
// only ka ≤ kb has entries (the upper triangle, rows in engine.ShapeKind
// order); Narrow puts the lower kind first and mirrors the contacts back,
// and orders two shapes of one kind by pose and size. A nil entry is a
// pair Narrow reports as unsupported. Adding a shape is a row for it and an
// entry in each lower kind's row (docs/adding-a-shape.md). The table is
// never written.
var pairs = [numKinds][numKinds]pairFunc{
	engine.Sphere: {
		engine.Sphere:    sphereSphere,
		engine.Ellipsoid: sphereEllipsoid,
		engine.Box:       sphereBox,
		engine.Plane:     spherePlane,
		engine.Capsule:   sphereCapsule,
		engine.Cylinder:  sphereCylinder,
		engine.Convex:    sphereConvex,
		engine.Triangle:  sphereTriangle,
	},
	engine.Ellipsoid: {
		engine.Ellipsoid: ellipsoidEllipsoid,
		engine.Box:       ellipsoidBox,
		engine.Plane:     ellipsoidPlane,
		engine.Capsule:   ellipsoidCapsule,
		engine.Cylinder:  ellipsoidCylinder,
		engine.Convex:    ellipsoidConvex,
		engine.Triangle:  ellipsoidTriangle,
	},
	engine.Box: {
		engine.Box:      boxBox,
		engine.Plane:    boxPlane,
		engine.Capsule:  boxCapsule,
		engine.Cylinder: boxCylinder,
		engine.Convex:   boxConvex,
		engine.Triangle: boxTriangle,
	},
	engine.Plane: {
		engine.Plane:    noContact,
		engine.Capsule:  planeCapsule,
		engine.Cylinder: planeCylinder,
		engine.Convex:   planeConvex,
		engine.Triangle: noContact,
	},
	engine.Capsule: {
		engine.Capsule:  capsuleCapsule,
		engine.Cylinder: capsuleCylinder,
		engine.Convex:   capsuleConvex,
		engine.Triangle: capsuleTriangle,
	},
	engine.Cylinder: {
		engine.Cylinder: cylinderCylinder,
		engine.Convex:   cylinderConvex,
		engine.Triangle: cylinderTriangle,
	},
	engine.Convex: {
		engine.Convex:   convexConvex,
		engine.Triangle: hullTriangle,
	},
	engine.Triangle: {
		engine.Triangle: noContact,
	},
}

// orderedBefore reports whether shape a at pose pa sorts before shape b at
// pose pb, comparing position, orientation and size component by component.
// It orders two shapes of one kind so that Narrow computes their contacts the
// same way whichever is passed first.
func orderedBefore(a *engine.Shape, pa *Pose, b *engine.Shape, pb *Pose) bool {
	ka := [...]float64{pa.Pos[0], pa.Pos[1], pa.Pos[2], pa.Rot.W, pa.Rot.V[0], pa.Rot.V[1], pa.Rot.V[2], a.Size[0], a.Size[1], a.Size[2]}
	kb := [...]float64{pb.Pos[0], pb.Pos[1], pb.Pos[2], pb.Rot.W, pb.Rot.V[0], pb.Rot.V[1], pb.Rot.V[2], b.Size[0], b.Size[1], b.Size[2]}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return false
}

// bodyFrame is a pose as a centre c and a rotation matrix whose columns
// r[0], r[1], r[2] are the body's x, y and z axes in the world frame. hull
// is the hull of the convex shape the frame poses (nil for the other
// kinds): the one datum of a shape beyond its Size that a pairFunc needs,
// carried here so that the table's signature stays one for every pair.
type bodyFrame struct {
	c    mgl64.Vec3
	r    [3]mgl64.Vec3
	hull *geom.Hull
}

// makeBodyFrame returns the frame of pose p: the rotation matrix of
// Rot/‖Rot‖, or the identity when Rot is zero.
func makeBodyFrame(p Pose) bodyFrame {
	w, x, y, z := p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2]
	n2 := w*w + x*x + y*y + z*z
	if n2 == 0 {
		return bodyFrame{c: p.Pos, r: [3]mgl64.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	}
	s := 2 / n2
	return bodyFrame{c: p.Pos, r: [3]mgl64.Vec3{
		{1 - s*(y*y+z*z), s * (x*y + w*z), s * (x*z - w*y)},
		{s * (x*y - w*z), 1 - s*(x*x+z*z), s * (y*z + w*x)},
		{s * (x*z + w*y), s * (y*z - w*x), 1 - s*(x*x+y*y)},
	}}
}

// toWorld returns the world position c + R·v of body-frame point v.
func (f *bodyFrame) toWorld(v mgl64.Vec3) mgl64.Vec3 { return f.c.Add(f.dirToWorld(v)) }

// dirToWorld returns R·v, body-frame vector v in the world frame.
func (f *bodyFrame) dirToWorld(v mgl64.Vec3) mgl64.Vec3 {
	return f.r[0].Mul(v[0]).Add(f.r[1].Mul(v[1])).Add(f.r[2].Mul(v[2]))
}

// dirToBody returns Rᵀ·v, world vector v in the body frame.
func (f *bodyFrame) dirToBody(v mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{f.r[0].Dot(v), f.r[1].Dot(v), f.r[2].Dot(v)}
}

// appendContact appends the contact (n, pa, pb, phi) to out when phi is
// below the envelope.
func appendContact(out []ContactPoint, n, pa, pb mgl64.Vec3, phi, env float64) []ContactPoint {
	if phi < env {
		out = append(out, ContactPoint{Normal: n, PA: pa, PB: pb, Phi: phi})
	}
	return out
}

// sphereSphere is the closed form for spheres of radii ra, rb centred at ca,
// cb: Normal = (cb − ca)/‖cb − ca‖ (+z for coincident centres) and
// Phi = ‖cb − ca‖ − ra − rb.
func sphereSphere(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	// In components (mgl64's Sub, Len, Mul and Add, operation for
	// operation): a Vec3 value goes through memory.
	ra, ca, rb, cb := sa[0], &fa.c, sb[0], &fb.c
	d0, d1, d2 := cb[0]-ca[0], cb[1]-ca[1], cb[2]-ca[2]
	dist := math.Sqrt(d0*d0 + d1*d1 + d2*d2)
	phi := dist - ra - rb
	if !(phi < env) {
		return out
	}
	n0, n1, n2 := 0.0, 0.0, 1.0
	if dist > 0 {
		l := 1 / dist
		n0, n1, n2 = d0*l, d1*l, d2*l
	}
	return append(out, ContactPoint{
		Normal: mgl64.Vec3{n0, n1, n2},
		PA:     mgl64.Vec3{ca[0] + n0*ra, ca[1] + n1*ra, ca[2] + n2*ra},
		PB:     mgl64.Vec3{cb[0] - n0*rb, cb[1] - n1*rb, cb[2] - n2*rb},
		Phi:    phi,
	})
}

// spherePlane is the closed form for a sphere of radius r centred at c
// against the plane of frame fp: with h the height of c above the plane,
// Phi = h − r and Normal is minus the plane's normal.
func spherePlane(sa mgl64.Vec3, fa bodyFrame, _ mgl64.Vec3, fp bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	r, c := sa[0], fa.c
	np := fp.r[2]
	h := c.Sub(fp.c).Dot(np)
	return appendContact(out, np.Mul(-1), c.Sub(np.Mul(r)), c.Sub(np.Mul(h)), h-r, env)
}

// sphereBox is the closed form for a sphere of radius r centred at c against
// a box with half-extents hb in frame fb. With y the centre in the box frame
// and q the point of the box closest to y: when y is outside,
// Phi = ‖y − q‖ − r along (y − q); when it is inside, the sphere is pushed
// out through the nearest face k, Phi = −(hb_k − |y_k|) − r along that
// face's normal.
func sphereBox(sa mgl64.Vec3, fa bodyFrame, hb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	r, c := sa[0], fa.c
	y := fb.dirToBody(c.Sub(fb.c))
	var q mgl64.Vec3
	for i := range 3 {
		q[i] = math.Max(-hb[i], math.Min(hb[i], y[i]))
	}
	d := y.Sub(q)
	dist := d.Len()
	var m mgl64.Vec3 // outward normal of the box at q, box frame
	var phi float64
	if dist > 0 {
		m = d.Mul(1 / dist)
		phi = dist - r
	} else {
		k := 0
		depth := hb[0] - math.Abs(y[0])
		for i := 1; i < 3; i++ {
			if di := hb[i] - math.Abs(y[i]); di < depth {
				k, depth = i, di
			}
		}
		s := 1.0
		if y[k] < 0 {
			s = -1
		}
		m[k] = s
		q[k] = s * hb[k]
		phi = -depth - r
	}
	if !(phi < env) {
		return out
	}
	mw := fb.dirToWorld(m)
	return appendContact(out, mw.Mul(-1), c.Sub(mw.Mul(r)), fb.toWorld(q), phi, env)
}

// ellipsoidPlane is the closed form for an ellipsoid with semi-axes s in
// frame fe against the plane of frame fp with normal np: with m = Rᵀnp, the
// ellipsoid's lowest point is p = c − R·diag(s²)·m/‖diag(s)·m‖ and
// Phi = (c − plane point)·np − ‖diag(s)·m‖.
func ellipsoidPlane(s mgl64.Vec3, fe bodyFrame, _ mgl64.Vec3, fp bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	np := fp.r[2]
	m := fe.dirToBody(np)
	sm := mgl64.Vec3{s[0] * m[0], s[1] * m[1], s[2] * m[2]}
	l := sm.Len()
	h := fe.c.Sub(fp.c).Dot(np) - l
	if !(h < env) || !(l > 0) {
		return out
	}
	pa := fe.toWorld(mgl64.Vec3{s[0] * sm[0], s[1] * sm[1], s[2] * sm[2]}.Mul(-1 / l))
	return appendContact(out, np.Mul(-1), pa, pa.Sub(np.Mul(h)), h, env)
}

// boxPlane gives one contact per corner of the box (half-extents hb, frame
// fb) whose height above the plane of frame fp is below the envelope. Corner
// k (bit i set: +hb_i along axis i, else −hb_i) has height
// (c − plane point)·np + Σ ±hb_i (r_i·np).
func boxPlane(hb mgl64.Vec3, fb bodyFrame, _ mgl64.Vec3, fp bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	np := fp.r[2]
	h0 := fb.c.Sub(fp.c).Dot(np)
	var e [3]float64 // hb_i (r_i·np): how much +hb_i along axis i raises a corner
	for i := range 3 {
		e[i] = hb[i] * fb.r[i].Dot(np)
	}
	nn := np.Mul(-1)
	for k := range 8 {
		g := h0
		var p mgl64.Vec3
		for i := range 3 {
			s := -1.0
			if k&(1<<i) != 0 {
				s = 1
			}
			g += s * e[i]
			p[i] = s * hb[i]
		}
		if g < env {
			pa := fb.toWorld(p)
			out = append(out, ContactPoint{Normal: nn, PA: pa, PB: pa.Sub(np.Mul(g)), Phi: g})
		}
	}
	return out
}

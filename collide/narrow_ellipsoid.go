package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// sphereEllipsoid gives the contact between a sphere of radius r centred at
// c and an ellipsoid with semi-axes s in frame fe. With y the centre in the
// ellipsoid frame, x the point of the ellipsoid's surface closest to y and m
// the outward unit normal there, Phi = (y − x)·m − r (the signed distance of
// the centre from the surface, minus r) and Normal = −R·m.
func sphereEllipsoid(sa mgl64.Vec3, fa bodyFrame, s mgl64.Vec3, fe bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	r, c := sa[0], fa.c
	y := fe.dirToBody(c.Sub(fe.c))
	if y.Len()-r-math.Max(s[0], math.Max(s[1], s[2])) >= env {
		return out
	}
	x := closestOnEllipsoid(s, y)
	m := mgl64.Vec3{x[0] / (s[0] * s[0]), x[1] / (s[1] * s[1]), x[2] / (s[2] * s[2])}
	if l := m.Len(); l > 0 {
		m = m.Mul(1 / l)
	}
	phi := y.Sub(x).Dot(m) - r
	if !(phi < env) {
		return out
	}
	mw := fe.dirToWorld(m)
	return appendContact(out, mw.Mul(-1), c.Sub(mw.Mul(r)), fe.toWorld(x), phi, env)
}

// closestOnEllipsoid returns the point of the surface of the ellipsoid
// Σ (x_i/e_i)² = 1 closest to y, for y inside or outside. It reflects y into
// the first octant, sorts the axes so that e0 ≥ e1 ≥ e2, and solves
// Eberly's secular equation ("Distance from a point to an ellipse, an
// ellipsoid, or a hyperellipsoid", Geometric Tools, 2013), including his
// special cases for y on a coordinate plane.
func closestOnEllipsoid(e, y mgl64.Vec3) mgl64.Vec3 {
	// Order the axes by decreasing semi-axis.
	i0, i1, i2 := 0, 1, 2
	if e[i0] < e[i1] {
		i0, i1 = i1, i0
	}
	if e[i1] < e[i2] {
		i1, i2 = i2, i1
	}
	if e[i0] < e[i1] {
		i0, i1 = i1, i0
	}
	x0, x1, x2 := closestOctant3(e[i0], e[i1], e[i2], math.Abs(y[i0]), math.Abs(y[i1]), math.Abs(y[i2]))
	var x mgl64.Vec3
	x[i0], x[i1], x[i2] = math.Copysign(x0, y[i0]), math.Copysign(x1, y[i1]), math.Copysign(x2, y[i2])
	return x
}

// closestOctant3 returns the point (x0, x1, x2) of the ellipsoid with
// semi-axes e0 ≥ e1 ≥ e2 > 0 closest to (y0, y1, y2), all yi ≥ 0
// (Eberly 2013, DistancePointEllipsoid).
func closestOctant3(e0, e1, e2, y0, y1, y2 float64) (x0, x1, x2 float64) {
	if y2 > 0 {
		if y1 > 0 {
			if y0 > 0 {
				z0, z1, z2 := y0/e0, y1/e1, y2/e2
				if z0*z0+z1*z1+z2*z2 == 1 {
					return y0, y1, y2
				}
				r0, r1 := (e0/e2)*(e0/e2), (e1/e2)*(e1/e2)
				d0, d1 := (e0-e2)*(e0+e2)/(e2*e2), (e1-e2)*(e1+e2)/(e2*e2)
				u := secularRoot(r0*z0, r1*z1, z2, d0, d1)
				return r0 * y0 / (u + d0), r1 * y1 / (u + d1), y2 / u
			}
			x1, x2 = closestOctant2(e1, e2, y1, y2)
			return 0, x1, x2
		}
		if y0 > 0 {
			x0, x2 = closestOctant2(e0, e2, y0, y2)
			return x0, 0, x2
		}
		return 0, 0, e2
	}
	// y2 = 0: the closest point leaves the plane x2 = 0 when y is deep
	// enough inside the ellipse of that plane.
	d0, d1 := (e0-e2)*(e0+e2), (e1-e2)*(e1+e2)
	n0, n1 := e0*y0, e1*y1
	if n0 < d0 && n1 < d1 {
		q0, q1 := n0/d0, n1/d1
		if disc := 1 - q0*q0 - q1*q1; disc > 0 {
			return e0 * q0, e1 * q1, e2 * math.Sqrt(disc)
		}
	}
	x0, x1 = closestOctant2(e0, e1, y0, y1)
	return x0, x1, 0
}

// closestOctant2 returns the point (x0, x1) of the ellipse with semi-axes
// e0 ≥ e1 > 0 closest to (y0, y1), both yi ≥ 0 (Eberly 2013,
// DistancePointEllipse).
func closestOctant2(e0, e1, y0, y1 float64) (x0, x1 float64) {
	if y1 > 0 {
		if y0 > 0 {
			z0, z1 := y0/e0, y1/e1
			if z0*z0+z1*z1 == 1 {
				return y0, y1
			}
			r0 := (e0 / e1) * (e0 / e1)
			d0 := (e0 - e1) * (e0 + e1) / (e1 * e1)
			u := secularRoot(r0*z0, 0, z1, d0, 0)
			return r0 * y0 / (u + d0), y1 / u
		}
		return 0, e1
	}
	d0 := (e0 - e1) * (e0 + e1)
	if n0 := e0 * y0; n0 < d0 {
		q0 := n0 / d0
		return e0 * q0, e1 * math.Sqrt(1-q0*q0)
	}
	return e0, 0
}

// secularRoot returns the root u > 0 of
//
//	F(u) = (n0/(u+d0))² + (n1/(u+d1))² + (z2/u)² − 1,
//
// with d0, d1 ≥ 0, n0, n1 ≥ 0 and z2 > 0: Eberly's GetRoot in the variable
// u = t + 1 (t his root, in units of e2²), so that points near the centre,
// where u is small, keep full precision. F is convex and decreasing on
// u > 0, so Newton's method started left of the root, at the largest u
// where one term alone is 1, climbs to it monotonically; it stops when
// F ≤ 0 (the root to rounding), when a step no longer moves u, or after 100
// steps.
func secularRoot(n0, n1, z2, d0, d1 float64) float64 {
	u := math.Max(z2, math.Max(n0-d0, n1-d1))
	for range 100 {
		a0, a1, a2 := n0/(u+d0), n1/(u+d1), z2/u
		f := a0*a0 + a1*a1 + a2*a2 - 1
		if !(f > 0) {
			break
		}
		df := 2 * (a0*a0/(u+d0) + a1*a1/(u+d1) + a2*a2/u)
		next := u + f/df
		if !(next > u) {
			break
		}
		u = next
	}
	return u
}

// ellipsoidEllipsoid gives the contact between ellipsoids with semi-axes sa
// in frame fa and sb in frame fb. It works in world axes with the origin at
// b's centre, where the support function of a − b is
//
//	f(n) = c·n + √(nᵀGa n) + √(nᵀGb n),  c = ca − cb, G = R diag(s²) Rᵀ,
//
// and Phi = −min f over unit n. GJK or EPA give a first n, Newton's method
// on the sphere (supportFunc.minimize) the minimiser, also started from the
// best probe directions (bestProbes) after EPA; the contact points are the
// support points of a along n and of b along −n.
func ellipsoidEllipsoid(sa mgl64.Vec3, fa bodyFrame, sb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	c := fa.c.Sub(fb.c)
	ra := math.Max(sa[0], math.Max(sa[1], sa[2]))
	rb := math.Max(sb[0], math.Max(sb[1], sb[2]))
	if c.Len()-ra-rb >= env {
		return out
	}
	ga, gb := ellipsoidGram(sa, &fa), ellipsoidGram(sb, &fb)
	a := convexShape{ellipsoid: true, c: c, g: ga, margin: ellipsoidMargin(sa)}
	b := convexShape{ellipsoid: true, g: gb, margin: ellipsoidMargin(sb)}
	scale := ra + rb
	n0, deep, beyond := firstNormal(&a, &b, env, scale)
	if beyond {
		return out
	}
	f := supportFunc{c: c, g: [2]mgl64.Mat3{ga, gb}, ng: 2}
	n := f.minimize(n0, -1, scale)
	best := f.value(n)
	if deep {
		var starts [deepStarts]mgl64.Vec3
		bestProbes(f.value, &fa.r, &fb.r, &starts)
		for _, s := range starts {
			if m := f.minimize(s, -1, scale); f.value(m) < best {
				n, best = m, f.value(m)
			}
		}
	}
	phi := -best
	if !(phi < env) {
		return out
	}
	pa := a.support(n)
	pb := b.support(n.Mul(-1))
	return appendContact(out, n, fb.c.Add(pa), fb.c.Add(pb), phi, env)
}

// ellipsoidGram returns G = R·diag(s²)·Rᵀ for an ellipsoid with semi-axes s
// in frame f: its support function about its centre is √(nᵀGn) and its
// support point c + Gn/√(nᵀGn).
func ellipsoidGram(s mgl64.Vec3, f *bodyFrame) mgl64.Mat3 {
	var g mgl64.Mat3
	for k := range 3 {
		q, s2 := f.r[k], s[k]*s[k]
		for i := range 3 {
			for j := range 3 {
				g[3*j+i] += s2 * q[i] * q[j]
			}
		}
	}
	return g
}

// ellipsoidBox gives the contact between an ellipsoid with semi-axes se in
// frame fe and a box with half-extents hb in frame fb. It works in the box
// frame, where the support function of ellipsoid − box is
//
//	f(n) = e·n + √(nᵀGn) + Σ hb_i |n_i|
//
// (e the ellipsoid's centre, G its Gram matrix), and Phi = −min f over unit
// n. GJK or EPA give a first n (and after EPA the best probe directions,
// bestProbes, more); f is smooth except where some n_i = 0, so from each it
// is minimised over the cells of the box's normal fan (a face normal:
// fixed; an edge's arc: Newton on a great circle; a corner's octant: Newton
// on the sphere) by ellipsoidBoxFunc.minimize, and the best is kept.
func ellipsoidBox(se mgl64.Vec3, fe bodyFrame, hb mgl64.Vec3, fb bodyFrame, env float64, out []ContactPoint) []ContactPoint {
	e := fb.dirToBody(fe.c.Sub(fb.c))
	re := math.Max(se[0], math.Max(se[1], se[2]))
	rb := hb.Len()
	if e.Len()-re-rb >= env {
		return out
	}
	local := bodyFrame{r: [3]mgl64.Vec3{fb.dirToBody(fe.r[0]), fb.dirToBody(fe.r[1]), fb.dirToBody(fe.r[2])}}
	g := ellipsoidGram(se, &local)
	a := convexShape{ellipsoid: true, c: e, g: g, margin: ellipsoidMargin(se)}
	b := convexShape{h: hb, r: identityAxes()}
	scale := re + rb
	n0, deep, beyond := firstNormal(&a, &b, env, scale)
	if beyond {
		return out
	}
	eb := ellipsoidBoxFunc{e: e, g: g, h: hb}
	n := eb.minimize(n0, scale)
	best := eb.value(n)
	if deep {
		var starts [deepStarts]mgl64.Vec3
		axes := identityAxes()
		bestProbes(eb.value, &local.r, &axes, &starts)
		for _, s := range starts {
			if m := eb.minimize(s, scale); eb.value(m) < best {
				n, best = m, eb.value(m)
			}
		}
	}
	phi := -best
	if !(phi < env) {
		return out
	}
	pa := a.support(n)
	var pb mgl64.Vec3 // the point of the box's support set along −n nearest pa
	for i := range 3 {
		switch {
		case n[i] > 0:
			pb[i] = -hb[i]
		case n[i] < 0:
			pb[i] = hb[i]
		default:
			pb[i] = math.Max(-hb[i], math.Min(hb[i], pa[i]))
		}
	}
	return appendContact(out, fb.dirToWorld(n), fb.toWorld(pa), fb.toWorld(pb), phi, env)
}

// ellipsoidBoxFunc is f(n) = e·n + √(nᵀGn) + Σ h_i |n_i|, the support
// function of an ellipsoid (centre e, Gram matrix G) minus an axis-aligned
// box (half-extents h) centred at the origin.
type ellipsoidBoxFunc struct {
	e mgl64.Vec3
	g mgl64.Mat3
	h mgl64.Vec3
}

// value returns f(n).
func (f *ellipsoidBoxFunc) value(n mgl64.Vec3) float64 {
	return f.e.Dot(n) + math.Sqrt(n.Dot(f.g.Mul3x1(n))) +
		f.h[0]*math.Abs(n[0]) + f.h[1]*math.Abs(n[1]) + f.h[2]*math.Abs(n[2])
}

// cellTol is how close to zero a component of the current normal may be
// for the cells on both sides of that coordinate plane to be searched.
// Steps that leave a cell are cut at its boundary, where that component is
// exactly 0; 0.05 rad also takes in cells whose boundary the normal has not
// quite reached.
const cellTol = 0.05

// ellipsoidBoxRounds bounds the rounds of ellipsoidBoxFunc.minimize. Each
// round moves to a neighbouring cell or stops; a normal crosses at most a
// few cells between GJK's first estimate and the minimiser.
const ellipsoidBoxRounds = 16

// minimize returns a local minimiser of f over unit n, from n0, by rounds
// of a search over the cells of the box's normal fan within cellTol of the
// current n (searchCells). A round that gives no decrease, or whose best
// candidate satisfies the first-order condition for a minimum of f, ends
// the search. While f < 0 (the shapes apart) f has no local minimum but
// the global one, and the rounds, each decreasing f, end there
// (TestNarrowMaximalSeparation checks this on random poses).
func (f *ellipsoidBoxFunc) minimize(n0 mgl64.Vec3, scale float64) mgl64.Vec3 {
	best, bestF := n0, f.value(n0)
	for range ellipsoidBoxRounds {
		n, v, ok := f.searchCells(best, scale)
		if !(v < bestF) {
			break
		}
		best, bestF = n, v
		if ok {
			break
		}
	}
	return best
}

// searchCells returns the best of the cell minima (cellMinimum) over the
// cells within cellTol of n: faces first, then edges, then corners, stopping
// after a kind whose best candidate satisfies the first-order condition.
func (f *ellipsoidBoxFunc) searchCells(n mgl64.Vec3, scale float64) (mgl64.Vec3, float64, bool) {
	// choices[i] lists the signs σ_i near n (0: n_i held at 0).
	var choices [3][3]float64
	var nc [3]int
	for i := range 3 {
		switch {
		case n[i] > cellTol:
			choices[i][0], nc[i] = 1, 1
		case n[i] < -cellTol:
			choices[i][0], nc[i] = -1, 1
		default:
			choices[i], nc[i] = [3]float64{0, 1, -1}, 3
		}
	}
	best, bestF, verified := n, math.Inf(1), false
	// zeros = 2: faces, 1: edges, 0: corners.
	for zeros := 2; zeros >= 0 && !verified; zeros-- {
		for j0 := 0; j0 < nc[0]; j0++ {
			for j1 := 0; j1 < nc[1]; j1++ {
				for j2 := 0; j2 < nc[2]; j2++ {
					sigma := mgl64.Vec3{choices[0][j0], choices[1][j1], choices[2][j2]}
					z := 0
					for i := range 3 {
						if sigma[i] == 0 {
							z++
						}
					}
					if z != zeros {
						continue
					}
					m, ok := f.cellMinimum(sigma, n, scale)
					if v := f.value(m); v < bestF {
						best, bestF, verified = m, v, ok
					}
				}
			}
		}
	}
	return best, bestF, verified
}

// cellMinimum minimises f over the closed cell with signs sigma (sigma_i = 0:
// n_i held at 0; two zeros make a face normal, one an edge's arc, none a
// corner's octant). In the cell f is the smooth
// (e + Σ σ_i h_i e_i)·m + √(mᵀGm); supportFunc.minimize minimises it from
// the point s of the cell nearest n (n with its components of the wrong
// sign zeroed), and a minimiser m outside the cell is pulled back along the
// segment from s to the cell's boundary. It reports whether the result
// satisfies the first-order condition for a minimum of f: inside the cell
// (not pulled back), and for each held axis i the ellipsoid's support point
// p has |p_i| ≤ h_i (it projects into the face or onto the edge).
func (f *ellipsoidBoxFunc) cellMinimum(sigma, n mgl64.Vec3, scale float64) (mgl64.Vec3, bool) {
	var s mgl64.Vec3
	held, z := -1, 0
	for i := range 3 {
		if sigma[i] == 0 {
			held = i
			z++
		} else if sigma[i]*n[i] > 0 {
			s[i] = n[i]
		}
	}
	l := s.Len()
	if z == 2 || !(l > 0) {
		// A face, or a start with no component in the cell: the cell's
		// centre direction.
		s, l = sigma, sigma.Len()
	}
	s = s.Mul(1 / l)
	m := s
	if z < 2 {
		sf := supportFunc{c: f.e.Add(mgl64.Vec3{sigma[0] * f.h[0], sigma[1] * f.h[1], sigma[2] * f.h[2]}), g: [2]mgl64.Mat3{f.g}, ng: 1}
		m = sf.minimize(s, held, scale)
		// Pull back to the boundary: the largest t ≤ 1 with
		// σ_i·(s + t(m − s))_i ≥ 0 for every i.
		t, cut := 1.0, -1
		for i := range 3 {
			if sigma[i] != 0 && sigma[i]*m[i] < 0 {
				if ti := s[i] / (s[i] - m[i]); ti < t {
					t, cut = ti, i
				}
			}
		}
		if cut >= 0 {
			u := s.Add(m.Sub(s).Mul(t))
			u[cut] = 0
			for i := range 3 {
				if sigma[i]*u[i] < 0 {
					u[i] = 0
				}
			}
			if ul := u.Len(); ul > 0 {
				return u.Mul(1 / ul), false
			}
			return s, false
		}
	}
	gn := f.g.Mul3x1(m)
	gl := math.Sqrt(m.Dot(gn))
	for i := range 3 {
		if sigma[i] == 0 && math.Abs(f.e[i]+gn[i]/gl) > f.h[i] {
			return m, false
		}
	}
	return m, true
}

// supportFunc is f(n) = c·n + Σ_k √(nᵀG_k n) over its ng (1 or 2) Gram
// matrices: the support function of a Minkowski difference of ellipsoids,
// shifted by c. It is smooth and positively homogeneous of degree 1.
type supportFunc struct {
	c  mgl64.Vec3
	g  [2]mgl64.Mat3
	ng int
}

// value returns f(n).
func (f *supportFunc) value(n mgl64.Vec3) float64 {
	v := f.c.Dot(n)
	for k := 0; k < f.ng; k++ {
		v += math.Sqrt(n.Dot(f.g[k].Mul3x1(n)))
	}
	return v
}

// derivs returns f(n), its gradient c + Σ G_k n/l_k and its Hessian
// Σ (G_k/l_k − (G_k n)(G_k n)ᵀ/l_k³), l_k = √(nᵀG_k n).
func (f *supportFunc) derivs(n mgl64.Vec3) (float64, mgl64.Vec3, mgl64.Mat3) {
	v, grad := f.c.Dot(n), f.c
	var hess mgl64.Mat3
	for k := 0; k < f.ng; k++ {
		gn := f.g[k].Mul3x1(n)
		l := math.Sqrt(n.Dot(gn))
		v += l
		grad = grad.Add(gn.Mul(1 / l))
		il, il3 := 1/l, 1/(l*l*l)
		for i := range 3 {
			for j := range 3 {
				hess[3*j+i] += f.g[k][3*j+i]*il - gn[i]*gn[j]*il3
			}
		}
	}
	return v, grad, hess
}

// Newton's method on the sphere (supportFunc.minimize) stops when the
// tangential gradient falls below newtonGradTol·scale (rounding in the
// gradient is a few 1e-16 of the shape size), or after newtonMaxIter steps.
const (
	newtonGradTol = 1e-13
	newtonMaxIter = 50
	// newtonMaxStep caps one step (rad) so that the retraction onto the
	// sphere stays close to the tangent plane.
	newtonMaxStep = 0.5
	// newtonFinalStep: a Newton step this short (rad) is the last one; in
	// the quadratic regime it leaves the normal within ~(1e-6)² = 1e-12 rad
	// of the minimiser, and f, quadratic there, within ~1e-24·scale.
	newtonFinalStep = 1e-6
	// newtonMaxHalvings bounds the step halvings of one line search.
	newtonMaxHalvings = 30
)

// minimize returns a local minimiser of f over unit n, started from n0, by
// Riemannian Newton's method: in an orthonormal basis t of the tangent
// plane at n the gradient is tᵀ∇f and the Hessian tᵀ∇²f t − (n·∇f) I;
// the step δ solves Hδ = −g and n moves to (n + tδ)/‖n + tδ‖. Where H is
// not positive definite the step is a steepest-descent one of length
// newtonMaxStep. Steps are halved until f decreases and the search stops
// when none does, when the tangential gradient is below
// newtonGradTol·scale, or after a Newton step shorter than newtonFinalStep,
// which is taken as it is (its effect on f is below rounding). With
// held ≥ 0, n stays on the great circle n_held = 0 (n0_held must be 0) and
// the tangent space is the single direction e_held × n.
func (f *supportFunc) minimize(n0 mgl64.Vec3, held int, scale float64) mgl64.Vec3 {
	n := n0
	for range newtonMaxIter {
		v, grad, hess := f.derivs(n)
		var t1, t2 mgl64.Vec3
		dim := 2
		if held >= 0 {
			var ax mgl64.Vec3
			ax[held] = 1
			t1 = ax.Cross(n)
			if l := t1.Len(); l > 0 {
				t1 = t1.Mul(1 / l)
			}
			dim = 1
		} else {
			t1, t2 = tangentPair(n)
		}
		lam := n.Dot(grad)
		g1, g2 := t1.Dot(grad), t2.Dot(grad)
		if math.Hypot(g1, g2) <= newtonGradTol*scale {
			break
		}
		h1, h2 := hess.Mul3x1(t1), hess.Mul3x1(t2)
		a, b, d := t1.Dot(h1)-lam, t1.Dot(h2), t2.Dot(h2)-lam
		var s1, s2 float64
		if dim == 1 {
			b, d = 0, 1
		}
		det := a*d - b*b
		newton := a > 0 && det > 0
		if newton {
			s1, s2 = -(d*g1-b*g2)/det, -(a*g2-b*g1)/det
		} else {
			k := newtonMaxStep / math.Hypot(g1, g2)
			s1, s2 = -k*g1, -k*g2
		}
		if dim == 1 {
			s2 = 0
		}
		l := math.Hypot(s1, s2)
		if l > newtonMaxStep {
			s1, s2 = s1*newtonMaxStep/l, s2*newtonMaxStep/l
		}
		if newton && l <= newtonFinalStep {
			// Converged: the step's effect on f is below rounding, so
			// it is taken without the descent test.
			n = retract(n, t1, t2, s1, s2, held)
			break
		}
		moved := false
		for range newtonMaxHalvings {
			m := retract(n, t1, t2, s1, s2, held)
			if f.value(m) < v {
				n, moved = m, true
				break
			}
			s1, s2 = s1/2, s2/2
		}
		if !moved {
			break
		}
	}
	return n
}

// retract returns the unit vector (n + s1·t1 + s2·t2)/‖…‖, with component
// held (when ≥ 0) set to exactly 0.
func retract(n, t1, t2 mgl64.Vec3, s1, s2 float64, held int) mgl64.Vec3 {
	m := n.Add(t1.Mul(s1)).Add(t2.Mul(s2))
	m = m.Mul(1 / m.Len())
	if held >= 0 {
		m[held] = 0
	}
	return m
}

// tangentPair returns an orthonormal basis of the plane orthogonal to the
// unit vector n.
func tangentPair(n mgl64.Vec3) (mgl64.Vec3, mgl64.Vec3) {
	ax := mgl64.Vec3{1, 0, 0}
	if math.Abs(n[0]) > 0.57 {
		ax = mgl64.Vec3{0, 1, 0}
	}
	t1 := n.Cross(ax)
	t1 = t1.Mul(1 / t1.Len())
	return t1, n.Cross(t1)
}

package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/geom"
)

// convexShape is an ellipsoid or a box in a working frame, described by its
// support mapping: an ellipsoid centred at c with Gram matrix g
// (R·diag(s²)·Rᵀ), or a box centred at c with half-extents h along the axes
// r[0], r[1], r[2]. margin is the radius of a ball that the shape is the
// Minkowski sum of with its core (0 for a box); GJK works on the cores.
//
// round, when not roundNone, makes it a capsule's segment c ± hl·ax (margin
// the capsule's radius) or a cylinder of axis c ± hl·ax and radius rad
// (narrow_round.go).
type convexShape struct {
	ellipsoid bool
	c         mgl64.Vec3
	g         mgl64.Mat3
	h         mgl64.Vec3
	r         [3]mgl64.Vec3
	margin    float64
	round     uint8
	ax        mgl64.Vec3
	hl, rad   float64
	hull      *geom.Hull // a hull in its body frame (round = roundHull; axes r)
}

// ellipsoidMargin returns the margin of an ellipsoid with semi-axes s: 0.9
// of its least radius of curvature min(s)²/max(s). Up to that radius, the
// ellipsoid is its core plus a ball (the core's support function
// √(nᵀGn) − margin·‖n‖ stays convex); 0.9 keeps the core well away from
// degenerate.
func ellipsoidMargin(s mgl64.Vec3) float64 {
	lo, hi := math.Min(s[0], math.Min(s[1], s[2])), math.Max(s[0], math.Max(s[1], s[2]))
	return 0.9 * lo * lo / hi
}

// coreSupport returns the support point of the shape's core along d: the
// shape's minus margin·d/‖d‖.
func (s *convexShape) coreSupport(d mgl64.Vec3) mgl64.Vec3 {
	p := s.support(d)
	if l := d.Len(); s.margin > 0 && l > 0 {
		p = p.Sub(d.Mul(s.margin / l))
	}
	return p
}

// identityAxes returns the working frame's axes, for a box aligned with
// them.
func identityAxes() [3]mgl64.Vec3 { return [3]mgl64.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

// support returns a point of the shape farthest along d: c + Gd/√(dᵀGd) for
// an ellipsoid, c + Σ ±h_i r_i (the sign of d·r_i, + for 0) for a box,
// c ± hl·ax + margin·d/‖d‖ for a capsule, c ± hl·ax + rad·u for a cylinder,
// c + R·v for a hull, v its vertex farthest along Rᵀd,
// u the unit component of d across the axis (none when d is within 1e-9
// rad of it).
func (s *convexShape) support(d mgl64.Vec3) mgl64.Vec3 {
	switch s.round {
	case roundHull:
		return s.hullSupport(d)
	case roundTriangle:
		return s.triangleSupport(d)
	}
	if s.round != roundNone {
		da := d.Dot(s.ax)
		p := s.c.Add(s.ax.Mul(s.hl))
		if da < 0 {
			p = s.c.Sub(s.ax.Mul(s.hl))
		}
		if s.round == roundSegment {
			if l := d.Len(); l > 0 {
				p = p.Add(d.Mul(s.margin / l))
			}
			return p
		}
		// Within 1e-9 rad of the axis, u is rounding noise (not across
		// the axis): the cap's centre is a support point then.
		// A second pass takes off the axial part that rounding leaves in u
		// when d is near the axis.
		u := d.Sub(s.ax.Mul(da))
		u = u.Sub(s.ax.Mul(u.Dot(s.ax)))
		if l := u.Len(); l > 1e-9*d.Len() {
			p = p.Add(u.Mul(s.rad / l))
		}
		return p
	}
	if s.ellipsoid {
		gd := s.g.Mul3x1(d)
		l := d.Dot(gd)
		if !(l > 0) {
			return s.c
		}
		return s.c.Add(gd.Mul(1 / math.Sqrt(l)))
	}
	p := s.c
	for i := range 3 {
		if d.Dot(s.r[i]) < 0 {
			p = p.Sub(s.r[i].Mul(s.h[i]))
		} else {
			p = p.Add(s.r[i].Mul(s.h[i]))
		}
	}
	return p
}

// diffSupport returns the support point of the Minkowski difference a − b
// along d: a's support along d minus b's along −d.
func diffSupport(a, b *convexShape, d mgl64.Vec3) mgl64.Vec3 {
	return a.support(d).Sub(b.support(d.Mul(-1)))
}

// firstNormal returns an approximate unit normal n from a towards b that
// minimises the support function of a − b over unit vectors, for Newton's
// method to polish. The support function of the cores' difference is that
// of a − b less both margins, with the same minimiser, so when the cores
// are apart (the shapes apart, or overlapping by less than the margins)
// GJK's closest point v of the cores' difference gives n = −v/‖v‖; when
// they overlap, EPA's nearest face of a − b gives n and deep is true.
// beyond reports that GJK proved the gap to be at least env, so there is no
// contact. scale is the size of the shapes (m), for tolerances.
func firstNormal(a, b *convexShape, env, scale float64) (n mgl64.Vec3, deep, beyond bool) {
	var s gjkSimplex
	v, overlap, beyond := gjkDistance(a, b, env+a.margin+b.margin, scale, gjkRelTol, &s)
	if beyond {
		return n, false, true
	}
	if !overlap {
		return v.Mul(-1 / v.Len()), false, false
	}
	var p epaPolytope
	if p.init(a, b, &s, scale) {
		return p.expand(a, b, scale), true, false
	}
	n = b.c.Sub(a.c)
	if l := n.Len(); l > 0 {
		return n.Mul(1 / l), true, false
	}
	return mgl64.Vec3{0, 0, 1}, true, false
}

// deepStarts is how many probe directions (bestProbes) Newton's method
// also starts from when the shapes overlap beyond their margins. There the
// support function of a − b can have several local minima, and EPA's
// polytope (at most epaMaxVerts vertices) resolves them poorly when a − b is
// nearly round: local minima a few per cent of the size apart.
const deepStarts = 3

// bestProbes puts in out the deepStarts directions of least value among the
// 26 directions from a cube's centre to its faces, edges and corners and
// ± the axes in ax1 and ax2 (the shapes' own axes).
func bestProbes(value func(mgl64.Vec3) float64, ax1, ax2 *[3]mgl64.Vec3, out *[deepStarts]mgl64.Vec3) {
	var vals [deepStarts]float64
	for i := range vals {
		vals[i] = math.Inf(1)
	}
	try := func(d mgl64.Vec3) {
		v := value(d)
		if !(v < vals[deepStarts-1]) {
			return
		}
		k := deepStarts - 1
		for k > 0 && v < vals[k-1] {
			vals[k], out[k] = vals[k-1], out[k-1]
			k--
		}
		vals[k], out[k] = v, d
	}
	for i := -1; i <= 1; i++ {
		for j := -1; j <= 1; j++ {
			for k := -1; k <= 1; k++ {
				if d := (mgl64.Vec3{float64(i), float64(j), float64(k)}); d != (mgl64.Vec3{}) {
					try(d.Mul(1 / d.Len()))
				}
			}
		}
	}
	for i := range 3 {
		try(ax1[i])
		try(ax1[i].Mul(-1))
		try(ax2[i])
		try(ax2[i].Mul(-1))
	}
}

const (
	// gjkMaxIter bounds GJK's iterations; it converges in far fewer to
	// gjkRelTol.
	gjkMaxIter = 64
	// gjkRelTol stops GJK on the cores when its lower bound on their
	// distance exceeds (1 − gjkRelTol) times its upper bound: −v/‖v‖ is
	// then a separating direction, where the support function of a − b,
	// less the margins, is negative; there it has no local minimum but the
	// global one, so Newton's method takes over from any such direction.
	// Half the distance is reached in 2 to 5 iterations.
	gjkRelTol = 0.5
	// gjkTouchTol: below gjkTouchTol·scale, GJK's closest point is too short
	// to give a direction and the shapes count as touching (overlap path).
	gjkTouchTol = 1e-9
)

// gjkVertex is a point p = a − b of the Minkowski difference with the
// support points a and b it came from.
type gjkVertex struct {
	p, a, b mgl64.Vec3
}

// gjkSimplex holds up to 4 vertices and, after closest, the barycentric
// weights w of the closest point.
type gjkSimplex struct {
	v [4]gjkVertex
	w [4]float64
	n int
}

// witnesses returns the points of a and b whose difference is the
// simplex's closest point: Σ w_i a_i and Σ w_i b_i.
func (s *gjkSimplex) witnesses() (pa, pb mgl64.Vec3) {
	for i := 0; i < s.n; i++ {
		pa = pa.Add(s.v[i].a.Mul(s.w[i]))
		pb = pb.Add(s.v[i].b.Mul(s.w[i]))
	}
	return pa, pb
}

// gjkDistance runs GJK (Gilbert, Johnson and Keerthi 1988) on the
// difference of the cores of a and b (the shapes themselves for margins 0)
// from the point ca − cb: v is the point of a simplex in that difference
// closest to the origin, w the support point along −v, and the distance lies between
// v·w/‖v‖ and ‖v‖. It returns v when ‖v‖ − v·w/‖v‖ ≤ relTol·‖v‖, when w is
// already a vertex, or when no step shortens v; beyond when
// v·w/‖v‖ ≥ env; overlap when the simplex encloses the origin or v shrinks
// below gjkTouchTol·scale. s holds the final simplex.
func gjkDistance(a, b *convexShape, env, scale, relTol float64, s *gjkSimplex) (v mgl64.Vec3, overlap, beyond bool) {
	v = a.c.Sub(b.c)
	s.n = 0
	if v.Dot(v) == 0 {
		return v, true, false
	}
	for it := range gjkMaxIter {
		sa, sb := a.coreSupport(v.Mul(-1)), b.coreSupport(v)
		w := sa.Sub(sb)
		vv, vw := v.Dot(v), v.Dot(w)
		if vw > 0 && vw >= env*math.Sqrt(vv) {
			return v, false, true
		}
		if vv-vw <= relTol*vv {
			return v, false, false
		}
		for i := 0; i < s.n; i++ {
			if s.v[i].p == w {
				return v, false, false
			}
		}
		last := *s
		s.v[s.n] = gjkVertex{p: w, a: sa, b: sb}
		s.n++
		nv := s.closest()
		if s.n == 4 {
			return nv, true, false
		}
		nvv := nv.Dot(nv)
		if nvv <= gjkTouchTol*gjkTouchTol*scale*scale {
			return nv, true, false
		}
		if it > 0 && nvv >= vv {
			*s = last
			return v, false, false
		}
		v = nv
	}
	return v, false, false
}

// closest returns the point of the simplex's convex hull closest to the
// origin, shrinks the simplex to the vertices of the smallest face that
// holds it and sets their weights; a tetrahedron that encloses the origin
// is kept whole and the origin returned.
func (s *gjkSimplex) closest() mgl64.Vec3 {
	switch s.n {
	case 2:
		return s.closestSegment()
	case 3:
		return s.closestTriangle()
	case 4:
		return s.closestTetrahedron()
	}
	s.w[0] = 1
	return s.v[0].p
}

// keep shrinks the simplex to vertices i (and j, k where given as ≥ 0) with
// weights wi, wj, wk.
func (s *gjkSimplex) keep(i, j, k int, wi, wj, wk float64) {
	v := s.v
	s.v[0], s.w[0], s.n = v[i], wi, 1
	if j >= 0 {
		s.v[1], s.w[1], s.n = v[j], wj, 2
	}
	if k >= 0 {
		s.v[2], s.w[2], s.n = v[k], wk, 3
	}
}

// closestSegment is closest for a segment.
func (s *gjkSimplex) closestSegment() mgl64.Vec3 {
	a, b := s.v[0].p, s.v[1].p
	ab := b.Sub(a)
	t := -a.Dot(ab)
	if t <= 0 {
		s.keep(0, -1, -1, 1, 0, 0)
		return a
	}
	den := ab.Dot(ab)
	if t >= den {
		s.keep(1, -1, -1, 1, 0, 0)
		return b
	}
	u := t / den
	s.w[0], s.w[1] = 1-u, u
	return a.Add(ab.Mul(u))
}

// closestTriangle is closest for a triangle, by its Voronoi regions
// (Ericson, Real-Time Collision Detection, 5.1.5, with the query point at
// the origin). A degenerate triangle falls back to its best edge.
func (s *gjkSimplex) closestTriangle() mgl64.Vec3 {
	a, b, c := s.v[0].p, s.v[1].p, s.v[2].p
	ab, ac := b.Sub(a), c.Sub(a)
	d1, d2 := -ab.Dot(a), -ac.Dot(a)
	if d1 <= 0 && d2 <= 0 {
		s.keep(0, -1, -1, 1, 0, 0)
		return a
	}
	d3, d4 := -ab.Dot(b), -ac.Dot(b)
	if d3 >= 0 && d4 <= d3 {
		s.keep(1, -1, -1, 1, 0, 0)
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		u := d1 / (d1 - d3)
		s.keep(0, 1, -1, 1-u, u, 0)
		return a.Add(ab.Mul(u))
	}
	d5, d6 := -ab.Dot(c), -ac.Dot(c)
	if d6 >= 0 && d5 <= d6 {
		s.keep(2, -1, -1, 1, 0, 0)
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		u := d2 / (d2 - d6)
		s.keep(0, 2, -1, 1-u, u, 0)
		return a.Add(ac.Mul(u))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		u := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		s.keep(1, 2, -1, 1-u, u, 0)
		return b.Add(c.Sub(b).Mul(u))
	}
	den := va + vb + vc
	if !(den > 0) {
		return s.bestEdge()
	}
	u, w := vb/den, vc/den
	s.w[0], s.w[1], s.w[2] = 1-u-w, u, w
	return a.Add(ab.Mul(u)).Add(ac.Mul(w))
}

// bestEdge shrinks a degenerate triangle to whichever of its edges comes
// closest to the origin and returns that closest point.
func (s *gjkSimplex) bestEdge() mgl64.Vec3 {
	var best gjkSimplex
	var bestP mgl64.Vec3
	bestD := math.Inf(1)
	for k := range 3 {
		e := gjkSimplex{v: [4]gjkVertex{s.v[k], s.v[(k+1)%3]}, n: 2}
		q := e.closestSegment()
		if d := q.Dot(q); d < bestD || k == 0 {
			best, bestP, bestD = e, q, d
		}
	}
	*s = best
	return bestP
}

// closestTetrahedron is closest for a tetrahedron: the best of the faces
// whose plane separates the origin from the opposite vertex (all four for a
// flat tetrahedron), or the origin itself when no face does.
func (s *gjkSimplex) closestTetrahedron() mgl64.Vec3 {
	faces := [4][4]int{{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}}
	var best gjkSimplex
	var bestP mgl64.Vec3
	bestD := math.Inf(1)
	found := false
	for _, f := range faces {
		a, b, c, d := s.v[f[0]].p, s.v[f[1]].p, s.v[f[2]].p, s.v[f[3]].p
		nrm := b.Sub(a).Cross(c.Sub(a))
		so, sd := -a.Dot(nrm), d.Sub(a).Dot(nrm)
		if so*sd < 0 || sd == 0 {
			t := gjkSimplex{v: [4]gjkVertex{s.v[f[0]], s.v[f[1]], s.v[f[2]]}, n: 3}
			q := t.closestTriangle()
			if dq := q.Dot(q); !found || dq < bestD {
				best, bestP, bestD = t, q, dq
			}
			found = true
		}
	}
	if !found {
		return mgl64.Vec3{}
	}
	*s = best
	return bestP
}

const (
	epaMaxVerts = 48
	epaMaxFaces = 2*epaMaxVerts - 4 // a closed triangulated polytope's Euler bound
	epaMaxEdges = 3 * epaMaxFaces
	// epaRelTol stops EPA when the support point along the nearest face's
	// normal lies within epaRelTol·scale of that face. EPA only has to
	// find the basin of the minimiser, which Newton's method then polishes.
	epaRelTol = 1e-4
)

// epaFace is a triangle of the polytope, its vertices counter-clockwise
// seen from outside, with outward unit normal n and plane offset d = n·v.
type epaFace struct {
	v [3]uint8
	n mgl64.Vec3
	d float64
}

// epaPolytope is the polytope EPA grows inside a − b. in is a point inside
// it (the centroid of the first tetrahedron), used to orient faces.
type epaPolytope struct {
	v     [epaMaxVerts]mgl64.Vec3
	nv    int
	f     [epaMaxFaces]epaFace
	nf    int
	edges [epaMaxEdges][2]uint8
	ne    int
	in    mgl64.Vec3
}

// init makes a tetrahedron from GJK's simplex s (points of the cores'
// difference, which lies inside a − b), adding support points of a − b
// along directions normal to it as needed. It reports false when a − b is
// too flat to hold a tetrahedron.
func (p *epaPolytope) init(a, b *convexShape, s *gjkSimplex, scale float64) bool {
	eps := 1e-12 * scale
	for i := 0; i < s.n; i++ {
		p.v[i] = s.v[i].p
	}
	p.nv = s.n
	if p.nv == 0 {
		p.v[0] = diffSupport(a, b, mgl64.Vec3{0, 0, 1})
		p.nv = 1
	}
	if p.nv == 1 {
		for _, d := range [...]mgl64.Vec3{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
			if w := diffSupport(a, b, d); w.Sub(p.v[0]).Len() > eps {
				p.v[1], p.nv = w, 2
				break
			}
		}
		if p.nv < 2 {
			return false
		}
	}
	if p.nv == 2 {
		u := p.v[1].Sub(p.v[0])
		t, _ := tangentPair(u.Normalize())
		for _, d := range [...]mgl64.Vec3{t, t.Mul(-1), u.Cross(t), t.Cross(u)} {
			w := diffSupport(a, b, d)
			if w.Sub(p.v[0]).Cross(u).Len() > eps*u.Len() {
				p.v[2], p.nv = w, 3
				break
			}
		}
		if p.nv < 3 {
			return false
		}
	}
	if p.nv == 3 {
		m := p.v[1].Sub(p.v[0]).Cross(p.v[2].Sub(p.v[0]))
		l := m.Len()
		if !(l > 0) {
			return false
		}
		m = m.Mul(1 / l)
		w := diffSupport(a, b, m)
		if w.Sub(p.v[0]).Dot(m) <= eps {
			w = diffSupport(a, b, m.Mul(-1))
			if w.Sub(p.v[0]).Dot(m) >= -eps {
				return false
			}
		}
		p.v[3], p.nv = w, 4
	}
	p.in = p.v[0].Add(p.v[1]).Add(p.v[2]).Add(p.v[3]).Mul(0.25)
	p.nf = 0
	p.addFace(0, 1, 2)
	p.addFace(0, 3, 1)
	p.addFace(0, 2, 3)
	p.addFace(1, 3, 2)
	return true
}

// addFace appends the triangle (i, j, k), wound and with its normal
// pointing away from the interior point.
func (p *epaPolytope) addFace(i, j, k uint8) {
	a := p.v[i]
	n := p.v[j].Sub(a).Cross(p.v[k].Sub(a))
	l := n.Len()
	if !(l > 0) {
		n = a.Sub(p.in)
		l = n.Len()
		if !(l > 0) {
			n, l = mgl64.Vec3{0, 0, 1}, 1
		}
	}
	n = n.Mul(1 / l)
	if n.Dot(a.Sub(p.in)) < 0 {
		n = n.Mul(-1)
		j, k = k, j
	}
	p.f[p.nf] = epaFace{v: [3]uint8{i, j, k}, n: n, d: n.Dot(a)}
	p.nf++
}

// addEdge records the directed edge (i, j) of a face being removed: it
// cancels against (j, i) of a neighbour also being removed, so what is left
// when all visible faces are gone is the horizon. It reports false when the
// list is full.
func (p *epaPolytope) addEdge(i, j uint8) bool {
	for k := 0; k < p.ne; k++ {
		if p.edges[k] == [2]uint8{j, i} {
			p.ne--
			p.edges[k] = p.edges[p.ne]
			return true
		}
	}
	if p.ne == epaMaxEdges {
		return false
	}
	p.edges[p.ne] = [2]uint8{i, j}
	p.ne++
	return true
}

// expand runs EPA (van den Bergen 2001): it repeatedly takes the face
// nearest the origin, adds the support point of a − b along its normal and
// replaces the faces that point sees by a fan from it, until the support
// point lies within epaRelTol·scale of the face or the polytope is full. It
// returns the nearest face's normal: an approximate direction, from a
// towards b, of the smallest translation that separates the shapes.
func (p *epaPolytope) expand(a, b *convexShape, scale float64) mgl64.Vec3 {
	return p.expandTo(a, b, epaRelTol*scale)
}

// expandTo is expand with its tolerance tol (m) given.
func (p *epaPolytope) expandTo(a, b *convexShape, tol float64) mgl64.Vec3 {
	for {
		bi := 0
		for i := 1; i < p.nf; i++ {
			if p.f[i].d < p.f[bi].d {
				bi = i
			}
		}
		best := p.f[bi]
		w := diffSupport(a, b, best.n)
		if !(w.Dot(best.n)-best.d > tol) || p.nv == epaMaxVerts {
			return best.n
		}
		vi := uint8(p.nv)
		p.v[vi] = w
		p.nv++
		p.ne = 0
		for i := 0; i < p.nf; {
			f := p.f[i]
			if i == bi || f.n.Dot(w.Sub(p.v[f.v[0]])) > 0 {
				if !p.addEdge(f.v[0], f.v[1]) || !p.addEdge(f.v[1], f.v[2]) || !p.addEdge(f.v[2], f.v[0]) {
					return best.n
				}
				p.nf--
				p.f[i] = p.f[p.nf]
				switch bi {
				case i:
					bi = -1
				case p.nf:
					bi = i
				}
				continue
			}
			i++
		}
		if p.nf+p.ne > epaMaxFaces {
			return best.n
		}
		for k := 0; k < p.ne; k++ {
			p.addFace(p.edges[k][0], p.edges[k][1], vi)
		}
	}
}

package cpuref

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// convexShape is an ellipsoid or a box in a working frame, described by its
// support mapping: an ellipsoid centred at c with Gram matrix g
// (R·diag(s²)·Rᵀ), or a box centred at c with half-extents h along the
// working axes.
type convexShape struct {
	ellipsoid bool
	c         mgl64.Vec3
	g         mgl64.Mat3
	h         mgl64.Vec3
}

// support returns a point of the shape farthest along d: c + Gd/√(dᵀGd) for
// an ellipsoid, c + (±h_i, sign of d_i, + for 0) for a box.
func (s *convexShape) support(d mgl64.Vec3) mgl64.Vec3 {
	if s.ellipsoid {
		gd := s.g.Mul3x1(d)
		l := d.Dot(gd)
		if !(l > 0) {
			return s.c
		}
		return s.c.Add(gd.Mul(1 / math.Sqrt(l)))
	}
	p := s.h
	for i := range 3 {
		if d[i] < 0 {
			p[i] = -p[i]
		}
	}
	return s.c.Add(p)
}

// diffSupport returns the support point of the Minkowski difference a − b
// along d: a's support along d minus b's along −d.
func diffSupport(a, b *convexShape, d mgl64.Vec3) mgl64.Vec3 {
	return a.support(d).Sub(b.support(d.Mul(-1)))
}

// firstNormal returns an approximate unit normal n from a towards b that
// minimises the support function of a − b over unit vectors, for Newton's
// method to polish: GJK's closest point v of a − b gives n = −v/‖v‖ when the
// shapes are apart, EPA's nearest face of a − b when they overlap. beyond
// reports that GJK proved the gap to be at least env, so there is no
// contact. scale is the size of the shapes (m), for tolerances.
func firstNormal(a, b *convexShape, env, scale float64) (n mgl64.Vec3, beyond bool) {
	var s gjkSimplex
	v, overlap, beyond := gjkDistance(a, b, env, scale, &s)
	if beyond {
		return n, true
	}
	if !overlap {
		return v.Mul(-1 / v.Len()), false
	}
	var p epaPolytope
	if p.init(a, b, &s, scale) {
		return p.expand(a, b, scale), false
	}
	n = b.c.Sub(a.c)
	if l := n.Len(); l > 0 {
		return n.Mul(1 / l), false
	}
	return mgl64.Vec3{0, 0, 1}, false
}

const (
	// gjkMaxIter bounds GJK's iterations; it converges in far fewer to
	// gjkRelTol.
	gjkMaxIter = 64
	// gjkRelTol stops GJK when its upper and lower bounds on the distance
	// agree to this fraction; Newton's method then polishes the normal.
	gjkRelTol = 1e-7
	// gjkTouchTol: below gjkTouchTol·scale, GJK's closest point is too short
	// to give a direction and the shapes count as touching (overlap path).
	gjkTouchTol = 1e-9
)

// gjkSimplex holds up to 4 points of a Minkowski difference.
type gjkSimplex struct {
	p [4]mgl64.Vec3
	n int
}

// gjkDistance runs GJK (Gilbert, Johnson and Keerthi 1988) on a − b from
// the point ca − cb: v is the point of a simplex in a − b closest to the
// origin, w the support point along −v, and the distance lies between
// v·w/‖v‖ and ‖v‖. It returns v when ‖v‖ − v·w/‖v‖ ≤ gjkRelTol·‖v‖ or no
// step shortens v; beyond when v·w/‖v‖ ≥ env; overlap when the simplex
// encloses the origin or v shrinks below gjkTouchTol·scale (s then holds
// the simplex).
func gjkDistance(a, b *convexShape, env, scale float64, s *gjkSimplex) (v mgl64.Vec3, overlap, beyond bool) {
	v = a.c.Sub(b.c)
	if v.Dot(v) == 0 {
		return v, true, false
	}
	s.n = 0
	for it := range gjkMaxIter {
		w := diffSupport(a, b, v.Mul(-1))
		vv, vw := v.Dot(v), v.Dot(w)
		if vw > 0 && vw >= env*math.Sqrt(vv) {
			return v, false, true
		}
		if vv-vw <= gjkRelTol*vv {
			return v, false, false
		}
		for i := 0; i < s.n; i++ {
			if s.p[i] == w {
				return v, false, false
			}
		}
		s.p[s.n] = w
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
			return v, false, false
		}
		v = nv
	}
	return v, false, false
}

// closest returns the point of the simplex's convex hull closest to the
// origin and shrinks the simplex to the vertices of the smallest face that
// holds it; a tetrahedron that encloses the origin is kept whole and the
// origin returned.
func (s *gjkSimplex) closest() mgl64.Vec3 {
	switch s.n {
	case 2:
		return s.closestSegment()
	case 3:
		return s.closestTriangle()
	case 4:
		return s.closestTetrahedron()
	}
	return s.p[0]
}

// closestSegment is closest for a segment.
func (s *gjkSimplex) closestSegment() mgl64.Vec3 {
	a, b := s.p[0], s.p[1]
	ab := b.Sub(a)
	t := -a.Dot(ab)
	if t <= 0 {
		s.n = 1
		return a
	}
	den := ab.Dot(ab)
	if t >= den {
		s.p[0], s.n = b, 1
		return b
	}
	return a.Add(ab.Mul(t / den))
}

// closestTriangle is closest for a triangle, by its Voronoi regions
// (Ericson, Real-Time Collision Detection, 5.1.5, with the query point at
// the origin). A degenerate triangle falls back to its best edge.
func (s *gjkSimplex) closestTriangle() mgl64.Vec3 {
	a, b, c := s.p[0], s.p[1], s.p[2]
	ab, ac := b.Sub(a), c.Sub(a)
	d1, d2 := -ab.Dot(a), -ac.Dot(a)
	if d1 <= 0 && d2 <= 0 {
		s.n = 1
		return a
	}
	d3, d4 := -ab.Dot(b), -ac.Dot(b)
	if d3 >= 0 && d4 <= d3 {
		s.p[0], s.n = b, 1
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		s.n = 2
		return a.Add(ab.Mul(d1 / (d1 - d3)))
	}
	d5, d6 := -ab.Dot(c), -ac.Dot(c)
	if d6 >= 0 && d5 <= d6 {
		s.p[0], s.n = c, 1
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		s.p[1], s.n = c, 2
		return a.Add(ac.Mul(d2 / (d2 - d6)))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		s.p[0], s.p[1], s.n = b, c, 2
		return b.Add(c.Sub(b).Mul((d4 - d3) / ((d4 - d3) + (d5 - d6))))
	}
	den := va + vb + vc
	if !(den > 0) {
		return s.bestEdge()
	}
	return a.Add(ab.Mul(vb / den)).Add(ac.Mul(vc / den))
}

// bestEdge shrinks a degenerate triangle to whichever of its edges comes
// closest to the origin and returns that closest point.
func (s *gjkSimplex) bestEdge() mgl64.Vec3 {
	var best gjkSimplex
	var bestP mgl64.Vec3
	bestD := math.Inf(1)
	for k := range 3 {
		e := gjkSimplex{p: [4]mgl64.Vec3{s.p[k], s.p[(k+1)%3]}, n: 2}
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
		a, b, c, d := s.p[f[0]], s.p[f[1]], s.p[f[2]], s.p[f[3]]
		nrm := b.Sub(a).Cross(c.Sub(a))
		so, sd := -a.Dot(nrm), d.Sub(a).Dot(nrm)
		if so*sd < 0 || sd == 0 {
			t := gjkSimplex{p: [4]mgl64.Vec3{a, b, c}, n: 3}
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
	// normal lies within epaRelTol·scale of that face; Newton's method then
	// polishes the normal.
	epaRelTol = 1e-7
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

// init makes a tetrahedron from GJK's simplex s, adding support points of
// a − b along directions normal to it as needed. It reports false when
// a − b is too flat to hold a tetrahedron.
func (p *epaPolytope) init(a, b *convexShape, s *gjkSimplex, scale float64) bool {
	eps := 1e-12 * scale
	p.nv = 0
	for i := 0; i < s.n; i++ {
		p.v[i] = s.p[i]
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
	tol := epaRelTol * scale
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

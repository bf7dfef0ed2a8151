package geom

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
)

// maxCoord bounds the magnitude of an input coordinate (m). Within it every
// product of three coordinate differences stays finite, so the orientation
// filter cannot overflow; no physical scene comes near it.
const maxCoord = 1e100

// Hull is a convex polyhedron: the convex hull of a set of points.
type Hull struct {
	// Verts are the hull's vertices (m): only the extreme points; interior,
	// duplicate and (within the tolerance of NewHull) coplanar or collinear
	// input points are dropped.
	Verts []mgl64.Vec3
	// Faces are the hull's planar faces, coplanar triangles merged into one
	// convex polygon each.
	Faces []Face

	// tol is the construction tolerance (m), kept for the tests.
	tol float64
}

// Face is one planar face of a Hull.
type Face struct {
	// Verts are indices into Hull.Verts, counter-clockwise seen from
	// outside (so that Normal follows the right-hand rule).
	Verts []int32
	// Normal is the unit outward normal.
	Normal mgl64.Vec3
	// Offset is the plane's offset (m): Normal·x = Offset for x on the face
	// (within the hull's tolerance, see NewHull), Normal·x ≤ Offset for x
	// in the hull (up to the rounding of Normal).
	Offset float64
}

var axisName = [3]byte{'x', 'y', 'z'}

// NewHull returns the convex hull of points (m).
//
// The method is Quickhull (Barber, Dobkin & Huhdanpaa 1996: outside sets,
// the farthest outside point of a face inserted next) on a triangulated
// surface whose visibility test is the exact orientation predicate (Shewchuk's floating-point filter with
// an exact rational fallback), so the triangulated hull is exactly convex,
// closed and contains every input point whatever the rounding, and no
// tolerance decides its topology. A point exactly on the current hull is not
// inserted.
//
// A tolerance enters only afterwards, to merge coplanar triangles into
// polygons and to reject flat inputs: tol = 1e-9·D + 2⁻⁵⁰·M, with D the
// diagonal of the points' bounding box and M their largest coordinate
// magnitude. The first term makes the merge scale-invariant and well above
// the rounding of a plane fitted to points a distance D apart (about
// 1e-16·D) yet far below any intended feature; the second covers the
// rounding of the coordinates themselves when the points are far from the
// origin. Adjacent triangles whose vertices all lie within tol of the plane
// of the largest triangle of their group are merged into one face, whose
// loop is its boundary; vertices left inside a merged face, and those left
// on a straight edge between two faces, are dropped. A face's plane is
// that of its largest triangle, an exact face of the triangulated hull, so
// every input point is inside it up to the rounding of its unit normal, and
// the face's vertices are within tol of it; the faces are convex within
// tol.
//
// It returns an error, never panics, for fewer than 4 points, a non-finite
// coordinate or one beyond ±1e100 m (naming the point and coordinate), and
// for points that are all coincident, collinear or coplanar within tol.
func NewHull(points []mgl64.Vec3) (*Hull, error) {
	if len(points) < 4 {
		return nil, fmt.Errorf("geom: convex hull needs at least 4 points, got %d", len(points))
	}
	lo := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := mgl64.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	var big float64
	for i, p := range points {
		for k, x := range p {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("geom: convex hull: point %d: %c coordinate is %v (not finite)", i, axisName[k], x)
			}
			if math.Abs(x) > maxCoord {
				return nil, fmt.Errorf("geom: convex hull: point %d: %c coordinate %g m is beyond ±%g m", i, axisName[k], x, maxCoord)
			}
			lo[k] = math.Min(lo[k], x)
			hi[k] = math.Max(hi[k], x)
			big = math.Max(big, math.Abs(x))
		}
	}
	diag := hi.Sub(lo).Len()
	tol := 1e-9*diag + 0x1p-50*big
	if diag <= 4*0x1p-50*big {
		return nil, fmt.Errorf("geom: convex hull: all %d points coincide (within %.3g m) at (%g, %g, %g): no volume",
			len(points), diag, points[0][0], points[0][1], points[0][2])
	}

	// Initial tetrahedron: the extreme pair along the widest axis, the point
	// farthest from their line, the point farthest from their plane.
	ax := 0
	for k := 1; k < 3; k++ {
		if hi[k]-lo[k] > hi[ax]-lo[ax] {
			ax = k
		}
	}
	i0, i1 := 0, 0
	for i, p := range points {
		if p[ax] < points[i0][ax] {
			i0 = i
		}
		if p[ax] > points[i1][ax] {
			i1 = i
		}
	}
	u := points[i1].Sub(points[i0]).Normalize()
	i2, d2 := -1, 0.0
	for i, p := range points {
		if d := p.Sub(points[i0]).Cross(u).Len(); d > d2 {
			i2, d2 = i, d
		}
	}
	if d2 <= tol {
		return nil, fmt.Errorf("geom: convex hull: all %d points are collinear (within %.3g m) on the line through points %d and %d: no volume",
			len(points), tol, i0, i1)
	}
	n := points[i1].Sub(points[i0]).Cross(points[i2].Sub(points[i0])).Normalize()
	i3, d3 := -1, 0.0
	for i, p := range points {
		if d := math.Abs(p.Sub(points[i0]).Dot(n)); d > d3 {
			i3, d3 = i, d
		}
	}
	if d3 <= tol {
		return nil, fmt.Errorf("geom: convex hull: all %d points are coplanar (within %.3g m) in the plane through points %d, %d and %d: no volume",
			len(points), tol, i0, i1, i2)
	}

	b := &hullBuilder{pts: points, edges: make(map[uint64]int32)}
	tet := [4]int32{int32(i0), int32(i1), int32(i2), int32(i3)}
	for f := range 4 {
		// The face opposite tet[f], oriented so tet[f] lies below it.
		t := [3]int32{tet[(f+1)%4], tet[(f+2)%4], tet[(f+3)%4]}
		if orient(points[t[0]], points[t[1]], points[t[2]], points[tet[f]]) > 0 {
			t[1], t[2] = t[2], t[1]
		}
		b.add(t)
	}
	// Outside sets: each other point goes to the first face it sees
	// strictly; a point that sees none is inside or on the tetrahedron.
	for i := range points {
		if i == i0 || i == i1 || i == i2 || i == i3 {
			continue
		}
		for f := range 4 {
			if b.sees(f, int32(i)) {
				b.conf[f] = append(b.conf[f], int32(i))
				break
			}
		}
	}
	// Quickhull: take the faces in creation order (new faces are appended,
	// and outside points only ever move to new faces), and for each live
	// face with outside points insert the farthest of them.
	for f := 0; f < len(b.tris); f++ {
		if !b.alive[f] || len(b.conf[f]) == 0 {
			continue
		}
		t := b.tris[f]
		n := points[t[1]].Sub(points[t[0]]).Cross(points[t[2]].Sub(points[t[0]]))
		best, bd := b.conf[f][0], math.Inf(-1)
		for _, q := range b.conf[f] {
			if d := n.Dot(points[q].Sub(points[t[0]])); d > bd {
				best, bd = q, d
			}
		}
		b.insert(best, int32(f))
	}

	h := b.merge(tol)
	if err := h.check(); err != nil {
		// The merged faces failed the topological check (not expected):
		// fall back on the exact triangulated hull, which is always valid.
		h = b.triangles(tol)
		if err2 := h.check(); err2 != nil {
			return nil, fmt.Errorf("geom: convex hull: internal error: %v (merged faces: %v)", err2, err)
		}
	}
	return h, nil
}

// hullBuilder holds the triangulated hull during construction.
type hullBuilder struct {
	pts   []mgl64.Vec3
	tris  [][3]int32
	alive []bool
	// conf holds each triangle's outside set: points that see it strictly
	// and are yet to be inserted.
	conf [][]int32
	// edges maps the directed edge a→b (key a<<32|b) to the live triangle
	// that has it; the triangle across a→b is edges[b→a].
	edges map[uint64]int32
}

func edgeKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func (b *hullBuilder) add(t [3]int32) {
	f := int32(len(b.tris))
	b.tris = append(b.tris, t)
	b.alive = append(b.alive, true)
	b.conf = append(b.conf, nil)
	for k := range 3 {
		b.edges[edgeKey(t[k], t[(k+1)%3])] = f
	}
}

// sees reports whether point i is strictly above triangle f (exactly).
func (b *hullBuilder) sees(f int, i int32) bool {
	t := b.tris[f]
	return orient(b.pts[t[0]], b.pts[t[1]], b.pts[t[2]], b.pts[i]) > 0
}

// insert adds point i, which sees triangle f0: it removes the triangles
// that see it strictly (a connected set, found from f0 across edges),
// joins i to their horizon, and moves the outside points of the removed
// triangles to the first new triangle each sees strictly. A point that sees
// none of the new triangles is inside or on the new hull and is dropped:
// the segment from such a point to the interior of the removed triangle it
// saw leaves the new hull through a new triangle, which it would see
// (Barber, Dobkin & Huhdanpaa 1996).
func (b *hullBuilder) insert(i, f0 int32) {
	visible := map[int32]bool{f0: true}
	vis := []int32{f0}
	var horizon [][2]int32
	for q := 0; q < len(vis); q++ {
		t := b.tris[vis[q]]
		for k := range 3 {
			a, c := t[k], t[(k+1)%3]
			g := b.edges[edgeKey(c, a)]
			if visible[g] {
				continue
			}
			if b.sees(int(g), i) {
				visible[g] = true
				vis = append(vis, g)
			} else {
				horizon = append(horizon, [2]int32{a, c})
			}
		}
	}
	// A face found visible after its edge went to the horizon: drop the
	// horizon edges whose far side turned out visible.
	h := horizon[:0]
	for _, e := range horizon {
		if !visible[b.edges[edgeKey(e[1], e[0])]] {
			h = append(h, e)
		}
	}
	horizon = h
	var orphans []int32
	for _, f := range vis {
		b.alive[f] = false
		t := b.tris[f]
		for k := range 3 {
			delete(b.edges, edgeKey(t[k], t[(k+1)%3]))
		}
		for _, q := range b.conf[f] {
			if q != i {
				orphans = append(orphans, q)
			}
		}
		b.conf[f] = nil
	}
	first := len(b.tris)
	for _, e := range horizon {
		b.add([3]int32{e[0], e[1], i})
	}
	for _, q := range orphans {
		for f := first; f < len(b.tris); f++ {
			if b.sees(f, q) {
				b.conf[f] = append(b.conf[f], q)
				break
			}
		}
	}
}

// live returns the live triangles.
func (b *hullBuilder) live() [][3]int32 {
	var out [][3]int32
	for f, t := range b.tris {
		if b.alive[f] {
			out = append(out, t)
		}
	}
	return out
}

// triangles returns the triangulated hull, one face per triangle.
func (b *hullBuilder) triangles(tol float64) *Hull {
	var faces []Face
	for _, t := range b.live() {
		n := b.pts[t[1]].Sub(b.pts[t[0]]).Cross(b.pts[t[2]].Sub(b.pts[t[0]])).Normalize()
		faces = append(faces, Face{Verts: t[:], Normal: n, Offset: n.Dot(b.pts[t[0]])})
	}
	return b.finish(faces, tol)
}

// merge groups coplanar triangles (see NewHull) into polygonal faces.
func (b *hullBuilder) merge(tol float64) *Hull {
	tris := b.live()
	idx := make(map[uint64]int, 3*len(tris))
	for f, t := range tris {
		for k := range 3 {
			idx[edgeKey(t[k], t[(k+1)%3])] = f
		}
	}
	across := func(f, k int) int {
		t := tris[f]
		return idx[edgeKey(t[(k+1)%3], t[k])]
	}
	area := make([]float64, len(tris))
	for f, t := range tris {
		area[f] = b.pts[t[1]].Sub(b.pts[t[0]]).Cross(b.pts[t[2]].Sub(b.pts[t[0]])).Len()
	}
	seeds := make([]int, len(tris))
	for f := range seeds {
		seeds[f] = f
	}
	sort.SliceStable(seeds, func(i, j int) bool { return area[seeds[i]] > area[seeds[j]] })
	group := make([]int, len(tris))
	for f := range group {
		group[f] = -1
	}
	var faces []Face
	for _, s := range seeds {
		if group[s] >= 0 {
			continue
		}
		g := len(faces)
		t := tris[s]
		n := b.pts[t[1]].Sub(b.pts[t[0]]).Cross(b.pts[t[2]].Sub(b.pts[t[0]])).Normalize()
		off := n.Dot(b.pts[t[0]])
		members := []int{s}
		group[s] = g
		for q := 0; q < len(members); q++ {
			for k := range 3 {
				nb := across(members[q], k)
				if group[nb] >= 0 {
					continue
				}
				// Same side: a triangle facing away (on a thin solid's
				// other side) never joins, whatever its distance.
				tn := tris[nb]
				ok := b.pts[tn[1]].Sub(b.pts[tn[0]]).Cross(b.pts[tn[2]].Sub(b.pts[tn[0]])).Dot(n) > 0
				for _, v := range tris[nb] {
					if math.Abs(n.Dot(b.pts[v])-off) > tol {
						ok = false
						break
					}
				}
				if ok {
					group[nb] = g
					members = append(members, nb)
				}
			}
		}
		loop := boundaryLoop(tris, members, group, g, across)
		if loop == nil {
			// Not a disk: keep the seed alone.
			for _, m := range members[1:] {
				group[m] = -1
			}
			loop = t[:]
		}
		faces = append(faces, Face{Verts: loop, Normal: n, Offset: off})
	}
	return b.finish(faces, tol)
}

// boundaryLoop returns the boundary of the group g of triangles (members)
// as one counter-clockwise loop, or nil when it is not a single simple loop.
func boundaryLoop(tris [][3]int32, members []int, group []int, g int, across func(f, k int) int) []int32 {
	next := make(map[int32]int32)
	var start int32 = -1
	for _, f := range members {
		t := tris[f]
		for k := range 3 {
			if group[across(f, k)] == g {
				continue
			}
			a, c := t[k], t[(k+1)%3]
			if _, dup := next[a]; dup {
				return nil
			}
			next[a] = c
			if start < 0 || a < start {
				start = a
			}
		}
	}
	loop := []int32{start}
	for v := next[start]; v != start; v = next[v] {
		if len(loop) > len(next) {
			return nil
		}
		loop = append(loop, v)
	}
	if len(loop) != len(next) {
		return nil
	}
	return loop
}

// finish drops the vertices of no face and those on a straight edge (in
// exactly two faces) and renumbers the vertices.
func (b *hullBuilder) finish(faces []Face, tol float64) *Hull {
	count := make(map[int32]int)
	for _, f := range faces {
		for _, v := range f.Verts {
			count[v]++
		}
	}
	for fi := range faces {
		loop := faces[fi].Verts
		// Drop only while the loop keeps at least 3 vertices; a vertex in
		// exactly two faces of a closed convex surface lies on a straight
		// edge between two polygons, and the other face drops it too.
		out := make([]int32, 0, len(loop))
		dropped := 0
		for _, v := range loop {
			if count[v] == 2 && len(loop)-dropped-1 >= 3 {
				dropped++
				continue
			}
			out = append(out, v)
		}
		faces[fi].Verts = out
	}
	remap := make(map[int32]int32)
	h := &Hull{tol: tol}
	for fi := range faces {
		for j, v := range faces[fi].Verts {
			r, ok := remap[v]
			if !ok {
				r = int32(len(h.Verts))
				remap[v] = r
				h.Verts = append(h.Verts, b.pts[v])
			}
			faces[fi].Verts[j] = r
		}
	}
	h.Faces = faces
	return h
}

// check verifies the hull's topology: every face a loop of at least 3
// vertices with a finite unit normal and within 4·tol of its plane, every directed edge in
// exactly one face and its reverse in another, every vertex in a face, and
// Euler's formula V − E + F = 2.
func (h *Hull) check() error {
	if len(h.Faces) < 4 || len(h.Verts) < 4 {
		return fmt.Errorf("%d vertices and %d faces", len(h.Verts), len(h.Faces))
	}
	edges := make(map[uint64]bool)
	used := make([]bool, len(h.Verts))
	for fi, f := range h.Faces {
		if len(f.Verts) < 3 {
			return fmt.Errorf("face %d has %d vertices", fi, len(f.Verts))
		}
		if l := f.Normal.Len(); !(math.Abs(l-1) < 1e-9) {
			return fmt.Errorf("face %d normal has length %g", fi, l)
		}
		for j, v := range f.Verts {
			if v < 0 || int(v) >= len(h.Verts) {
				return fmt.Errorf("face %d vertex %d out of range", fi, v)
			}
			if d := f.Normal.Dot(h.Verts[v]) - f.Offset; !(math.Abs(d) <= 4*h.tol) {
				return fmt.Errorf("face %d vertex %d is %g m off its plane", fi, v, d)
			}
			used[v] = true
			k := edgeKey(v, f.Verts[(j+1)%len(f.Verts)])
			if edges[k] {
				return fmt.Errorf("directed edge %d→%d in two faces", v, f.Verts[(j+1)%len(f.Verts)])
			}
			edges[k] = true
		}
	}
	for k := range edges {
		if !edges[k<<32|k>>32] {
			return fmt.Errorf("edge %d→%d has no opposite", k>>32, uint32(k))
		}
	}
	for v, u := range used {
		if !u {
			return fmt.Errorf("vertex %d in no face", v)
		}
	}
	if chi := len(h.Verts) - len(edges)/2 + len(h.Faces); chi != 2 {
		return fmt.Errorf("Euler characteristic V − E + F = %d, not 2", chi)
	}
	return nil
}

// Support returns the index and position of the vertex farthest along d
// (the largest d·v; the first such vertex on ties): the support point used
// by GJK and EPA.
func (h *Hull) Support(d mgl64.Vec3) (int, mgl64.Vec3) {
	best, bd := 0, math.Inf(-1)
	for i, v := range h.Verts {
		if s := d.Dot(v); s > bd {
			best, bd = i, s
		}
	}
	return best, h.Verts[best]
}

// Transformed returns the hull re-expressed in the frame with origin c (m)
// and orientation q (from that frame to the current one): each vertex p
// becomes q⁻¹·(p − c), each normal q⁻¹·n and each offset Offset − n·c. The
// topology is unchanged. q is normalized first; it must not be zero.
func (h *Hull) Transformed(c mgl64.Vec3, q mgl64.Quat) *Hull {
	qi := q.Normalize().Conjugate()
	out := &Hull{Verts: make([]mgl64.Vec3, len(h.Verts)), Faces: make([]Face, len(h.Faces)), tol: h.tol}
	for i, v := range h.Verts {
		out.Verts[i] = qi.Rotate(v.Sub(c))
	}
	for i, f := range h.Faces {
		out.Faces[i] = Face{
			Verts:  append([]int32(nil), f.Verts...),
			Normal: qi.Rotate(f.Normal),
			Offset: f.Offset - f.Normal.Dot(c),
		}
	}
	return out
}

// Radius returns the largest distance of a vertex from the origin (m);
// 0 for a nil hull.
func (h *Hull) Radius() float64 {
	r := 0.0
	if h == nil {
		return r
	}
	for _, v := range h.Verts {
		r = math.Max(r, v.Len())
	}
	return r
}

// BoxCorners returns the 8 corners (±h0, ±h1, ±h2) of the box with
// half-extents h about the origin (m): corner k has −h_i where bit i of k
// is set.
func BoxCorners(h mgl64.Vec3) []mgl64.Vec3 {
	pts := make([]mgl64.Vec3, 8)
	for k := range pts {
		p := h
		for i := range 3 {
			if k&(1<<i) != 0 {
				p[i] = -p[i]
			}
		}
		pts[k] = p
	}
	return pts
}

package collide

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// partSet holds the collision shapes ("parts") of a model with compound
// bodies. Every body has one or more parts, numbered in body order: a
// compound's parts in its order, then the next body's. The broadphase
// runs on parts, the narrowphase on pairs of parts of different bodies,
// and contacts are reported between bodies. A model without compounds has
// no partSet: its bodies are its parts, and Collide runs as it did before
// compounds existed, operation for operation.
type partSet struct {
	off   []int32        // body i's parts are off[i] to off[i+1]−1
	body  []int32        // part → its body
	index []int32        // part → its index among its body's parts (0 for a body of one shape)
	shape []engine.Shape // part → its shape (a body's own shape when it is not a compound)
	pos   []mgl64.Vec3   // part → its centre in its body's frame (m)
	rot   []mgl64.Quat   // part → the rotation from its frame to its body's
	fixed []bool         // part → its body is fixed (for the grid: fixed pairs never collide)
	comp  []bool         // body → it has parts: a compound or a mesh
	mesh  []bool         // body → it is a mesh (its parts its triangles)
}

// subBits places a contact's parts in its index within its body pair:
// Sub = index_A<<partShiftA | index_B<<partShiftB | k, k the contact's
// index among those of its pair of parts (below 1<<partShiftB), so that
// Sub increases along a body pair's contacts and the contacts of
// different pairs of parts never share a warm-start key. With
// engine.MaxParts = 1024 = 1<<10, index_A<<18 stays below 1<<28. A body
// pair of two single shapes has Sub = k, as before compounds existed.
const (
	partShiftB = 8
	partShiftA = partShiftB + 10
)

// newPartSet lists the parts of the model's bodies, or returns nil when no
// body is a compound.
func newPartSet(m *engine.Model) *partSet {
	if !slices.ContainsFunc(m.Bodies, func(b engine.Body) bool { return bodyParts(b.Shape) != nil }) {
		return nil
	}
	n := len(m.Bodies)
	ps := &partSet{off: make([]int32, n+1), comp: make([]bool, n), mesh: make([]bool, n)}
	for i := range m.Bodies {
		bd := &m.Bodies[i]
		if parts := bodyParts(bd.Shape); parts == nil {
			ps.add(i, 0, bd.Shape, mgl64.Vec3{}, mgl64.QuatIdent(), bd.Static())
		} else {
			ps.comp[i] = true
			ps.mesh[i] = bd.Shape.Kind == engine.Mesh
			for k, p := range parts {
				ps.add(i, k, p.Shape, p.Pos, p.Rot, bd.Static())
			}
		}
		ps.off[i+1] = int32(len(ps.body))
	}
	return ps
}

// bodyParts returns the parts of a compound or a mesh (its triangles),
// nil for a body of one shape.
func bodyParts(s engine.Shape) []engine.Part {
	switch {
	case s.Kind == engine.Compound && s.Compound != nil:
		return s.Compound.Parts
	case s.Kind == engine.Mesh && s.Mesh != nil:
		return s.Mesh.Parts
	}
	return nil
}

func (ps *partSet) add(body, index int, s engine.Shape, pos mgl64.Vec3, rot mgl64.Quat, fixed bool) {
	ps.body = append(ps.body, int32(body))
	ps.index = append(ps.index, int32(index))
	ps.shape = append(ps.shape, s)
	ps.pos = append(ps.pos, pos)
	ps.rot = append(ps.rot, rot)
	ps.fixed = append(ps.fixed, fixed)
}

// pose returns part e's world pose, its body being at position p and
// orientation q: the body's pose itself for a body of one shape (no
// arithmetic, so such a body collides exactly as without compounds), else
// the body's pose composed with the part's, (p + q·pos, q ⊗ rot).
func (ps *partSet) pose(e int, p mgl64.Vec3, q mgl64.Quat) Pose {
	if !ps.comp[ps.body[e]] {
		return Pose{p, q}
	}
	return Pose{p.Add(q.Rotate(ps.pos[e])), q.Mul(ps.rot[e])}
}

// partBoxes sets the AABB (or plane) of every part at the bodies' poses,
// inflated by env plus its body's speculative margin.
func (c *Collider) partBoxes(pos, rot []float64, env float64) {
	ps := c.parts
	for e := range ps.body {
		i := int(ps.body[e])
		pp := ps.pose(e, vec3At(pos, i), quatAt(rot, i))
		box, ok := ShapeAABB(ps.shape[e], pp.Pos, pp.Rot, env+c.margin[i])
		if !ok {
			box = PlaneBox(pp.Pos, pp.Rot)
		}
		c.boxes[e], c.bounded[e] = box, ok
	}
}

// bodyOrder turns the grid's candidate pairs of parts (sorted by part
// indices) into the narrowphase's list: pairs of parts of one body and of
// jointed bodies dropped, the rest stably sorted by their bodies, so that
// a body pair's contacts come together, in (part of A, part of B) order.
func (c *Collider) bodyOrder(pairs [][2]int32) [][2]int32 {
	body := c.parts.body
	pairs = slices.DeleteFunc(pairs, func(pr [2]int32) bool {
		a, b := body[pr[0]], body[pr[1]]
		if a == b {
			return true
		}
		if len(c.exclude) == 0 {
			return false
		}
		_, found := slices.BinarySearch(c.exclude, uint64(a)<<32|uint64(b))
		return found
	})
	slices.SortStableFunc(pairs, func(x, y [2]int32) int {
		if d := int(body[x[0]]) - int(body[y[0]]); d != 0 {
			return d
		}
		return int(body[x[1]]) - int(body[y[1]])
	})
	return pairs
}

// partContacts appends to con the contacts of parts e and f (of bodies
// i < j) as PairContacts does for bodies of one shape: Narrow on the parts'
// world poses, the points turned into the bodies' frames, the bodies'
// materials combined.
func (c *Collider) partContacts(e, f int, pos, rot []float64, env float64, con *engine.Contacts, cps []ContactPoint) (int, []ContactPoint, error) {
	ps := c.parts
	i, j := int(ps.body[e]), int(ps.body[f])
	pi, qi := vec3At(pos, i), quatAt(rot, i)
	pj, qj := vec3At(pos, j), quatAt(rot, j)
	cps, err := Narrow(ps.shape[e], ps.pose(e, pi, qi), ps.shape[f], ps.pose(f, pj, qj), env, cps[:0])
	if err != nil {
		return 0, cps, fmt.Errorf("collide: bodies %d (part %d) and %d (part %d): %w", i, ps.index[e], j, ps.index[f], err)
	}
	limit := 1 << partShiftB
	if ps.mesh[i] || ps.mesh[j] {
		limit = 1 << meshShiftP
	}
	if len(cps) >= limit {
		return 0, cps, fmt.Errorf("collide: bodies %d (part %d) and %d (part %d): %d contacts, more than %d", i, ps.index[e], j, ps.index[f], len(cps), limit-1)
	}
	if err := c.appendContacts(con, i, j, (*[3]float64)(pos[3*i:]), (*[3]float64)(pos[3*j:]), (*[4]float64)(rot[4*i:]), (*[4]float64)(rot[4*j:]), cps); err != nil {
		return 0, cps, fmt.Errorf("collide: bodies %d (part %d) and %d (part %d): %w", i, ps.index[e], j, ps.index[f], err)
	}
	return len(cps), cps, nil
}

// sub is the index within its body pair of the k-th contact of parts e
// and f (see partShiftA). With a mesh (at most one of the two bodies: the
// other moves), the triangle's index t (below engine.MaxMeshTriangles =
// 1<<16) and the other part's p (below engine.MaxParts) make
// 1<<30 | t<<meshShiftT | p<<meshShiftP | k, k below 1<<meshShiftP:
// above every compound pair's Sub, so the two never share a key.
func (ps *partSet) sub(e, f, k int) int32 {
	switch {
	case ps.mesh[ps.body[e]]:
		return 1<<30 | ps.index[e]<<meshShiftT | ps.index[f]<<meshShiftP | int32(k)
	case ps.mesh[ps.body[f]]:
		return 1<<30 | ps.index[f]<<meshShiftT | ps.index[e]<<meshShiftP | int32(k)
	}
	return ps.index[e]<<partShiftA | ps.index[f]<<partShiftB | int32(k)
}

// The Sub layout of mesh contacts (partSet.sub): 4 bits for the contact
// within its pair of parts (polyManifold's at most 8), 10 for the other
// body's part, 16 for the triangle.
const (
	meshShiftP = 4
	meshShiftT = meshShiftP + 10
)

// compoundAABB is the union of the parts' AABBs of compound or mesh s at
// pos and rot, each inflated by margin.
func compoundAABB(s engine.Shape, pos mgl64.Vec3, rot mgl64.Quat, margin float64) (AABB, bool) {
	inf := math.Inf(1)
	box := AABB{Min: mgl64.Vec3{inf, inf, inf}, Max: mgl64.Vec3{-inf, -inf, -inf}}
	parts := bodyParts(s)
	if len(parts) == 0 {
		return AABB{}, false
	}
	for _, p := range parts {
		b, ok := ShapeAABB(p.Shape, pos.Add(rot.Rotate(p.Pos)), rot.Mul(p.Rot), margin)
		if !ok {
			return AABB{}, false
		}
		for k := range 3 {
			box.Min[k] = math.Min(box.Min[k], b.Min[k])
			box.Max[k] = math.Max(box.Max[k], b.Max[k])
		}
	}
	return box, true
}

package collide

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// AABB is an axis-aligned box in the world frame (m).
type AABB struct{ Min, Max mgl64.Vec3 }

// PlaneBox returns what Grid.Pairs takes in a plane's place among the
// boxes (a plane has none): a point on it, the position pos, as Min, and
// its world outward unit normal, rot's z axis, as Max.
func PlaneBox(pos mgl64.Vec3, rot mgl64.Quat) AABB {
	return AABB{Min: pos, Max: geom.Rotate(rot, mgl64.Vec3{0, 0, 1})}
}

// ShapeAABB returns the world AABB of shape s at position pos (m) and
// orientation rot, inflated by margin (m) on every side. ok is false for a
// plane (unbounded) and for an unknown kind; a compound's box is the union
// of its parts'.
//
// The box is exact: ±r about pos for a sphere; for a box with half-extents h
// the extent along world axis k is Σ_j |R_kj| h_j (the farthest corner); for
// an ellipsoid with semi-axes s it is sqrt(Σ_j (R_kj s_j)²) (the support
// function of the ellipsoid in direction e_k); for a capsule or a cylinder
// of radius r and half-length h, h|R_k2| + r or h|R_k2| + r·√(R_k0² + R_k1²);
// for a convex hull, from the least to the greatest (R·v)_k over its
// vertices v. R is the rotation of rot,
// computed with the factor 2/|rot|², so a quaternion within rounding of unit
// length gives a rotation within rounding; a zero quaternion gives NaN.
func ShapeAABB(s engine.Shape, pos mgl64.Vec3, rot mgl64.Quat, margin float64) (box AABB, ok bool) {
	var e mgl64.Vec3
	switch s.Kind {
	case engine.Sphere:
		r := s.Size[0]
		e = mgl64.Vec3{r, r, r}
	case engine.Box, engine.Ellipsoid:
		r := quatRows(rot)
		for k := range 3 {
			var sum float64
			for j := range 3 {
				v := r[k][j] * s.Size[j]
				if s.Kind == engine.Box {
					sum += math.Abs(v)
				} else {
					sum += v * v
				}
			}
			if s.Kind == engine.Ellipsoid {
				sum = math.Sqrt(sum)
			}
			e[k] = sum
		}
	case engine.Capsule, engine.Cylinder:
		// Along world axis k the axis's ends reach h·|a_k| (a = R_k2, the
		// body z axis); the capsule's ball adds r, the cylinder's rim
		// r·√(1 − a_k²) = r·√(R_k0² + R_k1²).
		r := quatRows(rot)
		rad, h := s.Size[0], s.Size[1]
		for k := range 3 {
			if s.Kind == engine.Capsule {
				e[k] = h*math.Abs(r[k][2]) + rad
			} else {
				e[k] = h*math.Abs(r[k][2]) + rad*math.Sqrt(r[k][0]*r[k][0]+r[k][1]*r[k][1])
			}
		}
	case engine.Convex:
		// Not symmetric about pos: the extremes of R·v over the vertices.
		if s.Hull == nil {
			return AABB{}, false
		}
		r := quatRows(rot)
		lo := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
		hi := lo.Mul(-1)
		for _, v := range s.Hull.Verts {
			for k := range 3 {
				x := r[k][0]*v[0] + r[k][1]*v[1] + r[k][2]*v[2]
				lo[k], hi[k] = math.Min(lo[k], x), math.Max(hi[k], x)
			}
		}
		m := mgl64.Vec3{margin, margin, margin}
		return AABB{Min: pos.Add(lo).Sub(m), Max: pos.Add(hi).Add(m)}, true
	case engine.Compound, engine.Mesh:
		return compoundAABB(s, pos, rot, margin)
	case engine.Triangle:
		// Vertices (0, 0, 0), (a, 0, 0), (b, c, 0) of its frame.
		r := quatRows(rot)
		lo, hi := pos, pos
		for _, v := range [2]mgl64.Vec3{{s.Size[0], 0, 0}, {s.Size[1], s.Size[2], 0}} {
			for k := range 3 {
				x := pos[k] + r[k][0]*v[0] + r[k][1]*v[1]
				lo[k], hi[k] = math.Min(lo[k], x), math.Max(hi[k], x)
			}
		}
		m := mgl64.Vec3{margin, margin, margin}
		return AABB{Min: lo.Sub(m), Max: hi.Add(m)}, true
	default:
		return AABB{}, false
	}
	e = e.Add(mgl64.Vec3{margin, margin, margin})
	return AABB{Min: pos.Sub(e), Max: pos.Add(e)}, true
}

// quatRows returns the rotation matrix of q, row-major: r[k][j] is the world
// k component of body axis j.
func quatRows(q mgl64.Quat) [3][3]float64 {
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	s := 2 / (w*w + x*x + y*y + z*z)
	return [3][3]float64{
		{1 - s*(y*y+z*z), s * (x*y - w*z), s * (x*z + w*y)},
		{s * (x*y + w*z), 1 - s*(x*x+z*z), s * (y*z - w*x)},
		{s * (x*z - w*y), s * (y*z + w*x), 1 - s*(x*x+y*y)},
	}
}

// BigBins is the number of bins above which a box is "big": Grid does not
// bin it but tests it against every other body's box directly, O(n) per big
// body. Container walls and floors (a 4.4 m box against 0.2 m bins spans
// ~10⁴ bins) are big; ordinary bodies, a little larger than the bin size,
// span 1 to 8 bins. A box of at most BigBins bins spans at most BigBins bins
// along each axis, so its bin offsets fit in a byte.
const BigBins = 64

// DefaultMaxEntries is the default cap on the number of (body, bin) entries
// one Grid.Pairs call may bin: 2²⁸ entries take about 3.3 GiB of buffers
// (5 bytes per entry, 8 per slot).
const DefaultMaxEntries = 1 << 28

// maxEntries is the largest cap Grid.MaxEntries can raise the limit to:
// entry indices are int32 and slot numbers uint32.
const maxEntries = 1 << 30

// Grid finds candidate pairs by uniform-grid binning. Its buffers are reused
// between calls: after the first few calls, Pairs makes no heap allocations
// when the sizes do not grow. A Grid is not safe for concurrent use.
//
// Bins are cubes of edge binSize; bin (x, y, z) holds the points p with
// floor(p/binSize) = (x, y, z), coordinates int32. Bins are not stored
// densely: bricks of 4×4×4 bins are hashed into a table of 2^k ≥ E slots
// (fewer than 2E, at least 64) for E bin entries, each brick taking 64
// consecutive slots, so memory follows the number of bodies, not the extent
// of the scene, and neighbouring bins stay close in memory. Bins that hash to
// one slot share it; the pair test below compares bin coordinates, never
// slot numbers, so sharing only costs time.
//
// Pairs runs these stages, each a loop over a fixed range (bodies, slots,
// big bodies or planes) that can be split into independent partitions:
//
//  1. classify: per body, its bin range, or big (more than BigBins bins), or
//     plane;
//  2. count: per binned body and bin of its range, count[slot(bin)]++;
//  3. scan: exclusive prefix sum of the counts gives each slot's first
//     entry;
//  4. scatter: per binned body and bin, write (body, offset of the bin in
//     the body's range) to the slot's next entry: a counting sort by slot;
//  5. body pairs: per binned body a, in each bin c of its range, every entry
//     of c's slot for a body b > a whose box overlaps a's gives the pair
//     (a, b) when c is the pair's owner bin and the entry is b's for c (not
//     for another bin that shares the slot). The owner bin holds the
//     minimum corner of the intersection of the two boxes, max(lo_a, lo_b)
//     per axis; overlapping boxes both contain it (lo_b ≤ hi_a since
//     Min_b ≤ Max_a), and every body has one entry per bin, so each pair
//     comes out once, whatever the entry order within a slot. A body's
//     pairs are sorted by b (a handful), and bodies are taken in order, so
//     the pairs come out sorted; the bodies are cut into parts that a
//     Runner may take in parallel (SetRunner), each into its own buffer,
//     appended in order;
//  6. big pairs: per big body, its box against every other bounded box;
//  7. plane pairs: per plane, every bounded box that reaches its half-space;
//  8. the big and plane pairs (few) are sorted by a radix sort on i<<b | j,
//     b the bit length of the number of bodies, itself passes of count,
//     scan and scatter, before stage 5, which merges each body's into its
//     own. (Stages 6–8 run before 5.)
type Grid struct {
	// MaxEntries caps the number of (body, bin) entries one call may bin;
	// a scene that needs more is refused with an error that suggests a
	// larger bin size. Zero or negative means DefaultMaxEntries; values
	// above 2³⁰ mean 2³⁰.
	MaxEntries int

	ranges  []binRange // per body: its bins; n is zero for planes and big bodies
	big     []int32    // big bodies, ascending
	planes  []int32    // planes, ascending
	start   []int32    // per slot, its first entry; start[len-1] is the number of entries
	cursor  []int32    // per slot, the next entry to write in the scatter stage
	entryID []int32    // per entry, sorted by slot: the body
	entryAt []uint8    // per entry: the bin's offset in the body's range, x + nx(y + ny z)
	cells   []uint32   // scratch: one body's slots, by offset (bodySlots)
	keys    [][2]int32 // pairs found (lower index first): Pairs's out
	extra   [][2]int32 // the big and plane pairs, sorted
	keyTmp  [][2]int32 // the radix sort's second buffer
	keyBits uint       // bit length of the number of bodies

	keep   func(a, b int32) bool // drops the body pairs it is false for (nil: none)
	runner Runner                // runs the body pairs' parts (nil: serially)
	wave   [][][2]int32          // the body pairs of a wave's parts
	wargs  waveArgs              // the operands of the wave's parts
	waveFn func(part, lo, hi int)
}

// waveArgs are the operands of the body pairs' parts (no closure per call).
type waveArgs struct {
	boxes []AABB
	fixed []bool
	shift uint
	first int // the wave's first body
}

// The body pairs are searched in parts of bodyGrain bodies, a wave of
// waveParts parts at a time, each part into its own buffer (reused: about
// 12 pairs of 8 B per body of a dense packing, 100 KB per part, and a
// quarter of that with the Collider's filter).
const bodyGrain = 1024

// SetFilter makes Pairs drop the pairs (a, b), a < b, of two binned bodies
// whose boxes overlap but for which keep(a, b) is false (the Collider drops
// spheres certainly out of reach, most of a packing's pairs, before they
// are stored); big and plane pairs are kept. nil (the default) keeps every
// pair. keep is called from the Runner's goroutines.
func (g *Grid) SetFilter(keep func(a, b int32) bool) { g.keep = keep }

// SetRunner makes Pairs search the body pairs with r; nil (the default)
// searches them on the calling goroutine. The pairs are the same.
func (g *Grid) SetRunner(r Runner) { g.runner = r }

// binRange is the block of bins a box covers: n[k] bins from lo[k] along
// axis k.
type binRange struct {
	lo [3]int32
	n  [3]uint8
}

// binned reports whether the body has entries in the grid.
func (r *binRange) binned() bool { return r.n[0] != 0 }

// bodySlots returns the slots of body i's bins in the order of their
// offsets (x fastest, then y, then z), none for a body that is not binned,
// in g.cells (reused by the next call).
func (g *Grid) bodySlots(i int, shift uint) []uint32 {
	r := &g.ranges[i]
	g.cells = g.cells[:0]
	if !r.binned() {
		return g.cells
	}
	var c [3]int32
	for z := range int32(r.n[2]) {
		c[2] = r.lo[2] + z
		for y := range int32(r.n[1]) {
			c[1] = r.lo[1] + y
			for x := range int32(r.n[0]) {
				c[0] = r.lo[0] + x
				g.cells = append(g.cells, slot(c, shift))
			}
		}
	}
	return g.cells
}

// offset returns the offset within r of bin (x, y, z), which r must
// contain.
func (r *binRange) offset(x, y, z int32) uint8 {
	return uint8(int(x-r.lo[0]) + int(r.n[0])*(int(y-r.lo[1])+int(r.n[1])*int(z-r.lo[2])))
}

// Pairs returns the candidate pairs (i, j), i < j, whose boxes overlap
// (closed intervals), each once, sorted by i then j. The result depends on
// nothing but the input, and not on binSize either.
//
// Bodies with bounded[i] == false are planes, whose boxes hold the plane
// instead (PlaneBox): each plane k is paired with every bounded body whose
// box reaches the plane's half-space, i.e. the box corner deepest along
// −n_k has signed distance ≤ 0 to the plane through boxes[k].Min (m) with
// world outward unit normal n_k = boxes[k].Max. Boxes
// are taken as given: inflate them by the contact margin beforehand. Planes
// are never paired with planes, and pairs of two fixed bodies (fixed[i] &&
// fixed[j]) are never reported.
//
// binSize (m) > 0 is the edge of a cubic bin; about the size of a typical
// body's box is best. out is reused (out[:0]) and returned.
//
// Expected cost is O(n + pairs) for n bodies of similar size, plus O(n) per
// big body and per plane. Errors: slices of different lengths, more than
// 2³¹−1 bodies, a non-positive or non-finite binSize, a non-finite or
// inverted box, a non-finite plane or a zero plane normal, a box more than
// 2³¹ bins from the origin, more than MaxEntries bin entries.
func (g *Grid) Pairs(boxes []AABB, bounded, fixed []bool, binSize float64, out [][2]int32) ([][2]int32, error) {
	out = out[:0]
	if err := checkGridInput(boxes, bounded, fixed, binSize); err != nil {
		return out, err
	}
	entries, err := g.classify(boxes, bounded, 1/binSize)
	if err != nil {
		return out, err
	}
	limit := g.MaxEntries
	if limit <= 0 {
		limit = DefaultMaxEntries
	}
	limit = min(limit, maxEntries)
	if entries > limit {
		return out, fmt.Errorf("collide: grid: %d bin entries exceed the limit of %d; use a larger bin size than %g m", entries, limit, binSize)
	}

	// 2^k ≥ entries slots: at least one per occupied bin, since bins are
	// at most as many as entries, and fewer than two per entry. At least
	// one brick of 64.
	slotBits := max(bits.Len(uint(max(entries, 1)-1)), 6)
	shift := uint(70 - slotBits)
	g.count(1<<slotBits, shift)
	g.scan()
	g.scatter(entries, shift)

	// The big and plane pairs are found and sorted first (few, in their
	// own buffers); the body pairs are then found into out itself, each
	// body's merged with its big and plane pairs, so that no sort or copy
	// of all the pairs is needed.
	g.keyBits = uint(bits.Len(uint(len(boxes))))
	g.keys = g.extra[:0]
	g.bigPairs(boxes, bounded, fixed)
	g.planePairs(boxes, bounded, fixed)
	g.sortKeys()
	g.extra, g.keys = g.keys, nil
	return g.bodyPairs(out, boxes, fixed, shift), nil
}

// checkGridInput reports the first problem with Pairs's arguments.
func checkGridInput(boxes []AABB, bounded, fixed []bool, binSize float64) error {
	n := len(boxes)
	for _, l := range []struct {
		name string
		n    int
	}{{"bounded", len(bounded)}, {"fixed", len(fixed)}} {
		if l.n != n {
			return fmt.Errorf("collide: grid: %d boxes but %d %s entries", n, l.n, l.name)
		}
	}
	if n > math.MaxInt32 {
		return fmt.Errorf("collide: grid: %d bodies exceed the limit of %d", n, math.MaxInt32)
	}
	if !(binSize > 0) || math.IsInf(binSize, 0) {
		return fmt.Errorf("collide: grid: bin size %v m must be positive and finite", binSize)
	}
	for i, b := range boxes {
		if !bounded[i] {
			if !finiteVec3(b.Min) || !finiteVec3(b.Max) {
				return fmt.Errorf("collide: grid: body %d: plane point %v or normal %v is not finite", i, b.Min, b.Max)
			}
			if b.Max == (mgl64.Vec3{}) {
				return fmt.Errorf("collide: grid: body %d: plane normal is zero", i)
			}
			continue
		}
		if !finiteVec3(b.Min) || !finiteVec3(b.Max) {
			return fmt.Errorf("collide: grid: body %d: box %v–%v is not finite", i, b.Min, b.Max)
		}
		for k := range 3 {
			if b.Min[k] > b.Max[k] {
				return fmt.Errorf("collide: grid: body %d: box %v–%v has min > max along axis %d", i, b.Min, b.Max, k)
			}
		}
	}
	return nil
}

func finiteVec3(v mgl64.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// classify fills g.ranges, g.big and g.planes and returns the number of bin
// entries. inv is 1/binSize: floor(x·inv) is monotone in x, which the owner
// bin argument needs, like floor(x/binSize).
func (g *Grid) classify(boxes []AABB, bounded []bool, inv float64) (entries int, err error) {
	g.ranges = resizeBuf(g.ranges, len(boxes))
	g.big, g.planes = g.big[:0], g.planes[:0]
	for i, b := range boxes {
		g.ranges[i] = binRange{}
		if !bounded[i] {
			g.planes = append(g.planes, int32(i))
			continue
		}
		var lo, hi mgl64.Vec3
		cells := 1.0
		for k := range 3 {
			lo[k] = math.Floor(b.Min[k] * inv)
			hi[k] = math.Floor(b.Max[k] * inv)
			cells *= hi[k] - lo[k] + 1
		}
		// Written so that a NaN (∞ − ∞ when x·inv overflows) counts as big.
		if !(cells <= BigBins) {
			g.big = append(g.big, int32(i))
			continue
		}
		for k := range 3 {
			if !(lo[k] >= math.MinInt32 && hi[k] <= math.MaxInt32) {
				return 0, fmt.Errorf("collide: grid: body %d: box %v–%v lies more than 2³¹ bins of %g m from the origin; use a larger bin size", i, b.Min, b.Max, 1/inv)
			}
			g.ranges[i].lo[k] = int32(lo[k])
			g.ranges[i].n[k] = uint8(hi[k] - lo[k] + 1)
		}
		entries += int(cells)
	}
	return entries, nil
}

// slot returns the table slot of bin c in a table of 2^(70−shift) slots.
// Bins are grouped in bricks of 4×4×4 whose 64 bins take 64 consecutive
// slots, so that a body's bins and its neighbours' mostly share cache lines;
// the brick's place is the spatial hash of Teschner et al. (2003),
// x·p₁ ⊕ y·p₂ ⊕ z·p₃ with large primes, spread over the table by Fibonacci
// hashing (multiplication by 2⁶⁴/φ, top bits).
func slot(c [3]int32, shift uint) uint32 { return slot3(c[0], c[1], c[2], shift) }

// slot3 is slot of the bin (x, y, z).
func slot3(x, y, z int32, shift uint) uint32 {
	h := uint64(uint32(x>>2))*73856093 ^ uint64(uint32(y>>2))*19349663 ^ uint64(uint32(z>>2))*83492791
	brick := uint32((h * 0x9e3779b97f4a7c15) >> shift)
	return brick<<6 | uint32(x&3) | uint32(y&3)<<2 | uint32(z&3)<<4
}

// count sizes the slot table and counts the entries of each slot into
// start[slot+1], so that the scan leaves start[slot] at the slot's first
// entry.
func (g *Grid) count(slots int, shift uint) {
	g.start = resizeBuf(g.start, slots+1)
	clear(g.start)
	for i := range g.ranges {
		for _, s := range g.bodySlots(i, shift) {
			g.start[s+1]++
		}
	}
}

// scan turns the counts into an inclusive prefix sum over start[1:], that
// is the exclusive scan of the per-slot counts.
func (g *Grid) scan() {
	for s := 1; s < len(g.start); s++ {
		g.start[s] += g.start[s-1]
	}
}

// scatter writes each binned body's entries into its slots, bodies in
// ascending order.
func (g *Grid) scatter(entries int, shift uint) {
	slots := len(g.start) - 1
	g.cursor = resizeBuf(g.cursor, slots)
	copy(g.cursor, g.start[:slots])
	g.entryID = resizeBuf(g.entryID, entries)
	g.entryAt = resizeBuf(g.entryAt, entries)
	for i := range g.ranges {
		for at, s := range g.bodySlots(i, shift) {
			e := g.cursor[s]
			g.cursor[s]++
			g.entryID[e] = int32(i)
			g.entryAt[e] = uint8(at)
		}
	}
}

// bodyPairs appends to out the pairs of binned bodies, sorted (stage 5),
// the parts of bodies on g.runner when it has more than one part.
func (g *Grid) bodyPairs(out [][2]int32, boxes []AABB, fixed []bool, shift uint) [][2]int32 {
	n := len(g.ranges)
	if g.runner == nil || n <= bodyGrain {
		return g.appendBodyPairs(out, 0, n, boxes, fixed, shift)
	}
	if g.waveFn == nil {
		g.waveFn = g.wavePart
	}
	if len(g.wave) < waveParts {
		g.wave = make([][][2]int32, waveParts)
	}
	defer func() { g.wargs = waveArgs{} }()
	for first := 0; first < n; first += waveParts * bodyGrain {
		m := min(waveParts*bodyGrain, n-first)
		g.wargs = waveArgs{boxes: boxes, fixed: fixed, shift: shift, first: first}
		g.runner(m, bodyGrain, g.waveFn)
		for p := range (m + bodyGrain - 1) / bodyGrain {
			out = append(out, g.wave[p]...)
		}
	}
	return out
}

// wavePart searches the body pairs of the wave's bodies [lo, hi) into
// part p's buffer.
func (g *Grid) wavePart(p, lo, hi int) {
	a := &g.wargs
	g.wave[p] = g.appendBodyPairs(g.wave[p][:0], a.first+lo, a.first+hi, a.boxes, a.fixed, a.shift)
}

// appendBodyPairs appends the pairs (a, b), a < b, of the bodies a in
// [lo, hi), sorted: the binned bodies' (stage 5) with the big and plane
// pairs (g.extra, sorted) merged in.
func (g *Grid) appendBodyPairs(out [][2]int32, lo, hi int, boxes []AABB, fixed []bool, shift uint) [][2]int32 {
	// xe: the first big or plane pair of a body ≥ lo.
	xe, xhi := 0, len(g.extra)
	for xe < xhi {
		if m := int(uint(xe+xhi) >> 1); int(g.extra[m][0]) < lo {
			xe = m + 1
		} else {
			xhi = m
		}
	}
	for a := lo; a < hi; a++ {
		first := len(out)
		for ; xe < len(g.extra) && int(g.extra[xe][0]) == a; xe++ {
			out = append(out, g.extra[xe])
		}
		ra := &g.ranges[a]
		if !ra.binned() {
			continue // its pairs, if any, are big or plane pairs: sorted
		}
		// bodySlots' loop over the bins, written out, with the bin and
		// a's range in scalars: a range-over-func iterator shared by
		// both cost 3–7 % of BenchmarkGridPairs, and arrays pass through
		// memory.
		alo0, alo1, alo2 := ra.lo[0], ra.lo[1], ra.lo[2]
		an0, an1, an2 := int32(ra.n[0]), int32(ra.n[1]), int32(ra.n[2])
		ba, fa := &boxes[a], fixed[a]
		// (Offsets from lo: lo + n overflows int32 for a range that ends
		// at bin 2³¹ − 1, which classify allows.)
		for z := range an2 {
			c2 := alo2 + z
			for y := range an1 {
				c1 := alo1 + y
				for x := range an0 {
					c0 := alo0 + x
					s := slot3(c0, c1, c2, shift)
					for e, end := g.start[s], g.start[s+1]; e < end; e++ {
						b := g.entryID[e]
						if int(b) <= a || fa && fixed[b] {
							continue
						}
						// c is the owner bin: max(lo_a, lo_b) = c per axis.
						rb := &g.ranges[b]
						if max(alo0, rb.lo[0]) != c0 || max(alo1, rb.lo[1]) != c1 || max(alo2, rb.lo[2]) != c2 ||
							rb.offset(c0, c1, c2) != g.entryAt[e] ||
							!overlapClosed(ba, &boxes[b]) || g.keep != nil && !g.keep(int32(a), b) {
							continue
						}
						out = append(out, [2]int32{int32(a), b})
					}
				}
			}
		}
		// Insertion sort of a's pairs by b (a handful, and the big and
		// plane pairs among them already in order).
		for k := first + 1; k < len(out); k++ {
			for m := k; m > first && out[m][1] < out[m-1][1]; m-- {
				out[m], out[m-1] = out[m-1], out[m]
			}
		}
	}
	return out
}

// bigPairs appends the pairs of big bodies with every other bounded body; a
// pair of two big bodies comes from the lower index.
func (g *Grid) bigPairs(boxes []AABB, bounded, fixed []bool) {
	for _, a := range g.big {
		for b := range int32(len(boxes)) {
			if b == a || !bounded[b] || !g.ranges[b].binned() && b < a || fixed[a] && fixed[b] {
				continue
			}
			if overlapClosed(&boxes[a], &boxes[b]) {
				g.keys = append(g.keys, g.orderedPair(a, b))
			}
		}
	}
}

// planePairs appends the pairs of planes with the bounded bodies whose
// boxes reach their half-space.
func (g *Grid) planePairs(boxes []AABB, bounded, fixed []bool) {
	for _, p := range g.planes {
		n, o := boxes[p].Max, boxes[p].Min
		for b := range int32(len(boxes)) {
			if !bounded[b] || fixed[p] && fixed[b] {
				continue
			}
			// The corner deepest along −n takes Min where n_k > 0, Max
			// where n_k < 0 (either where n_k = 0).
			var d float64
			for k := range 3 {
				c := boxes[b].Max[k]
				if n[k] > 0 {
					c = boxes[b].Min[k]
				}
				d += n[k] * (c - o[k])
			}
			if d <= 0 {
				g.keys = append(g.keys, g.orderedPair(p, b))
			}
		}
	}
}

// overlapClosed reports whether two boxes intersect as closed sets: touching
// faces overlap.
func overlapClosed(a, b *AABB) bool {
	return a.Min[0] <= b.Max[0] && b.Min[0] <= a.Max[0] &&
		a.Min[1] <= b.Max[1] && b.Min[1] <= a.Max[1] &&
		a.Min[2] <= b.Max[2] && b.Min[2] <= a.Max[2]
}

// orderedPair returns the pair with the lower index first.
func (g *Grid) orderedPair(a, b int32) [2]int32 {
	if a > b {
		a, b = b, a
	}
	return [2]int32{a, b}
}

// sortKey packs a pair as lower index << keyBits | higher index, so that
// keys sort by i then j.
func (g *Grid) sortKey(p [2]int32) uint64 {
	return uint64(p[0])<<g.keyBits | uint64(p[1])
}

// sortKeys sorts g.keys ascending by sortKey with a
// least-significant-digit radix sort over their 2·keyBits significant
// bits, 8 bits per pass. Each pass counts the digits, scans the counts and
// scatters the pairs stably; a pass whose digit is the same for every pair
// is skipped. The sorted pairs end in g.keys's own array (copied back
// from the second buffer after an odd number of passes).
func (g *Grid) sortKeys() {
	if len(g.keys) == 0 {
		return
	}
	if cap(g.keyTmp) < len(g.keys) {
		// As much room as g.keys has, which append grows by doubling:
		// a buffer that grows with every new largest count would not.
		g.keyTmp = make([][2]int32, 0, cap(g.keys))
	}
	g.keyTmp = g.keyTmp[:len(g.keys)]
	src, dst := g.keys, g.keyTmp
	for shift := uint(0); shift < 2*g.keyBits; shift += 8 {
		var start [257]int
		for _, p := range src {
			start[g.sortKey(p)>>shift&0xff+1]++
		}
		if start[g.sortKey(src[0])>>shift&0xff+1] == len(src) {
			continue
		}
		for d := 1; d < len(start); d++ {
			start[d] += start[d-1]
		}
		for _, p := range src {
			d := g.sortKey(p) >> shift & 0xff
			dst[start[d]] = p
			start[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &g.keys[0] {
		copy(g.keys, src)
	}
}

// resizeBuf returns s resized to n elements, reusing its storage when it is
// large enough. The contents are not cleared.
func resizeBuf[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4) // room for the counts of later steps
	}
	return s[:n]
}

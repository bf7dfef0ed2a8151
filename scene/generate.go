package scene

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// generator appends the bodies of one generator. Every random number comes
// from one SplitMix64 stream seeded with g.Seed, drawn body by body:
//
//   - lattice: the jitter of x, y and z, then the distributed sizes (in the
//     order radius, half_height, semi_axes[0..2], half_extents[0..2]),
//     then the scale if it is a distribution, then the orientation if
//     random_orientation (three draws);
//   - random: the distributed sizes, the scale if it is a distribution,
//     the orientation, then x, y, z of each placement attempt (in a
//     cylinder: x and y drawn again until they fall in its disc, then z).
//
// A fixed size or scale takes no draw, so a document without "scale"
// draws exactly as before it existed.
func (b *builder) generator(p string, g GeneratorSpec) error {
	shapePath := join(p, "shape")
	kind, err := checkShape(shapePath, g.Shape, true)
	if err != nil {
		return err
	}
	if g.Count < 1 {
		return errAt(join(p, "count"), "%d must be ≥ 1", g.Count)
	}
	if err := b.room(join(p, "count"), g.Count); err != nil {
		return err
	}
	if g.Mass == nil && g.Density == nil {
		return errAt(p, "missing mass or density (of each body)")
	}
	mat, err := b.material(join(p, "material"), g.Material)
	if err != nil {
		return err
	}
	scalePath := join(p, "scale")
	scale := Size{Value: 1}
	if g.Scale != nil {
		if err := checkSize(scalePath, *g.Scale, true); err != nil {
			return err
		}
		scale = *g.Scale
	}
	sizes, paths := sizesOf(shapePath, g.Shape)
	upper := make([]float64, len(sizes))
	lower := make([]float64, len(sizes))
	for i, s := range sizes {
		upper[i], lower[i] = s.upper(), s.lower()
		if g.Scale != nil {
			upper[i] *= scale.upper()
			lower[i] *= scale.lower()
		}
	}
	// The largest and the smallest body the generator can make. A convex
	// shape's points are one hull for every body, placed at its centre of
	// mass in its principal frame, and scaled by the body's scale.
	largest, smallest := makeShape(kind, upper), makeShape(kind, lower)
	var hull engine.Shape // a convex generator's hull at scale 1
	if kind == engine.Convex {
		if hull, _, _, err = convexShape(shapePath, g.Shape); err != nil {
			return err
		}
		largest, smallest = scaleConvex(hull, scale.upper()), scaleConvex(hull, scale.lower())
	}
	if g.Scale != nil {
		// The scaled sizes may leave the range of float64.
		for _, extreme := range []engine.Shape{largest, smallest} {
			if err := extreme.Validate(); err != nil {
				return errAt(scalePath, "makes a shape out of range: %v", err)
			}
		}
		if err := setMass(p, &engine.Body{Shape: smallest}, g.Mass, g.Density); err != nil {
			return err
		}
	}
	if err := setMass(p, &engine.Body{Shape: largest}, g.Mass, g.Density); err != nil {
		return err
	}
	fixed := hull // the hull of every body when the scale is a number
	if kind == engine.Convex && scale.Dist == "" {
		fixed = scaleConvex(hull, scale.Value)
	}
	rotate := g.RandomOrientation && kind != engine.Sphere
	rng := &SplitMix64{State: uint64(g.Seed)}
	draw := func() (engine.Body, error) {
		v := make([]float64, len(sizes))
		for i, s := range sizes {
			var ok bool
			if v[i], ok = s.sample(rng); !ok {
				return engine.Body{}, errAt(paths[i], "the normal distribution (mean %v, std %v) gave no value in [%v, %v] in %d draws",
					s.Mean, s.Std, s.Min, s.Max, normalTries)
			}
		}
		k, ok := scale.sample(rng)
		if !ok {
			return engine.Body{}, errAt(scalePath, "the normal distribution (mean %v, std %v) gave no value in [%v, %v] in %d draws",
				scale.Mean, scale.Std, scale.Min, scale.Max, normalTries)
		}
		if g.Scale != nil {
			for i := range v {
				v[i] *= k
			}
		}
		body := engine.Body{Shape: makeShape(kind, v), Rot: mgl64.QuatIdent(), Material: mat}
		if kind == engine.Convex {
			body.Shape = fixed
			if scale.Dist != "" {
				body.Shape = scaleConvex(hull, k)
			}
		}
		if rotate {
			body.Rot = randomRotation(rng)
		}
		return body, setMass(p, &body, g.Mass, g.Density)
	}

	switch g.Type {
	case "lattice":
		if err := pourOnly(p, g); err != nil {
			return err
		}
		if g.Region != nil {
			return errAt(join(p, "region"), "applies to random and pour generators only")
		}
		if g.Cylinder != nil {
			return errAt(join(p, "cylinder"), "applies to random and pour generators only")
		}
		if g.MaxAttempts != 0 {
			return errAt(join(p, "max_attempts"), "applies to random and pour generators only")
		}
		// Half-size of the largest body along the lattice axes.
		half := largest.BoundingRadius()
		if !rotate {
			half = math.Max(largest.Size[0], math.Max(largest.Size[1], largest.Size[2]))
			switch largest.Kind {
			case engine.Capsule:
				half = largest.Size[0] + largest.Size[1]
			case engine.Convex:
				// The largest coordinate of a vertex: the hull's
				// bounding box about its centre of mass.
				half = 0
				for _, v := range largest.Hull.Verts {
					half = math.Max(half, math.Max(math.Abs(v[0]), math.Max(math.Abs(v[1]), math.Abs(v[2]))))
				}
			}
		}
		return b.lattice(p, g, half, rng, draw)
	case "random", "pour":
		for _, f := range []struct {
			name  string
			given bool
		}{{"spacing", g.Spacing != nil}, {"max_per_row", g.MaxPerRow != 0}, {"origin", g.Origin != nil}, {"jitter", g.Jitter != 0}} {
			if f.given {
				return errAt(join(p, f.name), "applies to lattice generators only")
			}
		}
		if g.Type == "pour" {
			return b.pourSpec(p, g, largest.BoundingRadius(), rng, draw)
		}
		if err := pourOnly(p, g); err != nil {
			return err
		}
		return b.random(p, g, largest.BoundingRadius(), rng, draw)
	case "":
		return errAt(join(p, "type"), "missing (want lattice, random or pour)")
	}
	return errAt(join(p, "type"), "unknown generator %q (want lattice, random or pour)", g.Type)
}

// pourOnly refuses the fields of pour generators in another generator.
func pourOnly(p string, g GeneratorSpec) error {
	for _, f := range []struct {
		name  string
		given bool
	}{{"rate", g.Rate != 0}, {"start", g.Start != nil}, {"velocity", g.Velocity != nil}} {
		if f.given {
			return errAt(join(p, f.name), "applies to pour generators only")
		}
	}
	return nil
}

// latticeRow is the number of bodies per lattice row: the smallest nx with
// nx³ ≥ count, capped at maxPerRow when that is positive.
func latticeRow(count, maxPerRow int) int {
	nx := 1
	for nx*nx*nx < count {
		nx++
	}
	if maxPerRow > 0 && nx > maxPerRow {
		nx = maxPerRow
	}
	return nx
}

// lattice places count bodies on the cubic lattice of bench/settle.md:
// body n sits at column i = n mod nx, row j = (n div nx) mod nx, layer
// k = n div nx², at
//
//	x = origin.x + (i − (nx−1)/2)·spacing + (2u₁ − 1)·jitter
//	y = origin.y + (j − (nx−1)/2)·spacing + (2u₂ − 1)·jitter
//	z = origin.z + k·spacing + (2u₃ − 1)·jitter
//
// with u₁, u₂, u₃ the body's next three draws.
func (b *builder) lattice(p string, g GeneratorSpec, half float64, rng *SplitMix64, draw func() (engine.Body, error)) error {
	spacing := defaultSpacingFactor * half
	if g.Spacing != nil {
		spacing = *g.Spacing
		if err := checkPositive(join(p, "spacing"), spacing); err != nil {
			return err
		}
		if spacing < 2*half {
			return errAt(join(p, "spacing"), "%v is less than %v, twice the largest half-size of the bodies: neighbours would overlap", spacing, 2*half)
		}
	}
	if g.MaxPerRow < 0 {
		return errAt(join(p, "max_per_row"), "%d must be ≥ 0 (0: no limit)", g.MaxPerRow)
	}
	if err := checkNonNegative(join(p, "jitter"), g.Jitter); err != nil {
		return err
	}
	origin, err := vec(join(p, "origin"), g.Origin)
	if err != nil {
		return err
	}
	nx := latticeRow(g.Count, g.MaxPerRow)
	mid := float64(nx-1) / 2
	for n := range g.Count {
		i, j, k := n%nx, (n/nx)%nx, n/(nx*nx)
		pos := mgl64.Vec3{
			origin[0] + (float64(i)-mid)*spacing,
			origin[1] + (float64(j)-mid)*spacing,
			origin[2] + float64(k)*spacing,
		}
		for c := range 3 {
			pos[c] += (2*rng.Float64() - 1) * g.Jitter
		}
		body, err := draw()
		if err != nil {
			return err
		}
		body.Pos = pos
		b.model.Bodies = append(b.model.Bodies, body)
	}
	return nil
}

// random places count bodies at uniform random positions such that each
// body's bounding sphere lies inside the region (a box, or a vertical
// cylinder) and overlaps the bounding
// sphere of no body placed before it (from "bodies", earlier generators or
// this one). Overlap is checked on a grid of bins of edge ≥ 2·rmax, rmax
// the largest bounding radius the generator can make; earlier bodies larger
// than that are checked one by one.
func (b *builder) random(p string, g GeneratorSpec, rmax float64, rng *SplitMix64, draw func() (engine.Body, error)) error {
	lo, hi, sample, err := placement(p, g, rmax, rng)
	if err != nil {
		return err
	}
	extent := 0.0
	for c := range 3 {
		if math.IsInf(hi[c]-lo[c], 0) {
			return errAt(p, "the region %v to %v is too large", lo, hi)
		}
		extent = math.Max(extent, hi[c]-lo[c])
	}
	attempts, err := b.maxAttempts(p, g)
	if err != nil {
		return err
	}

	// At most 2²⁰ bins per axis keep bin indices small for any region.
	cell := math.Max(2*rmax, extent/(1<<20))
	type placed struct {
		pos mgl64.Vec3
		r   float64
	}
	var large []placed
	bins := map[[3]int64][]placed{}
	binOf := func(x mgl64.Vec3) [3]int64 {
		var k [3]int64
		for c := range 3 {
			k[c] = int64(math.Floor((x[c] - lo[c]) / cell))
		}
		return k
	}
	insert := func(q placed) {
		if q.r > rmax {
			large = append(large, q)
			return
		}
		k := binOf(q.pos)
		bins[k] = append(bins[k], q)
	}
	free := func(x mgl64.Vec3, r float64) bool {
		overlaps := func(q placed) bool {
			d := x.Sub(q.pos)
			return d.Dot(d) < (r+q.r)*(r+q.r)
		}
		for _, q := range large {
			if overlaps(q) {
				return false
			}
		}
		k := binOf(x)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					for _, q := range bins[[3]int64{k[0] + dx, k[1] + dy, k[2] + dz}] {
						if overlaps(q) {
							return false
						}
					}
				}
			}
		}
		return true
	}
	for _, q := range b.model.Bodies {
		r := q.Shape.BoundingRadius()
		if math.IsInf(r, 0) {
			continue // planes
		}
		// Only bodies that can reach a body of the region matter.
		near := true
		for c := range 3 {
			if q.Pos[c]+r+rmax < lo[c] || q.Pos[c]-r-rmax > hi[c] {
				near = false
			}
		}
		if near {
			insert(placed{q.Pos, r})
		}
	}

	for n := range g.Count {
		body, err := draw()
		if err != nil {
			return err
		}
		r := body.Shape.BoundingRadius()
		if !place(&body.Pos, r, attempts, sample, free) {
			return errAt(p, "placed %d of %d bodies (body %d found no free place in %d attempts); enlarge the region or reduce count",
				n, g.Count, n, attempts)
		}
		insert(placed{body.Pos, r})
		b.model.Bodies = append(b.model.Bodies, body)
	}
	return nil
}

// placement checks the region (a box) or the cylinder of a random or pour
// generator for bodies of bounding radius up to rmax and returns its
// bounding box and a function that sets pos to a uniform point of the
// region shrunk by r, the body's bounding radius, so that its bounding
// sphere lies inside: x, y, z from rng in a box; in a cylinder x and y
// drawn again until they fall in its disc, then z.
func placement(p string, g GeneratorSpec, rmax float64, rng *SplitMix64) (lo, hi mgl64.Vec3, sample func(pos *mgl64.Vec3, r float64), err error) {
	switch {
	case g.Region != nil && g.Cylinder != nil:
		return lo, hi, nil, errAt(join(p, "cylinder"), "give region or cylinder, not both")
	case g.Cylinder != nil:
		cp := join(p, "cylinder")
		cy := *g.Cylinder
		if err := checkVec(join(cp, "centre"), cy.Centre); err != nil {
			return lo, hi, nil, err
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"radius", cy.Radius}, {"height", cy.Height}} {
			if err := checkPositive(join(cp, f.name), f.v); err != nil {
				return lo, hi, nil, err
			}
			if !(f.v >= 2*rmax) {
				return lo, hi, nil, errAt(join(cp, f.name), "%v is too small: bodies of bounding radius %v need %v", f.v, rmax, 2*rmax)
			}
		}
		c := mgl64.Vec3(cy.Centre)
		lo = c.Sub(mgl64.Vec3{cy.Radius, cy.Radius, 0})
		hi = c.Add(mgl64.Vec3{cy.Radius, cy.Radius, cy.Height})
		sample = func(pos *mgl64.Vec3, r float64) {
			// Rejection from the square: π/4 of the draws land in the
			// disc, so 64 pairs all miss with probability (1 − π/4)^64 ≈
			// 1e-43; the centre then stands in.
			rr := cy.Radius - r
			pos[0], pos[1] = c[0], c[1]
			for range 64 {
				u, v := 2*rng.Float64()-1, 2*rng.Float64()-1
				if u*u+v*v <= 1 {
					pos[0], pos[1] = c[0]+u*rr, c[1]+v*rr
					break
				}
			}
			pos[2] = c[2] + r + rng.Float64()*(cy.Height-2*r)
		}
	case g.Region == nil:
		return lo, hi, nil, errAt(join(p, "region"), "missing (or give cylinder)")
	default:
		rp := join(p, "region")
		if err := checkVec(join(rp, "min"), g.Region.Min); err != nil {
			return lo, hi, nil, err
		}
		if err := checkVec(join(rp, "max"), g.Region.Max); err != nil {
			return lo, hi, nil, err
		}
		lo, hi = mgl64.Vec3(g.Region.Min), mgl64.Vec3(g.Region.Max)
		for c := range 3 {
			if math.IsInf(hi[c]-lo[c], 0) {
				return lo, hi, nil, errAt(rp, "%v to %v is too large", lo, hi)
			}
			if !(hi[c]-lo[c] >= 2*rmax) {
				return lo, hi, nil, errAt(rp, "%v to %v is too small: bodies of bounding radius %v need %v in every direction",
					lo, hi, rmax, 2*rmax)
			}
		}
		sample = func(pos *mgl64.Vec3, r float64) {
			for c := range 3 {
				pos[c] = lo[c] + r + rng.Float64()*(hi[c]-lo[c]-2*r)
			}
		}
	}
	return lo, hi, sample, nil
}

// scaleConvex returns convex shape sh (its hull in its principal frame,
// centred on its centre of mass) scaled by k > 0 about that centre: every
// vertex and face offset times k, the normals and the topology unchanged.
// The hull of points scaled by k about any origin is this hull, with its
// centre of mass scaled by k about that origin and the same principal
// frame: volume k³, inertia k⁵ at a fixed density. k = 1 returns sh.
func scaleConvex(sh engine.Shape, k float64) engine.Shape {
	if k == 1 {
		return sh
	}
	h := &geom.Hull{Verts: make([]mgl64.Vec3, len(sh.Hull.Verts)), Faces: make([]geom.Face, len(sh.Hull.Faces))}
	for i, v := range sh.Hull.Verts {
		h.Verts[i] = v.Mul(k)
	}
	for i, f := range sh.Hull.Faces {
		h.Faces[i] = geom.Face{Verts: f.Verts, Normal: f.Normal, Offset: f.Offset * k}
	}
	return engine.ConvexShape(h)
}

// maxAttempts returns a random or pour generator's max_attempts, the
// default for 0, or an error outside [1, the builder's limit].
func (b *builder) maxAttempts(p string, g GeneratorSpec) (int, error) {
	attempts := g.MaxAttempts
	if attempts == 0 {
		attempts = defaultAttempts
	}
	if attempts < 1 || attempts > b.lim.attempts {
		return 0, errAt(join(p, "max_attempts"), "%d must be in [1, %d]", attempts, b.lim.attempts)
	}
	return attempts, nil
}

// place draws positions with sample for a body of bounding radius r until
// free accepts one, at most attempts times; it reports whether one was
// found (left in pos).
func place(pos *mgl64.Vec3, r float64, attempts int, sample func(*mgl64.Vec3, float64), free func(mgl64.Vec3, float64) bool) bool {
	for range attempts {
		sample(pos, r)
		if free(*pos, r) {
			return true
		}
	}
	return false
}

package collide

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// Collide finds the contacts at the bodies' positions pos (3 per body,
// m), orientations rot (w, x, y, z, unit) with velocities vel (m/s, world)
// and omega (rad/s, body frame), inverse masses invMass (1/kg) and external
// forces force (N, world), in engine.State's layouts: AABBs inflated by
// the envelope plus each body's speculative margin, grid broadphase,
// narrowphase on each candidate pair, keeping contacts with
// Φ < envelope + m_A + m_B. Contacts come sorted by (A, B) and, within a
// pair, in narrowphase order, so the list is deterministic.
//
// The speculative margin m_i = h(‖v_i‖ + ‖ω_i‖R_i) + h²‖g + F_i/m_i‖ bounds
// how far body i can move in the coming step (R_i its bounding radius).
// A contact with a positive gap Φ only allows an approach speed of Φ/h
// (b_n = Φ/h), so including it costs nothing physically, while a contact
// missed because the bodies closed more than the envelope in one step
// would start the next step deeply overlapped and be pushed apart at
// Φ/h: the margin removes that tunnelling and its explosive recovery.
//
// force is per body as BodyArrays' Force (LoadAt).
func (c *Collider) Collide(pos, rot, vel, omega, invMass, force []float64) (int, error) {
	env := c.envelope
	c.bargs = boundArgs{pos, rot, vel, omega, invMass, force}
	if c.runner != nil && c.n > boundGrain {
		if c.boundFn == nil {
			c.boundFn = c.boundPart
		}
		c.runner(c.n, boundGrain, c.boundFn)
	} else {
		c.bound(0, c.n)
	}
	c.bargs = boundArgs{}
	fixed := c.fixed
	if c.parts != nil {
		c.partBoxes(pos, rot, env)
		fixed = c.parts.fixed
	}
	var err error
	if c.parts == nil {
		// Spheres certainly out of reach are dropped as the pairs are
		// found (apart: Narrow would give them no contact): a packing
		// keeps about one candidate pair in four.
		if c.keepFn == nil {
			c.keepFn = c.mayTouch
		}
		c.fpos = pos
		c.grid.SetFilter(c.keepFn)
	}
	c.pairs, err = c.grid.Pairs(c.boxes, c.bounded, fixed, c.binSize, c.pairs)
	c.grid.SetFilter(nil)
	c.fpos = nil
	if err != nil {
		return 0, err
	}
	if c.parts != nil {
		return c.collideParts(pos, rot, env)
	}
	if len(c.exclude) > 0 {
		c.pairs = slices.DeleteFunc(c.pairs, func(pr [2]int32) bool {
			_, found := slices.BinarySearch(c.exclude, uint64(pr[0])<<32|uint64(pr[1]))
			return found
		})
	}
	con := &c.con
	con.Resize(0)
	c.sub = c.sub[:0]
	if c.runner != nil && len(c.pairs) > pairGrain {
		if err := c.narrowParallel(pos, rot, env); err != nil {
			return 0, err
		}
		c.buildAdjacency()
		return con.Len(), nil
	}
	for _, pr := range c.pairs {
		i, j := int(pr[0]), int(pr[1])
		var n int
		n, c.cps, err = c.PairContacts(i, j, pos, rot, env+c.margin[i]+c.margin[j], con, c.cps)
		if err != nil {
			return 0, err
		}
		for k := range n {
			c.sub = append(c.sub, int32(k))
		}
	}
	c.buildAdjacency()
	return con.Len(), nil
}

// collideParts is the rest of Collide with compounds, from the candidate
// pairs of parts in c.pairs: pairs in body order, the contacts of each
// pair of parts, each numbered by partSet.sub.
func (c *Collider) collideParts(pos, rot []float64, env float64) (int, error) {
	c.pairs = c.bodyOrder(c.pairs)
	con := &c.con
	con.Resize(0)
	c.sub = c.sub[:0]
	body := c.parts.body
	for _, pr := range c.pairs {
		e, f := int(pr[0]), int(pr[1])
		i, j := body[e], body[f]
		var n int
		var err error
		n, c.cps, err = c.partContacts(e, f, pos, rot, env+c.margin[i]+c.margin[j], con, c.cps)
		if err != nil {
			return 0, err
		}
		for k := range n {
			c.sub = append(c.sub, c.parts.sub(e, f, k))
		}
	}
	c.buildAdjacency()
	return con.Len(), nil
}

// PairContacts appends to con the contacts of bodies i and j (i < j, a
// candidate pair) at positions pos and orientations rot (engine.State's
// layouts) with gap below env (m), as Collide makes them: Narrow's
// contacts in its order, their points in the bodies' frames, the
// materials combined by engine.CombineMaterials and engine.CombineRolling; for a compound, those of
// every pair of parts in order. It returns their number and cps, Narrow's
// scratch (reused). A non-finite gap or normal is an error naming the
// bodies.
func (c *Collider) PairContacts(i, j int, pos, rot []float64, env float64, con *engine.Contacts, cps []ContactPoint) (int, []ContactPoint, error) {
	if ps := c.parts; ps != nil && (ps.comp[i] || ps.comp[j]) {
		total := 0
		for e := ps.off[i]; e < ps.off[i+1]; e++ {
			for f := ps.off[j]; f < ps.off[j+1]; f++ {
				var n int
				var err error
				if n, cps, err = c.partContacts(int(e), int(f), pos, rot, env, con, cps); err != nil {
					return 0, cps, err
				}
				total += n
			}
		}
		return total, cps, nil
	}
	pi, pj := (*[3]float64)(pos[3*i:]), (*[3]float64)(pos[3*j:])
	qi, qj := (*[4]float64)(rot[4*i:]), (*[4]float64)(rot[4*j:])
	a, b := Pose{vec3At(pos, i), quatAt(rot, i)}, Pose{vec3At(pos, j), quatAt(rot, j)}
	cps, err := narrowAt(c.Shape(i), &a, c.Shape(j), &b, env, cps[:0])
	if err != nil {
		return 0, cps, fmt.Errorf("collide: bodies %d and %d: %w", i, j, err)
	}
	if err := c.appendContacts(con, i, j, pi, pj, qi, qj, cps); err != nil {
		return 0, cps, fmt.Errorf("collide: bodies %d and %d: %w", i, j, err)
	}
	return len(cps), cps, nil
}

// boundArgs are the operands of Collide's loop over the bodies (no closure
// is made per step).
type boundArgs struct{ pos, rot, vel, omega, invMass, force []float64 }

// boundGrain is the bodies per part of that loop on a Runner.
const boundGrain = 4096

func (c *Collider) boundPart(_, lo, hi int) { c.bound(lo, hi) }

// bound sets the speculative margins of bodies [lo, hi) and, without
// compounds, their boxes (a plane's point and normal in its box: PlaneBox).
func (c *Collider) bound(lo, hi int) {
	a, env, h := &c.bargs, c.envelope, c.dt
	for i := lo; i < hi; i++ {
		p, q := vec3At(a.pos, i), quatAt(a.rot, i)
		m := 0.0
		if !c.fixed[i] {
			v := vec3At(a.vel, i).Len()
			w := vec3At(a.omega, i).Len()
			f := LoadAt(a.force, i).Mul(a.invMass[i])
			m = h*(v+w*c.Shape(i).BoundingRadius()) + h*h*c.gravity.Add(f).Len()
		} else if c.moving[i] {
			// A kinematic body moves by its prescribed velocity only.
			m = h * (vec3At(a.vel, i).Len() + vec3At(a.omega, i).Len()*c.Shape(i).BoundingRadius())
		}
		c.margin[i] = m
		if c.parts != nil {
			continue
		}
		box, ok := ShapeAABB(*c.Shape(i), p, q, env+m)
		if !ok {
			box = PlaneBox(p, q)
		}
		c.boxes[i], c.bounded[i] = box, ok
	}
}

// mayTouch is the broadphase's filter (Grid.SetFilter): false for bodies
// a and b apart at the positions c.fpos, with the envelope and margins
// PairContacts would be given.
func (c *Collider) mayTouch(a, b int32) bool {
	return !Apart(c.Shape(int(a)), c.Shape(int(b)), c.fpos, int(a), int(b), c.envelope+c.margin[a]+c.margin[b])
}

// apartSlack is Apart's relative allowance for rounding: the squares and
// sums there and sphereSphere's gap are each within a few ulps (1e-15
// relative) of exact, so a pair more than 1e-9 past its reach is one
// sphereSphere rejects too.
const apartSlack = 1e-9

// ApartFactor is 1 + apartSlack as the float64 Apart multiplies the
// squared reach by; the device's broadphase (collide_pairs.comp) is given
// it.
const ApartFactor float64 = 1 + apartSlack

// Apart reports whether spheres i and j are certainly farther apart than
// their radii plus env, so that Narrow would give them no contact: most
// pairs whose boxes overlap in a packing (three in four at N = 64 000
// settled), which Collide's broadphase drops (mayTouch) before they are
// stored or reach the narrowphase, as the device's does. It is false for
// other shapes, for pairs within apartSlack of their reach, and for
// non-finite positions (Narrow's to report). The operations, in order:
// d² = (dx² + dy²) + dz² with d = c_j − c_i, reach = (r_i + r_j) + env,
// apart when d² > reach²·ApartFactor.
func Apart(sa, sb *engine.Shape, pos []float64, i, j int, env float64) bool {
	if sa.Kind != engine.Sphere || sb.Kind != engine.Sphere {
		return false
	}
	dx, dy, dz := pos[3*j]-pos[3*i], pos[3*j+1]-pos[3*i+1], pos[3*j+2]-pos[3*i+2]
	reach := sa.Size[0] + sb.Size[0] + env
	return dx*dx+dy*dy+dz*dz > reach*reach*ApartFactor
}

// appendContacts appends to con the contacts cps of bodies i and j
// centred at pa and pb with orientations qa and qb (w, x, y, z): the
// points turned into the bodies' frames (geom.RotateInverse's operations,
// in components), the bodies' materials combined. A non-finite gap or
// normal is an error.
func (c *Collider) appendContacts(con *engine.Contacts, i, j int, pa, pb *[3]float64, qa, qb *[4]float64, cps []ContactPoint) error {
	if len(cps) == 0 {
		return nil
	}
	ma, mb := c.mats[c.material[i]], c.mats[c.material[j]]
	mu, coh := engine.CombineMaterials(ma, mb)
	mur, mus := engine.CombineRolling(ma, mb)
	for k := range cps {
		cp := &cps[k]
		if !finite(cp.Phi) || !finite(cp.Normal[0]) || !finite(cp.Normal[1]) || !finite(cp.Normal[2]) {
			return errors.New("narrowphase gave a non-finite contact")
		}
		sa0, sa1, sa2 := geom.Rotate3(qa[0], -qa[1], -qa[2], -qa[3], cp.PA[0]-pa[0], cp.PA[1]-pa[1], cp.PA[2]-pa[2])
		sb0, sb1, sb2 := geom.Rotate3(qb[0], -qb[1], -qb[2], -qb[3], cp.PB[0]-pb[0], cp.PB[1]-pb[1], cp.PB[2]-pb[2])
		con.A = append(con.A, int32(i))
		con.B = append(con.B, int32(j))
		con.Normal = append(con.Normal, cp.Normal[0], cp.Normal[1], cp.Normal[2])
		con.PA = append(con.PA, sa0, sa1, sa2)
		con.PB = append(con.PB, sb0, sb1, sb2)
		con.Phi = append(con.Phi, cp.Phi)
		con.Mu = append(con.Mu, mu)
		con.Cohesion = append(con.Cohesion, coh)
		if c.rolling {
			con.Rolling = append(con.Rolling, mur)
			con.Spinning = append(con.Spinning, mus)
		}
	}
	return nil
}

// SetContacts replaces the contacts of the last Collide with a copy of
// con, for contacts made otherwise than by Collide (a test's random
// system): each is numbered within the run of contacts of its body pair
// that it ends (Sub), and the adjacency is rebuilt. The bodies of con
// must be those loaded.
func (c *Collider) SetContacts(con *engine.Contacts) {
	nc := con.Len()
	c.con.Resize(nc)
	copy(c.con.A, con.A)
	copy(c.con.B, con.B)
	copy(c.con.Normal, con.Normal)
	copy(c.con.PA, con.PA)
	copy(c.con.PB, con.PB)
	copy(c.con.Phi, con.Phi)
	copy(c.con.Mu, con.Mu)
	copy(c.con.Cohesion, con.Cohesion)
	// Rolling coefficients: con's, zero where its slices are short.
	clear(c.con.Rolling[copy(c.con.Rolling, con.Rolling):])
	clear(c.con.Spinning[copy(c.con.Spinning, con.Spinning):])
	c.sub = c.sub[:0]
	for k := range nc {
		s := int32(0)
		if k > 0 && con.A[k] == con.A[k-1] && con.B[k] == con.B[k-1] {
			s = c.sub[k-1] + 1
		}
		c.sub = append(c.sub, s)
	}
	c.buildAdjacency()
}

// buildAdjacency makes the body → contact lists (CSR) by a counting sort
// over contacts in order, so each body's list is in contact order. Fixed
// bodies get no list: M⁻¹ is zero for them.
func (c *Collider) buildAdjacency() {
	if cap(c.adjOff) < c.n+1 {
		c.adjOff = make([]int32, c.n+1)
	}
	off := c.adjOff[:c.n+1]
	for i := range off {
		off[i] = 0
	}
	nc := c.con.Len()
	for k := 0; k < nc; k++ {
		if a := c.con.A[k]; !c.fixed[a] {
			off[a+1]++
		}
		if bb := c.con.B[k]; !c.fixed[bb] {
			off[bb+1]++
		}
	}
	for i := 0; i < c.n; i++ {
		off[i+1] += off[i]
	}
	total := int(off[c.n])
	if cap(c.adj) < total {
		c.adj = make([]int32, total, total+total/4)
	}
	c.adj = c.adj[:total]
	// Fill using a running cursor per body (reuse dv's memory is not
	// possible: cursors are ints), then restore the offsets.
	for k := 0; k < nc; k++ {
		if a := c.con.A[k]; !c.fixed[a] {
			c.adj[off[a]] = int32(2 * k)
			off[a]++
		}
		if bb := c.con.B[k]; !c.fixed[bb] {
			c.adj[off[bb]] = int32(2*k + 1)
			off[bb]++
		}
	}
	for i := c.n; i > 0; i-- {
		off[i] = off[i-1]
	}
	off[0] = 0
}

func vec3At(s []float64, i int) mgl64.Vec3 { return mgl64.Vec3{s[3*i], s[3*i+1], s[3*i+2]} }

func quatAt(s []float64, i int) mgl64.Quat {
	return mgl64.Quat{W: s[4*i], V: mgl64.Vec3{s[4*i+1], s[4*i+2], s[4*i+3]}}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

package cpuref

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// Collide finds the contacts at the current positions with the backend's
// Collider (see Collider.Collide).
func (b *Backend) Collide() (int, error) {
	return b.Collider.Collide(b.pos, b.rot, b.vel, b.omega, b.invMass, b.force)
}

// Collide finds the contacts at the bodies' positions pos (3 per body,
// m), orientations rot (w, x, y, z, unit) with velocities vel (m/s, world)
// and omega (rad/s, body frame), inverse masses invMass (1/kg) and external
// forces force (N, world), in engine.State's layouts: AABBs inflated by
// the envelope plus each body's speculative margin, grid broadphase,
// narrowphase on each candidate pair with Φ < envelope + m_A + m_B, then
// the pair's closing bound (PairContacts). Contacts come sorted by (A, B)
// and, within a pair, in narrowphase order, so the list is deterministic.
//
// The speculative margin m_i = h(‖v_i‖ + ‖ω_i‖R_i) + h²‖g + F_i/m_i‖ bounds
// how far body i can move in the coming step (R_i its bounding radius).
// A contact with a positive gap Φ only allows an approach speed of Φ/h
// (b_n = Φ/h), so including it costs nothing physically, while a contact
// missed because the bodies closed more than the envelope in one step
// would start the next step deeply overlapped and be pushed apart at
// Φ/h: the margin removes that tunnelling and its explosive recovery.
//
// The margins bound each body's motion in any direction; a contact found
// with them is then kept only if its two bodies can close its gap in the
// step along its normal n (A → B): Φ < envelope + max(0, (d_A − d_B)·n)
// + h‖ω_A‖R_A + h‖ω_B‖R_B, with d_i = h(v_i + h·a_i) the free-flight
// displacement of body i and a_i = g + F_i/m_i. For convex shapes the gap
// after a relative translation d is at least Φ − d·n (the distance to a
// convex set is a convex function of the translation), and rotation moves
// a surface point by at most h‖ω‖R, so no contact that can close is
// dropped. What is dropped matters: a positive-gap contact between bodies
// sliding past each other (‖u_t‖ large, no approach) would still act
// through the relaxed cone, u_n + Φ/h ≥ μ‖u_t‖, and push them apart at up
// to μ‖u_t‖ − Φ/h without their ever touching — with a body shot past
// another at 1e5 m/s, by 1e4 m/s.
func (c *Collider) Collide(pos, rot, vel, omega, invMass, force []float64) (int, error) {
	env := c.envelope
	h := c.dt
	for i := 0; i < c.n; i++ {
		p, q := vec3At(pos, i), quatAt(rot, i)
		m := 0.0
		var d mgl64.Vec3
		rw := 0.0
		if !c.fixed[i] {
			vv := vec3At(vel, i)
			v := vv.Len()
			w := vec3At(omega, i).Len()
			f := vec3At(force, i).Mul(invMass[i])
			a := c.gravity.Add(f)
			m = h*(v+w*c.shapes[i].BoundingRadius()) + h*h*a.Len()
			d = vv.Add(a.Mul(h)).Mul(h)
			rw = h * (w * c.shapes[i].BoundingRadius())
		}
		c.margin[i] = m
		c.motion[4*i], c.motion[4*i+1], c.motion[4*i+2], c.motion[4*i+3] = d[0], d[1], d[2], rw
		box, ok := ShapeAABB(c.shapes[i], p, q, env+m)
		c.boxes[i], c.bounded[i] = box, ok
		if !ok {
			c.planeP[i] = p
			c.planeN[i] = q.Rotate(mgl64.Vec3{0, 0, 1})
		}
	}
	var err error
	c.pairs, err = c.grid.Pairs(c.boxes, c.bounded, c.fixed, c.planeP, c.planeN, c.binSize, c.pairs)
	if err != nil {
		return 0, err
	}
	con := &c.con
	con.Resize(0)
	c.sub = c.sub[:0]
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

// PairContacts appends to con the contacts of bodies i and j (i < j, a
// candidate pair) at positions pos and orientations rot (engine.State's
// layouts) with gap below env (m), as Collide makes them: Narrow's
// contacts in its order, their points in the bodies' frames, the
// materials combined by engine.CombineMaterials. It returns their number
// and cps, Narrow's scratch (reused). A non-finite gap or normal is an
// error naming the bodies.
func (c *Collider) PairContacts(i, j int, pos, rot []float64, env float64, con *engine.Contacts, cps []ContactPoint) (int, []ContactPoint, error) {
	pi, qi := vec3At(pos, i), quatAt(rot, i)
	pj, qj := vec3At(pos, j), quatAt(rot, j)
	cps, err := Narrow(c.shapes[i], Pose{pi, qi}, c.shapes[j], Pose{pj, qj}, env, cps[:0])
	if err != nil {
		return 0, cps, fmt.Errorf("cpuref: bodies %d and %d: %w", i, j, err)
	}
	mu, coh := engine.CombineMaterials(c.mats[c.material[i]], c.mats[c.material[j]])
	kept := 0
	for _, cp := range cps {
		if !c.canClose(i, j, cp) {
			continue
		}
		kept++
		if !finite(cp.Phi) || !finite(cp.Normal[0]) || !finite(cp.Normal[1]) || !finite(cp.Normal[2]) {
			return 0, cps, fmt.Errorf("cpuref: bodies %d and %d: narrowphase gave a non-finite contact", i, j)
		}
		sa := qi.Conjugate().Rotate(cp.PA.Sub(pi))
		sb := qj.Conjugate().Rotate(cp.PB.Sub(pj))
		con.A = append(con.A, int32(i))
		con.B = append(con.B, int32(j))
		con.Normal = append(con.Normal, cp.Normal[0], cp.Normal[1], cp.Normal[2])
		con.PA = append(con.PA, sa[0], sa[1], sa[2])
		con.PB = append(con.PB, sb[0], sb[1], sb[2])
		con.Phi = append(con.Phi, cp.Phi)
		con.Mu = append(con.Mu, mu)
		con.Cohesion = append(con.Cohesion, coh)
	}
	return kept, cps, nil
}

// canClose reports whether bodies i and j can close the gap of contact cp
// in the coming step: Φ < envelope + max(0, (d_i − d_j)·n) + (w_i + w_j),
// with motion's displacement bounds d and rotation bounds w (see Collide).
// The envelope alone keeps every contact below it.
func (c *Collider) canClose(i, j int, cp ContactPoint) bool {
	mi, mj := c.motion[4*i:4*i+4], c.motion[4*j:4*j+4]
	dd := mgl64.Vec3{mi[0] - mj[0], mi[1] - mj[1], mi[2] - mj[2]}
	return cp.Phi < c.envelope+math.Max(dd.Dot(cp.Normal), 0)+(mi[3]+mj[3])
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

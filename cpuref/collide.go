package cpuref

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// Collide finds the contacts at the current positions: AABBs inflated by
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
func (b *Backend) Collide() (int, error) {
	env := b.envelope
	h := b.settings.Dt
	for i := 0; i < b.n; i++ {
		p, q := b.position(i), b.quat(i)
		m := 0.0
		if !b.fixed[i] {
			v := mgl64.Vec3{b.vel[3*i], b.vel[3*i+1], b.vel[3*i+2]}.Len()
			w := mgl64.Vec3{b.omega[3*i], b.omega[3*i+1], b.omega[3*i+2]}.Len()
			f := mgl64.Vec3{b.force[3*i], b.force[3*i+1], b.force[3*i+2]}.Mul(b.invMass[i])
			m = h*(v+w*b.shapes[i].BoundingRadius()) + h*h*b.gravity.Add(f).Len()
		}
		b.margin[i] = m
		box, ok := ShapeAABB(b.shapes[i], p, q, env+m)
		b.boxes[i], b.bounded[i] = box, ok
		if !ok {
			b.planeP[i] = p
			b.planeN[i] = q.Rotate(mgl64.Vec3{0, 0, 1})
		}
	}
	var err error
	b.pairs, err = b.grid.Pairs(b.boxes, b.bounded, b.fixed, b.planeP, b.planeN, b.binSize, b.pairs)
	if err != nil {
		return 0, err
	}
	c := &b.con
	c.Resize(0)
	b.sub = b.sub[:0]
	for _, pr := range b.pairs {
		i, j := int(pr[0]), int(pr[1])
		pi, qi := b.position(i), b.quat(i)
		pj, qj := b.position(j), b.quat(j)
		b.cps, err = Narrow(b.shapes[i], Pose{pi, qi}, b.shapes[j], Pose{pj, qj}, env+b.margin[i]+b.margin[j], b.cps[:0])
		if err != nil {
			return 0, fmt.Errorf("cpuref: bodies %d and %d: %w", i, j, err)
		}
		mu, coh := engine.CombineMaterials(b.mats[b.material[i]], b.mats[b.material[j]])
		for k, cp := range b.cps {
			if !finite(cp.Phi) || !finite(cp.Normal[0]) || !finite(cp.Normal[1]) || !finite(cp.Normal[2]) {
				return 0, fmt.Errorf("cpuref: bodies %d and %d: narrowphase gave a non-finite contact", i, j)
			}
			sa := qi.Conjugate().Rotate(cp.PA.Sub(pi))
			sb := qj.Conjugate().Rotate(cp.PB.Sub(pj))
			c.A = append(c.A, int32(i))
			c.B = append(c.B, int32(j))
			c.Normal = append(c.Normal, cp.Normal[0], cp.Normal[1], cp.Normal[2])
			c.PA = append(c.PA, sa[0], sa[1], sa[2])
			c.PB = append(c.PB, sb[0], sb[1], sb[2])
			c.Phi = append(c.Phi, cp.Phi)
			c.Mu = append(c.Mu, mu)
			c.Cohesion = append(c.Cohesion, coh)
			b.sub = append(b.sub, int32(k))
		}
	}
	b.buildAdjacency()
	return c.Len(), nil
}

// buildAdjacency makes the body → contact lists (CSR) by a counting sort
// over contacts in order, so each body's list is in contact order. Fixed
// bodies get no list: M⁻¹ is zero for them.
func (b *Backend) buildAdjacency() {
	if cap(b.adjOff) < b.n+1 {
		b.adjOff = make([]int32, b.n+1)
	}
	off := b.adjOff[:b.n+1]
	for i := range off {
		off[i] = 0
	}
	nc := b.con.Len()
	for k := 0; k < nc; k++ {
		if a := b.con.A[k]; !b.fixed[a] {
			off[a+1]++
		}
		if bb := b.con.B[k]; !b.fixed[bb] {
			off[bb+1]++
		}
	}
	for i := 0; i < b.n; i++ {
		off[i+1] += off[i]
	}
	total := int(off[b.n])
	if cap(b.adj) < total {
		b.adj = make([]int32, total, total+total/4)
	}
	b.adj = b.adj[:total]
	// Fill using a running cursor per body (reuse dv's memory is not
	// possible: cursors are ints), then restore the offsets.
	for k := 0; k < nc; k++ {
		if a := b.con.A[k]; !b.fixed[a] {
			b.adj[off[a]] = int32(2 * k)
			off[a]++
		}
		if bb := b.con.B[k]; !b.fixed[bb] {
			b.adj[off[bb]] = int32(2*k + 1)
			off[bb]++
		}
	}
	for i := b.n; i > 0; i-- {
		off[i] = off[i-1]
	}
	off[0] = 0
}

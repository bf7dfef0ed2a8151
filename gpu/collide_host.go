//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// hostCollider is the backend's collision detection, which for now runs on
// the host with cpuref's exported pieces (ShapeAABB, Grid.Pairs, Narrow,
// engine.CombineMaterials) in the same order as cpuref's Collide, so both
// backends find the same contacts bit for bit. Before each Collide the
// backend downloads positions, orientations and velocities into it; after,
// it uploads the contacts and the body → contact adjacency. GPU broadphase
// and narrowphase kernels are the next step: they remove this round trip.
//
// It also keeps the model's constant per-body data that collision needs
// and, for WarmStart, the previous step's contact keys.
type hostCollider struct {
	n        int
	shapes   []engine.Shape
	material []int32
	fixed    []bool
	mats     []engine.Material
	gravity  mgl64.Vec3
	dt       float64 // the settings' step, for the speculative margins (s)
	envelope float64 // m
	binSize  float64 // m

	// Body state: uploaded by Load, downloaded before each Collide (the
	// layouts of engine.State); invMass, invInertia, force and torque are
	// constant.
	pos, rot, vel, omega []float64
	invMass, invInertia  []float64
	force, torque        []float64

	grid    cpuref.Grid
	boxes   []cpuref.AABB
	margin  []float64
	bounded []bool
	planeP  []mgl64.Vec3
	planeN  []mgl64.Vec3
	pairs   [][2]int32
	cps     []cpuref.ContactPoint

	// Contacts, as cpuref's Collide makes them, and their upload forms.
	con    engine.Contacts
	sub    []int32  // index of a contact among those of its body pair
	a, b   []uint32 // con.A, con.B
	adjOff []uint32 // body → contact lists (CSR offsets), n+1
	adj    []uint32 // contact index·2 + side (0: A, 1: B)

	// Warm start: the last integrated step's contact keys and, when
	// WarmStart runs, its impulses downloaded.
	prevA, prevB, prevSub []int32
	prevGamma, warm       []float64
}

// load copies the model as cpuref's Load does: fixed bodies (and planes)
// get zero velocity and inverse mass, orientations are normalised, and
// the envelope and bin size get their automatic values.
func (h *hostCollider) load(m *engine.Model, s *engine.Settings) {
	n := len(m.Bodies)
	*h = hostCollider{grid: h.grid, pairs: h.pairs[:0], cps: h.cps[:0]}
	h.n = n
	h.mats = append([]engine.Material(nil), m.Materials...)
	h.gravity = m.Gravity
	h.dt = s.Dt
	h.shapes = make([]engine.Shape, n)
	h.material = make([]int32, n)
	h.fixed = make([]bool, n)
	h.pos = make([]float64, 3*n)
	h.rot = make([]float64, 4*n)
	h.vel = make([]float64, 3*n)
	h.omega = make([]float64, 3*n)
	h.invMass = make([]float64, n)
	h.invInertia = make([]float64, 3*n)
	h.force = make([]float64, 3*n)
	h.torque = make([]float64, 3*n)
	h.boxes = make([]cpuref.AABB, n)
	h.margin = make([]float64, n)
	h.bounded = make([]bool, n)
	h.planeP = make([]mgl64.Vec3, n)
	h.planeN = make([]mgl64.Vec3, n)
	h.adjOff = make([]uint32, n+1)
	var radii []float64
	for i := range m.Bodies {
		bd := &m.Bodies[i]
		h.shapes[i] = bd.Shape
		h.material[i] = int32(bd.Material)
		fixed := bd.Fixed || bd.Shape.Kind == engine.Plane
		h.fixed[i] = fixed
		q := bd.Rot.Normalize()
		copy(h.pos[3*i:], bd.Pos[:])
		h.rot[4*i], h.rot[4*i+1], h.rot[4*i+2], h.rot[4*i+3] = q.W, q.V[0], q.V[1], q.V[2]
		copy(h.force[3*i:], bd.Force[:])
		copy(h.torque[3*i:], bd.Torque[:])
		if fixed {
			continue
		}
		copy(h.vel[3*i:], bd.Vel[:])
		copy(h.omega[3*i:], bd.Omega[:])
		h.invMass[i] = 1 / bd.Mass
		for k := 0; k < 3; k++ {
			h.invInertia[3*i+k] = 1 / bd.Inertia[k]
		}
		radii = append(radii, bd.Shape.BoundingRadius())
	}
	h.envelope = s.Envelope
	h.binSize = s.BinSize
	if len(radii) > 0 {
		sort.Float64s(radii)
		if h.envelope == 0 {
			h.envelope = 0.05 * radii[0]
		}
		if h.binSize == 0 {
			// cpuref's choice: two bounding diameters plus the envelope.
			h.binSize = 2 * (2*radii[len(radii)/2] + 2*h.envelope)
		}
	} else if h.binSize == 0 {
		h.binSize = 1
	}
}

func (h *hostCollider) quat(i int) mgl64.Quat {
	return mgl64.Quat{W: h.rot[4*i], V: mgl64.Vec3{h.rot[4*i+1], h.rot[4*i+2], h.rot[4*i+3]}}
}

func (h *hostCollider) position(i int) mgl64.Vec3 {
	return mgl64.Vec3{h.pos[3*i], h.pos[3*i+1], h.pos[3*i+2]}
}

// collide finds the contacts at the current (downloaded) positions exactly
// as cpuref's Collide does: boxes inflated by the envelope plus each
// body's speculative margin m_i = h(‖v_i‖ + ‖ω_i‖R_i) + h²‖g + F_i/m_i‖,
// grid broadphase, narrowphase per candidate pair keeping Φ < envelope +
// m_A + m_B, contacts sorted by (A, B) and in narrowphase order within a
// pair; then the adjacency.
func (h *hostCollider) collide() (int, error) {
	env := h.envelope
	dt := h.dt
	for i := 0; i < h.n; i++ {
		p, q := h.position(i), h.quat(i)
		m := 0.0
		if !h.fixed[i] {
			v := mgl64.Vec3{h.vel[3*i], h.vel[3*i+1], h.vel[3*i+2]}.Len()
			w := mgl64.Vec3{h.omega[3*i], h.omega[3*i+1], h.omega[3*i+2]}.Len()
			f := mgl64.Vec3{h.force[3*i], h.force[3*i+1], h.force[3*i+2]}.Mul(h.invMass[i])
			m = dt*(v+w*h.shapes[i].BoundingRadius()) + dt*dt*h.gravity.Add(f).Len()
		}
		h.margin[i] = m
		box, ok := cpuref.ShapeAABB(h.shapes[i], p, q, env+m)
		h.boxes[i], h.bounded[i] = box, ok
		if !ok {
			h.planeP[i] = p
			h.planeN[i] = q.Rotate(mgl64.Vec3{0, 0, 1})
		}
	}
	var err error
	h.pairs, err = h.grid.Pairs(h.boxes, h.bounded, h.fixed, h.planeP, h.planeN, h.binSize, h.pairs)
	if err != nil {
		return 0, fmt.Errorf("gpu: collide: %w", err)
	}
	c := &h.con
	c.Resize(0)
	h.sub = h.sub[:0]
	for _, pr := range h.pairs {
		i, j := int(pr[0]), int(pr[1])
		pi, qi := h.position(i), h.quat(i)
		pj, qj := h.position(j), h.quat(j)
		h.cps, err = cpuref.Narrow(h.shapes[i], cpuref.Pose{Pos: pi, Rot: qi}, h.shapes[j], cpuref.Pose{Pos: pj, Rot: qj}, env+h.margin[i]+h.margin[j], h.cps[:0])
		if err != nil {
			return 0, fmt.Errorf("gpu: collide: bodies %d and %d: %w", i, j, err)
		}
		mu, coh := engine.CombineMaterials(h.mats[h.material[i]], h.mats[h.material[j]])
		for k, cp := range h.cps {
			if !finite(cp.Phi) || !finite(cp.Normal[0]) || !finite(cp.Normal[1]) || !finite(cp.Normal[2]) {
				return 0, fmt.Errorf("gpu: collide: bodies %d and %d: narrowphase gave a non-finite contact", i, j)
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
			h.sub = append(h.sub, int32(k))
		}
	}
	nc := c.Len()
	h.a, h.b = h.a[:0], h.b[:0]
	for k := 0; k < nc; k++ {
		h.a = append(h.a, uint32(c.A[k]))
		h.b = append(h.b, uint32(c.B[k]))
	}
	h.buildAdjacency()
	return nc, nil
}

// buildAdjacency makes the body → contact lists (CSR) by a counting sort
// over the contacts in order, so each body's list is in contact order, as
// cpuref's buildAdjacency; fixed bodies get no list (M⁻¹ is zero for
// them).
func (h *hostCollider) buildAdjacency() {
	off := h.adjOff
	clear(off)
	nc := h.con.Len()
	for k := 0; k < nc; k++ {
		if a := h.a[k]; !h.fixed[a] {
			off[a+1]++
		}
		if b := h.b[k]; !h.fixed[b] {
			off[b+1]++
		}
	}
	for i := 0; i < h.n; i++ {
		off[i+1] += off[i]
	}
	total := int(off[h.n])
	if cap(h.adj) < total {
		h.adj = make([]uint32, total, total+total/4)
	}
	h.adj = h.adj[:total]
	for k := 0; k < nc; k++ {
		if a := h.a[k]; !h.fixed[a] {
			h.adj[off[a]] = uint32(2 * k)
			off[a]++
		}
		if b := h.b[k]; !h.fixed[b] {
			h.adj[off[b]] = uint32(2*k + 1)
			off[b]++
		}
	}
	for i := h.n; i > 0; i-- {
		off[i] = off[i-1]
	}
	off[0] = 0
}

// keep remembers the current contacts' keys for the next WarmStart.
func (h *hostCollider) keep() {
	nc := h.con.Len()
	h.prevA = append(h.prevA[:0], h.con.A...)
	h.prevB = append(h.prevB[:0], h.con.B...)
	h.prevSub = append(h.prevSub[:0], h.sub[:nc]...)
}

// warmStart fills h.warm (3 per current contact) with h.prevGamma of each
// contact whose (A, B, index within the pair) also existed in the last
// step, else zero: one merge of the two sorted key lists, as cpuref's
// WarmStart.
func (h *hostCollider) warmStart() []float64 {
	nc := h.con.Len()
	if cap(h.warm) < 3*nc {
		h.warm = make([]float64, 3*nc, 3*nc+3*nc/4)
	}
	g := h.warm[:3*nc]
	key := func(a, b, s int32) uint64 { return uint64(a)<<40 | uint64(b)<<16 | uint64(s) }
	j := 0
	for k := 0; k < nc; k++ {
		kk := key(h.con.A[k], h.con.B[k], h.sub[k])
		for j < len(h.prevA) && key(h.prevA[j], h.prevB[j], h.prevSub[j]) < kk {
			j++
		}
		if j < len(h.prevA) && key(h.prevA[j], h.prevB[j], h.prevSub[j]) == kk {
			copy(g[3*k:3*k+3], h.prevGamma[3*j:3*j+3])
		} else {
			g[3*k], g[3*k+1], g[3*k+2] = 0, 0, 0
		}
	}
	return g
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// hostCollider is the backend's host side of collision: cpuref's Collider
// (the same code as the CPU backend, so both find the same contacts bit
// for bit) with the download/upload glue around it, the body arrays Load
// uploads, and the warm-start merge.
type hostCollider struct {
	col      cpuref.Collider
	n        int
	fixed    []bool // col.Fixed()
	gravity  mgl64.Vec3
	envelope float64 // m

	// Body state in engine.State's layouts: uploaded by Load, downloaded
	// before a host Collide.
	pos, rot, vel, omega []float64
	invMass, invInertia  []float64
	force, torque        []float64

	// The contacts of the last host collide and their upload forms.
	con    *engine.Contacts
	a, b   []uint32 // con.A, con.B
	adjOff []uint32 // body → contact lists (CSR offsets), n+1
	adj    []uint32 // contact index·2 + side (0: A, 1: B)

	// Warm start: the last step's impulses downloaded, and the merge.
	prevGamma, warm []float64
}

// load copies the model as cpuref's Load does: fixed bodies (and planes)
// get zero velocity and inverse mass, orientations are normalised, and
// the envelope and bin size get their automatic values (cpuref.Collider).
func (h *hostCollider) load(m *engine.Model, s *engine.Settings) {
	h.col.Load(m, s)
	n := h.col.Bodies()
	h.n = n
	h.fixed = h.col.Fixed()
	h.gravity = h.col.Gravity()
	h.envelope = h.col.Envelope()
	h.con = h.col.Contacts()
	h.pos = make([]float64, 3*n)
	h.rot = make([]float64, 4*n)
	h.vel = make([]float64, 3*n)
	h.omega = make([]float64, 3*n)
	h.invMass = make([]float64, n)
	h.invInertia = make([]float64, 3*n)
	h.force = make([]float64, 3*n)
	h.torque = make([]float64, 3*n)
	h.adjOff = make([]uint32, n+1)
	for i := range m.Bodies {
		bd := &m.Bodies[i]
		q := bd.Rot.Normalize()
		copy(h.pos[3*i:], bd.Pos[:])
		h.rot[4*i], h.rot[4*i+1], h.rot[4*i+2], h.rot[4*i+3] = q.W, q.V[0], q.V[1], q.V[2]
		copy(h.force[3*i:], bd.Force[:])
		copy(h.torque[3*i:], bd.Torque[:])
		if h.fixed[i] {
			continue
		}
		copy(h.vel[3*i:], bd.Vel[:])
		copy(h.omega[3*i:], bd.Omega[:])
		h.invMass[i] = 1 / bd.Mass
		for k := 0; k < 3; k++ {
			h.invInertia[3*i+k] = 1 / bd.Inertia[k]
		}
	}
}

// collide runs cpuref's Collide at the downloaded state and converts the
// contacts' bodies and the adjacency to the uint32 upload forms.
func (h *hostCollider) collide() (int, error) {
	nc, err := h.col.Collide(h.pos, h.rot, h.vel, h.omega, h.invMass, h.force)
	if err != nil {
		return 0, fmt.Errorf("gpu: collide: %w", err)
	}
	h.a, h.b = h.a[:0], h.b[:0]
	for k := 0; k < nc; k++ {
		h.a = append(h.a, uint32(h.con.A[k]))
		h.b = append(h.b, uint32(h.con.B[k]))
	}
	off, adj := h.col.Adjacency()
	for i, o := range off {
		h.adjOff[i] = uint32(o)
	}
	h.adj = h.adj[:0]
	for _, e := range adj {
		h.adj = append(h.adj, uint32(e))
	}
	return nc, nil
}

// warmStart fills h.warm (3 per current contact) with h.prevGamma of each
// contact whose (A, B, index within the pair) also existed in the last
// step, else zero (cpuref.Collider.WarmStart).
func (h *hostCollider) warmStart() []float64 {
	nc := h.con.Len()
	if cap(h.warm) < 3*nc {
		h.warm = make([]float64, 3*nc, 3*nc+3*nc/4)
	}
	g := h.warm[:3*nc]
	h.col.WarmStart(g, h.prevGamma)
	return g
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

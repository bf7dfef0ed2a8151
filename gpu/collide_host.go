//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/collide"
	"github.com/gpusim/gpusim/engine"
)

// hostCollider is the backend's host side of collision: collide.Collider
// (the same code as the CPU backend) with the download/upload glue around
// it, and the body arrays Load uploads. The device collider uses its
// PairContacts for the pairs whose EPA outgrows the device's polytope; the
// whole collision runs here (collideHost) when a device kernel flags
// input that collide rejects, for collide's error message, and for models
// of 2²⁶ bodies or more.
type hostCollider struct {
	col      collide.Collider
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
	sub    []uint32 // index of each contact within its pair
	adjOff []uint32 // body → contact lists (CSR offsets), n+1
	adj    []uint32 // contact index·2 + side (0: A, 1: B)
}

// load copies the model as cpuref's Load does (collide.Collider.BodyArrays):
// fixed bodies (and planes) get zero velocity and inverse mass, orientations
// are normalised, and the envelope and bin size get their automatic values
// (collide.Collider).
func (h *hostCollider) load(m *engine.Model, s *engine.Settings) {
	h.col.Load(m, s)
	n := h.col.Bodies()
	h.n = n
	h.fixed = h.col.Fixed()
	h.gravity = h.col.Gravity()
	h.envelope = h.col.Envelope()
	h.con = h.col.Contacts()
	a := h.col.BodyArrays(m)
	h.pos, h.rot, h.vel, h.omega = a.Pos, a.Rot, a.Vel, a.Omega
	h.invMass, h.invInertia, h.force, h.torque = a.InvMass, a.InvInertia, a.Force, a.Torque
	h.adjOff = make([]uint32, n+1)
}

// collide runs collide.Collider.Collide at the downloaded state and
// converts the contacts' bodies and the adjacency to the uint32 upload
// forms.
func (h *hostCollider) collide() (int, error) {
	nc, err := h.col.Collide(h.pos, h.rot, h.vel, h.omega, h.invMass, h.force)
	if err != nil {
		return 0, fmt.Errorf("gpu: %w", err)
	}
	h.a, h.b, h.sub = h.a[:0], h.b[:0], h.sub[:0]
	for k, s := range h.col.Sub()[:nc] {
		h.a = append(h.a, uint32(h.con.A[k]))
		h.b = append(h.b, uint32(h.con.B[k]))
		h.sub = append(h.sub, uint32(s))
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

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

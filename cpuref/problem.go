package cpuref

import (
	"math"

	"github.com/gpusim/gpusim/engine"
)

// problem is the matrix-free CCP of the backend's current step.
type problem struct {
	linalg
	b *Backend
}

// Contacts returns nc.
func (p *problem) Contacts() int { return p.b.con.Len() }

// R returns r = b + DᵀM⁻¹k.
func (p *problem) R() engine.Vec { return p.b.r }

// Schur sets dst = Dᵀ(M⁻¹(D x)): a gather per body, then a product per
// contact. No N is assembled.
func (p *problem) Schur(dst, x engine.Vec) {
	b := p.b
	d := vec(dst)
	b.bodyImpulse(vec(x), b.dv)
	b.pool.forChunks(b.con.Len(), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			b.contactVelocity(k, b.dv, d[3*k:3*k+3])
		}
	})
}

// Project sets dst_i = Π_Υi(x_i) with the contact's μ and cohesion impulse.
func (p *problem) Project(dst, x engine.Vec) {
	b := p.b
	d, xv := vec(dst), vec(x)
	b.pool.forChunks(b.con.Len(), func(_, lo, hi int) {
		for k := lo; k < hi; k++ {
			d[3*k], d[3*k+1], d[3*k+2] = ProjectCone(xv[3*k], xv[3*k+1], xv[3*k+2], b.con.Mu[k], b.coh[k])
		}
	})
}

// AntiRelax sets dst = r, then dst_i,n += μ_i‖(u_i,u, u_i,w)‖.
func (p *problem) AntiRelax(dst, u engine.Vec) {
	b := p.b
	d, uv := vec(dst), vec(u)
	copy(d, b.r)
	for k := range b.con.Mu {
		d[3*k] += b.con.Mu[k] * math.Hypot(uv[3*k+1], uv[3*k+2])
	}
}

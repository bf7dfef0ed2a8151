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
func (p *problem) R() engine.Vec {
	if p.b.rv == nil {
		p.b.rv = p.b.r
	}
	return p.b.rv
}

// Schur sets dst = Dᵀ(M⁻¹(D x)): a gather per body, then a product per
// contact. No N is assembled.
func (p *problem) Schur(dst, x engine.Vec) { p.b.schur(vec(dst), vec(x)) }

// contactVelocities sets args.d_k = D_kᵀ args.dv for the contacts k in
// [lo, hi).
func (b *Backend) contactVelocities(_, lo, hi int) {
	b.velocities(lo, hi, b.args.dv, b.args.d[3*lo:3*hi])
}

// Project sets dst_i = Π_Υi(x_i) with the contact's μ and cohesion impulse.
func (p *problem) Project(dst, x engine.Vec) {
	b := p.b
	b.args.d, b.args.x = vec(dst), vec(x)
	b.pool.forChunks(b.con.Len(), contactGrain, taskFunc(b.loops.project))
	b.args = loopArgs{}
}

// project sets args.d_k = Π(args.x_k) for the contacts k in [lo, hi).
func (b *Backend) project(_, lo, hi int) {
	projectCones(b.args.d, b.args.x, b.con.Mu, b.coh, lo, hi)
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

// BlockDiag sets g_i = tr(D_iᵀM⁻¹D_i)/3 on the three rows of contact i:
// for each direction d of the contact frame, (1/m_A + 1/m_B)|d|² plus
// Σ_j ρ_A,d,j²/J_A,j + ρ_B,d,j²/J_B,j.
func (p *problem) BlockDiag(dst engine.Vec) {
	b := p.b
	b.args.d = vec(dst)
	b.pool.forChunks(b.con.Len(), contactGrain, taskFunc(b.loops.blockDiag))
	b.args = loopArgs{}
}

// blockDiag is BlockDiag's loop over the contacts in [lo, hi).
func (b *Backend) blockDiag(_, lo, hi int) {
	d := b.args.d
	for k := lo; k < hi; k++ {
		ia, ib := int(b.con.A[k]), int(b.con.B[k])
		tr := 3 * (b.invMass[ia] + b.invMass[ib]) // |d|² = 1 for n, u, w
		for e := 0; e < 9; e++ {
			j := e % 3
			tr += b.rhoA[9*k+e]*b.rhoA[9*k+e]*b.invInertia[3*ia+j] + b.rhoB[9*k+e]*b.rhoB[9*k+e]*b.invInertia[3*ib+j]
		}
		g := tr / 3
		d[3*k], d[3*k+1], d[3*k+2] = g, g, g
	}
}

// Sweep runs one projected Gauss–Seidel sweep, matrix-free: it keeps
// dv = M⁻¹Dγ per body, takes (Nγ + r)_i = D_iᵀdv + r_i for contact i, and
// after updating γ_i adds M⁻¹D_i Δγ_i to the velocities of its two bodies.
// It runs on one goroutine: each contact sees all earlier updates.
func (p *problem) Sweep(gamma, diag engine.Vec, omega, lambda float64) {
	b := p.b
	g, dg := vec(gamma), vec(diag)
	b.bodyImpulse(g, b.dv)
	var u [3]float64
	for k := 0; k < b.con.Len(); k++ {
		b.velocities(k, k+1, b.dv, u[:])
		s := omega / dg[3*k]
		x := g[3*k : 3*k+3]
		n, tu, tw := ProjectCone(x[0]-s*(u[0]+b.r[3*k]), x[1]-s*(u[1]+b.r[3*k+1]), x[2]-s*(u[2]+b.r[3*k+2]), b.con.Mu[k], b.coh[k])
		var delta [3]float64
		delta[0] = lambda*n + (1-lambda)*x[0] - x[0]
		delta[1] = lambda*tu + (1-lambda)*x[1] - x[1]
		delta[2] = lambda*tw + (1-lambda)*x[2] - x[2]
		x[0] += delta[0]
		x[1] += delta[1]
		x[2] += delta[2]
		b.addContactImpulse(k, delta, b.dv)
	}
}

// Cones copies μ and the cohesion impulses.
func (p *problem) Cones(mu, cohesion []float64) {
	copy(mu, p.b.con.Mu)
	copy(cohesion, p.b.coh)
}

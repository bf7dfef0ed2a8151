package cpuref

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gatherImpulse is bodyImpulse as one pass per body, the loop the GPU's
// apgd_body_impulse kernel computes: for each contact of the body in
// order, force Σ_d (∓x_k,d) d and torque Σ_d x_k,d ρ_d added as they come.
func gatherImpulse(b *Backend, x Vec, dv []float64) {
	for i := 0; i < b.n; i++ {
		o := dv[6*i : 6*i+6]
		if b.fixed[i] {
			clear(o)
			continue
		}
		var f, t [3]float64
		for _, e := range b.adj[b.adjOff[i]:b.adjOff[i+1]] {
			k := int(e >> 1)
			bs, g := b.basis[9*k:9*k+9], x[3*k:3*k+3]
			rho, s := b.rhoA[9*k:9*k+9], -1.0
			if e&1 == 1 {
				rho, s = b.rhoB[9*k:9*k+9], 1
			}
			for j := 0; j < 3; j++ {
				f[j] += s*g[0]*bs[j] + s*g[1]*bs[3+j] + s*g[2]*bs[6+j]
				t[j] += g[0]*rho[j] + g[1]*rho[3+j] + g[2]*rho[6+j]
			}
		}
		for j := 0; j < 3; j++ {
			o[j] = b.invMass[i] * f[j]
			o[3+j] = b.invInertia[3*i+j] * t[j]
		}
	}
}

// TestBodyImpulseBits: bodyImpulse's two passes (per-contact F and τ, then
// per-body sums) give bit for bit the one-pass gather, on random bodies
// and contacts (5000 and 9000: enough for both passes to run on the
// workers) with some impulses zero or negative zero (the signs of zero
// terms must not leak into the sums), for 1 and 3 workers.
func TestBodyImpulseBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, workers := range []int{1, 3} {
		b := randomSystem(t, rng, 5000, 9000)
		b.pool = newPool(workers)
		if _, err := b.Build(0.01); err != nil {
			t.Fatal(err)
		}
		x := make(Vec, 3*b.con.Len())
		for i := range x {
			switch rng.IntN(8) {
			case 0:
				x[i] = 0
			case 1:
				x[i] = math.Copysign(0, -1)
			default:
				x[i] = rng.NormFloat64()
			}
		}
		got, want := make([]float64, 6*b.n), make([]float64, 6*b.n)
		b.bodyImpulse(x, got)
		gatherImpulse(b, x, want)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("workers %d: dv[%d] = %v, want %v", workers, i, got[i], want[i])
			}
		}
	}
}

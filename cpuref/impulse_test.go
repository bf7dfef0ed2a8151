package cpuref

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"math/rand/v2"
	"testing"
)

// gatherImpulse is bodyImpulse written with mgl64's vectors, the loop
// the GPU's apgd_body_impulse kernel computes: for each contact of the
// body in order, the force ±(x_n n + x_u u + x_w w) and its torque s × F
// added as they come, then M⁻¹ (the world frame's R J̄⁻¹ Rᵀ as the matrix
// worldInertia makes, applied with mgl64's Mat3.Mul3x1, or j·I for an
// isotropic body).
func gatherImpulse(b *Backend, x Vec, dv []float64) {
	for i := 0; i < b.n; i++ {
		o := dv[6*i : 6*i+6]
		if b.fixed[i] {
			clear(o)
			continue
		}
		var f, t mgl64.Vec3
		for _, e := range b.adj[b.adjOff[i]:b.adjOff[i+1]] {
			k := int(e >> 1)
			j, g := b.jac[12*k:12*k+12], x[3*k:3*k+3]
			n, u := mgl64.Vec3{j[0], j[1], j[2]}, mgl64.Vec3{j[3], j[4], j[5]}
			F := n.Mul(g[0]).Add(u.Mul(g[1])).Add(n.Cross(u).Mul(g[2]))
			s := mgl64.Vec3{j[6], j[7], j[8]}
			if e&1 == 1 {
				s = mgl64.Vec3{j[9], j[10], j[11]}
			} else {
				F = F.Mul(-1)
			}
			f = f.Add(F)
			t = t.Add(s.Cross(F))
		}
		ji := b.invInertia[3*i : 3*i+3]
		var w mgl64.Vec3
		if ji[0] == ji[1] && ji[1] == ji[2] {
			w = t.Mul(ji[0])
		} else {
			q := b.quat(i)
			m := worldInertia(q.W, q.V[0], q.V[1], q.V[2], [3]float64(ji))
			w = mgl64.Mat3{m[0], m[1], m[2], m[1], m[3], m[4], m[2], m[4], m[5]}.Mul3x1(t)
		}
		for j := 0; j < 3; j++ {
			o[j] = b.invMass[i] * f[j]
			o[3+j] = w[j]
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

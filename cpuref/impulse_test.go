package cpuref

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
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

// TestBodyImpulseBits: bodyImpulse's scalar gather (the bodies are
// ellipsoids, which the vector loops do not take: TestBodyImpulseScatterBits
// covers those) gives bit for bit gatherImpulse's sums, on random bodies
// and contacts (5000 and 9000: enough for the loop to run on the workers)
// with some impulses zero or negative zero (the signs of zero terms must
// not leak into the sums), for 1 and 3 workers.
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

// TestBodyImpulseScatterBits: the vector loops' scatter of the contacts
// that run by body A (bodyImpulses4) gives the gather's bits, on spheres
// (isotropic: the loops' case) cut into several parts of bodyGrain bodies,
// with contacts between parts, with the fixed plane (the last body, so
// always B), a body A of many contacts in a row and bodies without any;
// for 1 and 3 workers, and with the contacts in another order (byA
// false: every contact gathered).
func TestBodyImpulseScatterBits(t *testing.T) {
	if !useSIMD {
		t.Skip("no vector loops in this build or on this processor (simd.go)")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	nb := 2*bodyGrain + 1500 // three parts
	m := engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	for i := 0; i < nb; i++ {
		bd := engine.Body{Shape: engine.SphereShape(0.1 + 0.1*rng.Float64()), Rot: mgl64.QuatIdent()}
		bd.Pos = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		bd.SetDensity(500 + 1000*rng.Float64())
		m.Bodies = append(m.Bodies, bd)
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	type pair struct{ a, b int32 }
	var pairs []pair
	for k := 0; k < 3*nb; k++ {
		i := rng.IntN(nb - 100) // the last 100 spheres touch nothing
		var j int
		switch rng.IntN(4) {
		case 0:
			j = nb // the plane
		case 1:
			j = i + 1 + rng.IntN(nb-100-i) // anywhere above, often in another part
		default:
			j = min(i+1+rng.IntN(40), nb-101) // a neighbour
		}
		if j == i {
			continue
		}
		pairs = append(pairs, pair{int32(i), int32(j)})
	}
	for range 50 {
		pairs = append(pairs, pair{7, int32(8 + rng.IntN(nb-108))}) // body 7's long run
	}
	slices.SortFunc(pairs, func(p, q pair) int { return cmp.Or(cmp.Compare(p.a, q.a), cmp.Compare(p.b, q.b)) })
	for _, sorted := range []bool{true, false} {
		if !sorted {
			rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		}
		c := &engine.Contacts{}
		c.Resize(len(pairs))
		for k, p := range pairs {
			c.A[k], c.B[k] = p.a, p.b
			n := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
			copy(c.Normal[3*k:], n[:])
			for d := 0; d < 3; d++ {
				c.PA[3*k+d] = rng.NormFloat64()
				c.PB[3*k+d] = rng.NormFloat64()
			}
			c.Mu[k] = 0.3
		}
		for _, workers := range []int{1, 3} {
			b := New(workers)
			s := engine.DefaultSettings()
			if err := b.Load(&m, &s); err != nil {
				t.Fatal(err)
			}
			b.SetContacts(c)
			if b.byA != sorted {
				t.Fatalf("byA = %v for contacts sorted %v", b.byA, sorted)
			}
			if _, err := b.Build(0.01); err != nil {
				t.Fatal(err)
			}
			x := make(Vec, 3*b.con.Len())
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			// dv's room past its end, as Load makes it: the vector loops
			// store 8 values per body.
			got, want := make([]float64, 6*b.n, 6*b.n+2), make([]float64, 6*b.n)
			b.bodyImpulse(x, got)
			gatherImpulse(b, x, want)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("sorted %v, workers %d: dv[%d] (body %d) = %v, want %v", sorted, workers, i, i/6, got[i], want[i])
				}
			}
		}
	}
}

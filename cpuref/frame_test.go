package cpuref

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestWorldInertia checks worldInertia, the step's R J̄⁻¹ Rᵀ that the
// products with N apply to bodies that are not isotropic, against two
// computations that share none of its code: mgl64's rotation matrix of
// the quaternion (Quat.Mat4) times diag(J̄⁻¹) times its transpose, and
// the body-frame route R(J̄⁻¹ ∘ Rᵀt) with mgl64's Quat.Rotate on random
// vectors t. Each entry is a sum of three products of entries of R
// (|R_ab| ≤ 1, each a few roundings from exact) with one of J̄⁻¹, so the
// three computations agree within a few units of float64 rounding of
// max(J̄⁻¹): 1e-14 relative (about 45 ulps) bounds that with room.
func TestWorldInertia(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		q := mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}.Normalize()
		ji := [3]float64{rng.Float64() * 10, rng.Float64(), rng.Float64() * 0.1}
		tol := 1e-14 * max(ji[0], ji[1], ji[2])
		m := worldInertia(q.W, q.V[0], q.V[1], q.V[2], ji)
		full := mgl64.Mat3{m[0], m[1], m[2], m[1], m[3], m[4], m[2], m[4], m[5]}
		r := q.Mat4().Mat3()
		want := r.Mul3(mgl64.Diag3(mgl64.Vec3(ji))).Mul3(r.Transpose())
		for k := range 9 {
			if math.Abs(full[k]-want[k]) > tol {
				t.Fatalf("q = %v, J̄⁻¹ = %v: entry %d is %g, R diag(J̄⁻¹) Rᵀ has %g", q, ji, k, full[k], want[k])
			}
		}
		v := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		tb := q.Conjugate().Rotate(v)
		route := q.Rotate(mgl64.Vec3{ji[0] * tb[0], ji[1] * tb[1], ji[2] * tb[2]})
		got := full.Mul3x1(v)
		if d := got.Sub(route).Len(); d > tol*v.Len()*4 {
			t.Fatalf("q = %v, J̄⁻¹ = %v, t = %v: R J̄⁻¹ Rᵀ t = %v, the body-frame route gives %v", q, ji, v, got, route)
		}
	}
}

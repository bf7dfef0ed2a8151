package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestRotateIsMgl64: Rotate and RotateInverse give mgl64's Rotate and
// Conjugate().Rotate bit for bit (the CPU path's bits, which the device's
// match), on unit and non-unit quaternions of every scale, signed zeros
// and infinities.
func TestRotateIsMgl64(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-300, -1e300, math.Inf(1), math.Inf(-1)}
	pick := func() float64 {
		switch r.IntN(4) {
		case 0:
			return special[r.IntN(len(special))]
		case 1:
			return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		default:
			return r.NormFloat64()
		}
	}
	same := func(a, b mgl64.Vec3) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
				return false
			}
		}
		return true
	}
	for k := range 200000 {
		q := mgl64.Quat{W: pick(), V: mgl64.Vec3{pick(), pick(), pick()}}
		if k%2 == 0 && q.Len() > 0 && !math.IsInf(q.Len(), 0) {
			q = q.Normalize()
		}
		v := mgl64.Vec3{pick(), pick(), pick()}
		if got, want := Rotate(q, v), q.Rotate(v); !same(got, want) {
			t.Fatalf("Rotate(%v, %v) = %v, mgl64 %v", q, v, got, want)
		}
		if got, want := RotateInverse(q, v), q.Conjugate().Rotate(v); !same(got, want) {
			t.Fatalf("RotateInverse(%v, %v) = %v, mgl64 %v", q, v, got, want)
		}
	}
}

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

// TestQuatMulIsMgl64: QuatMul and QuatNormalize give mgl64's Quat.Mul and
// Quat.Normalize bit for bit (Integrate's orientation update): products of
// unit quaternions (lengths within 1e-10 of 1, which Normalize returns as
// they are), of quaternions of every scale, zeros and infinities.
func TestQuatMulIsMgl64(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	special := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e300, math.Inf(1)}
	pick := func(k int) mgl64.Quat {
		q := mgl64.Quat{W: r.NormFloat64(), V: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}}
		switch k % 4 {
		case 0:
			return q.Normalize()
		case 1:
			return q.Scale(math.Pow(10, float64(r.IntN(40)-20)))
		case 2:
			q.V[r.IntN(3)] = special[r.IntN(len(special))]
			return q
		}
		return q
	}
	bits := func(q mgl64.Quat) [4]uint64 {
		return [4]uint64{math.Float64bits(q.W), math.Float64bits(q.V[0]), math.Float64bits(q.V[1]), math.Float64bits(q.V[2])}
	}
	kept := 0
	for k := range 200000 {
		a, b := pick(k), pick(k/4)
		want := a.Mul(b)
		w, x, y, z := QuatMul(a.W, a.V[0], a.V[1], a.V[2], b.W, b.V[0], b.V[1], b.V[2])
		got := mgl64.Quat{W: w, V: mgl64.Vec3{x, y, z}}
		nan := math.IsNaN(want.W) || math.IsNaN(want.V[0]) || math.IsNaN(want.V[1]) || math.IsNaN(want.V[2])
		if bits(got) != bits(want) && !nan {
			t.Fatalf("%v · %v: QuatMul %v, mgl64 %v", a, b, got, want)
		}
		wantN := want.Normalize()
		w, x, y, z = QuatNormalize(w, x, y, z)
		gotN := mgl64.Quat{W: w, V: mgl64.Vec3{x, y, z}}
		if bits(gotN) != bits(wantN) && !nan {
			t.Fatalf("Normalize(%v): %v, mgl64 %v", want, gotN, wantN)
		}
		if bits(wantN) == bits(want) {
			kept++
		}
	}
	if kept == 0 || kept == 200000 {
		t.Fatalf("Normalize kept %d of 200000 products: both of its branches must be taken", kept)
	}
}

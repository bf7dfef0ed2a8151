package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestTangentBasis: u and w are TangentBasis's definition written with
// mgl64's methods (n × e normalised, e the axis least aligned with n, and
// n × u) bit for bit, which TangentU's scalars must keep: every backend's
// contact frame is this one. Unit normals, normals with zero and −0
// components (ties between the axes), and unnormalised ones of every
// scale; and (n, u, w) is orthonormal and right-handed to rounding for the
// unit normals: 2e-15, about 16 roundings of 2⁻⁵³ (u's normalisation, w's
// cross product, and the check's own cross and dot products); 7e-16 seen.
func TestTangentBasis(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	same := func(a, b mgl64.Vec3) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	special := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5}
	for k := range 300000 {
		n := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		switch k % 4 {
		case 0:
			n = n.Normalize()
		case 1:
			n[r.IntN(3)] = special[r.IntN(len(special))]
			n[r.IntN(3)] = special[r.IntN(len(special))]
		case 2:
			n = n.Mul(math.Pow(10, float64(r.IntN(40)-20)))
		}
		ax, ay, az := math.Abs(n[0]), math.Abs(n[1]), math.Abs(n[2])
		e := mgl64.Vec3{0, 0, 1}
		if ax <= ay && ax <= az {
			e = mgl64.Vec3{1, 0, 0}
		} else if ay <= az {
			e = mgl64.Vec3{0, 1, 0}
		}
		wantU := n.Cross(e).Normalize()
		wantW := n.Cross(wantU)
		u, w := TangentBasis(n)
		if !same(u, wantU) || !same(w, wantW) {
			t.Fatalf("n = %v: u, w = %v, %v; mgl64's %v, %v", n, u, w, wantU, wantW)
		}
		if k%4 != 0 {
			continue
		}
		const tol = 2e-15
		for _, c := range []struct {
			name string
			got  float64
			want float64
		}{{"|u|", u.Len(), 1}, {"|w|", w.Len(), 1}, {"n·u", n.Dot(u), 0}, {"n·w", n.Dot(w), 0}, {"u·w", u.Dot(w), 0}, {"(n×u)·w", n.Cross(u).Dot(w), 1}} {
			if math.Abs(c.got-c.want) > tol {
				t.Fatalf("n = %v: %s = %v, want %v", n, c.name, c.got, c.want)
			}
		}
	}
}

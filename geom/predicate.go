package geom

import (
	"math"
	"math/big"

	"github.com/go-gl/mathgl/mgl64"
)

// orientErrBound is Shewchuk's static error bound for orient3d,
// (7 + 56ε)ε with ε = 2⁻⁵³ (Shewchuk 1997, "Adaptive precision
// floating-point arithmetic and fast robust geometric predicates",
// o3derrboundA): when |det| exceeds it times the permanent, the sign of the
// floating-point determinant is the sign of the exact one.
const orientErrBound = (7 + 56*0x1p-53) * 0x1p-53

// orient returns the sign (−1, 0 or +1) of the exact determinant
// det[b−a, c−a, d−a]: +1 when d lies on the side of the plane through a, b,
// c toward which (b−a)×(c−a) points (above a triangle counter-clockwise seen
// from above), 0 when the four points are exactly coplanar.
//
// The floating-point determinant is used when Shewchuk's bound certifies its
// sign; otherwise it is evaluated exactly in rational arithmetic. The inputs
// must be finite with |coordinate| ≤ maxCoord so that the filter cannot
// overflow; a permanent small enough for underflow also goes exact.
func orient(a, b, c, d mgl64.Vec3) int {
	// Shewchuk's orient3d(a, b, c, d) = det[a−d, b−d, c−d] = −det[b−a, c−a, d−a].
	adx, bdx, cdx := a[0]-d[0], b[0]-d[0], c[0]-d[0]
	ady, bdy, cdy := a[1]-d[1], b[1]-d[1], c[1]-d[1]
	adz, bdz, cdz := a[2]-d[2], b[2]-d[2], c[2]-d[2]
	bdxcdy, cdxbdy := bdx*cdy, cdx*bdy
	cdxady, adxcdy := cdx*ady, adx*cdy
	adxbdy, bdxady := adx*bdy, bdx*ady
	det := adz*(bdxcdy-cdxbdy) + bdz*(cdxady-adxcdy) + cdz*(adxbdy-bdxady)
	perm := (math.Abs(bdxcdy)+math.Abs(cdxbdy))*math.Abs(adz) +
		(math.Abs(cdxady)+math.Abs(adxcdy))*math.Abs(bdz) +
		(math.Abs(adxbdy)+math.Abs(bdxady))*math.Abs(cdz)
	if perm > 1e-250 && !math.IsInf(perm, 0) {
		bound := orientErrBound * perm
		if det > bound {
			return -1
		}
		if det < -bound {
			return 1
		}
	}
	if smallInts(a, b, c, d) {
		// Integers below 2¹⁶: differences below 2¹⁷, products of three
		// below 2⁵¹, the sums below 2⁵³: the float evaluation is exact.
		switch {
		case det > 0:
			return -1
		case det < 0:
			return 1
		}
		return 0
	}
	return -orientExact(a, b, c, d)
}

// smallInts reports whether every coordinate is an integer of magnitude
// below 2¹⁶.
func smallInts(ps ...mgl64.Vec3) bool {
	for _, p := range ps {
		for _, x := range p {
			if x != math.Trunc(x) || math.Abs(x) >= 1<<16 {
				return false
			}
		}
	}
	return true
}

// orientExact is the sign of det[a−d, b−d, c−d] in exact rational
// arithmetic (every float64 is a rational).
func orientExact(a, b, c, d mgl64.Vec3) int {
	var m [3][3]big.Rat
	var dr [3]big.Rat
	for k := range 3 {
		dr[k].SetFloat64(d[k])
	}
	for i, p := range [3]mgl64.Vec3{a, b, c} {
		for k := range 3 {
			m[i][k].SetFloat64(p[k])
			m[i][k].Sub(&m[i][k], &dr[k])
		}
	}
	var det, t, u big.Rat
	// det = Σ over the first column of cofactors.
	for i := range 3 {
		j, k := (i+1)%3, (i+2)%3
		t.Mul(&m[j][0], &m[k][1])
		u.Mul(&m[k][0], &m[j][1])
		t.Sub(&t, &u)
		t.Mul(&t, &m[i][2])
		det.Add(&det, &t)
	}
	return det.Sign()
}

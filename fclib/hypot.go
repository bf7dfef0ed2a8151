package fclib

import (
	"math"
	"math/big"
)

// hypot returns √(x² + y²) correctly rounded (to nearest, ties to even),
// as glibc's hypot behind numpy's np.hypot, which check.py uses. Go's
// math.Hypot can be one ulp off, and the measures can turn one ulp of a
// tangential norm into a different verdict: a γ exactly on its cone's
// surface is inside or gets projected by one ulp, which ccp_res_chrono
// divides by g_d (docs/solvers.md, LMGC PerioBox).
//
// It starts from math.Hypot (within one ulp) and moves to a neighbour
// while x² + y², computed exactly, lies beyond the midpoint to it.
func hypot(x, y float64) float64 {
	h := math.Hypot(x, y)
	if x == 0 || y == 0 || h == 0 || math.IsInf(h, 0) || math.IsNaN(h) {
		return h // |x| or |y|: exact
	}
	s := sumSquares(x, y)
	for range 4 {
		down, up := math.Nextafter(h, 0), math.Nextafter(h, math.Inf(1))
		odd := math.Float64bits(h)&1 == 1
		if c := s.Cmp(midSquare(down, h)); c < 0 || c == 0 && odd {
			h = down
			continue
		}
		if c := s.Cmp(midSquare(h, up)); c > 0 || c == 0 && odd {
			h = up
			continue
		}
		break
	}
	return h
}

// exactPrec holds x² + y² of any two float64 exactly: the squares span
// exponents from 2⁻²¹⁴⁸ to 2²⁰⁴⁸, 106 bits each.
const exactPrec = 4400

// sumSquares returns x² + y² exactly.
func sumSquares(x, y float64) *big.Float {
	a := new(big.Float).SetPrec(exactPrec).SetFloat64(x)
	b := new(big.Float).SetPrec(exactPrec).SetFloat64(y)
	a.Mul(a, a)
	b.Mul(b, b)
	return a.Add(a, b)
}

// midSquare returns ((a + b)/2)² exactly.
func midSquare(a, b float64) *big.Float {
	m := new(big.Float).SetPrec(exactPrec).SetFloat64(a)
	m.Add(m, new(big.Float).SetFloat64(b))
	m.Quo(m, big.NewFloat(2))
	return m.Mul(m, m)
}

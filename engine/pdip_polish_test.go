package engine

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestProjJacobian checks projJacobian's projection by Moreau's
// characterisation (Π(z) in the cone K shifted to the apex −c, z − Π(z) in
// its polar cone, the two orthogonal about the apex) and its P against
// central differences of that projection, at random points of each region
// (inside the cone, inside its polar, between), with and without cohesion
// and for μ = 0.
func TestProjJacobian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var p, P [3 * 3]float64
	seen := map[string]int{}
	for k := range 3000 {
		mu := []float64{0.3, 1, 0.05, 0}[k%4]
		c := 0.0
		if k%3 == 0 {
			c = 0.4
		}
		z := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		projJacobian(z, mu, c, p[:3], P[:])
		// Moreau, to rounding of order-one values (1e-14): x = Π(z) + c e_n
		// in K, y = z − Π(z) in K° = {‖y_t‖ ≤ −y_n/μ} (y_t = 0 for μ = 0),
		// xᵀy = 0.
		x := []float64{p[0] + c, p[1], p[2]}
		y := []float64{z[0] - p[0], z[1] - p[1], z[2] - p[2]}
		const eps = 1e-14
		okK := math.Hypot(x[1], x[2]) <= mu*x[0]+eps
		okPolar := mu*math.Hypot(y[1], y[2]) <= -y[0]+eps
		if mu == 0 {
			okK = x[0] >= -eps && x[1] == 0 && x[2] == 0
			okPolar = y[0] <= eps
		}
		if !okK || !okPolar || math.Abs(x[0]*y[0]+x[1]*y[1]+x[2]*y[2]) > eps {
			t.Fatalf("μ = %v, c = %v, z = %v: Π = %v is not the projection (in K %v, rest in K° %v, xᵀy = %v)", mu, c, z, p[:3], okK, okPolar, x[0]*y[0]+x[1]*y[1]+x[2]*y[2])
		}
		a, rho := z[0]+c, math.Hypot(z[1], z[2])
		region := "between"
		switch {
		case mu == 0 && a > 0, mu > 0 && rho <= mu*a:
			region = "inside"
		case mu == 0, mu*rho <= -a:
			region = "polar"
		}
		// Central differences of step h have error O(h²·‖Π''‖), ‖Π''‖ ≲
		// 1/ρ; points within 1e-3 of a kink are skipped (there P is one
		// of the one-sided derivatives).
		const h = 1e-6
		if math.Abs(rho-mu*a) < 1e-3 || math.Abs(mu*rho+a) < 1e-3 || rho < 1e-3 || (mu == 0 && math.Abs(a) < 1e-3) {
			continue
		}
		seen[region]++
		for j := range 3 {
			zp := append([]float64(nil), z...)
			zm := append([]float64(nil), z...)
			zp[j] += h
			zm[j] -= h
			var pp, pm, scratch [9]float64
			projJacobian(zp, mu, c, pp[:3], scratch[:])
			projJacobian(zm, mu, c, pm[:3], scratch[:])
			fd := []float64{(pp[0] - pm[0]) / (2 * h), (pp[1] - pm[1]) / (2 * h), (pp[2] - pm[2]) / (2 * h)}
			for i := range 3 {
				// 1e-6: rounding (ε/h ≈ 1e-10) and h²/ρ³ ≤ 1e-3 of the
				// skipped band, with margin.
				if math.Abs(P[3*i+j]-fd[i]) > 1e-6 {
					t.Fatalf("%s, μ = %v, c = %v, z = %v: ∂Π_%d/∂z_%d = %v, central difference %v", region, mu, c, z, i, j, P[3*i+j], fd[i])
				}
			}
		}
	}
	for _, r := range []string{"inside", "polar", "between"} {
		if seen[r] < 100 {
			t.Errorf("only %d points checked in the region %q", seen[r], r)
		}
	}
}

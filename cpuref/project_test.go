package cpuref

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestProjectConeMoreau checks the Moreau decomposition x = p + q of the
// shifted cone: p in the cone, q in its polar cone, p ⊥ q (all with the
// normal coordinate shifted by the cohesion impulse c).
func TestProjectConeMoreau(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// Relative tolerance: a handful of float64 roundings on O(1) values.
	const eps = 1e-12
	for it := 0; it < 100000; it++ {
		x := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		mu := []float64{0, 0.1, 0.5, 1, 3}[it%5]
		c := 0.0
		if it%3 == 0 {
			c = rng.Float64()
		}
		pn, pu, pw := ProjectCone(x[0], x[1], x[2], mu, c)
		sn := pn + c // shifted normal component
		tp := math.Hypot(pu, pw)
		if tp > mu*sn+eps || sn < -eps {
			t.Fatalf("x=%v μ=%v c=%v: p=(%v,%v,%v) outside the cone", x, mu, c, pn, pu, pw)
		}
		qn, qu, qw := x[0]-pn, x[1]-pu, x[2]-pw
		if qn > -mu*math.Hypot(qu, qw)+eps {
			t.Fatalf("x=%v μ=%v c=%v: remainder (%v,%v,%v) outside the polar cone", x, mu, c, qn, qu, qw)
		}
		if d := sn*qn + pu*qu + pw*qw; math.Abs(d) > eps {
			t.Fatalf("x=%v μ=%v c=%v: p·q = %v, want 0", x, mu, c, d)
		}
	}
}

func TestProjectConeCases(t *testing.T) {
	cases := []struct {
		name  string
		x     [3]float64
		mu, c float64
		want  [3]float64
	}{
		{"inside", [3]float64{1, 0.1, 0.1}, 0.5, 0, [3]float64{1, 0.1, 0.1}},
		{"polar", [3]float64{-1, 0.1, 0}, 0.5, 0, [3]float64{0, 0, 0}},
		// (μ‖t‖ + n)/(μ² + 1) = (1·1 + 0)/2 = 0.5, t' = t·μn'/‖t‖ = 0.5.
		{"side", [3]float64{0, 1, 0}, 1, 0, [3]float64{0.5, 0.5, 0}},
		{"frictionless", [3]float64{2, 3, -4}, 0, 0, [3]float64{2, 0, 0}},
		{"frictionless pull", [3]float64{-2, 3, -4}, 0, 0, [3]float64{0, 0, 0}},
		// Cohesion c lets γ_n go down to −c.
		{"cohesive pull kept", [3]float64{-0.5, 0, 0}, 0.3, 1, [3]float64{-0.5, 0, 0}},
		{"cohesive pull capped", [3]float64{-2, 0, 0}, 0.3, 1, [3]float64{-1, 0, 0}},
		{"cohesive frictionless", [3]float64{-2, 5, 0}, 0, 1, [3]float64{-1, 0, 0}},
		// Friction bound μ(γ_n + c) = 0.5·(0 + 1) = 0.5 is not reached.
		{"cohesive friction", [3]float64{0, 0.4, 0}, 0.5, 1, [3]float64{0, 0.4, 0}},
	}
	for _, c := range cases {
		n, u, w := ProjectCone(c.x[0], c.x[1], c.x[2], c.mu, c.c)
		got := [3]float64{n, u, w}
		for k := range got {
			// Exact arithmetic on these values up to one rounding.
			if math.Abs(got[k]-c.want[k]) > 1e-15 {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// TestProjectConesBits: projectCones gives ProjectCone's values bit for bit
// on random points inside, outside and in the polar cone, with μ = 0 and
// with cohesion.
func TestProjectConesBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nc = 4000
	x, mu, coh := make([]float64, 3*nc), make([]float64, nc), make([]float64, nc)
	for k := range nc {
		for d := range 3 {
			x[3*k+d] = rng.NormFloat64()
		}
		if rng.IntN(5) > 0 {
			mu[k] = rng.Float64()
		}
		if rng.IntN(3) == 0 {
			coh[k] = rng.Float64()
		}
	}
	d := make([]float64, 3*nc)
	projectCones(d, x, mu, coh, 0, nc)
	for k := range nc {
		n, u, w := ProjectCone(x[3*k], x[3*k+1], x[3*k+2], mu[k], coh[k])
		for i, v := range [3]float64{n, u, w} {
			if math.Float64bits(d[3*k+i]) != math.Float64bits(v) {
				t.Fatalf("contact %d, component %d: %v, ProjectCone %v", k, i, d[3*k+i], v)
			}
		}
	}
}

// TestClearlyInside: the cone test's shortcut never says inside where the
// test itself, RN(√q) ≤ a, says outside — on values at the boundary (q
// within a few ulps of a², where the shortcut must decline), across the
// exponent range, and at zeros, subnormals, infinities and NaN — and it
// takes most values clearly inside, which is what it is for.
func TestClearlyInside(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	check := func(q, a float64) bool {
		in := clearlyInside(q, a)
		if in && !(math.Sqrt(q) <= a) {
			t.Fatalf("clearlyInside(%v, %v) but √q = %v > a", q, a, math.Sqrt(q))
		}
		return in
	}
	taken := 0
	for range 200000 {
		a := math.Ldexp(0.5+r.Float64(), r.IntN(600)-300)
		// q at a² moved by a few ulps either way, and well inside.
		q := a * a
		for range r.IntN(6) {
			if r.IntN(2) == 0 {
				q = math.Nextafter(q, 0)
			} else {
				q = math.Nextafter(q, math.Inf(1))
			}
		}
		check(q, a)
		check(math.Nextafter(math.Sqrt(q), math.Inf(1))*math.Sqrt(q), a)
		if check(q*0.5, a) {
			taken++
		}
	}
	// a² lies in [2⁻⁶⁰⁰, 2⁶⁰²], normal and finite, and q = a²/2 is far
	// below a²(1 − 2⁻⁵⁰): every one of them must take the shortcut.
	if taken != 200000 {
		t.Errorf("the shortcut took %d of 200000 values at q = a²/2, want all", taken)
	}
	for _, c := range [][2]float64{
		{0, 0}, {0, math.Copysign(0, -1)}, {0, 1}, {1, 0}, {5e-324, 5e-324}, {0, 5e-324}, {1e-300, 1e-150},
		{math.Inf(1), 1e300}, {1e300, math.Inf(1)}, {math.NaN(), 1}, {1, math.NaN()}, {1, -1}, {0, math.MaxFloat64},
	} {
		check(c[0], c[1])
	}
}

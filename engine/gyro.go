package engine

import "math"

// gyroIterations caps GyroStep's Newton iterations; from ω̄ the iteration
// converges quadratically while h|ω̄| stays below about 1 (4 iterations
// reach rounding at h|ω̄| = 0.05).
const gyroIterations = 16

// GyroStep returns the body-frame angular velocity ω̄' (rad/s) of a
// torque-free body after a step of h seconds of Euler's equations
// J dω̄/dt = −ω̄ × Jω̄ by the implicit midpoint rule:
//
//	J(ω̄' − ω̄) + h m × Jm = 0,  m = (ω̄ + ω̄')/2,
//
// with J = diag(1/invInertia) the principal inertia (kg·m²). The midpoint
// rule keeps every quadratic invariant of the flow, here the energy
// ½ω̄ᵀJω̄ and |Jω̄|, the magnitude of the angular momentum. The equation is
// solved by Newton's method from ω̄' = ω̄: each iteration solves
// A δ = −F, ω̄' += δ, with F = J(ω̄' − ω̄) + h m × Jm and
//
//	A = J + ½h(skew(m)J − skew(Jm)) = ⎡ J₀     a₀₁  a₀₂ ⎤,  a₀₁ = ½hm₂d₀, a₀₂ = ½hm₁d₀,
//	                                  ⎢ a₁₀    J₁   a₁₂ ⎥   a₁₀ = ½hm₂d₁, a₁₂ = ½hm₀d₁,
//	                                  ⎣ a₂₀    a₂₁  J₂  ⎦   a₂₀ = ½hm₁d₂, a₂₁ = ½hm₀d₂,
//
// d = (J₂−J₁, J₀−J₂, J₁−J₀), h m × Jm = 2(a₀₂m₂, a₁₀m₀, a₂₁m₁), by its
// cofactors over det A (Cramer). It stops when an iteration leaves ω̄'
// unchanged or after gyroIterations. Last, should rounding or an
// unconverged solve (h|ω̄| beyond about 1) have raised the energy, ω̄' is
// scaled by √(E/E'), so the step never gains energy beyond rounding.
// An isotropic body (invInertia's three components equal) has
// ω̄ × Jω̄ = 0 and keeps ω̄ exactly. The kernel free_velocity.comp
// (shaders/lib/gyro.glsl) computes the same operations in the same order,
// each rounded (no fused multiply-add).
func GyroStep(w, invInertia [3]float64, h float64) [3]float64 {
	ji := invInertia
	if ji[0] == ji[1] && ji[1] == ji[2] {
		return w
	}
	j0, j1, j2 := 1/ji[0], 1/ji[1], 1/ji[2]
	d0, d1, d2 := j2-j1, j0-j2, j1-j0
	hh := 0.5 * h
	v := w
	for it := 0; it < gyroIterations; it++ {
		m0, m1, m2 := 0.5*(w[0]+v[0]), 0.5*(w[1]+v[1]), 0.5*(w[2]+v[2])
		hx, hy, hz := hh*m0, hh*m1, hh*m2
		a01, a02 := hz*d0, hy*d0
		a10, a12 := hz*d1, hx*d1
		a20, a21 := hy*d2, hx*d2
		f0 := j0*(v[0]-w[0]) + 2*(a02*m2)
		f1 := j1*(v[1]-w[1]) + 2*(a10*m0)
		f2 := j2*(v[2]-w[2]) + 2*(a21*m1)
		c00 := j1*j2 - a12*a21
		c01 := a12*a20 - a10*j2
		c02 := a10*a21 - j1*a20
		c10 := a02*a21 - a01*j2
		c11 := j0*j2 - a02*a20
		c12 := a01*a20 - j0*a21
		c20 := a01*a12 - a02*j1
		c21 := a02*a10 - j0*a12
		c22 := j0*j1 - a01*a10
		det := j0*c00 + a01*c01 + a02*c02
		n := [3]float64{
			v[0] - (c00*f0+c10*f1+c20*f2)/det,
			v[1] - (c01*f0+c11*f1+c21*f2)/det,
			v[2] - (c02*f0+c12*f1+c22*f2)/det,
		}
		if n == v {
			break
		}
		v = n
	}
	e := j0*(w[0]*w[0]) + j1*(w[1]*w[1]) + j2*(w[2]*w[2])
	ev := j0*(v[0]*v[0]) + j1*(v[1]*v[1]) + j2*(v[2]*v[2])
	if !(ev <= e) {
		s := math.Sqrt(e / ev)
		v = [3]float64{v[0] * s, v[1] * s, v[2] * s}
	}
	return v
}

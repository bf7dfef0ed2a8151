package tests

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// Joints and kinematic bodies run on the CPU path only in this increment
// (issue 17); the Vulkan backend refuses them with engine.ErrUnsupported,
// which TestJointsVulkanRefuses checks.

// ellipticK returns the complete elliptic integral of the first kind
// K(k) = π / (2·AGM(1, √(1 − k²))), the arithmetic–geometric mean run
// until its two terms agree to rounding (it converges quadratically: five
// or six rounds for k < 0.99).
func ellipticK(k float64) float64 {
	a, b := 1.0, math.Sqrt(1-k*k)
	for math.Abs(a-b) > 1e-15*a {
		a, b = (a+b)/2, math.Sqrt(a*b)
	}
	return math.Pi / (2 * a)
}

// pendulum is a sphere of mass 1 kg and radius r hanging from a revolute
// joint (axis y) at the origin, its centre at distance l, released from
// rest at angle th0 from the downward vertical, in gravity g.
func pendulum(l, r, th0, g float64) *engine.Model {
	bob := engine.Body{Shape: engine.SphereShape(r), Rot: mgl64.QuatIdent(),
		Pos: mgl64.Vec3{l * math.Sin(th0), 0, -l * math.Cos(th0)}}
	bob.SetMass(1)
	return &engine.Model{
		Bodies:    []engine.Body{bob},
		Materials: []engine.Material{{Name: "m", Friction: 0.5}},
		Gravity:   mgl64.Vec3{0, 0, -g},
		Joints: []engine.Joint{{Kind: engine.JointRevolute, Body1: 0, Body2: engine.World,
			Axis: mgl64.Vec3{0, 1, 0}}},
	}
}

// jointSettings are tight settings for joint problems: the solvers
// converge to 1e-10 on these few rows within the iteration cap.
func jointSettings(dt float64) engine.Settings {
	s := engine.DefaultSettings()
	s.Dt = dt
	s.Tol = 1e-10
	s.MaxIter = 500
	return s
}

// TestPendulumPeriod: a pendulum released at θ₀ = 90° has the exact
// period T = 4√(I/(m g l))·K(sin(θ₀/2)) (I = m l² + ⅖ m r² about the
// pivot: a physical pendulum; with r = l/100 the sphere's own inertia
// changes T by 2·10⁻⁵). The time between successive passes through the
// bottom is T/2; the test measures it over the first two periods.
func TestPendulumPeriod(t *testing.T) {
	const (
		l, r, g = 1.0, 0.01, 9.81
		th0     = math.Pi / 2
		dt      = 1e-3
	)
	inertia := l*l + 0.4*r*r
	want := 4 * math.Sqrt(inertia/(g*l)) * ellipticK(math.Sin(th0/2))
	sim := newSim(t, pendulum(l, r, th0, g), jointSettings(dt), cpuref.New(1))
	var st engine.State
	var cross []float64
	xPrev := math.Sin(th0)
	for k := 1; len(cross) < 5 && k < int(3*want/dt); k++ {
		step(t, sim)
		readState(t, sim, &st)
		x := st.Pos[0]
		if (x < 0) != (xPrev < 0) {
			// Linear interpolation of the crossing inside the step.
			cross = append(cross, dt*(float64(k-1)+xPrev/(xPrev-x)))
		}
		xPrev = x
	}
	if len(cross) < 5 {
		t.Fatalf("the pendulum crossed the bottom %d times in %.2f s, want 5", len(cross), 3*want)
	}
	got := (cross[4] - cross[0]) / 2
	// Tolerance 5·10⁻⁵ relative: the step is symplectic (semi-implicit
	// Euler, with the constraint at the velocity level), whose phase error
	// per period is O((hω)²), hω ≈ 2.7·10⁻³ here; the crossing's linear
	// interpolation errs by O(h²·θ̈) in time. Measured: 4.4·10⁻⁶, so the
	// bound is ten times that, and a first-order error (about 10⁻³) fails.
	if rel := math.Abs(got-want) / want; rel > 5e-5 {
		t.Errorf("period %.6f s, want %.6f s (4√(I/mgl)·K(sin 45°)): relative error %.2e", got, want, rel)
	}
	t.Logf("pendulum θ₀ = 90°, l = 1 m, h = 1 ms: period %.6f s, exact %.6f s (relative error %.2e)", got, want, math.Abs(got-want)/want)
}

// TestJointsVulkanRefuses: the Vulkan backend does not run joints or
// kinematic bodies yet and says so with engine.ErrUnsupported.
func TestJointsVulkanRefuses(t *testing.T) {
	b := backends[1].new(t)
	defer b.Close()
	_, err := engine.NewSim(pendulum(1, 0.01, 0.1, 9.81), jointSettings(1e-3), b)
	if !errors.Is(err, engine.ErrUnsupported) {
		t.Fatalf("vulkan with a joint: %v, want an error wrapping engine.ErrUnsupported", err)
	}
}

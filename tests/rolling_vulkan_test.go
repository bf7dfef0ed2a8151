package tests

import (
	"math"
	"os"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
)

// The analytic rolling and spinning friction checks of cpuref's
// rolling_test.go (TestRollingFrictionBallStops, TestSpinningFrictionStops)
// on the Vulkan backend, with the same models, settings and tolerances
// (they skip without a Vulkan device unless GPUSIM_REQUIRE_VULKAN=1, and
// in -short mode).
//
// A problem with rolling rows runs the engine's host-driven iterations on
// the device's LinAlg (engine.RollingRows): a submit per dot product. On a
// CPU Vulkan device (lavapipe, about 1 to 3 ms a submit on the loaded
// 16-core test machine) the rolling-ball check took 156 s (apgd), 173 s
// (apgd-ar), 44 s (gs) and 141 s (jacobi), the spinning check 36, 25, 12
// and 26 s, and spg, which runs to its 50-iteration cap in every step of
// a rolling contact (see cpuref's rollingSettings), 518 s for the spinning
// check alone. On a CPU device the rolling ball therefore runs with gs
// only, the spinning check without spg, unless GPUSIM_VULKAN_ROLLING_ALL=1;
// every solver is bit for bit cpuref's on rolling rows over several steps
// in gpu's TestRollingMatchCPU, and runs here on a GPU.

// vulkanBackend returns the Vulkan backend of backends for solver, or
// skips: in -short mode, and on a CPU device for the solvers not in cpu
// (see above).
func vulkanBackend(t *testing.T, solver string, cpu ...string) engine.Backend {
	t.Helper()
	if testing.Short() {
		t.Skip("the analytic rolling checks on the Vulkan backend take minutes (-short)")
	}
	for _, b := range backends {
		if b.name != "vulkan" {
			continue
		}
		be := b.new(t)
		if g, ok := be.(interface{ DeviceInfo() gpu.DeviceInfo }); ok && g.DeviceInfo().Type == gpu.CPUDevice && !slices.Contains(cpu, solver) && os.Getenv("GPUSIM_VULKAN_ROLLING_ALL") != "1" {
			be.Close()
			t.Skipf("%s on a CPU Vulkan device (%s): minutes of host-driven iterations; GPUSIM_VULKAN_ROLLING_ALL=1 runs it", solver, g.DeviceInfo().Name)
		}
		return be
	}
	t.Fatal("no vulkan entry in backends")
	return nil
}

// rollingBallOnPlane is cpuref's ballOnPlane: a sphere of radius R and
// mass m resting on the plane z = 0 (body 0, fixed), its centre at height
// R, with velocity v and angular velocity w (identity orientation), on a
// material of friction mu, rolling friction mur and spinning friction mus.
func rollingBallOnPlane(R, m float64, v, w mgl64.Vec3, mu, mur, mus float64) *engine.Model {
	mdl := &engine.Model{
		Materials: []engine.Material{{Name: "ball", Friction: mu, RollingFriction: mur, SpinningFriction: mus}},
		Gravity:   mgl64.Vec3{0, 0, -9.81},
	}
	mdl.Bodies = append(mdl.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	ball := engine.Body{Shape: engine.SphereShape(R), Pos: mgl64.Vec3{0, 0, R}, Rot: mgl64.QuatIdent(), Vel: v, Omega: w}
	ball.SetMass(m)
	mdl.Bodies = append(mdl.Bodies, ball)
	return mdl
}

// rollingCheckSettings are cpuref's rollingSettings (spg: 50 iterations,
// see there).
func rollingCheckSettings(h float64, solver string) engine.Settings {
	s := engine.DefaultSettings()
	s.Dt, s.Solver, s.Tol, s.MaxIter = h, solver, 1e-12, 5000
	if solver == "spg" {
		s.MaxIter = 50
	}
	return s
}

// rollingCheckSolvers are the solvers that take rolling rows.
var rollingCheckSolvers = []string{"apgd", "apgd-ar", "gs", "jacobi", "spg"}

// TestRollingFrictionBallStopsVulkan: cpuref's TestRollingFrictionBallStops
// on the Vulkan backend: a ball (R = 0.1 m, m = 1 kg) rolling without
// slipping at 1 m/s with μ_r = 0.01 m decelerates at 5μ_r g/(7R) and stops
// in the step that contains t* = 1.42712 s, after d* = 0.71356 m ± v0·h,
// rolling without slipping (1e-6 m/s) and then staying (1e-9 m over
// 0.2 s).
func TestRollingFrictionBallStopsVulkan(t *testing.T) {
	const R, m, v0, mu, mur, g, h = 0.1, 1.0, 1.0, 0.5, 0.01, 9.81, 1e-3
	inertia := 2.0 / 5 * m * R * R
	a := mur * g * R / (R*R + inertia/m)
	tStop, dStop := v0/a, v0*v0/(2*a)
	for _, solver := range rollingCheckSolvers {
		t.Run(solver, func(t *testing.T) {
			mdl := rollingBallOnPlane(R, m, mgl64.Vec3{v0, 0, 0}, mgl64.Vec3{0, v0 / R, 0}, mu, mur, 0)
			sim := newSim(t, mdl, rollingCheckSettings(h, solver), vulkanBackend(t, solver, "gs"))
			var s engine.State
			ts := -1.0
			var x float64
			for k := 0; ; k++ {
				st := step(t, sim)
				if k == 0 {
					if rr, ok := sim.Problem().(engine.RollingRows); !ok || rr.Rolling() != 1 || engine.Rows(sim.Problem()) != 6 {
						t.Fatalf("the contact has %d rows, want 6 (3 contact + 3 rolling)", engine.Rows(sim.Problem()))
					}
				}
				readState(t, sim, &s)
				v := s.Vel[3]
				if ts < 0 && math.Abs(v) < a*h/10 {
					ts, x = st.Time, s.Pos[3]
				}
				if ts >= 0 && st.Time > ts+0.2 {
					if d := math.Abs(s.Pos[3] - x); d > 1e-9 || math.Abs(v) > 1e-9 {
						t.Errorf("after stopping the ball moved %.3g m (v = %.3g m/s)", d, v)
					}
					break
				}
				if st.Time > 2*tStop {
					t.Fatalf("the ball has not stopped at t = %.3f s (v = %.6f m/s); analytic stop %.5f s", st.Time, v, tStop)
				}
				if slip := v - R*s.Omega[4]; math.Abs(slip) > 1e-6 {
					t.Fatalf("slip %.3g m/s at t = %.4f", slip, st.Time)
				}
			}
			t.Logf("%s: stop at %.5f s (analytic %.5f s, |Δ| %.2g s), distance %.6f m (analytic %.6f m, |Δ| %.2g m)",
				solver, ts, tStop, math.Abs(ts-tStop), x, dStop, math.Abs(x-dStop))
			if ts < tStop-1e-9 || ts > tStop+h {
				t.Errorf("stop time %.6f s, want in [%.6f, %.6f] (the step that contains t*)", ts, tStop, tStop+h)
			}
			if math.Abs(x-dStop) > v0*h {
				t.Errorf("distance %.6f m, want %.6f ± v0·h = %.g m", x, dStop, v0*h)
			}
		})
	}
}

// TestSpinningFrictionStopsVulkan: cpuref's TestSpinningFrictionStops on
// the Vulkan backend: a ball spinning at 10 rad/s about the vertical with
// μ_s = 0.01 m stops in the step that contains t* = Iω0/(μ_s m g) =
// 0.40775 s, having turned Iω0²/(2μ_s m g) ± ω0·h, without drifting.
func TestSpinningFrictionStopsVulkan(t *testing.T) {
	const R, m, w0, mu, mus, g, h = 0.1, 1.0, 10.0, 0.5, 0.01, 9.81, 1e-3
	inertia := 2.0 / 5 * m * R * R
	tStop := inertia * w0 / (mus * m * g)
	angle := inertia * w0 * w0 / (2 * mus * m * g)
	for _, solver := range rollingCheckSolvers {
		t.Run(solver, func(t *testing.T) {
			mdl := rollingBallOnPlane(R, m, mgl64.Vec3{}, mgl64.Vec3{0, 0, w0}, mu, 0, mus)
			sim := newSim(t, mdl, rollingCheckSettings(h, solver), vulkanBackend(t, solver, "apgd", "apgd-ar", "gs", "jacobi"))
			var s engine.State
			ts, turned := -1.0, 0.0
			for {
				st := step(t, sim)
				readState(t, sim, &s)
				w := s.Omega[5]
				turned += h * w
				if ts < 0 && math.Abs(w) < mus*m*g*h/inertia/10 {
					ts = st.Time
					break
				}
				if st.Time > 2*tStop {
					t.Fatalf("still spinning at t = %.3f s (ω = %.6f rad/s); analytic stop %.5f s", st.Time, w, tStop)
				}
				if v := math.Hypot(s.Vel[3], s.Vel[4]); v > 1e-9 {
					t.Fatalf("the spinning ball drifts at %.3g m/s", v)
				}
			}
			t.Logf("%s: stop at %.5f s (analytic %.5f s, |Δ| %.2g s), angle %.5f rad (analytic %.5f rad)", solver, ts, tStop, math.Abs(ts-tStop), turned, angle)
			if ts < tStop-1e-9 || ts > tStop+h {
				t.Errorf("stop time %.6f s, want in [%.6f, %.6f]", ts, tStop, tStop+h)
			}
			if math.Abs(turned-angle) > w0*h {
				t.Errorf("angle %.6f rad, want %.6f ± ω0·h", turned, angle)
			}
		})
	}
}

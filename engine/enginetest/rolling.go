package enginetest

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// The analytic checks of rolling and spinning friction, run on every
// backend (cpuref's and the tests package's Vulkan tests call them).

// BallOnPlane is a sphere of radius R and mass m resting on the plane
// z = 0 (body 0, fixed), its centre at height R, with velocity v and
// angular velocity w (world = body frame: identity orientation), on a
// material of friction mu, rolling friction mur and spinning friction
// mus.
func BallOnPlane(R, m float64, v, w mgl64.Vec3, mu, mur, mus float64) *engine.Model {
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

// RollingSettings are tight settings for the analytic checks: step h, the
// solver, a tolerance far below the per-step velocity change. SPG gets 50
// iterations: its line search on the objective does not reach the fixed
// point of the rolling projection (see engine.SPG), so it runs to its cap
// in every step of a rolling contact and returns its fall-back iterate,
// which at this cap and tolerance is within 2e-9 m of the plane and gives
// the same stop time (at 1e-6 and 500 iterations it lifts the ball by
// 0.13 mm and stops it 0.15 mm short).
func RollingSettings(h float64, solver string) engine.Settings {
	s := engine.DefaultSettings()
	s.Dt, s.Solver, s.Tol, s.MaxIter = h, solver, 1e-12, 5000
	if solver == "spg" {
		s.MaxIter = 50
	}
	return s
}

// RollingSolvers are the solvers that take rolling rows (pdip does not:
// TestRollingPDIPRefuses).
var RollingSolvers = []string{"apgd", "apgd-ar", "gs", "jacobi", "spg"}

// RollingBallStops runs, with solver on be, a ball of radius R = 0.1 m, m = 1 kg,
// rolling without slipping at v0 = 1 m/s (ω0 = v0/R) on a plane with μ =
// 0.5 and rolling friction μ_r = 0.01 m. The rolling resistance is a
// torque of μ_r·N = μ_r m g against the rolling; the friction force F at
// the contact adjusts so that the ball keeps rolling (v = ωR):
//
//	m dv/dt = F,  I dω/dt = −F R − μ_r m g,  dv/dt = R dω/dt
//	⇒ a = dv/dt = −μ_r m g R/(I + m R²) = −μ_r g R/(R² + I/m),
//
// which for a solid sphere (I = 2/5 m R²) is a = −5 μ_r g/(7R) = 0.70071
// m/s²; |F| = m|a| = 0.70 N ≤ μ m g = 4.9 N, so it never slips. The ball
// stops at t* = v0/|a| = 1.42712 s after d* = v0²/(2|a|) = 0.71356 m, and
// then stays (the rolling rows hold it, as static friction).
//
// Semi-implicit Euler with a converged solve loses exactly a·h of speed
// per step (the step's impulses are constant: N = m g h, F h, μ_r N h), so
// the speed reaches zero in the step that contains t*: the first step
// with v = 0 ends in [t*, t* + h), the tolerance on the stop time is h.
// The position advances by h·v_k with the speed at the end of each step,
// so d = Σ h v_k = d* − v0 h/2 + O(|a| h²): the tolerance on the
// distance is v0·h. It returns the stop time and the distance.
func RollingBallStops(t *testing.T, solver string, be engine.Backend) (stop, dist float64) {
	t.Helper()
	const R, m, v0, mu, mur, g, h = 0.1, 1.0, 1.0, 0.5, 0.01, 9.81, 1e-3
	inertia := 2.0 / 5 * m * R * R
	a := mur * g * R / (R*R + inertia/m)
	tStop, dStop := v0/a, v0*v0/(2*a)
	mdl := BallOnPlane(R, m, mgl64.Vec3{v0, 0, 0}, mgl64.Vec3{0, v0 / R, 0}, mu, mur, 0)
	sim, err := engine.NewSim(mdl, RollingSettings(h, solver), be)
	if err != nil {
		t.Fatal(err)
	}
	var s engine.State
	ts := -1.0
	var x float64
	for k := 0; ; k++ {
		st, err := sim.Step()
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			if rr, ok := sim.Problem().(engine.RollingRows); !ok || rr.Rolling() != 1 || engine.Rows(sim.Problem()) != 6 {
				t.Fatalf("the contact has %d rows, want 6 (3 contact + 3 rolling)", engine.Rows(sim.Problem()))
			}
		}
		if err := sim.Backend().ReadState(&s); err != nil {
			t.Fatal(err)
		}
		v := s.Vel[3]
		// Stopped: below a tenth of the per-step change a·h.
		if ts < 0 && math.Abs(v) < a*h/10 {
			ts, x = st.Time, s.Pos[3]
		}
		if ts >= 0 && st.Time > ts+0.2 {
			// It stays: no creep over 0.2 s (1e-9 m: the
			// solver's tolerance times h, summed).
			if d := math.Abs(s.Pos[3] - x); d > 1e-9 || math.Abs(v) > 1e-9 {
				t.Errorf("after stopping the ball moved %.3g m (v = %.3g m/s)", d, v)
			}
			break
		}
		if st.Time > 2*tStop {
			t.Fatalf("the ball has not stopped at t = %.3f s (v = %.6f m/s); analytic stop %.5f s", st.Time, v, tStop)
		}
		// Rolling without slipping throughout (the slip speed
		// v_x − R ω_y within the solver's tolerance).
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
	return ts, x
}

// SpinningBallStops runs, with solver on be, a ball (R = 0.1 m, m = 1 kg, I = 2/5 m R²)
// spinning at ω0 = 10 rad/s about the vertical axis on a plane with
// spinning friction μ_s = 0.01 m. The spinning resistance is a torque
// μ_s N = μ_s m g about the normal; nothing else acts on the spin (the
// contact point does not slide), so ω falls linearly at μ_s m g/I and stops
// at t* = I ω0/(μ_s m g) = 0.40775 s. As for the rolling ball, each
// converged step removes exactly μ_s m g h/I of spin, so the first step
// with ω = 0 ends in [t*, t* + h): the tolerance is h. The spin angle
// reached is I ω0²/(2 μ_s m g) − ω0 h/2 + O(h²): tolerance ω0·h. It
// returns the stop time and the angle turned.
func SpinningBallStops(t *testing.T, solver string, be engine.Backend) (stop, angle float64) {
	t.Helper()
	const R, m, w0, mu, mus, g, h = 0.1, 1.0, 10.0, 0.5, 0.01, 9.81, 1e-3
	inertia := 2.0 / 5 * m * R * R
	tStop := inertia * w0 / (mus * m * g)
	want := inertia * w0 * w0 / (2 * mus * m * g)
	mdl := BallOnPlane(R, m, mgl64.Vec3{}, mgl64.Vec3{0, 0, w0}, mu, 0, mus)
	sim, err := engine.NewSim(mdl, RollingSettings(h, solver), be)
	if err != nil {
		t.Fatal(err)
	}
	var s engine.State
	ts, turned := -1.0, 0.0
	for {
		st, err := sim.Step()
		if err != nil {
			t.Fatal(err)
		}
		if err := sim.Backend().ReadState(&s); err != nil {
			t.Fatal(err)
		}
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
	t.Logf("%s: stop at %.5f s (analytic %.5f s, |Δ| %.2g s), angle %.5f rad (analytic %.5f rad)", solver, ts, tStop, math.Abs(ts-tStop), turned, want)
	if ts < tStop-1e-9 || ts > tStop+h {
		t.Errorf("stop time %.6f s, want in [%.6f, %.6f]", ts, tStop, tStop+h)
	}
	if math.Abs(turned-want) > w0*h {
		t.Errorf("angle %.6f rad, want %.6f ± ω0·h", turned, want)
	}
	return ts, turned
}

package tests

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// Joints, motors and kinematic bodies run on both backends; gpu's
// TestJointsMatchCPU and TestKinematicSceneStep compare the two bit for
// bit on every solver. The analytic checks below run on the CPU path,
// except TestChainReaction, which runs on both: on lavapipe a step of these
// few-row problems costs about 0.7 s (500 iterations of the device APGD to
// 1e-10, each a dozen dispatches at lavapipe's ~0.1 ms a dispatch), so the
// thousands of steps of a period or a turn do not fit in CI there.

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

// oneJoint is a 1 kg box (half-extents 0.1, 0.2, 0.3) whose centre is at
// (0, 0, −1), joined to the world by joint j, in zero gravity.
func oneJoint(j engine.Joint) *engine.Model {
	box := engine.Body{Shape: engine.BoxShape(0.1, 0.2, 0.3), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -1}}
	box.SetMass(1)
	j.Body1, j.Body2 = 0, engine.World
	return &engine.Model{Bodies: []engine.Body{box}, Materials: []engine.Material{{Name: "m", Friction: 0.5}}, Joints: []engine.Joint{j}}
}

// TestJointDegreesOfFreedom: one step maps the body's velocity v₀ to its
// M-orthogonal projection onto the velocities the joint allows (the
// minimiser of ½(v − v₀)ᵀM(v − v₀) subject to Dᵀv = 0 at C = 0). Started
// from each of the six unit velocities, the six results span exactly
// 6 − rows dimensions, and each satisfies the joint's own description
// (a fixed pivot, a fixed axis, a slide without rotation).
func TestJointDegreesOfFreedom(t *testing.T) {
	pivot := mgl64.Vec3{0, 0, 0}
	centre := mgl64.Vec3{0, 0, -1}
	// pointVel is the velocity of the body point at p.
	pointVel := func(v, w mgl64.Vec3, p mgl64.Vec3) mgl64.Vec3 { return v.Add(w.Cross(p.Sub(centre))) }
	for _, c := range []struct {
		joint engine.Joint
		free  int
		check func(v, w mgl64.Vec3) float64 // violation of the joint's description
	}{
		{engine.Joint{Kind: engine.JointSpherical, Point: pivot}, 3,
			func(v, w mgl64.Vec3) float64 { return pointVel(v, w, pivot).Len() }},
		{engine.Joint{Kind: engine.JointRevolute, Point: pivot, Axis: mgl64.Vec3{0, 2, 0}}, 1,
			func(v, w mgl64.Vec3) float64 {
				return pointVel(v, w, pivot).Len() + math.Hypot(w[0], w[2])
			}},
		{engine.Joint{Kind: engine.JointPrismatic, Point: pivot, Axis: mgl64.Vec3{1, 0, 0}}, 1,
			func(v, w mgl64.Vec3) float64 { return w.Len() + math.Hypot(v[1], v[2]) }},
		{engine.Joint{Kind: engine.JointFixed, Point: pivot}, 0,
			func(v, w mgl64.Vec3) float64 { return v.Len() + w.Len() }},
		{engine.Joint{Kind: engine.JointDistance, Point: pivot, Point2: mgl64.Vec3{0.3, 0, -1.2}}, 5,
			func(v, w mgl64.Vec3) float64 {
				// Body1's point (the pivot) moves only across the line to
				// the world point.
				return math.Abs(pointVel(v, w, pivot).Dot(mgl64.Vec3{0.3, 0, -1.2}.Normalize()))
			}},
	} {
		t.Run(c.joint.Kind.String(), func(t *testing.T) {
			var basis [][6]float64
			for k := 0; k < 6; k++ {
				m := oneJoint(c.joint)
				if k < 3 {
					m.Bodies[0].Vel[k] = 1
				} else {
					m.Bodies[0].Omega[k-3] = 1
				}
				sim := newSim(t, m, jointSettings(1e-3), cpuref.New(1))
				step(t, sim)
				var st engine.State
				readState(t, sim, &st)
				v, w := vec3(st.Vel, 0), vec3(st.Omega, 0) // the body frame is still the world's to O(h)
				w = quat(st.Rot, 0).Rotate(w)
				// 1e-6: the solve's tolerance (1e-10 on the residual of
				// eq. 25) and the O(h) rotation of the body over the step,
				// whose Jacobian was taken at its start, are far below it.
				if e := c.check(v, w); e > 1e-6 {
					t.Errorf("start %d: velocity %v, ω %v violates the joint by %.3g", k, v, w, e)
				}
				basis = append(basis, [6]float64{v[0], v[1], v[2], w[0], w[1], w[2]})
			}
			if r := rank(basis, 1e-6); r != c.free {
				t.Errorf("the allowed velocities span %d dimensions, want %d", r, c.free)
			}
		})
	}
}

// rank returns the number of vectors Gram–Schmidt keeps with a residual
// norm above tol (the vectors here have norm ≤ 1; a removed direction
// leaves a residual of the order of the solve's error).
func rank(vs [][6]float64, tol float64) int {
	var q [][6]float64
	for _, v := range vs {
		for _, e := range q {
			d := 0.0
			for i := range v {
				d += v[i] * e[i]
			}
			for i := range v {
				v[i] -= d * e[i]
			}
		}
		n := 0.0
		for _, x := range v {
			n += x * x
		}
		if n = math.Sqrt(n); n > tol {
			for i := range v {
				v[i] /= n
			}
			q = append(q, v)
		}
	}
	return len(q)
}

// TestKinematicPlate: a box at rest on a plate that moves at v = 1 m/s
// (kinematic) is dragged by friction at μg until it reaches the plate's
// speed at t = v/(μg) = 0.2039 s (μ = 0.5), and then rides along.
func TestKinematicPlate(t *testing.T) {
	const v, mu, g, dt = 1.0, 0.5, 9.81, 1e-3
	plate := engine.Body{Shape: engine.BoxShape(20, 2, 0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.1},
		Motion: &engine.Motion{Vel: mgl64.Vec3{v, 0, 0}}}
	box := engine.Body{Shape: engine.BoxShape(0.1, 0.1, 0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, 0.1}}
	box.SetMass(1)
	m := &engine.Model{Bodies: []engine.Body{box, plate}, Materials: []engine.Material{{Name: "m", Friction: mu}},
		Gravity: mgl64.Vec3{0, 0, -g}}
	s := jointSettings(dt)
	// The anti-relaxed solver: the relaxed CCP (eq. 10) lets a sliding
	// contact separate at μ‖u_T‖ and so carries a wrong normal impulse
	// under a 1 m/s slip; the De Saxcé problem is Coulomb's law.
	s.Solver = "apgd-ar"
	sim := newSim(t, m, s, cpuref.New(1))
	var st engine.State
	tStick := v / (mu * g)
	reached := math.NaN()
	for k := 1; k <= 400; k++ {
		step(t, sim)
		readState(t, sim, &st)
		vx := st.Vel[0]
		tk := float64(k) * dt
		if tk < tStick-dt {
			// Sliding: v = μ g t. 1e-6 m/s: the solve's tolerance; the
			// friction impulse is exactly μ·m·g·h per step once the
			// normal impulse balances the weight (from the first step:
			// the box starts touching).
			if math.Abs(vx-mu*g*tk) > 1e-6 {
				t.Fatalf("t = %.3f s: box speed %.9f m/s, want μgt = %.9f", tk, vx, mu*g*tk)
			}
		}
		if math.IsNaN(reached) && vx >= v-1e-9 {
			reached = tk
		}
	}
	// The step that reaches v is the first with μg·t ≥ v: within one step.
	if math.Abs(reached-tStick) > dt {
		t.Errorf("the box reached the plate's speed at t = %.4f s, want v/(μg) = %.4f s", reached, tStick)
	}
	if px := st.Pos[3]; math.Abs(px-(-0+v*0.4)) > 1e-12 {
		t.Errorf("plate at x = %.15f after 0.4 s, want v·t = %.15f exactly (prescribed)", px, v*0.4)
	}
	if vx := st.Vel[0]; math.Abs(vx-v) > 1e-6 {
		t.Errorf("box speed %.9f m/s after sticking, want the plate's %.1f", vx, v)
	}
	t.Logf("kinematic plate at %.1f m/s, μ = %.1f: box reaches it at t = %.4f s, v/(μg) = %.4f s", v, mu, reached, tStick)
}

// chain is enginetest.HangingChain: k 1 kg spheres 0.2 m apart on
// spherical joints, the top one hung from the world.
func chain(k int, g float64) *engine.Model { return enginetest.HangingChain(k, g) }

// TestChainReaction: a hanging chain of k links is held by its anchor
// with its whole weight k·m·g, and each joint i carries the weight of the
// links from i down.
func TestChainReaction(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		const k, g = 10, 9.81
		// The reactions' relative error is about 10⁴ times the residual
		// tolerance on this chain (measured on the CPU path: 4.6e-7 at
		// tol 1e-10 with Algorithm 1's step-size rule, 1.05e-6 with
		// engine.APGDNextL's, 7e-9 and 9e-9 at 1e-12), so the solve runs
		// to 1e-12 for the 1e-6 below to hold with room.
		set := jointSettings(1e-3)
		set.Tol = 1e-12
		sim := newSim(t, chain(k, g), set, newBackend())
		for range 20 {
			step(t, sim)
		}
		rs, err := sim.JointReactions(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != k {
			t.Fatalf("%d reactions, want %d", len(rs), k)
		}
		for i, r := range rs {
			want := float64(k-i) * g
			// 1e-6 relative: the chain is at rest, so each step's impulses
			// balance gravity exactly; the residual tolerance 1e-12 bounds
			// their error two orders below it (above).
			if math.Abs(r.Force[2]-want) > 1e-6*want || math.Hypot(r.Force[0], r.Force[1]) > 1e-6*want || r.Torque.Len() > 1e-6*want {
				t.Errorf("joint %d: force %v N, torque %v N·m on link %d, want (0, 0, %g) N and no torque", i, r.Force, r.Torque, i, want)
			}
		}
		t.Logf("chain of %d links of 1 kg: anchor reaction %.9f N, weight %.9f N", k, rs[0].Force[2], k*g)
	})
}

// TestJointDrift: a double pendulum (two 1 kg spheres on revolute joints,
// 1 m apart, released horizontal: chaotic, speeds up to about 8 m/s) runs
// 10 000 steps of 1 ms; its joints' position error stays bounded. Each
// step's velocity-level rows make the first-order change of C vanish and
// b = C/h removes the error left by the last step, so what remains after
// a step is the second-order term ½h²·C̈, C̈ the centripetal acceleration
// of the joint's points relative to each other, at most (ω₀² + ω₁²)·l
// ≈ 2·(10 rad/s)²·1 m here (the outer link spins at up to 10 rad/s):
// 10⁻⁴ m or rad, plus the solve's error, h times a residual of 1e-10.
// Without the correction the errors would add up over the run, to
// centimetres.
func TestJointDrift(t *testing.T) {
	if testing.Short() {
		t.Skip("10 000 steps")
	}
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.5}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	for i := 0; i < 2; i++ {
		b := engine.Body{Shape: engine.SphereShape(0.05), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{float64(i + 1), 0, 0}}
		b.SetMass(1)
		m.Bodies = append(m.Bodies, b)
	}
	m.Joints = []engine.Joint{
		{Kind: engine.JointRevolute, Body1: 0, Body2: engine.World, Axis: mgl64.Vec3{0, 1, 0}},
		{Kind: engine.JointRevolute, Body1: 1, Body2: 0, Point: mgl64.Vec3{1, 0, 0}, Axis: mgl64.Vec3{0, 1, 0}},
	}
	sim := newSim(t, m, jointSettings(1e-3), cpuref.New(1))
	var st engine.State
	worst, vmax, wmax := 0.0, 0.0, 0.0
	for range 10000 {
		step(t, sim)
		readState(t, sim, &st)
		p0, p1 := vec3(st.Pos, 0), vec3(st.Pos, 1)
		q0, q1 := quat(st.Rot, 0), quat(st.Rot, 1)
		// The pivots: the origin seen from body 0, and body 0's point at
		// (1, 0, 0) at t = 0 seen from both.
		e0 := p0.Add(q0.Rotate(mgl64.Vec3{-1, 0, 0})).Len()
		e1 := p0.Add(q0.Rotate(mgl64.Vec3{0, 0, 0})).Sub(p1.Add(q1.Rotate(mgl64.Vec3{-1, 0, 0}))).Len()
		a0 := math.Hypot(q0.Rotate(mgl64.Vec3{0, 1, 0})[0], q0.Rotate(mgl64.Vec3{0, 1, 0})[2])
		a1 := math.Hypot(q1.Rotate(mgl64.Vec3{0, 1, 0})[0], q1.Rotate(mgl64.Vec3{0, 1, 0})[2])
		worst = math.Max(worst, math.Max(math.Max(e0, e1), math.Max(a0, a1)))
		vmax = math.Max(vmax, vec3(st.Vel, 1).Len())
		wmax = math.Max(wmax, math.Max(vec3(st.Omega, 0).Len(), vec3(st.Omega, 1).Len()))
	}
	if worst > 1e-4 {
		t.Errorf("largest joint error over 10 000 steps %.3g (m or rad), want ≤ 1e-4", worst)
	}
	t.Logf("double pendulum, 10 000 steps of 1 ms: largest joint error %.3g, top speed %.2f m/s, top spin %.2f rad/s", worst, vmax, wmax)
}

// TestRevoluteMotor: a box (1 kg, centre 0.5 m from the axis) on a
// revolute joint with a motor at π/2 rad/s turns at that speed against
// the gravity torque (up to m·g·0.5 = 4.9 N·m) when the motor may give
// 100 N·m; with a 2 N·m limit it cannot hold the speed and its impulse
// stays within ±2 N·m·h.
func TestRevoluteMotor(t *testing.T) {
	const speed, dt = math.Pi / 2, 1e-3
	model := func(limit float64) *engine.Model {
		// Started at the motor's speed: from rest a 100 N·m motor takes
		// several steps to reach it (the box's 0.26 kg·m² needs 400 N·m
		// to get there in one).
		box := engine.Body{Shape: engine.BoxShape(0.1, 0.1, 0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0.5, 0, 0},
			Omega: mgl64.Vec3{0, speed, 0}, Vel: mgl64.Vec3{0, 0, -0.5 * speed}}
		box.SetMass(1)
		return &engine.Model{Bodies: []engine.Body{box}, Materials: []engine.Material{{Name: "m", Friction: 0.5}},
			Gravity: mgl64.Vec3{0, 0, -9.81},
			Joints: []engine.Joint{{Kind: engine.JointRevolute, Body1: 0, Body2: engine.World, Axis: mgl64.Vec3{0, 1, 0},
				Motor: &engine.Motor{Speed: speed, MaxForce: limit}}}}
	}
	t.Run("holds", func(t *testing.T) {
		sim := newSim(t, model(100), jointSettings(dt), cpuref.New(1))
		var st engine.State
		for k := 0; k < 4000; k++ { // a full turn and more: the load torque changes sign
			step(t, sim)
			readState(t, sim, &st)
			w := quat(st.Rot, 0).Rotate(vec3(st.Omega, 0))
			// 1e-6 rad/s: the motor row is solved to the tolerance.
			if math.Abs(w[1]-speed) > 1e-6 || math.Hypot(w[0], w[2]) > 1e-6 {
				t.Fatalf("step %d: ω = %v rad/s, want (0, %.6f, 0)", k+1, w, speed)
			}
		}
		// The turned angle is exact: 4 s at π/2 rad/s is a full turn.
		p := vec3(st.Pos, 0)
		if d := p.Sub(mgl64.Vec3{0.5, 0, 0}).Len(); d > 1e-4 {
			t.Errorf("after one turn the box is at %v, %.3g m from its start", p, d)
		}
	})
	t.Run("stalls", func(t *testing.T) {
		const limit = 2.0
		sim := newSim(t, model(limit), jointSettings(dt), cpuref.New(1))
		var st engine.State
		var g []float64
		slowest := speed
		for k := 0; k < 1000; k++ {
			step(t, sim)
			readState(t, sim, &st)
			w := quat(st.Rot, 0).Rotate(vec3(st.Omega, 0))
			slowest = math.Min(slowest, w[1])
			g = sim.Impulses(g)
			// 1e-12 relative: room for a rounding of the clamp to ±limit·h.
			if m := g[len(g)-1]; math.Abs(m) > limit*dt*(1+1e-12) {
				t.Fatalf("step %d: motor impulse %g N·m·s beyond ±%g", k+1, m, limit*dt)
			}
		}
		// The gravity torque of 4.9 N·m beats the 2 N·m motor: the box
		// falls behind the prescribed speed (and swings back).
		if slowest > speed-0.5 {
			t.Errorf("slowest ω = %.3f rad/s: a 2 N·m motor held π/2 rad/s against 4.9 N·m", slowest)
		}
	})
}

// TestJointSolvers: every solver solves a problem with joint rows and
// contacts (a 3-link chain whose bottom link rests on a floor, pushed
// sideways) to the same velocities, which are unique (the impulses need
// not be: the floor and the chain both hold the bottom link), pdip with
// its joint rows as free unknowns of its Newton system included.
// Frictionless, so that apgd-ar's De Saxcé problem is the same as the
// others' relaxed one.
func TestJointSolvers(t *testing.T) {
	m := chain(3, 9.81)
	m.Materials[0].Friction = 0
	floor := engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.55}, Fixed: true}
	m.Bodies = append(m.Bodies, floor)
	m.Bodies[0].Vel = mgl64.Vec3{0.3, 0, 0}
	vel := map[string][]float64{}
	for _, name := range []string{"apgd", "apgd-ar", "spg", "jacobi", "gs", "pdip"} {
		var st engine.StepStats
		st, vel[name] = solveStep(t, m, name)
		if st.Contacts == 0 || !st.Solve.Converged {
			t.Errorf("%s: %d contacts, converged %v (residual %.3g in %d iterations)", name, st.Contacts, st.Solve.Converged, st.Solve.Residual, st.Solve.Iterations)
		}
	}
	for name, v := range vel {
		for i := range v {
			// 1e-6 m/s: converged to a residual of 1e-12 per row, the
			// velocities agree to far better than that; the margin is
			// for the slowest solver's last digits.
			if math.Abs(v[i]-vel["apgd"][i]) > 1e-6 {
				t.Errorf("%s: velocity component %d is %.9f, apgd's %.9f", name, i, v[i], vel["apgd"][i])
				break
			}
		}
	}
}

// solveStep takes one step of m (h = 1 ms) on the CPU path with the named
// solver to a residual of 1e-12, and returns its statistics and the
// bodies' velocities after it (linear, then angular).
func solveStep(t *testing.T, m *engine.Model, name string) (engine.StepStats, []float64) {
	t.Helper()
	s := jointSettings(1e-3)
	s.Solver = name
	s.Tol = 1e-12
	s.MaxIter = 20000
	sim := newSim(t, m, s, cpuref.New(1))
	st, err := sim.Step()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var es engine.State
	readState(t, sim, &es)
	return st, append(append([]float64(nil), es.Vel...), es.Omega...)
}

// TestJointSolversFreeRows: a hanging chain without contacts has free
// joint rows only, no inequality at all: pdip's surrogate duality gap is
// 0, and its Newton step solves the unconstrained QP. It reaches the
// tolerance (it failed there, t = 0/0) with apgd's velocities.
func TestJointSolversFreeRows(t *testing.T) {
	m := chain(3, 9.81)
	m.Bodies[0].Vel = mgl64.Vec3{0.3, 0, 0}
	vel := map[string][]float64{}
	for _, name := range []string{"apgd", "pdip"} {
		var st engine.StepStats
		st, vel[name] = solveStep(t, m, name)
		if st.Contacts != 0 || !st.Solve.Converged {
			t.Errorf("%s: %d contacts, converged %v (residual %.3g in %d iterations)", name, st.Contacts, st.Solve.Converged, st.Solve.Residual, st.Solve.Iterations)
		}
	}
	for i, v := range vel["pdip"] {
		// 1e-6 m/s, as TestJointSolvers.
		if math.Abs(v-vel["apgd"][i]) > 1e-6 {
			t.Errorf("pdip: velocity component %d is %.9f, apgd's %.9f", i, v, vel["apgd"][i])
			break
		}
	}
}

// TestJointSolversMotor: the revolute motor of TestRevoluteMotor limited
// to 2 N·m, which gravity's 4.9 N·m overcomes, so that its row sits at
// its bound −2 N·m·h: an interval row active at the solution. pdip (two
// log barriers on the row) and the projected solvers run it 200 steps to
// the same velocities, and the motor impulse stays within its bounds.
func TestJointSolversMotor(t *testing.T) {
	const speed, dt, limit = math.Pi / 2, 1e-3, 2.0
	box := engine.Body{Shape: engine.BoxShape(0.1, 0.1, 0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0.5, 0, 0},
		Omega: mgl64.Vec3{0, speed, 0}, Vel: mgl64.Vec3{0, 0, -0.5 * speed}}
	box.SetMass(1)
	m := &engine.Model{Bodies: []engine.Body{box}, Materials: []engine.Material{{Name: "m", Friction: 0.5}},
		Gravity: mgl64.Vec3{0, 0, -9.81},
		Joints: []engine.Joint{{Kind: engine.JointRevolute, Body1: 0, Body2: engine.World, Axis: mgl64.Vec3{0, 1, 0},
			Motor: &engine.Motor{Speed: speed, MaxForce: limit}}}}
	vel := map[string][]float64{}
	atBound := map[string]int{}
	for _, name := range []string{"apgd", "spg", "gs", "pdip"} {
		s := jointSettings(dt)
		s.Solver = name
		s.Tol = 1e-12
		s.MaxIter = 20000
		sim := newSim(t, m, s, cpuref.New(1))
		var g []float64
		for k := 0; k < 200; k++ {
			st := step(t, sim)
			if !st.Solve.Converged {
				t.Fatalf("%s: step %d not converged (residual %.3g in %d iterations)", name, k+1, st.Solve.Residual, st.Solve.Iterations)
			}
			g = sim.Impulses(g)
			mi := g[len(g)-1]
			// The projection clamps the row to ±MaxForce·h, the same
			// product as limit·dt; 1e-12 relative leaves room for a
			// rounding. At the bound: within 1e-6 relative, pdip's
			// barriers keeping it strictly inside by about its
			// tolerance.
			if math.Abs(mi) > limit*dt*(1+1e-12) {
				t.Fatalf("%s: step %d: motor impulse %g N·m·s beyond ±%g", name, k+1, mi, limit*dt)
			}
			if math.Abs(mi) > limit*dt*(1-1e-6) {
				atBound[name]++
			}
		}
		var es engine.State
		readState(t, sim, &es)
		vel[name] = append(append([]float64(nil), es.Vel...), es.Omega...)
	}
	if atBound["apgd"] < 100 {
		t.Fatalf("the motor sat at its bound in %d of 200 steps: the test does not exercise an active interval row", atBound["apgd"])
	}
	for name, v := range vel {
		for i := range v {
			// 1e-6 m/s or rad/s: each step solved to a residual of 1e-12;
			// 200 steps of a pendulum do not amplify the difference.
			if math.Abs(v[i]-vel["apgd"][i]) > 1e-6 {
				t.Errorf("%s: velocity component %d is %.9f, apgd's %.9f", name, i, v[i], vel["apgd"][i])
				break
			}
		}
	}
	// Over these 0.2 s the box turns less than 0.6 rad from horizontal
	// (π/2 rad/s, plus gravity's net 2.9 N·m on about 0.25 kg·m²: ½·11.6
	// rad/s²·(0.2 s)² = 0.23 rad), so gravity's torque stays above
	// 4.9·cos 0.6 = 4.0 N·m > 2 N·m: the motor row is at its bound at
	// every step, for every solver.
	for name, n := range atBound {
		if n != 200 {
			t.Errorf("%s: motor at its bound in %d of 200 steps, want all", name, n)
		}
	}
	t.Logf("motor at its bound in %v of 200 steps", atBound)
}

// TestSetMotorAndMotion: between steps a run changes a motor's speed and a
// kinematic body's motion (engine.Sim.SetMotor, SetMotion), on both
// backends. A box spun at 1 rad/s by a revolute motor about y (no gravity)
// turns at 2 rad/s after SetMotor(2): the motor row is solved to the
// tolerance 1e-8, so ω is within 1e-6 rad/s of it. A kinematic plate
// moving at 1 m/s along x for 10 steps, then at 0.5 m/s along y, is where
// the two prescribed motions put it: (10h, 10h·0.5) after 10 more steps,
// to rounding (1e-12 m). Bad calls are errors naming what is wrong.
func TestSetMotorAndMotion(t *testing.T) {
	const dt = 1e-3
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		box := engine.Body{Shape: engine.BoxShape(0.1, 0.1, 0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0.5, 0, 0},
			Omega: mgl64.Vec3{0, 1, 0}, Vel: mgl64.Vec3{0, 0, -0.5}}
		box.SetMass(1)
		plate := engine.Body{Shape: engine.BoxShape(1, 1, 0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -5},
			Motion: &engine.Motion{Vel: mgl64.Vec3{1, 0, 0}}}
		m := &engine.Model{Bodies: []engine.Body{box, plate}, Materials: []engine.Material{{Name: "m", Friction: 0.5}},
			Joints: []engine.Joint{{Kind: engine.JointRevolute, Body1: 0, Body2: engine.World, Axis: mgl64.Vec3{0, 1, 0},
				Motor: &engine.Motor{Speed: 1, MaxForce: 100}}}}
		s := jointSettings(dt)
		s.Tol, s.MaxIter = 1e-8, 300
		sim := newSim(t, m, s, newBackend())
		var st engine.State
		spin := func() float64 {
			readState(t, sim, &st)
			return quat(st.Rot, 0).Rotate(vec3(st.Omega, 0))[1]
		}
		for range 10 {
			step(t, sim)
		}
		if w := spin(); math.Abs(w-1) > 1e-6 {
			t.Fatalf("ω_y = %.9f rad/s before the change, want 1", w)
		}
		if err := sim.SetMotor(0, 2, 100); err != nil {
			t.Fatal(err)
		}
		if err := sim.SetMotion(1, engine.Motion{Vel: mgl64.Vec3{0, 0.5, 0}}); err != nil {
			t.Fatal(err)
		}
		for range 10 {
			step(t, sim)
		}
		if w := spin(); math.Abs(w-2) > 1e-6 {
			t.Errorf("ω_y = %.9f rad/s after SetMotor(2), want 2", w)
		}
		if p := vec3(st.Pos, 1); math.Abs(p[0]-10*dt) > 1e-12 || math.Abs(p[1]-10*dt*0.5) > 1e-12 || p[2] != -5 {
			t.Errorf("plate at %v, want (%g, %g, -5)", p, 10*dt, 5*dt)
		}
		for _, c := range []struct {
			err  error
			want string
		}{
			{sim.SetMotor(1, 1, 0), "joint 1 out of range"},
			{sim.SetMotor(0, math.NaN(), 0), "motor speed NaN is not finite"},
			{sim.SetMotor(0, 1, -1), "motor limit -1 must be ≥ 0"},
			{sim.SetMotion(0, engine.Motion{}), "body 0 is not kinematic"},
			{sim.SetMotion(2, engine.Motion{}), "body 2 out of range"},
			{sim.SetMotion(1, engine.Motion{Frequency: -1}), "motion frequency -1 must be ≥ 0"},
		} {
			if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", c.err, c.want)
			}
		}
	})
	// A joint without a motor takes none.
	m := pendulum(1, 0.1, 0.3, 9.81)
	sim := newSim(t, m, jointSettings(dt), cpuref.New(1))
	if err := sim.SetMotor(0, 1, 0); err == nil || !strings.Contains(err.Error(), "joint 0 (revolute) has no motor") {
		t.Errorf("SetMotor on a joint without a motor: %v", err)
	}
}

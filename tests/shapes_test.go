package tests

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// inclined returns a model of one body resting on the plane z = 0 under
// gravity g tilted by θ about the y axis: g = 9.81·(sin θ, 0, −cos θ), so
// that the plane is an incline whose downhill direction is +x.
func inclined(b engine.Body, theta, mu float64) *engine.Model {
	plane := engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true}
	return &engine.Model{Bodies: []engine.Body{b, plane},
		Materials: []engine.Material{{Name: "m", Friction: mu}},
		Gravity:   mgl64.Vec3{9.81 * math.Sin(theta), 0, -9.81 * math.Cos(theta)}}
}

// exactSettings: anti-relaxed APGD (the unrelaxed dynamics) to a tight
// tolerance, step h.
func exactSettings(h float64) engine.Settings {
	s := engine.DefaultSettings()
	s.Dt = h
	s.Solver = "apgd-ar"
	s.Tol = 1e-10
	s.MaxIter = 5000
	return s
}

// TestRollingDownIncline: a solid cylinder and a capsule lying across an
// incline of θ = 20° roll without slipping (μ = 0.5 exceeds the
// tan θ·J/(mr² + J) that rolling needs) with acceleration
// a = g sin θ/(1 + J/(mr²)), J the moment about the axis: (2/3)g sin θ for
// the cylinder (J = mr²/2). The cylinder rests on its two rim points, the
// capsule on its two end balls. Semi-implicit Euler gives v = a·t exactly
// for a constant acceleration, so after 100 steps of 5 ms the speed must
// match a·t to the solver's tolerance: 1e-6 relative (tolerance 1e-10 on
// velocities, accumulated over 100 steps, is far below). The contact
// points do not slip (|v − rω| below 1e-6 m/s) and the axis stays across
// the slope (its x component below 1e-9: the two points share the load
// symmetrically).
func TestRollingDownIncline(t *testing.T) {
	const theta, h, steps = 20 * math.Pi / 180, 0.005, 100 // rollDownIncline's
	cases := []struct {
		name  string
		shape engine.Shape
	}{
		{"cylinder", engine.CylinderShape(0.2, 0.3)},
		{"capsule", engine.CapsuleShape(0.2, 0.3)},
	}
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		for _, c := range cases {
			v, want, slip, ax := rollDownIncline(t, c.shape, newBackend())
			t.Logf("%s: v = %.9f m/s after %.3f s, want a·t = %.9f (relative error %.1e; (2/3)g sin θ·t = %.9f); slip %.1e m/s",
				c.name, v, h*steps, want, (v-want)/want, 2.0/3*9.81*math.Sin(theta)*h*steps, slip)
			if math.Abs(v-want) > 1e-6*want {
				t.Errorf("%s: speed %.9f m/s, want %.9f", c.name, v, want)
			}
			if math.Abs(slip) > 1e-6 {
				t.Errorf("%s: slip v − rω = %.3g m/s", c.name, slip)
			}
			if math.Abs(ax[0]) > 1e-9 {
				t.Errorf("%s: axis %v turned from across the slope", c.name, ax)
			}
		}
		// For the cylinder the a above is (2/3)g sin θ: J/(mr²) = 1/2
		// (to rounding, 1e-15).
		cb := engine.Body{Shape: cases[0].shape}
		cb.SetMass(3)
		if q := cb.Inertia[2] / (3 * 0.2 * 0.2); math.Abs(q-0.5) > 1e-15 {
			t.Errorf("cylinder J/(mr²) = %v, want 1/2", q)
		}
	})
}

// rollDownIncline lets a body of shape (a cylinder or capsule of mass 3
// kg lying across the slope) roll from rest down TestRollingDownIncline's
// 20° incline (μ = 0.5) for 100 steps of 5 ms, and returns its speed
// along the slope, the analytic a·t with a = g sin θ/(1 + J/mr²), the
// slip v − rω of its contact line and its axis at the end.
func rollDownIncline(t *testing.T, shape engine.Shape, be engine.Backend) (v, want, slip float64, axis mgl64.Vec3) {
	t.Helper()
	const theta, h, steps = 20 * math.Pi / 180, 0.005, 100
	lying := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}) // body z along world −y
	r := shape.Size[0]
	b := engine.Body{Shape: shape, Rot: lying, Pos: mgl64.Vec3{0, 0, r}}
	b.SetMass(3)
	m := inclined(b, theta, 0.5)
	a := 9.81 * math.Sin(theta) / (1 + b.Inertia[2]/(b.Mass*r*r))
	sim := newSim(t, m, exactSettings(h), be)
	last, st := stepFor(t, sim, steps)
	vel := vec3(st.Vel, 0)
	w := quat(st.Rot, 0).Rotate(vec3(st.Omega, 0))
	return vel[0], a * last.Time, vel[0] - r*w[1], quat(st.Rot, 0).Rotate(mgl64.Vec3{0, 0, 1})
}

// TestCylinderSlidesOnFace: a cylinder standing on its face, launched at
// v0 = 2 m/s on a plane with μ = 0.3, slides on the four points of its rim
// (cylinderPlane), decelerating at μg, and stops at t = v0/(μg) after
// v0²/(2μg) — without tipping (μ·h = 0.06 m is well below r/√2 = 0.21 m,
// the lever of the square of rim points). With h = 4 ms the velocity
// falls by μg·h per step exactly, so it reaches 0 at the first step past
// v0/(μg); the distance, Σ h·v_k, is v0²/(2μg) less about v0·h/2: within
// v0·h. The axis stays vertical to 1e-9 rad.
func TestCylinderSlidesOnFace(t *testing.T) {
	const v0, mu, g, h = 2.0, 0.3, 9.81, 0.004
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		tStop := v0 / (mu * g)
		stopped, x := slideOnFace(t, newBackend())
		t.Logf("stopped at %.4f s (v0/(μg) = %.4f s) after %.5f m (v0²/(2μg) = %.5f m)", stopped, tStop, x, v0*v0/(2*mu*g))
		if stopped < tStop || stopped > tStop+h*(1+1e-9) {
			t.Errorf("stopped at %.5f s, want the first step after %.5f s", stopped, tStop)
		}
		if d := v0 * v0 / (2 * mu * g); math.Abs(x-d) > v0*h {
			t.Errorf("slid %.6f m, want %.6f ± %.4f", x, d, v0*h)
		}
	})
}

// slideOnFace runs TestCylinderSlidesOnFace's cylinder (r = 0.3 m,
// h = 0.2 m, 5 kg, v0 = 2 m/s, μ = 0.3, steps of 4 ms) until 20 steps past
// v0/(μg) and returns the time of the first step that ends at rest and the
// distance slid; the test fails if the axis tips by more than 1e-9 rad.
func slideOnFace(t *testing.T, be engine.Backend) (stopped, x float64) {
	t.Helper()
	var v0, mu, g, h = 2.0, 0.3, 9.81, 0.004
	b := engine.Body{Shape: engine.CylinderShape(0.3, 0.2), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, 0.2}, Vel: mgl64.Vec3{v0, 0, 0}}
	b.SetMass(5)
	sim := newSim(t, inclined(b, 0, mu), exactSettings(h), be)
	var st engine.State
	stopped = -1.0
	n := int(v0/(mu*g)/h) + 20 // float64 constants, truncated at run time
	for k := 0; k < n; k++ {
		s := step(t, sim)
		readState(t, sim, &st)
		if stopped < 0 && vec3(st.Vel, 0).Len() < 1e-9 {
			stopped = s.Time
		}
		if ax := quat(st.Rot, 0).Rotate(mgl64.Vec3{0, 0, 1}); math.Hypot(ax[0], ax[1]) > 1e-9 {
			t.Fatalf("t = %.3f s: axis %v tipped", s.Time, ax)
		}
	}
	return stopped, st.Pos[0]
}

// TestShapesResting: capsules and cylinders placed at rest on planes,
// boxes and each other stay there and their support carries the weight,
// as TestResting checks for the other shapes.
func TestShapesResting(t *testing.T) {
	lying := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})
	floorBox := engine.Body{Shape: engine.BoxShape(2, 2, 0.5), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.5}, Fixed: true}
	plane := engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true}
	drum := engine.Body{Shape: engine.CylinderShape(1, 0.5), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.5}, Fixed: true}
	slab, _, _, err := engine.NewConvex(geom.BoxCorners(mgl64.Vec3{2, 2, 0.5}))
	if err != nil {
		t.Fatal(err)
	}
	hullFloor := engine.Body{Shape: slab, Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.5}, Fixed: true}
	cases := []struct {
		name    string
		body    engine.Shape
		rot     mgl64.Quat
		z       float64
		support engine.Body
	}{
		{"capsule lying on plane", engine.CapsuleShape(0.1, 0.2), lying, 0.1, plane},
		{"capsule lying on box", engine.CapsuleShape(0.1, 0.2), lying, 0.1, floorBox},
		{"cylinder standing on plane", engine.CylinderShape(0.1, 0.15), mgl64.QuatIdent(), 0.15, plane},
		{"cylinder lying on plane", engine.CylinderShape(0.1, 0.15), lying, 0.1, plane},
		{"cylinder standing on box", engine.CylinderShape(0.1, 0.15), mgl64.QuatIdent(), 0.15, floorBox},
		{"cylinder lying on box", engine.CylinderShape(0.1, 0.15), lying, 0.1, floorBox},
		{"cylinder on cylinder", engine.CylinderShape(0.1, 0.15), mgl64.QuatIdent(), 0.15, drum},
		{"sphere on cylinder", engine.SphereShape(0.1), mgl64.QuatIdent(), 0.1, drum},
		{"capsule lying on a hull", engine.CapsuleShape(0.1, 0.2), lying, 0.1, hullFloor},
		{"cylinder lying on a hull", engine.CylinderShape(0.1, 0.15), lying, 0.1, hullFloor},
		{"cylinder standing on a hull", engine.CylinderShape(0.1, 0.15), mgl64.QuatIdent(), 0.15, hullFloor},
	}
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		for _, c := range cases {
			b := engine.Body{Shape: c.body, Rot: c.rot, Pos: mgl64.Vec3{0, 0, c.z}}
			checkRests(t, c.name, b, c.support, newBackend())
		}
	})
}

// checkRests puts body b (its mass set to 2 kg) at rest on support and
// checks, after 100 steps of the default solver to a tolerance of 1e-9,
// that it stays within 1e-6 m and 1e-6 rad of where it was (the tolerance on
// velocities over 1 s of steps gives drifts far below; a wrong contact set
// tips a body by whole degrees), the support carrying its weight to 1e-6.
func checkRests(t *testing.T, name string, b, support engine.Body, be engine.Backend) {
	t.Helper()
	b.SetMass(2)
	m := &engine.Model{Bodies: []engine.Body{b, support},
		Materials: []engine.Material{{Name: "m", Friction: 0.5}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	s := engine.DefaultSettings()
	s.Tol = 1e-9
	s.MaxIter = 5000
	sim := newSim(t, m, s, be)
	last, st := stepFor(t, sim, 100)
	pos, q := vec3(st.Pos, 0), quat(st.Rot, 0)
	if d := pos.Sub(b.Pos).Len(); d > 1e-6 {
		t.Errorf("%s: moved to %v (drift %.3g m)", name, pos, d)
	}
	if a := q.Mul(b.Rot.Conjugate()); 2*math.Acos(math.Min(1, math.Abs(a.W))) > 1e-6 {
		t.Errorf("%s: turned by %.3g rad", name, 2*math.Acos(math.Min(1, math.Abs(a.W))))
	}
	if fz := -last.FixedForce[2]; math.Abs(fz-2*9.81) > 1e-6*2*9.81 {
		t.Errorf("%s: the support carries %.9f N, want %.9f N", name, fz, 2*9.81)
	}
	t.Logf("%s: %d contacts, %d iterations in the last step (residual %.2g)", name, last.Contacts, last.Solve.Iterations, last.Solve.Residual)
}

// TestHullAsBox: the convex hull of a box's corners behaves as the box. A
// box and its hull, each tipped 30° about a tilted axis, dropped from
// 0.3 m onto a plane, bounce, slide and settle along the same path: the
// hull's corners are the box's (collide's TestNarrowHullAsBox), so the
// contacts are the same up to their order, and the solver's tolerance
// (1e-10 on velocities) bounds the difference of the paths: 1e-6 m and
// 1e-6 m/s after 1 s. Both then rest on a box: the support carries the
// weight.
func TestHullAsBox(t *testing.T) {
	h := mgl64.Vec3{0.3, 0.2, 0.1}
	hull, _, _, err := engine.NewConvex(geom.BoxCorners(h))
	if err != nil {
		t.Fatal(err)
	}
	tip := mgl64.QuatRotate(math.Pi/6, mgl64.Vec3{1, 1, 0.3}.Normalize())
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		var states [2]engine.State
		for i, sh := range []engine.Shape{engine.BoxShape(h[0], h[1], h[2]), hull} {
			b := engine.Body{Shape: sh, Rot: tip, Pos: mgl64.Vec3{0, 0, 0.6}, Vel: mgl64.Vec3{1, 0.5, 0}, Omega: mgl64.Vec3{0, 0, 2}}
			b.SetDensity(1000)
			m := inclined(b, 0, 0.3)
			sim := newSim(t, m, exactSettings(0.01), newBackend())
			_, states[i] = stepFor(t, sim, 100)
		}
		for _, f := range []struct {
			name string
			a, b []float64
		}{{"pos", states[0].Pos, states[1].Pos}, {"vel", states[0].Vel, states[1].Vel}, {"omega", states[0].Omega, states[1].Omega}} {
			for k := range f.a {
				if math.Abs(f.a[k]-f.b[k]) > 1e-6 {
					t.Errorf("%s[%d]: box %.9f, hull %.9f", f.name, k, f.a[k], f.b[k])
				}
			}
		}
		t.Logf("box at %v, hull at %v after 1 s", vec3(states[0].Pos, 0), vec3(states[1].Pos, 0))
		if z := states[1].Pos[2]; math.Abs(z-h[2]) > 1e-3 {
			t.Errorf("hull settled at z = %v, want %v (flat on its largest face)", z, h[2])
		}
	})
}

// gridMesh returns a fixed floor mesh: the square [−1, 1]² at z = 0 cut
// into 4×4 squares, each into two triangles along a diagonal (32
// triangles, normals +z).
func gridMesh(t *testing.T) engine.Body {
	t.Helper()
	m := &geom.Mesh{}
	const n = 4
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			m.Verts = append(m.Verts, mgl64.Vec3{-1 + 2*float64(i)/n, -1 + 2*float64(j)/n, 0})
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a := int32(j*(n+1) + i)
			b, c, d := a+1, a+n+2, a+n+1
			m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
		}
	}
	sh, err := engine.NewMesh(m, "grid")
	if err != nil {
		t.Fatal(err)
	}
	return engine.Body{Shape: sh, Rot: mgl64.QuatIdent(), Fixed: true}
}

// TestRestingOnMesh: bodies at rest on a mesh floor stay there and the
// floor carries their weight: a sphere inside a triangle, on an edge
// between two and on a vertex of eight; a box across several triangles
// (the face manifold clipped triangle by triangle); a capsule lying
// across an edge (its end balls); the hull of a box's corners; cylinders
// standing and lying (their rim's square or side's line clipped triangle
// by triangle). The bounds are TestResting's.
func TestRestingOnMesh(t *testing.T) {
	lying := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})
	id := mgl64.QuatIdent()
	hull, _, _, err := engine.NewConvex(geom.BoxCorners(mgl64.Vec3{0.15, 0.1, 0.05}))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		body engine.Shape
		rot  mgl64.Quat
		pos  mgl64.Vec3
	}{
		{"sphere in a triangle", engine.SphereShape(0.1), id, mgl64.Vec3{0.3, 0.1, 0.1}},
		{"sphere on an edge", engine.SphereShape(0.1), id, mgl64.Vec3{0.25, 0.25, 0.1}},
		{"sphere on a vertex", engine.SphereShape(0.1), id, mgl64.Vec3{0, 0, 0.1}},
		{"box across triangles", engine.BoxShape(0.3, 0.2, 0.05), id, mgl64.Vec3{0.1, -0.05, 0.05}},
		{"capsule across an edge", engine.CapsuleShape(0.05, 0.3), lying, mgl64.Vec3{0.1, 0.2, 0.05}},
		{"hull across triangles", hull, id, mgl64.Vec3{-0.4, 0.3, 0.05}},
		{"cylinder standing across an edge", engine.CylinderShape(0.1, 0.15), id, mgl64.Vec3{0.45, -0.3, 0.15}},
		{"cylinder lying across triangles", engine.CylinderShape(0.1, 0.3), lying, mgl64.Vec3{-0.15, -0.4, 0.1}},
	}
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		for _, c := range cases {
			checkRests(t, c.name, engine.Body{Shape: c.body, Rot: c.rot, Pos: c.pos}, gridMesh(t), newBackend())
		}
	})
}

// TestHullsOnMeshBackends: hulls (bricks and random rocks) and capsules
// tumbling onto a mesh floor step alike on both backends: the Vulkan
// backend collides such a model on the host (collide.Collider, the same
// narrowphase) and solves on the device, whose sums run in another order,
// so the states agree to the solver's tolerance, not bit for bit: 1e-6
// m and m/s after 40 steps of 5 ms (the tolerance 1e-9 on velocities
// over 40 steps is far below; a different contact set would differ by
// millimetres).
func TestHullsOnMeshBackends(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	model := func() *engine.Model {
		m := &engine.Model{Bodies: []engine.Body{gridMesh(t)}, Materials: []engine.Material{{Name: "m", Friction: 0.4}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
		for k := range 6 {
			var pts []mgl64.Vec3
			for range 12 {
				pts = append(pts, mgl64.Vec3{0.1 * rng.NormFloat64(), 0.08 * rng.NormFloat64(), 0.06 * rng.NormFloat64()})
			}
			sh, _, _, err := engine.NewConvex(pts)
			if err != nil {
				t.Fatal(err)
			}
			if k%3 == 2 {
				sh = engine.CapsuleShape(0.05, 0.1)
			}
			b := engine.Body{Shape: sh, Rot: mgl64.QuatRotate(rng.Float64()*math.Pi, mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()),
				Pos: mgl64.Vec3{-0.6 + 0.25*float64(k), 0.1 * float64(k%2), 0.25}}
			b.SetDensity(1000)
			m.Bodies = append(m.Bodies, b)
		}
		return m
	}
	var states []engine.State
	contacts := 0
	for _, be := range backends {
		rng = rand.New(rand.NewPCG(7, 8))
		s := engine.DefaultSettings()
		s.Dt, s.Tol, s.MaxIter = 0.005, 1e-9, 2000
		sim := newSim(t, model(), s, be.new(t))
		var st engine.State
		for range 40 {
			contacts += step(t, sim).Contacts
		}
		readState(t, sim, &st)
		states = append(states, st)
	}
	if contacts == 0 {
		t.Fatal("no contacts: the bodies never reached the mesh")
	}
	for _, f := range []struct {
		name string
		a, b []float64
	}{{"pos", states[0].Pos, states[1].Pos}, {"vel", states[0].Vel, states[1].Vel}} {
		for k := range f.a {
			if math.Abs(f.a[k]-f.b[k]) > 1e-6 {
				t.Errorf("%s[%d]: cpu %.9f, vulkan %.9f", f.name, k, f.a[k], f.b[k])
			}
		}
	}
	t.Logf("%d contacts over both runs", contacts)
}

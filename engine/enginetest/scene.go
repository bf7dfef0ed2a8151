package enginetest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/gpusim/gpusim/engine"
)

// RandomModel returns a seeded random scene of n bodies: spheres,
// ellipsoids and boxes (0.05–0.2 m) packed in a cube so that many overlap,
// a fifth of them fixed, with random orientations, masses (0.1–10 kg),
// velocities (±0.3 m/s), angular velocities (up to 5 rad/s), forces and
// torques; a ground plane and a fixed box inside the cube; three
// materials: one rough, one frictionless (μ = 0 on every contact it
// touches) and one cohesive (cohesion on the contacts between two of its
// bodies, off elsewhere). The same seed and n give the same model.
func RandomModel(seed uint64, n int) *engine.Model {
	return RandomModelSpinners(seed, n, 0)
}

// RandomModelSpinners is RandomModel with, far above the cube, the given
// number of isolated spinners: unit-mass random shapes 20 m apart that
// turn at 0, 10⁻⁶ and then up to 2000 rad/s, so that |ω̄|h/2 covers every
// octant of sincos (their speculative margins, up to 7 m, would pair
// everything in the cube). Their draws follow those of the n bodies, so
// the cube is RandomModel's for the same seed and n.
func RandomModelSpinners(seed uint64, n, spinners int) *engine.Model {
	r := rand.New(rand.NewPCG(seed, 99))
	m := &engine.Model{
		Materials: []engine.Material{
			{Name: "rough", Friction: 0.2 + 0.8*r.Float64()},
			{Name: "slick", Friction: 0},
			{Name: "sticky", Friction: 0.5, Cohesion: 2 + 3*r.Float64()},
		},
		Gravity: mgl64.Vec3{0.3 * r.NormFloat64(), 0.3 * r.NormFloat64(), -9.81},
	}
	side := 0.16 * math.Cbrt(float64(n)) // about one body per (0.16 m)³: dense enough to overlap
	vec := func(s float64) mgl64.Vec3 {
		return mgl64.Vec3{s * r.NormFloat64(), s * r.NormFloat64(), s * r.NormFloat64()}
	}
	shape := func() engine.Shape {
		a := func() float64 { return 0.05 + 0.15*r.Float64() }
		switch r.IntN(3) {
		case 0:
			return engine.SphereShape(a())
		case 1:
			return engine.EllipsoidShape(a(), a(), a())
		}
		return engine.BoxShape(a(), a(), a())
	}
	for range n {
		bd := engine.Body{
			Shape:    shape(),
			Pos:      mgl64.Vec3{side * (r.Float64() - 0.5), side * (r.Float64() - 0.5), side * r.Float64()},
			Rot:      mgl64.Quat{W: r.NormFloat64(), V: vec(1)}.Normalize(),
			Vel:      vec(0.3),
			Omega:    vec(5 * r.Float64()),
			Material: r.IntN(3),
			Force:    vec(float64(r.IntN(2))),
			Torque:   vec(0.1 * float64(r.IntN(2))),
			Fixed:    r.IntN(5) == 0,
		}
		bd.SetMass(math.Pow(10, 2*r.Float64()-1))
		m.Bodies = append(m.Bodies, bd)
	}
	for i := range spinners {
		w := math.Pow(10, 3.3*r.Float64())
		switch i {
		case 0:
			w = 0
		case 1:
			w = 1e-6
		}
		bd := engine.Body{
			Shape: shape(),
			Pos:   mgl64.Vec3{20 * float64(i), 0, 100},
			Rot:   mgl64.Quat{W: r.NormFloat64(), V: vec(1)}.Normalize(),
			Omega: vec(w / math.Sqrt(3)),
		}
		bd.SetMass(1)
		m.Bodies = append(m.Bodies, bd)
	}
	m.Bodies = append(m.Bodies,
		engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true},
		engine.Body{Shape: engine.BoxShape(side/6, side/6, 0.1), Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1}),
			Pos: mgl64.Vec3{0, 0, side / 2}, Fixed: true, Material: 2})
	return m
}

// LatticeModel returns n spheres (r = 0.1 m, 1 kg) on a cubic lattice of
// spacing 0.199 m on the plane z = 0, each overlapping its lattice
// neighbours by 1 mm: about 3 contacts per sphere, like a settled pile. It
// is the scene of the backends' kernel benchmarks.
func LatticeModel(n int) *engine.Model {
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.25}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	side := int(math.Ceil(math.Cbrt(float64(n))))
	for i := range n {
		x, y, z := i%side, (i/side)%side, i/(side*side)
		bd := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(),
			Pos: mgl64.Vec3{0.199 * float64(x), 0.199 * float64(y), 0.0995 + 0.199*float64(z)}}
		bd.SetMass(1)
		m.Bodies = append(m.Bodies, bd)
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	return m
}

// HangingChain is k spheres (1 kg, radius 0.05 m) hanging in a vertical
// line 0.2 m apart, each joined to the one above by a spherical joint at
// their midpoint and the top one to the world 0.1 m above it, in gravity
// g; friction 0.5.
func HangingChain(k int, g float64) *engine.Model {
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.5}}, Gravity: mgl64.Vec3{0, 0, -g}}
	for i := 0; i < k; i++ {
		b := engine.Body{Shape: engine.SphereShape(0.05), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, -0.1 - 0.2*float64(i)}}
		b.SetMass(1)
		m.Bodies = append(m.Bodies, b)
		j := engine.Joint{Kind: engine.JointSpherical, Body1: i, Body2: i - 1, Point: mgl64.Vec3{0, 0, -0.2 * float64(i)}}
		if i == 0 {
			j.Body2 = engine.World
		}
		m.Joints = append(m.Joints, j)
	}
	return m
}

// JointedModel returns a small seeded mechanism on a ground plane that
// exercises every joint kind and both motors: a box arm on a revolute
// joint to the world driven by a torque-limited motor; a sphere on a
// spherical joint at the arm's tip that may collide with it (they
// overlap); a box on the floor sliding along a prismatic joint to the
// world, driven by an unlimited motor; an ellipsoid welded to that box
// by a fixed joint; a sphere hanging from a world point by a distance
// joint; a kinematic box (moving and turning) with a sphere on a
// revolute joint to it; a box on a prismatic joint to a free box, its
// motor limited; and a few free spheres on the floor and against the
// mechanism, so that contacts and joint rows share bodies. Orientations,
// velocities and the free spheres' places are drawn from seed.
func JointedModel(seed uint64) *engine.Model {
	r := rand.New(rand.NewPCG(seed, 7))
	m := &engine.Model{
		Materials: []engine.Material{{Name: "m", Friction: 0.4}},
		Gravity:   mgl64.Vec3{0, 0, -9.81},
	}
	rot := func() mgl64.Quat {
		return mgl64.Quat{W: 1, V: mgl64.Vec3{0.3 * r.NormFloat64(), 0.3 * r.NormFloat64(), 0.3 * r.NormFloat64()}}.Normalize()
	}
	vel := func(s float64) mgl64.Vec3 {
		return mgl64.Vec3{s * r.NormFloat64(), s * r.NormFloat64(), s * r.NormFloat64()}
	}
	add := func(sh engine.Shape, pos mgl64.Vec3, mass float64) int {
		bd := engine.Body{Shape: sh, Pos: pos, Rot: rot(), Vel: vel(0.2), Omega: vel(1)}
		bd.SetMass(mass)
		m.Bodies = append(m.Bodies, bd)
		return len(m.Bodies) - 1
	}
	arm := add(engine.BoxShape(0.1, 0.03, 0.03), mgl64.Vec3{0, 0, 0.4}, 2)
	tip := add(engine.SphereShape(0.05), mgl64.Vec3{0.14, 0, 0.4}, 1)
	slider := add(engine.BoxShape(0.08, 0.06, 0.05), mgl64.Vec3{0.4, 0, 0.0495}, 3)
	welded := add(engine.EllipsoidShape(0.06, 0.04, 0.05), mgl64.Vec3{0.4, 0, 0.15}, 1)
	bob := add(engine.SphereShape(0.04), mgl64.Vec3{-0.3, 0.2, 0.3}, 0.5)
	kin := add(engine.BoxShape(0.05, 0.05, 0.05), mgl64.Vec3{0, 0.4, 0.3}, 1)
	m.Bodies[kin].Motion = &engine.Motion{Vel: mgl64.Vec3{0.1, 0, 0}, Omega: mgl64.Vec3{0, 0, 0.5}, Amplitude: mgl64.Vec3{0, 0, 0.01}, Frequency: 5}
	hung := add(engine.SphereShape(0.04), mgl64.Vec3{0, 0.4, 0.18}, 0.5)
	base := add(engine.BoxShape(0.06, 0.06, 0.04), mgl64.Vec3{-0.4, -0.3, 0.0395}, 2)
	top := add(engine.BoxShape(0.04, 0.04, 0.03), mgl64.Vec3{-0.4, -0.3, 0.11}, 1)
	for k := range 6 {
		add(engine.SphereShape(0.04), mgl64.Vec3{-0.2 + 0.1*float64(k), -0.12 + 0.02*r.Float64(), 0.0395 + 0.1*float64(k%2)}, 0.3)
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	at := func(i int) mgl64.Vec3 { return m.Bodies[i].Pos }
	m.Joints = []engine.Joint{
		{Kind: engine.JointRevolute, Body1: arm, Body2: engine.World, Point: mgl64.Vec3{-0.1, 0, 0.4}, Axis: mgl64.Vec3{0, 1, 0.1},
			Motor: &engine.Motor{Speed: 2, MaxForce: 0.5}},
		{Kind: engine.JointSpherical, Body1: arm, Body2: tip, Point: mgl64.Vec3{0.1, 0, 0.4}, Collide: true},
		{Kind: engine.JointPrismatic, Body1: slider, Body2: engine.World, Point: at(slider), Axis: mgl64.Vec3{1, 0.2, 0},
			Motor: &engine.Motor{Speed: 0.1}},
		{Kind: engine.JointFixed, Body1: slider, Body2: welded, Point: mgl64.Vec3{0.4, 0, 0.1}},
		{Kind: engine.JointDistance, Body1: bob, Body2: engine.World, Point: at(bob), Point2: mgl64.Vec3{-0.3, 0.25, 0.6}},
		{Kind: engine.JointRevolute, Body1: hung, Body2: kin, Point: mgl64.Vec3{0, 0.4, 0.24}, Axis: mgl64.Vec3{1, 0, 0}},
		{Kind: engine.JointPrismatic, Body1: base, Body2: top, Point: at(top), Axis: mgl64.Vec3{0, 0, 1},
			Motor: &engine.Motor{Speed: -0.05, MaxForce: 4}},
	}
	return m
}

// SeparatingPair returns two spheres of radius 0.1 m and mass kg each at
// rest 1 mm apart, without gravity, and settings with a 1 cm envelope: one
// contact that separates (r = (Φ/h, 0, 0), Φ > 0), so γ = 0 is the
// solution and APGD's iterates never leave it.
func SeparatingPair(mass float64) (*engine.Model, engine.Settings) {
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
	for i := range 2 {
		bd := engine.Body{Shape: engine.SphereShape(0.1), Pos: mgl64.Vec3{0.201 * float64(i), 0, 0}, Rot: mgl64.QuatIdent()}
		bd.SetMass(mass)
		m.Bodies = append(m.Bodies, bd)
	}
	set := engine.DefaultSettings()
	set.Envelope = 0.01
	return m, set
}

// loaded is a model loaded into a backend, collided and built.
type loaded struct {
	m   *engine.Model
	set engine.Settings
	b   engine.Backend
	p   engine.Problem
	nc  int
}

// load loads m into b, runs Collide and Build (h = set.Dt) and fails the
// test on any error or when the scene has fewer than minContacts contacts.
func load(t *testing.T, b engine.Backend, m *engine.Model, set engine.Settings, minContacts int) *loaded {
	t.Helper()
	if err := b.Load(m, &set); err != nil {
		t.Fatal(err)
	}
	nc, err := b.Collide()
	if err != nil {
		t.Fatal(err)
	}
	if nc < minContacts {
		t.Fatalf("%d contacts, want at least %d: the scene no longer tests what it should", nc, minContacts)
	}
	p, err := b.Build(set.Dt)
	if err != nil {
		t.Fatal(err)
	}
	if p.Contacts() != nc {
		t.Fatalf("Contacts() = %d, Collide found %d", p.Contacts(), nc)
	}
	return &loaded{m: m, set: set, b: b, p: p, nc: nc}
}

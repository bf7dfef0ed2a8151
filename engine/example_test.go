package engine_test

import (
	"fmt"
	"log"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// Build a model in code — a ground plane, a box resting on it, a sphere on
// the box and another sphere beside it — step it on the CPU backend, and
// read contacts, contact forces, the force on the fixed ground and the
// state.
func Example() {
	m := engine.Model{
		Materials: []engine.Material{{Name: "default", Friction: 0.3}},
		Gravity:   mgl64.Vec3{0, 0, -9.81},
	}
	// Body 0: the ground, the half-space z ≤ 0 (planes are always fixed).
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	// Body 1: a 1 m cube of 2 kg standing on the ground.
	box := engine.Body{Shape: engine.BoxShape(0.5, 0.5, 0.5), Pos: mgl64.Vec3{0, 0, 0.5}, Rot: mgl64.QuatIdent()}
	box.SetMass(2)
	// Body 2: a sphere (r = 0.25 m, 1 kg) on top of the cube.
	top := engine.Body{Shape: engine.SphereShape(0.25), Pos: mgl64.Vec3{0, 0, 1.25}, Rot: mgl64.QuatIdent()}
	top.SetMass(1)
	// Body 3: a sphere (r = 0.5 m, 1 kg) on the ground beside the cube.
	side := engine.Body{Shape: engine.SphereShape(0.5), Pos: mgl64.Vec3{2, 0, 0.5}, Rot: mgl64.QuatIdent()}
	side.SetMass(1)
	m.Bodies = append(m.Bodies, box, top, side)

	s := engine.DefaultSettings() // dt 0.01 s, APGD, tol 1e-6
	sim, err := engine.NewSim(&m, s, cpuref.New(1))
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Backend().Close()

	var st engine.StepStats
	for range 50 {
		if st, err = sim.Step(); err != nil {
			log.Fatal(err)
		}
	}
	// Contacts and impulses of the last step, in the same order.
	var c engine.Contacts
	if err := sim.Backend().ReadContacts(&c); err != nil {
		log.Fatal(err)
	}
	forces := engine.ContactForces(nil, sim.Impulses(nil), s.Dt)
	support := map[[2]int32]float64{} // total normal force per pair of bodies
	for k := range c.Len() {
		support[[2]int32{c.A[k], c.B[k]}] += forces[k].Normal
	}
	fmt.Printf("t = %.2f s: %d contacts, converged %v\n", st.Time, st.Contacts, st.Solve.Converged)
	fmt.Printf("ground under the cube:   %.3g N\n", support[[2]int32{0, 1}])
	fmt.Printf("cube under the sphere:   %.3g N\n", support[[2]int32{1, 2}])
	fmt.Printf("ground under the sphere: %.3g N\n", support[[2]int32{0, 3}])
	// The ground is body A of its contacts and is pushed down by the weight
	// of all three bodies, 4 kg × 9.81 m/s².
	fmt.Printf("force on the ground:     %.3g N\n", st.FixedForce[2])

	var state engine.State
	if err := sim.Backend().ReadState(&state); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("sphere on the cube at z = %.3g m\n", state.Pos[3*2+2])
	// Output:
	// t = 0.50 s: 6 contacts, converged true
	// ground under the cube:   29.4 N
	// cube under the sphere:   9.81 N
	// ground under the sphere: 9.81 N
	// force on the ground:     -39.2 N
	// sphere on the cube at z = 1.25 m
}

// The shapes beyond spheres, ellipsoids and boxes: a floor made of a
// triangle mesh (engine.NewMesh, a fixed body), a cylinder standing on it,
// a capsule lying on it and a brick made as the convex hull of its
// corners (engine.NewConvex, which places the body at the hull's centre of
// mass in its principal frame). After a second each rests on the floor,
// which carries their weight.
func Example_shapes() {
	floor := &geom.Mesh{
		Verts: []mgl64.Vec3{{-2, -2, 0}, {2, -2, 0}, {2, 2, 0}, {-2, 2, 0}},
		Tris:  [][3]int32{{0, 1, 2}, {0, 2, 3}},
	}
	mesh, err := engine.NewMesh(floor, "floor")
	if err != nil {
		log.Fatal(err)
	}
	m := engine.Model{
		Materials: []engine.Material{{Name: "default", Friction: 0.5}},
		Gravity:   mgl64.Vec3{0, 0, -9.81},
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: mesh, Rot: mgl64.QuatIdent(), Fixed: true})
	cyl := engine.Body{Shape: engine.CylinderShape(0.2, 0.3), Pos: mgl64.Vec3{-1, 0, 0.3}, Rot: mgl64.QuatIdent()}
	capsule := engine.Body{Shape: engine.CapsuleShape(0.1, 0.4), Pos: mgl64.Vec3{0, 1, 0.1},
		Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0})} // its axis along x
	brick, c, q, err := engine.NewConvex(geom.BoxCorners(mgl64.Vec3{0.2, 0.1, 0.05}))
	if err != nil {
		log.Fatal(err)
	}
	hull := engine.Body{Shape: brick, Pos: mgl64.Vec3{1, 0, 0.05}.Add(c), Rot: q}
	for _, b := range []*engine.Body{&cyl, &capsule, &hull} {
		b.SetDensity(1000)
	}
	m.Bodies = append(m.Bodies, cyl, capsule, hull)

	s := engine.DefaultSettings()
	s.Tol = 1e-8
	sim, err := engine.NewSim(&m, s, cpuref.New(1))
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Backend().Close()
	var st engine.StepStats
	for range 100 {
		if st, err = sim.Step(); err != nil {
			log.Fatal(err)
		}
	}
	var state engine.State
	if err := sim.Backend().ReadState(&state); err != nil {
		log.Fatal(err)
	}
	weight := 9.81 * (cyl.Mass + capsule.Mass + hull.Mass)
	fmt.Printf("t = %.0f s: %d contacts; the floor carries %.6f of the weight\n", st.Time, st.Contacts, -st.FixedForce[2]/weight)
	for i, name := range []string{"cylinder", "capsule", "brick"} {
		fmt.Printf("%-8s at height %.4f m\n", name, state.Pos[3*(i+1)+2])
	}
	// Output:
	// t = 1 s: 10 contacts; the floor carries 1.000001 of the weight
	// cylinder at height 0.3000 m
	// capsule  at height 0.1000 m
	// brick    at height 0.0500 m
}

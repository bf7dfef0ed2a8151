// Command mechanism shows gpusim's mechanism layer from Go: a model built
// in code with a motor-driven paddle (a revolute joint to the world), a
// chain of spheres on spherical joints hanging from the world, a kinematic
// shaker plate and a compound dumbbell, stepped on the CPU path or on
// Vulkan; halfway through the run it reverses the motor and changes the
// plate's motion, and it prints the joints' and the plate's reactions.
//
//	go run ./examples/mechanism                    # the CPU path
//	go run ./examples/mechanism -backend vulkan    # a Vulkan device (lavapipe included)
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
)

func main() {
	backend := flag.String("backend", "cpu", "cpu or vulkan")
	steps := flag.Int("steps", 600, "time steps of 1 ms")
	flag.Parse()
	if _, err := run(os.Stdout, *backend, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "mechanism:", err)
		os.Exit(1)
	}
}

// The bodies of the model, by index.
const (
	floor = iota
	plate
	paddle
	dumbbell
	firstLink // the chain's links follow
	links     = 4
)

// model builds the mechanism.
func model() (*engine.Model, error) {
	id := mgl64.QuatIdent()
	m := &engine.Model{
		Gravity:   mgl64.Vec3{0, 0, -9.81},
		Materials: []engine.Material{{Name: "steel", Friction: 0.4}},
	}
	m.Bodies = append(m.Bodies,
		engine.Body{Shape: engine.PlaneShape(), Rot: id, Fixed: true},
		// A plate that shakes 5 mm at 10 Hz (kinematic: its motion is
		// prescribed, it takes no mass).
		engine.Body{Shape: engine.BoxShape(0.6, 0.6, 0.02), Rot: id, Pos: mgl64.Vec3{0, 0, 0.1},
			Motion: &engine.Motion{Amplitude: mgl64.Vec3{0, 0, 0.005}, Frequency: 10}},
	)
	pad := engine.Body{Shape: engine.BoxShape(0.25, 0.02, 0.05), Rot: id, Pos: mgl64.Vec3{0, -0.3, 0.7}}
	pad.SetDensity(2700)
	m.Bodies = append(m.Bodies, pad)
	// A dumbbell: one rigid body of two spheres and a bar; NewCompound
	// puts its origin at the parts' centre of mass, in their principal
	// frame.
	shape, c, q, err := engine.NewCompound([]engine.Part{
		{Shape: engine.SphereShape(0.05), Pos: mgl64.Vec3{-0.1, 0, 0}, Rot: id},
		{Shape: engine.SphereShape(0.05), Pos: mgl64.Vec3{0.1, 0, 0}, Rot: id},
		{Shape: engine.BoxShape(0.1, 0.015, 0.015), Rot: id},
	})
	if err != nil {
		return nil, err
	}
	bell := engine.Body{Shape: shape, Pos: mgl64.Vec3{0.2, 0.2, 0.2}.Add(c), Rot: q}
	bell.SetDensity(7800)
	m.Bodies = append(m.Bodies, bell)
	// The paddle turns about y through its end at x = −0.25, driven at
	// 3 rad/s with at most 20 N·m.
	m.Joints = append(m.Joints, engine.Joint{Kind: engine.JointRevolute, Body1: paddle, Body2: engine.World,
		Point: mgl64.Vec3{-0.25, -0.3, 0.7}, Axis: mgl64.Vec3{0, 1, 0},
		Motor: &engine.Motor{Speed: 3, MaxForce: 20}})
	// The chain hangs from (0.3, 0.3, 0.9): links 8 cm apart, each joined
	// to the one above at their midpoint.
	for k := range links {
		z := 0.86 - 0.08*float64(k)
		ball := engine.Body{Shape: engine.SphereShape(0.03), Rot: id, Pos: mgl64.Vec3{0.3, 0.3, z}}
		ball.SetDensity(7800)
		m.Bodies = append(m.Bodies, ball)
		j := engine.Joint{Kind: engine.JointSpherical, Body1: firstLink + k, Body2: firstLink + k - 1, Point: mgl64.Vec3{0.3, 0.3, z + 0.04}}
		if k == 0 {
			j.Body2 = engine.World
		}
		m.Joints = append(m.Joints, j)
	}
	return m, nil
}

// newBackend opens the named backend.
func newBackend(name string) (engine.Backend, error) {
	switch name {
	case "cpu":
		return cpuref.New(0), nil
	case "vulkan":
		return gpu.New(gpu.Options{})
	}
	return nil, fmt.Errorf("unknown backend %q (want cpu or vulkan)", name)
}

// result is what run measured at the end of each half of the run.
type result struct {
	Spin   [2]float64 // the paddle's angular velocity about y (rad/s)
	Anchor [2]float64 // the vertical force of the chain's anchor on the top link (N)
	Load   [2]float64 // the downward contact force on the plate (N)
	// ChainWeight and BellWeight are the chain's and the dumbbell's
	// weights (N).
	ChainWeight, BellWeight float64
}

// run steps the mechanism, prints what happens to w, and returns it.
func run(w io.Writer, backendName string, steps int) (result, error) {
	var res result
	m, err := model()
	if err != nil {
		return res, err
	}
	for k := range links {
		res.ChainWeight += 9.81 * m.Bodies[firstLink+k].Mass
	}
	res.BellWeight = 9.81 * m.Bodies[dumbbell].Mass
	b, err := newBackend(backendName)
	if err != nil {
		return res, err
	}
	defer b.Close()
	set := engine.DefaultSettings()
	set.Dt, set.Tol, set.MaxIter = 1e-3, 1e-8, 500
	sim, err := engine.NewSim(m, set, b)
	if err != nil {
		return res, err
	}
	// The plate's contact force comes from BodyReactions: slot[i] ≥ 0
	// names body i's place in the result.
	slot := make([]int32, len(m.Bodies))
	for i := range slot {
		slot[i] = -1
	}
	slot[plate] = 0
	plateForce := make([]engine.Reaction, 1)
	var joints []engine.Reaction
	var st engine.State
	report := func(half int) error {
		if joints, err = sim.JointReactions(joints); err != nil {
			return err
		}
		if err := sim.BodyReactions(slot, plateForce); err != nil {
			return err
		}
		if err := b.ReadState(&st); err != nil {
			return err
		}
		q := mgl64.Quat{W: st.Rot[4*paddle], V: mgl64.Vec3{st.Rot[4*paddle+1], st.Rot[4*paddle+2], st.Rot[4*paddle+3]}}
		spin := q.Rotate(mgl64.Vec3{st.Omega[3*paddle], st.Omega[3*paddle+1], st.Omega[3*paddle+2]})
		res.Spin[half], res.Anchor[half], res.Load[half] = spin[1], joints[1].Force[2], -plateForce[0].Force[2]
		fmt.Fprintf(w, "t = %.3f s: paddle turns at %+.3f rad/s; chain anchor holds %.2f N (chain weight %.2f N); plate bears %.1f N (dumbbell weight %.1f N)\n",
			sim.Time(), spin[1], joints[1].Force[2], res.ChainWeight, -plateForce[0].Force[2], res.BellWeight)
		return nil
	}
	for k := 1; k <= steps; k++ {
		if _, err := sim.Step(); err != nil {
			return res, err
		}
		if k == steps/2 {
			if err := report(0); err != nil {
				return res, err
			}
			// Reverse the paddle and stop the plate's shaking: it now
			// slides along x at 5 cm/s, from where it is.
			if err := sim.SetMotor(0, -3, 20); err != nil {
				return res, err
			}
			if err := sim.SetMotion(plate, engine.Motion{Vel: mgl64.Vec3{0.05, 0, 0}}); err != nil {
				return res, err
			}
			fmt.Fprintln(w, "motor reversed to -3 rad/s; the plate stops shaking and slides at 5 cm/s")
		}
	}
	return res, report(1)
}

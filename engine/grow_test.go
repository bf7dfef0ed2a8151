package engine_test

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// TestGrowErrors: Grow refuses a model that is not the Sim's with bodies
// appended, naming what differs, and leaves the Sim as it was; a growth
// keeps the step counter. (tests.TestGrow checks the trajectories on
// both backends.)
func TestGrowErrors(t *testing.T) {
	ball := func(z float64) engine.Body {
		b := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent()}
		b.SetMass(1)
		b.Pos[2] = z
		return b
	}
	model := func(bodies ...engine.Body) *engine.Model {
		return &engine.Model{Gravity: mgl64.Vec3{0, 0, -9.81}, Materials: []engine.Material{{Name: "a", Friction: 0.5}}, Bodies: bodies}
	}
	sim, err := engine.NewSim(model(ball(1), ball(2)), engine.DefaultSettings(), cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Step(); err != nil {
		t.Fatal(err)
	}
	box := engine.Body{Shape: engine.BoxShape(0.1, 0.1, 0.1), Rot: mgl64.QuatIdent()}
	box.SetMass(1)
	heavy := ball(2)
	heavy.SetMass(2)
	cases := []struct {
		m    *engine.Model
		want string
	}{
		{model(ball(1)), "1 bodies, fewer than the 2"},
		{model(ball(1), box, ball(3)), "body 1 is a box, was a sphere"},
		{model(ball(1), heavy), "body 1's mass is 2 kg, was 1 kg"},
		{func() *engine.Model { m := model(ball(1), ball(2), ball(3)); m.Gravity[2] = -1; return m }(), "gravity"},
		{func() *engine.Model {
			m := model(ball(1), ball(2), ball(3))
			m.Materials[0].Friction = 0.1
			return m
		}(), "materials differ"},
		{func() *engine.Model {
			m := model(ball(1), ball(2), ball(3))
			m.Joints = []engine.Joint{{Kind: engine.JointSpherical, Body1: 0, Body2: 1}}
			return m
		}(), "1 joints, was 0"},
		{model(ball(1), ball(2), engine.Body{Shape: engine.SphereShape(-1)}), "body 2"},
	}
	for i, c := range cases {
		if err := sim.Grow(c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: error %v, want one containing %q", i, err, c.want)
		}
	}
	var st engine.State
	if err := sim.Backend().ReadState(&st); err != nil {
		t.Fatal(err)
	}
	if st.Len() != 2 || sim.Steps() != 1 {
		t.Fatalf("after refused growths: %d bodies, step %d; want 2, 1", st.Len(), sim.Steps())
	}
	if err := sim.Grow(model(ball(1), ball(2), ball(3))); err != nil {
		t.Fatal(err)
	}
	if err := sim.Backend().ReadState(&st); err != nil {
		t.Fatal(err)
	}
	if st.Len() != 3 || sim.Steps() != 1 || st.Pos[8] != 3 || st.Pos[2] >= 1 {
		t.Fatalf("after growing: %d bodies, step %d, z %v", st.Len(), sim.Steps(), []float64{st.Pos[2], st.Pos[5], st.Pos[8]})
	}
	if im := sim.Impulses(nil); len(im) != 0 {
		t.Errorf("Impulses after Grow: %d, want none until the next step", len(im))
	}
	// The grown model is the one later growths are checked against.
	if err := sim.Grow(model(ball(1), ball(2))); err == nil || !strings.Contains(err.Error(), "fewer than the 3") {
		t.Errorf("shrinking after a growth: error %v", err)
	}
}

package scene

import (
	"math"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TestJointsScene: testdata/joints.json builds its joints and its
// kinematic body as written, and survives Dump → Parse.
func TestJointsScene(t *testing.T) {
	sc, err := LoadFile("testdata/joints.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Model
	want := []engine.Joint{
		{Kind: engine.JointRevolute, Body1: 0, Body2: engine.World, Axis: mgl64.Vec3{0, 1, 0}, Motor: &engine.Motor{Speed: 1, MaxForce: 50}},
		{Kind: engine.JointSpherical, Body1: 1, Body2: 0, Point: mgl64.Vec3{0.75, 0, -0.75}},
		{Kind: engine.JointDistance, Body1: 3, Body2: 1, Point: mgl64.Vec3{1, 0, -1.85}, Point2: mgl64.Vec3{1, 0, -1}},
		{Kind: engine.JointPrismatic, Body1: 3, Body2: 2, Point: mgl64.Vec3{1, 0, -1.85}, Axis: mgl64.Vec3{0, 0, 1}, Collide: true},
	}
	if !reflect.DeepEqual(m.Joints, want) {
		t.Errorf("joints\n%+v\nwant\n%+v", m.Joints, want)
	}
	plate := m.Bodies[2]
	wantMotion := &engine.Motion{Vel: mgl64.Vec3{0.1, 0, 0}, Omega: mgl64.Vec3{0, 0, 0.5}, Amplitude: mgl64.Vec3{0, 0, 0.01}, Frequency: 5}
	if !reflect.DeepEqual(plate.Motion, wantMotion) || plate.Fixed || plate.Mass != 0 {
		t.Errorf("plate: motion %+v, fixed %v, mass %v; want %+v, not fixed, no mass", plate.Motion, plate.Fixed, plate.Mass, wantMotion)
	}
	// At t = 0.05 s: vel·t = 0.005 m along x, and 2π·5·0.05 = π/2, so the
	// full amplitude 0.01 m along z (1e-15: a few roundings of numbers of
	// order 0.01).
	if o := plate.Motion.Offset(0.05); math.Abs(o[0]-0.005) > 1e-15 || math.Abs(o[2]-0.01) > 1e-15 {
		t.Errorf("plate offset at t = 0.05 s: %v, want (0.005, 0, 0.01)", o)
	}
	dumped, err := Dump(sc.Doc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(dumped, "dumped.json", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, dumped)
	}
	if !reflect.DeepEqual(back.Model, sc.Model) {
		t.Errorf("model differs after Dump → Parse\n%s", dumped)
	}
}

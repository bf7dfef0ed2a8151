package engine_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

func TestWarmStartDataCheck(t *testing.T) {
	good := engine.WarmStartData{A: []int32{0, 0, 1}, B: []int32{1, 1, 2}, Sub: []int32{0, 1, 0}, Gamma: make([]float64, 9)}
	if err := good.Check(3); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		edit func(w *engine.WarmStartData)
		n    int
		want string
	}{
		{func(w *engine.WarmStartData) { w.Gamma = w.Gamma[:8] }, 3, "3 per key"},
		{func(w *engine.WarmStartData) { w.B[2] = 3 }, 3, "not a body pair"},
		{func(w *engine.WarmStartData) { w.A[0] = 1 }, 3, "not a body pair"},
		{func(w *engine.WarmStartData) { w.Sub[1] = 0 }, 3, "does not follow"},
		{func(w *engine.WarmStartData) { w.Sub[0] = -1 }, 3, "index ≥ 0"},
		{func(w *engine.WarmStartData) { w.Gamma[4] = math.Inf(1) }, 3, "impulse component 4"},
	}
	for i, c := range cases {
		w := engine.WarmStartData{A: append([]int32{}, good.A...), B: append([]int32{}, good.B...),
			Sub: append([]int32{}, good.Sub...), Gamma: append([]float64{}, good.Gamma...)}
		c.edit(&w)
		if err := w.Check(c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("case %d: error %v, want one containing %q", i, err, c.want)
		}
	}
}

// TestRestore checks Restore's order and input checks and that it sets the
// step counter and the state it is given, bit for bit.
func TestRestore(t *testing.T) {
	m := engine.Model{Gravity: [3]float64{0, 0, -9.81}, Materials: []engine.Material{{Name: "a", Friction: 0.5}}}
	b := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent()}
	b.SetMass(1)
	b.Pos[2] = 1
	m.Bodies = append(m.Bodies, b)
	sim, err := engine.NewSim(&m, engine.DefaultSettings(), cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	// A quaternion of norm 1 + 1e-9: Load would renormalise it, Restore
	// must not.
	st := engine.State{Pos: []float64{0.1, 0.2, 0.3}, Rot: []float64{1 + 1e-9, 0, 0, 0}, Vel: []float64{1, 2, 3}, Omega: []float64{4, 5, 6}}
	if err := sim.Restore(-1, &st, nil); err == nil {
		t.Error("a negative step was accepted")
	}
	if err := sim.Restore(7, &engine.State{Pos: []float64{1, 2, 3}}, nil); err == nil || !strings.Contains(err.Error(), "set state") {
		t.Errorf("a state of the wrong size: error %v", err)
	}
	if err := sim.Restore(7, &st, nil); err != nil {
		t.Fatal(err)
	}
	var got engine.State
	if err := sim.Backend().ReadState(&got); err != nil {
		t.Fatal(err)
	}
	if sim.Steps() != 7 || sim.Time() != 7*sim.Settings().Dt || got.Rot[0] != 1+1e-9 || got.Vel[2] != 3 {
		t.Errorf("after Restore: step %d, time %v, state %+v", sim.Steps(), sim.Time(), got)
	}
	if _, err := sim.Step(); err != nil {
		t.Fatal(err)
	}
	if err := sim.Restore(0, &st, nil); err == nil || !strings.Contains(err.Error(), "already stepped") {
		t.Errorf("Restore after Step: error %v", err)
	}
}

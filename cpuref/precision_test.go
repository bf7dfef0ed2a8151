package cpuref

import (
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/scene"
)

// TestMixedPrecision: with settings.precision "mixed" the CPU path's
// Jacobian holds float32 values (the device's storage, emulated:
// precision.go), every
// worker count gives the same bits, and the answer differs from the
// float64 run's; a model with joints is solved in float64 (MixedFor).
// gpu's TestDeviceAPGDMixed and TestSceneStepMixed check the values
// against the device's.
func TestMixedPrecision(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=300"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(prec string, workers int) (*Backend, []float64) {
		t.Helper()
		set := sc.Settings
		set.Solver, set.Tol, set.MaxIter, set.Precision = "apgd", 0, 60, prec
		b := New(workers)
		sim, err := engine.NewSim(&sc.Model, set, b)
		if err != nil {
			t.Fatal(err)
		}
		for range 60 {
			if _, err := sim.Step(); err != nil {
				t.Fatal(err)
			}
		}
		var st engine.State
		if err := b.ReadState(&st); err != nil {
			t.Fatal(err)
		}
		return b, st.Vel
	}
	b, vel := run(engine.PrecisionMixed, 1)
	if !b.mixed {
		t.Fatal("the backend did not take the mixed precision")
	}
	if !b.arms {
		t.Fatal("a model of spheres in a box holds its contacts' arms whole, not as ρ")
	}
	for k := range b.con.Len() {
		j := b.jac[12*k : 12*k+12]
		for i, v := range j[:6] {
			if f32(v) != v {
				t.Fatalf("jac[%d] = %v is not a float32", 12*k+i, v)
			}
		}
		// s = ρ n with ρ a float32, as the device forms it from its 8
		// float32 (ρ = s_c/n_c for the first nonzero component of n).
		c := 0
		for j[c] == 0 {
			c++
		}
		for side := range 2 {
			s := j[6+3*side : 9+3*side]
			rho := s[c] / j[c]
			if f32(rho) != rho || s[0] != rho*j[0] || s[1] != rho*j[1] || s[2] != rho*j[2] {
				t.Fatalf("contact %d: s = %v is not ρ n with ρ a float32 (n = %v)", k, s, j[:3])
			}
		}
	}
	if _, vel2 := run(engine.PrecisionMixed, 2); enginetest.FirstDiff(vel, vel2) >= 0 {
		t.Error("two workers give other velocities than one")
	}
	if _, vel64 := run(engine.PrecisionDouble, 1); enginetest.FirstDiff(vel, vel64) < 0 {
		t.Error("the mixed run equals the float64 run")
	}
	m := sc.Model
	m.Joints = []engine.Joint{{}}
	set := sc.Settings
	set.Precision = engine.PrecisionMixed
	if set.MixedFor(&m) || len(engine.MixedNotes(&m, &set)) != 1 {
		t.Error("a model with joints is solved in mixed precision, or without a note")
	}
}

package scene_test

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// TestFromState runs a scene with generated spheres, explicit bodies and a
// container for a few steps, makes a scene of its end state and checks
// that it builds to the same bodies (shapes, masses, inertias, materials,
// fixed flags, loads) in the same order with the run's state, and that an
// override of a body's mass scales its inertia.
func TestFromState(t *testing.T) {
	doc := `{"materials": [{"name": "a", "friction": 0.3}, {"name": "b", "friction": 0.5, "cohesion": 2}],
	  "bodies": [
	    {"shape": {"type": "box", "half_extents": [0.3, 0.2, 0.1]}, "pos": [0, 0, 1.5], "mass": 4, "material": "b", "force": [1, 0, 0]},
	    {"shape": {"type": "ellipsoid", "semi_axes": [0.2, 0.1, 0.15]}, "pos": [0.5, 0.5, 1.5], "mass": 1, "inertia": [0.1, 0.2, 0.3]}],
	  "generators": [{"type": "lattice", "count": 30, "shape": {"type": "sphere", "radius": {"dist": "uniform", "min": 0.05, "max": 0.08}},
	    "density": 2500, "spacing": 0.2, "origin": [-0.5, -0.5, 0.2], "jitter": 0.01, "seed": 3, "random_orientation": true}],
	  "containers": [{"type": "box", "inner_min": [-1, -1, 0], "inner_max": [1, 1, 2], "thickness": 0.1}],
	  "run": {"steps": 5}}`
	sc, err := scene.Parse([]byte(doc), "fromstate.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	be := cpuref.New(1)
	sim, err := engine.NewSim(&sc.Model, sc.Settings, be)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 20; k++ {
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
	}
	var st engine.State
	if err := be.ReadState(&st); err != nil {
		t.Fatal(err)
	}
	out, err := scene.FromState(sc.Doc, &sc.Model, &st)
	if err != nil {
		t.Fatal(err)
	}
	data, err := scene.Dump(out)
	if err != nil {
		t.Fatal(err)
	}
	re, err := scene.Parse(data, "restart.json", nil)
	if err != nil {
		t.Fatalf("the scene of the end state does not parse: %v\n%s", err, data)
	}
	if len(re.Model.Bodies) != len(sc.Model.Bodies) {
		t.Fatalf("%d bodies, want %d", len(re.Model.Bodies), len(sc.Model.Bodies))
	}
	for i := range sc.Model.Bodies {
		a, b := sc.Model.Bodies[i], re.Model.Bodies[i]
		if a.Shape != b.Shape || a.Mass != b.Mass || a.Inertia != b.Inertia || a.Fixed != b.Fixed ||
			a.Material != b.Material || a.Force != b.Force || a.Torque != b.Torque {
			t.Errorf("body %d: %+v, want %+v", i, b, a)
		}
		for k := 0; k < 3; k++ {
			if b.Pos[k] != st.Pos[3*i+k] || (!a.Fixed && (b.Vel[k] != st.Vel[3*i+k] || b.Omega[k] != st.Omega[3*i+k])) {
				t.Errorf("body %d: state differs from the run's", i)
			}
		}
		// Build normalises quaternions: allow a few ulps (1e-15).
		q := [4]float64{b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]}
		for k := 0; k < 4; k++ {
			if math.Abs(q[k]-st.Rot[4*i+k]) > 1e-15 {
				t.Errorf("body %d: orientation %v, run's %v", i, q, st.Rot[4*i:4*i+4])
			}
		}
	}
	// Body 0's inertia is the shape's: a new mass scales it. Body 1 gave
	// its own: it stays.
	heavy, err := scene.Parse(data, "restart.json", []string{"bodies.0.mass=8", "bodies.1.mass=2"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := heavy.Model.Bodies[0].Inertia, sc.Model.Bodies[0].Inertia.Mul(2); got.Sub(want).Len() > 1e-15*want.Len() {
		t.Errorf("body 0 at twice the mass: inertia %v, want %v", got, want)
	}
	if got, want := heavy.Model.Bodies[1].Inertia, sc.Model.Bodies[1].Inertia; got != want {
		t.Errorf("body 1's explicit inertia became %v, want %v", got, want)
	}
}

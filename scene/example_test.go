package scene_test

import (
	"fmt"
	"log"

	"github.com/gpusim/gpusim/scene"
)

// Load a built-in scene with overrides: a parameter (n) and paths into its
// document, as gpusim run --set does.
func ExampleLoadBuiltin() {
	sc, err := scene.LoadBuiltin("settle", []string{"n=200", "settings.dt=0.005", "run.duration=0.5"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sc.Name, sc.Source, sc.Params["n"])
	fmt.Printf("%d bodies (200 spheres and 5 walls), dt %g s, %g s, solver %s\n",
		len(sc.Model.Bodies), sc.Settings.Dt, sc.Duration, sc.Settings.Solver)
	fmt.Printf("domain %v to %v\n", sc.Domain.Min, sc.Domain.Max)
	// Output:
	// settle builtin:settle 200
	// 205 bodies (200 spheres and 5 walls), dt 0.005 s, 0.5 s, solver apgd
	// domain [-2 -2 0] to [2 2 4]
}

// Build a scene from JSON text (the format of the package documentation
// and examples/scene.schema.json): a ball on a plane and a lattice of
// boxes.
func ExampleParse() {
	doc := `{
	  "name": "demo",
	  "materials": [{"name": "default", "friction": 0.4}],
	  "settings": {"dt": 0.005},
	  "run": {"steps": 100, "trace": [0]},
	  "bodies": [{"shape": {"type": "sphere", "radius": 0.2}, "pos": [0, 0, 2], "mass": 3}],
	  "generators": [{"type": "lattice", "count": 8, "shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]},
	                  "density": 1000, "origin": [0, 0, 0.5]}],
	  "containers": [{"type": "plane"}]
	}`
	sc, err := scene.Parse([]byte(doc), "demo.json", []string{"materials.0.friction=0.5"})
	if err != nil {
		log.Fatal(err)
	}
	m := sc.Model
	fmt.Printf("%s: %d bodies, friction %g, %d steps of %g s, trace %v\n",
		sc.Name, len(m.Bodies), m.Materials[0].Friction, sc.Steps, sc.Settings.Dt, sc.Trace)
	box := m.Bodies[1]
	fmt.Printf("body 1: %s %v, mass %.3g kg at %.3g\n", box.Shape.Kind, box.Shape.Size, box.Mass, box.Pos)
	fmt.Printf("body 9: %s, fixed %v\n", m.Bodies[9].Shape.Kind, m.Bodies[9].Fixed)

	// Errors name the source and the field.
	_, err = scene.Parse([]byte(`{"materials": [{"name": "m", "friction": 0.3}],
	  "bodies": [{"shape": {"type": "sphere", "radius": -1}, "mass": 1}]}`), "bad.json", nil)
	fmt.Println(err)
	// Output:
	// demo: 10 bodies, friction 0.5, 100 steps of 0.005 s, trace [0]
	// body 1: box [0.1 0.1 0.1], mass 8 kg at [-0.105 -0.105 0.5]
	// body 9: plane, fixed true
	// bad.json: bodies[0].shape.radius: -1 must be positive and finite
}

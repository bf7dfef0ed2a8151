package run_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
)

// Choose a backend by name and step a scene on it. "auto" would pick
// Vulkan on a GPU with float64 and otherwise return the CPU backend with a
// notice saying why; "cpu" is the pure-Go path.
func ExampleNewBackend() {
	be, notice, err := run.NewBackend("cpu", "", false, 0)
	if err != nil {
		log.Fatal(err)
	}
	defer be.Close()
	fmt.Printf("backend %s, notice %q\n", be.Name(), notice)

	sc, err := scene.LoadBuiltin("rolling-ball", []string{"v0=2", "mu=0.2"})
	if err != nil {
		log.Fatal(err)
	}
	sim, err := engine.NewSim(&sc.Model, sc.Settings, be)
	if err != nil {
		log.Fatal(err)
	}
	for sim.Time() < 0.5 {
		if _, err := sim.Step(); err != nil {
			log.Fatal(err)
		}
	}
	var s engine.State
	if err := be.ReadState(&s); err != nil {
		log.Fatal(err)
	}
	// Rolling from t = 2v0/(7μg) = 0.291 s at 5v0/7 = 1.43 m/s.
	fmt.Printf("t = %.2f s: ball at x = %.3g m, v = %.3g m/s\n", sim.Time(), s.Pos[0], s.Vel[0])
	// Output:
	// backend cpu, notice ""
	// t = 0.50 s: ball at x = 0.797 m, v = 1.43 m/s
}

// Run a scene to its end on the CPU path, writing the standard outputs
// (stats.csv, trace.csv, final.csv, summary.json) into a folder, and read
// the summary's figures.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "gpusim-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	sc, err := scene.LoadBuiltin("rolling-ball", nil) // 0.8 s, traces the ball
	if err != nil {
		log.Fatal(err)
	}
	sum, err := run.Run(context.Background(), sc, run.Options{Backend: "cpu", OutDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	f := sum.Final
	fmt.Printf("%s on %s: %d bodies, %d steps, %.3g s\n", sum.Scene, sum.Backend, sum.Bodies, sum.Steps, sum.SimTime)
	// The plane carries the ball's weight, 1 kg × 9.81 m/s², and the ball
	// rolls at 5v0/7 = 1.43 m/s.
	fmt.Printf("%d contact, weight %.3g N, force on the plane %.3g N, speed %.3g m/s\n",
		f.Contacts, f.Weight, f.FixedForce[2], f.MaxSpeed)
	for _, name := range []string{"stats.csv", "trace.csv", "final.csv", "summary.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// rolling-ball on cpu: 2 bodies, 320 steps, 0.8 s
	// 1 contact, weight 9.81 N, force on the plane -9.81 N, speed 1.43 m/s
}

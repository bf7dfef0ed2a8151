package bench

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/scene"
)

// Kind groups the cases whose time per step is fitted against their
// contacts (see Fit).
type Kind string

const (
	// KindSettle: the settle scene of shared/bench/settle.md as it
	// specifies it: no warm-up, 200 steps of h = 0.01 s (2 s), median wall
	// time per step over all of them.
	KindSettle Kind = "settle"
	// KindScale: the settle scene started from a settled-like state (see
	// ScalingCases).
	KindScale Kind = "scale"
	// KindOther: any other case.
	KindOther Kind = "other"
)

// Case is one scene of the benchmark with its number of steps.
type Case struct {
	Name string
	Kind Kind
	// Scene is a built-in scene's name, "ellipsoids" for the scene file
	// embedded in this package, or "file:PATH" for a scene file.
	Scene string
	// Sets are --set overrides of the scene (parameters or paths).
	Sets []string
	// Warmup steps are taken before the measured Steps.
	Warmup, Steps int
}

//go:embed ellipsoids.json
var ellipsoidsJSON []byte

// Load builds the case's scene.
func (c Case) Load() (*scene.Scene, error) {
	if c.Scene == "ellipsoids" {
		return scene.Parse(ellipsoidsJSON, "bench:ellipsoids", c.Sets)
	}
	if path, ok := strings.CutPrefix(c.Scene, "file:"); ok {
		return scene.LoadFile(path, c.Sets)
	}
	return scene.LoadBuiltin(c.Scene, c.Sets)
}

// settleSteps is settle.md's run: 2 s at h = 0.01 s.
const settleSteps = 200

func settle(n int) Case {
	return Case{Name: fmt.Sprintf("settle-%d", n), Kind: KindSettle, Scene: "settle",
		Sets: []string{fmt.Sprintf("n=%d", n)}, Steps: settleSteps}
}

// Matrix returns the benchmark matrix: settle with N = 1000, 8000 and
// 64 000 (settle.md to the letter); the pressure scene as built in (4000
// spheres under a 1000 kg slab, APGD to 1e-6 within 500 iterations) for 40
// steps after 10; and a polydisperse pile of 2000 ellipsoids for 40 steps
// after 10. quick gives a CI-sized matrix with the same scenes: tiny N and
// 2 steps.
func Matrix(quick bool) []Case {
	if quick {
		return []Case{
			{Name: "settle-64", Kind: KindSettle, Scene: "settle", Sets: []string{"n=64"}, Steps: 2},
			{Name: "pressure-64", Kind: KindOther, Scene: "pressure", Sets: []string{"n=64"}, Warmup: 1, Steps: 2},
			{Name: "ellipsoids-27", Kind: KindOther, Scene: "ellipsoids", Sets: []string{"generators.0.count=27"}, Warmup: 1, Steps: 2},
		}
	}
	return []Case{
		settle(1000), settle(8000), settle(64000),
		{Name: "pressure", Kind: KindOther, Scene: "pressure", Warmup: 10, Steps: 40},
		{Name: "ellipsoids", Kind: KindOther, Scene: "ellipsoids", Warmup: 10, Steps: 40},
	}
}

// ScalingCases returns the settle scene at N = 1000, 2000, 4000, 8000,
// 16 000, 32 000 and 64 000 started
// from a settled-like state, 2 warm-up steps and 5 measured: the lattice
// of settle.md without jitter and with spacing 0.2 m, the sphere diameter,
// from z = 0.1 m, so that every sphere rests on the floor or on the sphere
// below and touches its lattice neighbours (about 3 contacts per sphere
// whatever N, as in a settled pile). settle.md's 2 s from its lattice
// would not settle the 178 layers of N = 64 000.
func ScalingCases() []Case {
	var cs []Case
	for _, n := range []int{1000, 2000, 4000, 8000, 16000, 32000, 64000} {
		cs = append(cs, Case{Name: fmt.Sprintf("scale-%d", n), Kind: KindScale, Scene: "settle",
			Sets: []string{fmt.Sprintf("n=%d", n), "generators.0.spacing=0.2", "generators.0.jitter=0",
				"generators.0.origin=[0,0,0.1]"},
			Warmup: 2, Steps: 5})
	}
	return cs
}

// Bed returns the case "bed-N": the scaling series' settled-like lattice
// (spacing 0.2 m, the sphere diameter, no jitter, resting on the floor)
// as the lattice generator lays it out uncapped, a cube of nx × nx × nx
// places (nx the smallest integer with nx³ ≥ N), in a box that fits it
// (inner half-width nx·0.1 m + 0.05 m), 2 warm-up steps and 5 measured.
// It is the device benchmark's shape at 100 000 to 1 000 000 spheres,
// where the scaling series' 19-wide column would be hundreds of metres
// tall.
func Bed(n int) Case {
	nx := 1
	for nx*nx*nx < n {
		nx++
	}
	w := float64(nx)*0.1 + 0.05
	return Case{Name: fmt.Sprintf("bed-%d", n), Kind: KindScale, Scene: "settle",
		Sets: []string{fmt.Sprintf("n=%d", n), "generators.0.spacing=0.2", "generators.0.jitter=0",
			"generators.0.origin=[0,0,0.1]", "generators.0.max_per_row=0",
			fmt.Sprintf("containers.0.inner_min=[%g,%g,0]", -w, -w),
			fmt.Sprintf("containers.0.inner_max=[%g,%g,%g]", w, w, 0.2*float64(nx)+1)},
		Warmup: 2, Steps: 5}
}

// MechanismScenes are the built-in scenes of issue 17 that Mechanism
// makes cases of: jointed, driven and compound bodies.
var MechanismScenes = []string{"chain", "shear", "mixer", "shaker", "flow-gap"}

// Mechanism returns the case "SCENE-N" of a mechanism scene (one of
// MechanismScenes) at parameter n = N, as built in otherwise: 5 warm-up
// steps and 20 measured, from the scene's start (a chain released
// horizontal, a shear box being filled, a mixer's charge falling in: the
// cost of the scene's first steps, with its joints, motors and kinematic
// bodies).
func Mechanism(scene string, n int) Case {
	return Case{Name: fmt.Sprintf("%s-%d", scene, n), Kind: KindOther, Scene: scene,
		Sets: []string{fmt.Sprintf("n=%d", n)}, Warmup: 5, Steps: 20}
}

// File returns the case "file:PATH": the scene file at PATH (a settled bed
// that `gpusim scenes --from` printed from a run's end, say), or the
// checkpoint at PATH (a name ending in .ckpt: its run's scene, settings,
// state and warm-start memory, so that a bed settled with warm start
// starts as settled as it was; a scene file starts cold), 2 warm-up steps
// and 5 measured.
func File(path string) Case {
	return Case{Name: "file:" + path, Kind: KindOther, Scene: "file:" + path, Warmup: 2, Steps: 5}
}

// Lookup finds a case of the matrix (full or quick) or of the scaling
// series by name, a Bed case "bed-N" (N from 1 to 100 000 000), a
// Mechanism case "SCENE-N" (N from 1 to 100 000 000), or a File case
// "file:PATH".
func Lookup(name string) (Case, error) {
	if path, ok := strings.CutPrefix(name, "file:"); ok {
		if path == "" {
			return Case{}, fmt.Errorf("bench: case %q: want file:PATH with PATH a scene file", name)
		}
		return File(path), nil
	}
	if rest, ok := strings.CutPrefix(name, "bed-"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > 100_000_000 {
			return Case{}, fmt.Errorf("bench: case %q: want bed-N with N a whole number from 1 to 100000000", name)
		}
		return Bed(n), nil
	}
	for _, sc := range MechanismScenes {
		if rest, ok := strings.CutPrefix(name, sc+"-"); ok {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 1 || n > 100_000_000 {
				return Case{}, fmt.Errorf("bench: case %q: want %s-N with N a whole number from 1 to 100000000", name, sc)
			}
			return Mechanism(sc, n), nil
		}
	}
	all := slices.Concat(Matrix(false), Matrix(true), ScalingCases())
	for _, c := range all {
		if c.Name == name {
			return c, nil
		}
	}
	names := make([]string, len(all))
	for i, c := range all {
		names[i] = c.Name
	}
	return Case{}, fmt.Errorf("bench: no case %q (have %s)", name, strings.Join(names, ", "))
}

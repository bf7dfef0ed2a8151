package scene

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ParamInfo describes a parameter of a built-in scene.
type ParamInfo struct {
	Name    string
	Default float64
	Doc     string
}

// Info describes a built-in scene.
type Info struct {
	Name, Summary string
	Params        []ParamInfo
}

const builtinPrefix = "builtin:"

type builtin struct {
	Info
	doc func(p map[string]float64) (*Doc, error)
}

// builtins lists the built-in scenes, sorted by name.
func builtins() []builtin {
	return []builtin{
		{Info{"bulldozer",
			"APGD paper §4.2.2: a 5000 kg tracked vehicle (2 × 25 shoes on revolute joints, sprockets driven at 4 rad/s) pushes a curved blade into a pile of n cohesive ellipsoids",
			[]ParamInfo{{"n", 2000, "number of ellipsoids (the paper: 160 000)"}, {"speed", 4, "sprocket speed relative to the chassis, |speed| ≤ 100 (rad/s)"},
				{"torque", 20000, "sprocket motors' torque limit (N·m), ≥ 0; 0: unlimited"}, {"dt", 1e-4, "time step h (s), in (0, 0.01]"}}},
			bulldozerDoc},
		{Info{"chain",
			"SPG paper's benchmark B1: a rope ladder of n steel links on spherical and distance joints (3.5·n rows) anchored to the world",
			[]ParamInfo{{"n", 1000, "number of links (even: two rails of n/2)"}, {"angle", 90, "start angle from the downward vertical (degrees)"}}},
			chainDoc},
		{Info{"fill",
			"n spheres (r = 1 m, 1 kg) falling into an open 20 m × 20 m box: filling test, anti-relaxation paper §3.2",
			[]ParamInfo{{"n", 1000, "number of spheres"}, {"mu", 0.25, "friction coefficient of all contacts"}}},
			fillDoc},
		{Info{"flow-gap",
			"APGD paper §4.2.4: n glass spheres (d = 0.5 mm, μ = 0.3) flow out of a trough through a gap under its 45° wall",
			[]ParamInfo{{"n", 4000, "number of spheres (the paper: 39000)"}, {"gap", 0.002, "gap under the 45° wall (m): the paper's 0.002, 0.0025, 0.003"}}},
			flowGapDoc},
		{Info{"mixer",
			"APGD paper §4.1.2: a four-blade mixer (kinematic) turning in a drum of n cohesive objects (spheres, ellipsoids, cylinders, cubes)",
			[]ParamInfo{{"n", 3000, "number of objects, at least 4 (the paper: 100 000 to 400 000)"}, {"omega", math.Pi / 2, "blade speed, counter-clockwise (rad/s)"}}},
			mixerDoc},
		{Info{"pressure",
			"a heavy slab (body 0) on n spheres (r = 0.15 m, 1 kg) in a 3 m × 3 m box: APGD paper §4.1.1",
			[]ParamInfo{{"n", 4000, "number of spheres"}, {"slab_mass", 1000, "mass of the slab (kg)"},
				{"mu", 0.1, "friction coefficient of all contacts"}}},
			pressureDoc},
		{Info{"rolling-ball",
			"a sphere (body 0) sliding into rolling on a plane, t = 2v0/(7μg): APGD paper §2.3, anti-relaxation paper §3.1",
			[]ParamInfo{{"v0", 2, "initial speed along x (m/s)"}, {"mu", 0.2, "friction coefficient"}}},
			rollingBallDoc},
		{Info{"settle",
			"the settle benchmark of bench/settle.md: n spheres (r = 0.1 m, 1 kg) dropped from a lattice into a 4 m box",
			[]ParamInfo{{"n", 1000, "number of spheres"}}},
			settleDoc},
		{Info{"shaker",
			"GS paper's Fig. 2: n steel spheres (r = 5 mm) in a box on a plate oscillating vertically (kinematic)",
			[]ParamInfo{{"n", 2000, "number of spheres"}, {"amplitude", 0.002, "plate amplitude (m)"},
				{"frequency", 25, "plate frequency (Hz)"}, {"mu", 0.3, "friction coefficient"}}},
			shakerDoc},
		{Info{"shear",
			"PDIP paper's direct shear test: n glass spheres (r = 4 mm) in a box whose upper half moves at v under a loaded lid",
			[]ParamInfo{{"n", 2000, "number of spheres"}, {"v", 0.01, "speed of the upper half (m/s)"},
				{"load", 50, "normal load on the lid besides its weight (N)"}, {"mu", 0.5, "friction coefficient"}}},
			shearDoc},
		{Info{"wrecking-ball",
			"SPG paper's benchmark B4: a steel ball (4084 kg) on a chain of capsules swings from a pivot into a running-bond wall of n bricks",
			[]ParamInfo{{"n", 750, "number of bricks (the paper: 750)"}, {"links", 8, "chain links (capsules on spherical joints), 0 to 100; 0: one distance joint"},
				{"angle", 60, "start angle of the pendulum from the vertical, 0 to 90 (degrees)"}}},
			wreckingBallDoc},
	}
}

// Builtins describes the built-in scenes, sorted by name.
func Builtins() []Info {
	bs := builtins()
	infos := make([]Info, len(bs))
	for i, b := range bs {
		infos[i] = b.Info
	}
	return infos
}

func findBuiltin(name string) (builtin, bool) {
	for _, b := range builtins() {
		if b.Name == name {
			return b, true
		}
	}
	return builtin{}, false
}

func builtinNames() []string {
	var names []string
	for _, b := range builtins() {
		names = append(names, b.Name)
	}
	return names
}

// LoadBuiltin builds a built-in scene. A set whose key is one of the
// scene's parameters sets that parameter (applied first); any other key is
// a path into the scene's document (applied in order, after the
// parameters), as for files.
func LoadBuiltin(name string, sets []string) (*Scene, error) {
	return loadBuiltin(name, sets, defaultLimits())
}

func loadBuiltin(name string, sets []string, lim limits) (*Scene, error) {
	source := builtinPrefix + name
	b, ok := findBuiltin(name)
	if !ok {
		return nil, fmt.Errorf("scene: no built-in scene %q (have %s)", name, strings.Join(builtinNames(), ", "))
	}
	params := map[string]float64{}
	for _, p := range b.Params {
		params[p.Name] = p.Default
	}
	var paths []string
	for _, s := range sets {
		key, value, err := splitSet(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		if _, isParam := params[key]; !isParam {
			paths = append(paths, s)
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("%s: --set %s: parameter %s wants a finite number", source, s, key)
		}
		params[key] = v
	}
	d, err := b.doc(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	v, err := toGeneric(d)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	for _, s := range paths {
		if err := setPath(v, s); err != nil {
			if key, _, _ := strings.Cut(s, "="); !strings.Contains(key, ".") {
				// A top-level key may have been meant as a parameter.
				return nil, fmt.Errorf("%s: %w; parameters: %s", source, err, strings.Join(paramNames(b.Params), ", "))
			}
			return nil, fmt.Errorf("%s: %w", source, err)
		}
	}
	var rd Doc
	if err := decodeValue(v, &rd, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	sc, err := rd.build(source, lim)
	if err != nil {
		return nil, err
	}
	sc.Params = params
	return sc, nil
}

func paramNames(ps []ParamInfo) []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	sort.Strings(names)
	return names
}

// count reads a parameter that counts bodies.
func count(p map[string]float64, name string) (int, error) {
	v := p[name]
	if v != math.Trunc(v) || v < 1 || v > maxBodies {
		return 0, fmt.Errorf("parameter %s = %v must be an integer in [1, %d]", name, v, maxBodies)
	}
	return int(v), nil
}

func sphere(r float64) ShapeSpec { return ShapeSpec{Type: "sphere", Radius: &Size{Value: r}} }

// settleDoc is bench/settle.md: spheres 0 … n−1, then the five container
// boxes.
func settleDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	return &Doc{
		Name: "settle",
		Description: "bench/settle.md: spheres of radius 0.1 m and mass 1 kg, μ = 0.25, dropped from a jittered " +
			"cubic lattice into an open 4 m × 4 m × 4 m box (walls 0.2 m thick); spheres are bodies 0 to n−1, the " +
			"floor and four walls follow. The benchmark also runs with settings.dt = 0.001.",
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "default", Friction: ptr(0.25)}},
		Settings:  SettingsSpec{Dt: ptr(0.01), Solver: ptr("apgd"), Tol: ptr(0.0), MaxIter: ptr(100)},
		Run:       RunSpec{Duration: ptr(2.0), Trace: []int{}},
		Generators: []GeneratorSpec{{
			Type: "lattice", Count: n, Shape: sphere(0.1), Mass: ptr(1.0),
			Spacing: ptr(0.21), MaxPerRow: 19, Origin: &Vec3{0, 0, 0.11}, Jitter: 0.005, Seed: 0x5EED5EED,
		}},
		Containers: []ContainerSpec{{Type: "box", InnerMin: &Vec3{-2, -2, 0}, InnerMax: &Vec3{2, 2, 4}, Thickness: 0.2}},
	}, nil
}

// rollingBallDoc: body 0 is the ball, body 1 the ground plane.
func rollingBallDoc(p map[string]float64) (*Doc, error) {
	v0, mu := p["v0"], p["mu"]
	return &Doc{
		Name: "rolling-ball",
		Description: fmt.Sprintf("A sphere (r = 1 m, m = 1 kg) on the plane z = 0 starts sliding at v0 = %v m/s along x "+
			"with μ = %v; it rolls from t = 2·v0/(7·μ·g) (0.291 s for v0 = 2, μ = 0.2, g = 9.81) at 5·v0/7 m/s. "+
			"APGD paper §2.3, anti-relaxation paper §3.1 (there in the plane y = 0).", v0, mu),
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "ball", Friction: ptr(mu)}, {Name: "ground", Friction: ptr(mu)}},
		Settings:  SettingsSpec{Dt: ptr(0.0025), Solver: ptr("apgd-ar"), Tol: ptr(1e-10), MaxIter: ptr(1000)},
		Run:       RunSpec{Duration: ptr(0.8), Trace: []int{0}},
		Bodies: []BodySpec{{
			Shape: sphere(1), Pos: &Vec3{0, 0, 1}, Vel: &Vec3{v0, 0, 0}, Mass: ptr(1.0), Material: "ball",
		}},
		Containers: []ContainerSpec{{Type: "plane", Point: &Vec3{0, 0, 0}, Normal: &Vec3{0, 0, 1}, Material: "ground"}},
	}, nil
}

// fillDoc: spheres 0 … n−1, then the container.
func fillDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	return &Doc{
		Name: "fill",
		Description: "Filling test of the anti-relaxation paper §3.2: spheres of radius 1 m and mass 1 kg drop from a " +
			"lattice into an open box 20 m × 20 m × 30 m (walls 1 m thick); spheres are bodies 0 to n−1, the " +
			"container follows.",
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "default", Friction: ptr(p["mu"])}},
		Settings:  SettingsSpec{Dt: ptr(0.01), Solver: ptr("apgd"), Tol: ptr(1e-6), MaxIter: ptr(500)},
		Run:       RunSpec{Duration: ptr(5.0), Trace: []int{}},
		Generators: []GeneratorSpec{{
			Type: "lattice", Count: n, Shape: sphere(1), Mass: ptr(1.0),
			Spacing: ptr(2.1), MaxPerRow: 9, Origin: &Vec3{0, 0, 1.1}, Jitter: 0.05, Seed: 1,
		}},
		Containers: []ContainerSpec{{Type: "box", InnerMin: &Vec3{-10, -10, 0}, InnerMax: &Vec3{10, 10, 30}, Thickness: 1}},
	}, nil
}

// pressureDoc: body 0 is the slab, spheres are bodies 1 … n, then the
// container. The slab's underside is 0.05 m above the tops of the top
// lattice layer's spheres (before jitter).
func pressureDoc(p map[string]float64) (*Doc, error) {
	n, err := count(p, "n")
	if err != nil {
		return nil, err
	}
	const (
		r, spacing, z0, maxPerRow = 0.15, 0.32, 0.16, 9
		gap, slabHalf             = 0.05, 0.1
	)
	nx := latticeRow(n, maxPerRow)
	layers := (n + nx*nx - 1) / (nx * nx)
	slabZ := z0 + float64(layers-1)*spacing + r + gap + slabHalf
	return &Doc{
		Name: "pressure",
		Description: "Pressure test of the APGD paper §4.1.1: spheres of radius 0.15 m and mass 1 kg in a 3 m × 3 m " +
			"container under a heavy slab, μ = 0.1 everywhere. Body 0 is the slab, spheres are bodies 1 to n, the " +
			"container follows. The paper starts from a settled bed; here bed and slab settle from a lattice.",
		Gravity:   &Vec3{0, 0, -9.81},
		Materials: []MaterialSpec{{Name: "default", Friction: ptr(p["mu"])}},
		Settings:  SettingsSpec{Dt: ptr(0.01), Solver: ptr("apgd"), Tol: ptr(1e-6), MaxIter: ptr(500)},
		Run:       RunSpec{Duration: ptr(4.0), Trace: []int{0}},
		Bodies: []BodySpec{{
			Shape: ShapeSpec{Type: "box", HalfExtents: &[3]Size{{Value: 1.49}, {Value: 1.49}, {Value: slabHalf}}},
			Pos:   &Vec3{0, 0, slabZ}, Mass: ptr(p["slab_mass"]),
		}},
		Generators: []GeneratorSpec{{
			Type: "lattice", Count: n, Shape: sphere(r), Mass: ptr(1.0),
			Spacing: ptr(spacing), MaxPerRow: maxPerRow, Origin: &Vec3{0, 0, z0}, Jitter: 0.01, Seed: 2,
		}},
		Containers: []ContainerSpec{{Type: "box", InnerMin: &Vec3{-1.5, -1.5, 0}, InnerMax: &Vec3{1.5, 1.5, 20}, Thickness: 0.2}},
	}, nil
}

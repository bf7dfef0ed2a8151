package scene

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

func TestBuiltinsBuild(t *testing.T) {
	infos := Builtins()
	var names []string
	for _, in := range infos {
		names = append(names, in.Name)
		if in.Summary == "" || strings.Contains(in.Summary, "\n") {
			t.Errorf("%s: summary %q is not one line", in.Name, in.Summary)
		}
		sc, err := LoadBuiltin(in.Name, nil)
		if err != nil {
			t.Fatalf("%s: %v", in.Name, err)
		}
		if err := sc.Model.Validate(); err != nil {
			t.Errorf("%s: %v", in.Name, err)
		}
		if err := sc.Settings.Validate(); err != nil {
			t.Errorf("%s: %v", in.Name, err)
		}
		if sc.Source != "builtin:"+in.Name || sc.Name != in.Name || sc.Description == "" {
			t.Errorf("%s: source %q, name %q, description %q", in.Name, sc.Source, sc.Name, sc.Description)
		}
		for _, p := range in.Params {
			if sc.Params[p.Name] != p.Default {
				t.Errorf("%s: param %s = %v, want default %v", in.Name, p.Name, sc.Params[p.Name], p.Default)
			}
		}
	}
	if want := []string{"bulldozer", "chain", "fill", "flow-gap", "mixer", "pressure", "rolling-ball", "settle", "shaker", "shear", "wrecking-ball"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Builtins() = %v, want %v", names, want)
	}
}

func TestRollingBall(t *testing.T) {
	sc, err := LoadBuiltin("rolling-ball", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model
	if len(m.Bodies) != 2 {
		t.Fatalf("%d bodies, want ball and plane", len(m.Bodies))
	}
	ball, ground := m.Bodies[0], m.Bodies[1]
	if ball.Shape != engine.SphereShape(1) || ball.Mass != 1 || ball.Fixed ||
		ball.Pos != (mgl64.Vec3{0, 0, 1}) || ball.Vel != (mgl64.Vec3{2, 0, 0}) || ball.Inertia != (mgl64.Vec3{0.4, 0.4, 0.4}) {
		t.Errorf("body 0 = %+v, want the 1 m, 1 kg sphere at (0,0,1) moving at (2,0,0)", ball)
	}
	if ground.Shape.Kind != engine.Plane || !ground.Fixed || ground.Pos != (mgl64.Vec3{}) || ground.Rot != mgl64.QuatIdent() {
		t.Errorf("body 1 = %+v, want the fixed plane z = 0", ground)
	}
	for _, mt := range m.Materials {
		if mt.Friction != 0.2 {
			t.Errorf("material %+v, want μ = 0.2", mt)
		}
	}
	if m.Gravity != (mgl64.Vec3{0, 0, -9.81}) {
		t.Errorf("gravity %v", m.Gravity)
	}
	if sc.Domain != nil {
		t.Errorf("domain %v, want none (no box container)", sc.Domain)
	}
	s := sc.Settings
	if s.Dt != 0.0025 || s.Solver != "apgd-ar" || s.Tol != 1e-10 || s.MaxIter != 1000 || sc.Duration != 0.8 || !reflect.DeepEqual(sc.Trace, []int{0}) {
		t.Errorf("settings %+v, duration %v, trace %v", s, sc.Duration, sc.Trace)
	}

	sc, err = LoadBuiltin("rolling-ball", []string{"v0=3", "mu=0.5"})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Model.Bodies[0].Vel[0] != 3 || sc.Model.Materials[0].Friction != 0.5 || sc.Model.Materials[1].Friction != 0.5 {
		t.Errorf("v0=3 mu=0.5 gave velocity %v, materials %+v", sc.Model.Bodies[0].Vel, sc.Model.Materials)
	}
}

func TestPressure(t *testing.T) {
	sc, err := LoadBuiltin("pressure", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model
	if len(m.Bodies) != 1+4000+5 {
		t.Fatalf("%d bodies, want slab + 4000 spheres + 5 boxes", len(m.Bodies))
	}
	slab := m.Bodies[0]
	// 4000 spheres, 9 per row: 50 layers, the top one at z = 0.16 + 49·0.32
	// = 15.84; sphere tops 15.99; slab underside 16.04, centre 16.14.
	// 1e-12: rounding of the sums.
	if slab.Shape != engine.BoxShape(1.49, 1.49, 0.1) || slab.Mass != 1000 || slab.Fixed || math.Abs(slab.Pos[2]-16.14) > 1e-12 {
		t.Errorf("slab = %+v", slab)
	}
	top := 0.0
	for _, b := range m.Bodies[1:4001] {
		if b.Shape != engine.SphereShape(0.15) || b.Mass != 1 {
			t.Fatalf("sphere %+v", b)
		}
		top = math.Max(top, b.Pos[2]+0.15)
	}
	// The jitter (0.01 m) is below the 0.05 m gap.
	if gap := slab.Pos[2] - 0.1 - top; gap < 0.05-0.01 || gap > 0.05+0.01 {
		t.Errorf("gap between sphere tops and slab %v, want 0.05 ± 0.01", gap)
	}
	for _, mt := range m.Materials {
		if mt.Friction != 0.1 {
			t.Errorf("material %+v, want μ = 0.1", mt)
		}
	}
	if !reflect.DeepEqual(sc.Trace, []int{0}) || sc.Duration != 4 {
		t.Errorf("trace %v duration %v", sc.Trace, sc.Duration)
	}
	for _, tc := range []struct {
		n     int
		slabZ float64 // top layer z + 0.15 + 0.05 + 0.1
	}{
		{1, 0.16 + 0.3},            // nx = 1, one layer
		{25, 0.16 + 2*0.32 + 0.3},  // nx = 3: layers of 9, 3 layers
		{729, 0.16 + 8*0.32 + 0.3}, // nx = 9: 9 full layers
	} {
		sc, err = LoadBuiltin("pressure", []string{"slab_mass=50", "n=" + strconv.Itoa(tc.n)})
		if err != nil {
			t.Fatal(err)
		}
		// 1e-12: rounding of the sums.
		if b := sc.Model.Bodies[0]; b.Mass != 50 || math.Abs(b.Pos[2]-tc.slabZ) > 1e-12 || len(sc.Model.Bodies) != 1+tc.n+5 {
			t.Errorf("slab_mass=50 n=%d: slab %+v, %d bodies", tc.n, b, len(sc.Model.Bodies))
		}
	}
}

func TestFill(t *testing.T) {
	sc, err := LoadBuiltin("fill", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model
	if len(m.Bodies) != 1005 {
		t.Fatalf("%d bodies", len(m.Bodies))
	}
	for _, b := range m.Bodies[:1000] {
		if b.Shape != engine.SphereShape(1) || b.Mass != 1 {
			t.Fatalf("sphere %+v", b)
		}
		// Inside the walls (inner half-width 10) with room to spare.
		if math.Abs(b.Pos[0]) > 10-1 || math.Abs(b.Pos[1]) > 10-1 || b.Pos[2] < 1 {
			t.Fatalf("sphere at %v is not inside the container", b.Pos)
		}
	}
	if f := m.Bodies[1000]; f.Pos != (mgl64.Vec3{0, 0, -0.5}) || f.Shape != engine.BoxShape(11, 11, 0.5) {
		t.Errorf("floor %+v", f)
	}
	if w := m.Bodies[1001]; w.Pos != (mgl64.Vec3{-10.5, 0, 15}) || w.Shape != engine.BoxShape(0.5, 11, 15) {
		t.Errorf("wall −x %+v", w)
	}
	if sc.Settings.Dt != 0.01 || sc.Duration != 5 || m.Materials[0].Friction != 0.25 {
		t.Errorf("settings %+v duration %v", sc.Settings, sc.Duration)
	}
}

func TestOverrides(t *testing.T) {
	sc, err := LoadBuiltin("settle", []string{"n=500", "settings.dt=0.002", "materials.0.friction=0.5",
		"settings.solver=apgd-ar", "gravity=[0,0,-1.62]", "run.duration=1", "run.trace=[3,4]", "generators.0.seed=\"0x1\""})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Model.Bodies) != 505 || sc.Params["n"] != 500 {
		t.Errorf("n=500: %d bodies, params %v", len(sc.Model.Bodies), sc.Params)
	}
	if sc.Settings.Dt != 0.002 || sc.Settings.Solver != "apgd-ar" || sc.Duration != 1 || !reflect.DeepEqual(sc.Trace, []int{3, 4}) {
		t.Errorf("settings %+v duration %v trace %v", sc.Settings, sc.Duration, sc.Trace)
	}
	if sc.Model.Materials[0].Friction != 0.5 || sc.Model.Gravity != (mgl64.Vec3{0, 0, -1.62}) {
		t.Errorf("materials %+v gravity %v", sc.Model.Materials, sc.Model.Gravity)
	}
	if sc.Doc.Generators[0].Seed != 1 || *sc.Doc.Settings.Dt != 0.002 {
		t.Errorf("resolved doc not updated: %+v", sc.Doc.Generators[0])
	}

	// Fields absent from the built-in's document can be set.
	sc, err = LoadBuiltin("rolling-ball", []string{"bodies.0.omega=[0,1,0]", "bodies.0.vel=[1,0,0]", "settings.warm_start=true"})
	if err != nil {
		t.Fatal(err)
	}
	if b := sc.Model.Bodies[0]; b.Omega != (mgl64.Vec3{0, 1, 0}) || b.Vel != (mgl64.Vec3{1, 0, 0}) || !sc.Settings.WarmStart {
		t.Errorf("body 0 %+v, warm start %v", b, sc.Settings.WarmStart)
	}

	// Sizes take numbers or distribution objects, and paths reach into both.
	sc, err = LoadFile("testdata/example.json", []string{"generators.1.shape.semi_axes.0.min=0.06",
		`generators.0.shape.radius={"dist":"uniform","min":0.09,"max":0.1}`})
	if err != nil {
		t.Fatal(err)
	}
	if s := sc.Doc.Generators[1].Shape.SemiAxes[0]; s.Min != 0.06 || s.Max != 0.1 || s.Dist != "uniform" {
		t.Errorf("semi_axes[0] = %+v", s)
	}
	for _, b := range sc.Model.Bodies[3:203] {
		if r := b.Shape.Size[0]; r < 0.09 || r > 0.1 || b.Mass != 1 {
			t.Fatalf("lattice sphere %+v", b)
		}
	}

	data, err := os.ReadFile("testdata/minimal.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err = Parse(data, "minimal.json", []string{"bodies.0.shape.radius=0.25", "run.steps=10", "settings.max_iter=7"})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Model.Bodies[0].Shape.Size[0] != 0.25 || sc.Steps != 10 || sc.Settings.MaxIter != 7 || sc.Params != nil || sc.Name != "minimal" {
		t.Errorf("minimal with overrides: %+v steps %d settings %+v params %v name %q", sc.Model.Bodies[0], sc.Steps, sc.Settings, sc.Params, sc.Name)
	}

	for _, tc := range []struct {
		name string
		load func() error
		want []string
	}{
		{"bad key", func() error { _, err := LoadBuiltin("settle", []string{"settings.dtt=1"}); return err },
			[]string{"builtin:settle", `settings has no field "dtt"`, "dt, envelope"}},
		{"bad top key", func() error { _, err := LoadBuiltin("settle", []string{"m=1"}); return err },
			[]string{"builtin:settle", `top level has no field "m"`, "materials", "parameters: n"}},
		{"bad value", func() error { _, err := LoadBuiltin("settle", []string{"settings.dt=abc"}); return err },
			[]string{"builtin:settle", `settings.dt: expected a number, got the string "abc"`}},
		{"bad dt", func() error { _, err := LoadBuiltin("settle", []string{"settings.dt=-1"}); return err },
			[]string{"builtin:settle", "dt = -1 must be positive"}},
		{"bad param", func() error { _, err := LoadBuiltin("settle", []string{"n=many"}); return err },
			[]string{"builtin:settle", "parameter n wants a finite number"}},
		{"fractional n", func() error { _, err := LoadBuiltin("fill", []string{"n=2.5"}); return err },
			[]string{"builtin:fill", "n = 2.5 must be an integer"}},
		{"no =", func() error { _, err := LoadBuiltin("settle", []string{"n500"}); return err },
			[]string{"builtin:settle", `--set "n500": want key=value`}},
		{"no element", func() error { _, err := LoadBuiltin("settle", []string{"bodies.0.mass=1"}); return err },
			[]string{"builtin:settle", "bodies is not set"}},
		{"index out of range", func() error { _, err := LoadBuiltin("settle", []string{"generators.1.count=1"}); return err },
			[]string{"builtin:settle", `generators has no element "1"`}},
		{"into a number", func() error { _, err := LoadBuiltin("settle", []string{"settings.dt.x=1"}); return err },
			[]string{"builtin:settle", `settings.dt is the number 0.01, which has no field "x"`}},
		{"negative friction", func() error { _, err := LoadBuiltin("settle", []string{"materials.0.friction=-1"}); return err },
			[]string{"builtin:settle", "materials[0].friction: -1 must be ≥ 0"}},
		{"param on a file", func() error { _, err := Parse(data, "minimal.json", []string{"n=5"}); return err },
			[]string{"minimal.json", `top level has no field "n"`}},
		{"unknown builtin", func() error { _, err := LoadBuiltin("nope", nil); return err },
			[]string{`no built-in scene "nope"`, "settle"}},
	} {
		err := tc.load()
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
}

func TestLoad(t *testing.T) {
	if sc, err := Load("settle", []string{"n=8"}); err != nil || sc.Source != "builtin:settle" || len(sc.Model.Bodies) != 13 {
		t.Errorf("Load(settle): %v", err)
	}
	sc, err := Load("testdata/example.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Source != "testdata/example.json" || sc.Name != "example" || !reflect.DeepEqual(sc.Trace, []int{0, 1}) {
		t.Errorf("example: source %q name %q trace %v", sc.Source, sc.Name, sc.Trace)
	}
	if _, err := Load("no-such-scene", nil); err == nil || !strings.Contains(err.Error(), "neither a built-in scene") {
		t.Errorf("Load(no-such-scene): %v", err)
	}
	if _, err := Load("testdata/missing.json", nil); err == nil || !strings.Contains(err.Error(), "testdata/missing.json") {
		t.Errorf("Load(missing file): %v", err)
	}
}

// TestExample checks the body order and the generators of the example file.
func TestExample(t *testing.T) {
	sc, err := LoadFile("testdata/example.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := sc.Model
	// 3 bodies, 200 + 100 generated, box with lid (6), plane.
	if len(m.Bodies) != 3+200+100+6+1 {
		t.Fatalf("%d bodies", len(m.Bodies))
	}
	if b := m.Bodies[0]; b.Shape != engine.SphereShape(0.2) || b.Mass != 2 || b.Material != 1 {
		t.Errorf("body 0 %+v", b)
	}
	plank := m.Bodies[1]
	if plank.Inertia != (mgl64.Vec3{0.01, 0.02, 0.03}) || math.Abs(plank.Mass-700*0.4*0.2*0.1) > 1e-12 { // 1e-12: rounding
		t.Errorf("plank %+v", plank)
	}
	if math.Abs(plank.Rot.Len()-1) > 1e-15 { // 1e-15: normalised to rounding
		t.Errorf("plank rotation %v not normalised", plank.Rot)
	}
	if b := m.Bodies[2]; !b.Fixed || b.Mass != 0 {
		t.Errorf("fixed ellipsoid %+v", b)
	}
	region := Region{Min: Vec3{-2, -2, 1.5}, Max: Vec3{2, 2, 3}}
	gen := m.Bodies[203:303]
	for i, b := range gen {
		a := b.Shape.Size
		if b.Shape.Kind != engine.Ellipsoid || a[0] < 0.05 || a[0] > 0.1 || a[1] != 0.08 || a[2] < 0.04 || a[2] > 0.08 {
			t.Fatalf("random body %d shape %+v", i, b.Shape)
		}
		if want := 2500 * b.Shape.Volume(); b.Mass != want {
			t.Fatalf("random body %d mass %v, want %v", i, b.Mass, want)
		}
		if math.Abs(b.Rot.Len()-1) > 1e-15 || b.Rot == mgl64.QuatIdent() { // 1e-15: normalised to rounding
			t.Fatalf("random body %d rotation %v", i, b.Rot)
		}
		r := b.Shape.BoundingRadius()
		for c := range 3 {
			if b.Pos[c]-r < region.Min[c] || b.Pos[c]+r > region.Max[c] {
				t.Fatalf("random body %d at %v (r %v) leaves the region", i, b.Pos, r)
			}
		}
		for j, q := range m.Bodies[:203+i] {
			if q.Shape.Kind == engine.Plane {
				continue
			}
			if d := b.Pos.Sub(q.Pos).Len(); d < r+q.Shape.BoundingRadius() {
				t.Fatalf("random body %d overlaps body %d", i, j)
			}
		}
	}
	// The lattice with a hex-string seed is settle's first 200 spheres.
	settle, err := LoadBuiltin("settle", []string{"n=200", "generators.0.max_per_row=10"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Bodies[3:203], settle.Model.Bodies[:200]) {
		t.Errorf("example lattice differs from settle's")
	}
	// Box with lid then plane at z = −0.2.
	if lid := m.Bodies[308]; lid.Pos != (mgl64.Vec3{0, 0, 4.1}) || lid.Shape != engine.BoxShape(2.2, 2.2, 0.1) {
		t.Errorf("lid %+v", lid)
	}
	if p := m.Bodies[309]; p.Shape.Kind != engine.Plane || p.Pos != (mgl64.Vec3{0, 0, -0.2}) || p.Material != 1 {
		t.Errorf("plane %+v", p)
	}
	if !sc.Settings.WarmStart || sc.Settings.MaxIter != 300 || sc.Settings.Gd != engine.DefaultSettings().Gd {
		t.Errorf("settings %+v", sc.Settings)
	}
}

func TestPlaneRotation(t *testing.T) {
	for _, n := range []mgl64.Vec3{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0, -1, 0}, {1, 2, 3}, {1e-9, 0, -1}} {
		u := n.Normalize()
		q := rotationTo(u)
		// 1e-12: a few roundings of unit-length quantities.
		if got := q.Rotate(mgl64.Vec3{0, 0, 1}); got.Sub(u).Len() > 1e-12 || math.Abs(q.Len()-1) > 1e-12 {
			t.Errorf("rotationTo(%v) = %v takes +z to %v", u, q, got)
		}
	}
	if rotationTo(mgl64.Vec3{0, 0, 1}) != mgl64.QuatIdent() {
		t.Errorf("rotationTo(+z) is not exactly the identity")
	}
}

// TestRoundTrip: Dump → Parse rebuilds the same scene, and dumping again
// gives the same text.
func TestRoundTrip(t *testing.T) {
	var scenes []*Scene
	for _, in := range Builtins() {
		sc, err := LoadBuiltin(in.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		scenes = append(scenes, sc)
	}
	files, _ := filepath.Glob("testdata/*.json")
	for _, f := range files {
		sc, err := LoadFile(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		scenes = append(scenes, sc)
	}
	for _, sc := range scenes {
		checkRoundTrip(t, sc)
	}
}

func checkRoundTrip(t *testing.T, sc *Scene) {
	t.Helper()
	data, err := Dump(sc.Doc)
	if err != nil {
		t.Fatalf("%s: %v", sc.Source, err)
	}
	back, err := Parse(data, sc.Source+" (dumped)", nil)
	if err != nil {
		t.Fatalf("%s: %v\n%s", sc.Source, err, data)
	}
	if !reflect.DeepEqual(back.Model, sc.Model) {
		t.Errorf("%s: model differs after Dump → Parse", sc.Source)
	}
	if back.Settings != sc.Settings || back.Duration != sc.Duration || back.Steps != sc.Steps ||
		!reflect.DeepEqual(back.Trace, sc.Trace) || back.Name != sc.Name || back.Description != sc.Description {
		t.Errorf("%s: run settings differ after Dump → Parse", sc.Source)
	}
	again, err := Dump(back.Doc)
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("%s: second dump differs (%v):\n%s\n---\n%s", sc.Source, err, data, again)
	}
}

// TestBuildGo builds documents written in Go, with values JSON cannot
// express.
func TestBuildGo(t *testing.T) {
	mat := []MaterialSpec{{Name: "m", Friction: ptr(0.1)}}
	ball := func(r float64) BodySpec {
		return BodySpec{Shape: ShapeSpec{Type: "sphere", Radius: &Size{Value: r}}, Mass: ptr(1.0)}
	}
	for _, tc := range []struct {
		name string
		doc  Doc
		want string
	}{
		{"NaN radius", Doc{Materials: mat, Bodies: []BodySpec{ball(math.NaN())}}, "bodies[0].shape.radius: NaN must be positive"},
		{"Inf radius", Doc{Materials: mat, Bodies: []BodySpec{ball(math.Inf(1))}}, "bodies[0].shape.radius: +Inf must be positive"},
		{"NaN mass", Doc{Materials: mat, Bodies: []BodySpec{{Shape: ball(1).Shape, Mass: ptr(math.NaN())}}}, "bodies[0].mass: NaN must be positive"},
		{"density overflow", Doc{Materials: mat, Bodies: []BodySpec{{Shape: ball(1e200).Shape, Density: ptr(1.0)}}}, "bodies[0].density: 1 gives the mass +Inf"},
		{"Inf gravity", Doc{Materials: mat, Gravity: &Vec3{0, 0, math.Inf(-1)}, Bodies: []BodySpec{ball(1)}}, "gravity: [0 0 -Inf] is not finite"},
		{"NaN friction", Doc{Materials: []MaterialSpec{{Name: "m", Friction: ptr(math.NaN())}}, Bodies: []BodySpec{ball(1)}}, "materials[0].friction: NaN must be ≥ 0"},
		{"Inf cohesion", Doc{Materials: []MaterialSpec{{Name: "m", Friction: ptr(0.1), Cohesion: math.Inf(1)}}, Bodies: []BodySpec{ball(1)}}, "materials[0].cohesion: +Inf must be ≥ 0"},
		{"NaN duration", Doc{Materials: mat, Run: RunSpec{Duration: ptr(math.NaN())}, Bodies: []BodySpec{ball(1)}}, "run.duration: NaN must be positive"},
		{"too many", Doc{Materials: mat, Generators: []GeneratorSpec{{Type: "lattice", Count: maxBodies + 1, Shape: ball(1).Shape, Mass: ptr(1.0)}}}, "too many bodies"},
	} {
		d := tc.doc
		_, err := d.Build("go:" + tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "go:"+tc.name+": ") {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}

	// Build neither changes its document nor shares memory with Scene.Doc.
	d := Doc{Materials: mat, Bodies: []BodySpec{ball(1)}}
	sc, err := d.Build("go")
	if err != nil {
		t.Fatal(err)
	}
	if d.Gravity != nil || d.Settings.Dt != nil || d.Run.Duration != nil || d.Name != "" {
		t.Errorf("Build changed its document: %+v", d)
	}
	sc.Doc.Bodies[0].Shape.Radius.Value = 2
	if d.Bodies[0].Shape.Radius.Value != 1 {
		t.Errorf("Scene.Doc shares memory with the built document")
	}
	if sc.Duration != 1 || *sc.Doc.Gravity != defaultGravity || sc.Settings != engine.DefaultSettings() {
		t.Errorf("defaults: duration %v gravity %v settings %+v", sc.Duration, *sc.Doc.Gravity, sc.Settings)
	}
}

func TestDistributions(t *testing.T) {
	r := &SplitMix64{State: 3}
	u := Size{Dist: "uniform", Min: 0.2, Max: 0.3}
	n := Size{Dist: "normal", Mean: 0.25, Std: 0.1, Min: 0.2, Max: 0.3}
	for range 10000 {
		for _, s := range []Size{u, n} {
			v, ok := s.sample(r)
			if !ok || v < s.Min || v > s.Max {
				t.Fatalf("%+v drew %v (%v)", s, v, ok)
			}
		}
	}
	// A normal distribution whose window lies 100 σ out never hits it.
	if _, ok := (Size{Dist: "normal", Mean: 0, Std: 0.01, Min: 1, Max: 2}).sample(r); ok {
		t.Errorf("far tail sampled")
	}
	doc := `{"materials": [{"name": "m", "friction": 0}], "generators": [{"type": "random", "count": 3,
		"region": {"min": [0,0,0], "max": [5,5,5]}, "mass": 1,
		"shape": {"type": "sphere", "radius": {"dist": "normal", "mean": 0, "std": 0.01, "min": 1, "max": 2}}}]}`
	if _, err := Parse([]byte(doc), "tail.json", nil); err == nil || !strings.Contains(err.Error(), "generators[0].shape.radius: the normal distribution") {
		t.Errorf("tail: %v", err)
	}
}

func TestIndent(t *testing.T) {
	in := `{"a":[1,2,"x,[y]"],"b":[{"c":[]},{}],"d":"q\"}[","e":[[1],[2]]}`
	want := `{
  "a": [1, 2, "x,[y]"],
  "b": [
    {
      "c": []
    },
    {}
  ],
  "d": "q\"}[",
  "e": [
    [1],
    [2]
  ]
}
`
	if got := string(indent([]byte(in))); got != want {
		t.Errorf("indent:\n%s\nwant:\n%s", got, want)
	}
}

// TestSettingsFields: the document's settings name every engine setting,
// so that a setting added to engine.Settings is noticed here.
func TestSettingsFields(t *testing.T) {
	names := func(t reflect.Type) []string {
		var n []string
		for i := range t.NumField() {
			n = append(n, jsonName(t.Field(i)))
		}
		return n
	}
	doc, eng := names(reflect.TypeFor[SettingsSpec]()), names(reflect.TypeFor[engine.Settings]())
	if !reflect.DeepEqual(doc, eng) {
		t.Errorf("SettingsSpec fields %v, engine.Settings fields %v", doc, eng)
	}
}

// TestSchemaKey: a "$schema" key, which editors add to get completion and
// checks from examples/scene.schema.json, is accepted and ignored; a
// misspelt one is still an unknown field.
func TestSchemaKey(t *testing.T) {
	const body = `"materials": [{"name": "m", "friction": 0.3}], "bodies": [{"shape": {"type": "sphere", "radius": 0.5}, "mass": 1}]`
	sc, err := Parse([]byte(`{"$schema": "../examples/scene.schema.json", `+body+`}`), "s.json", nil)
	if err != nil {
		t.Fatalf("a scene with $schema: %v", err)
	}
	if len(sc.Model.Bodies) != 1 {
		t.Fatalf("%d bodies, want 1", len(sc.Model.Bodies))
	}
	_, err = Parse([]byte(`{"$schemas": "x", `+body+`}`), "s.json", nil)
	if err == nil || !strings.Contains(err.Error(), "$schemas: unknown field") {
		t.Fatalf("a misspelt $schema: %v, want an unknown-field error naming it", err)
	}
}

// TestRandomCylinder: a random generator in a cylinder places every body's
// bounding sphere inside it, overlapping no other, spread over the whole
// disc and height (some within two radii of the wall, of the floor and of
// the top, bodies in all four quadrants), the same for the same seed.
func TestRandomCylinder(t *testing.T) {
	src := `{"materials": [{"name": "m", "friction": 0.3}],
	  "generators": [{"type": "random", "count": 300, "seed": 5, "density": 1000, "random_orientation": true,
	    "cylinder": {"centre": [1, 2, 0.5], "radius": 0.6, "height": 1.2},
	    "shape": {"type": "box", "half_extents": [{"dist": "uniform", "min": 0.02, "max": 0.04}, 0.03, 0.03]}}]}`
	sc, err := Parse([]byte(src), "cyl.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	bs := sc.Model.Bodies
	if len(bs) != 300 {
		t.Fatalf("%d bodies", len(bs))
	}
	const R, H = 0.6, 1.2
	c := mgl64.Vec3{1, 2, 0.5}
	var nearWall, nearFloor, nearTop int
	quadrants := map[[2]bool]int{}
	for i, b := range bs {
		r := b.Shape.BoundingRadius()
		d := b.Pos.Sub(c)
		rho := math.Hypot(d[0], d[1])
		if rho+r > R || d[2]-r < 0 || d[2]+r > H {
			t.Fatalf("body %d at %v (bounding radius %v) leaves the cylinder", i, b.Pos, r)
		}
		for j, q := range bs[:i] {
			if b.Pos.Sub(q.Pos).Len() < r+q.Shape.BoundingRadius() {
				t.Fatalf("bodies %d and %d overlap", j, i)
			}
		}
		if R-rho-r < 2*r {
			nearWall++
		}
		if d[2]-r < 2*r {
			nearFloor++
		}
		if H-d[2]-r < 2*r {
			nearTop++
		}
		quadrants[[2]bool{d[0] > 0, d[1] > 0}]++
	}
	// Uniform placement: the shell within 2 radii (≤ 0.2 m) of the wall
	// holds ≈ 45 % of the disc's area at R − r ≈ 0.55 m, the slabs at the
	// floor and top ≈ 10 % of the height each; 5 bodies of 300 is far
	// below those expectations (135, 30, 30), and each quadrant expects 75.
	if nearWall < 5 || nearFloor < 5 || nearTop < 5 || len(quadrants) != 4 {
		t.Errorf("not spread: %d near the wall, %d near the floor, %d near the top, quadrants %v", nearWall, nearFloor, nearTop, quadrants)
	}
	for q, n := range quadrants {
		if n < 40 {
			t.Errorf("quadrant %v holds %d of 300 bodies", q, n)
		}
	}
	again, err := Parse([]byte(src), "cyl.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Model.Bodies, bs) {
		t.Error("the same seed gave other bodies")
	}
}

package scene

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
	"github.com/gpusim/gpusim/internal/safepath"
)

// limits bound the work a document may ask for, so that no input exhausts
// memory or time.
type limits struct {
	bodies   int // bodies in the model, all sources together
	attempts int // max_attempts of a random generator
	// checkBodies, if set, is called with BodyCount before any body is
	// made (LoadOptions.CheckBodies).
	checkBodies func(n int) error
}

const (
	// maxBodies caps a model at 16 777 216 bodies (about 4 GB of
	// engine.Body values).
	maxBodies = 1 << 24
	// maxAttempts caps a random generator's max_attempts per body.
	maxAttempts = 1 << 20
	// defaultAttempts is max_attempts when a random generator omits it.
	defaultAttempts = 1000
	// defaultSpacingFactor times the largest half-size gives a lattice's
	// spacing when it is omitted (2.1 × r: 0.21 m for settle's 0.1 m
	// spheres).
	defaultSpacingFactor = 2.1
	// unitTol is how far from 1 the norm of a given rotation may be.
	unitTol = 1e-6
)

func defaultLimits() limits { return limits{bodies: maxBodies, attempts: maxAttempts} }

// defaultGravity is the gravity of a document that gives none (m/s²).
var defaultGravity = Vec3{0, 0, -9.81}

// Build expands the generators and containers of d into an engine.Model,
// resolves its settings and checks everything (including
// engine.Model.Validate and engine.Settings.Validate). Errors start with
// source and name the field by its path. d is not modified; Scene.Doc is a
// copy with the defaults of name, gravity, settings and run filled in.
func (d *Doc) Build(source string) (*Scene, error) {
	return d.build(source, defaultLimits())
}

func (d *Doc) build(source string, lim limits) (*Scene, error) {
	s, err := d.buildScene(source, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return s, nil
}

func (d *Doc) buildScene(source string, lim limits) (*Scene, error) {
	r := cloneDoc(d)
	if r.Name == "" {
		r.Name = defaultName(source)
	} else if err := safepath.Component(r.Name); err != nil {
		// The name becomes a folder name (out/NAME by default).
		return nil, errAt("name", "%v", err)
	}
	if r.Gravity == nil {
		g := defaultGravity
		r.Gravity = &g
	}
	settings := engine.DefaultSettings()
	r.Settings.apply(&settings)
	r.Settings = settingsSpec(settings)
	if r.Run.Duration == nil {
		r.Run.Duration = ptr(1.0)
	}
	if r.Run.Trace == nil {
		r.Run.Trace = []int{}
	}

	if len(r.Bodies) == 0 && len(r.Generators) == 0 {
		return nil, fmt.Errorf("the scene has no bodies and no generators: add at least one of them")
	}
	if lim.checkBodies != nil {
		if err := lim.checkBodies(r.BodyCount()); err != nil {
			return nil, err
		}
	}
	if n := r.BodyCount(); n > lim.bodies {
		// Refused before the bodies take memory (room, as they are made,
		// names the field).
		return nil, fmt.Errorf("too many bodies: the scene makes %d (bodies, generators and container walls), more than the %d a scene may hold", n, lim.bodies)
	}
	b := &builder{lim: lim, mats: map[string]int{}, dir: filepath.Dir(source)}
	if err := checkVec("gravity", *r.Gravity); err != nil {
		return nil, err
	}
	b.model.Gravity = mgl64.Vec3(*r.Gravity)
	if err := b.materials(r.Materials); err != nil {
		return nil, err
	}
	for i, bs := range r.Bodies {
		if err := b.body(index("bodies", i), bs); err != nil {
			return nil, err
		}
	}
	for i, g := range r.Generators {
		if err := b.generator(index("generators", i), g); err != nil {
			return nil, err
		}
	}
	for i, c := range r.Containers {
		if err := b.container(index("containers", i), c); err != nil {
			return nil, err
		}
	}
	if err := b.placePours(); err != nil {
		return nil, err
	}
	if len(b.model.Bodies) == 0 {
		return nil, fmt.Errorf("the scene has no body at t = 0 (its pour bodies enter later): add a body or a container, or start a pour at 0")
	}
	for i, j := range r.Joints {
		if err := b.joint(index("joints", i), j); err != nil {
			return nil, err
		}
	}
	if err := b.model.Validate(); err != nil {
		return nil, err
	}
	if len(b.entering) == 0 && !slices.ContainsFunc(b.model.Bodies, func(b engine.Body) bool { return !b.Fixed }) {
		return nil, fmt.Errorf("the scene has no movable bodies (all %d are fixed): nothing would move", len(b.model.Bodies))
	}
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	if err := checkRun(r.Run, len(b.model.Bodies)+len(b.entering), settings.Dt); err != nil {
		return nil, err
	}
	if err := checkMerit(r.Merit, len(b.model.Bodies)); err != nil {
		return nil, err
	}
	var domain *Region
	for _, c := range r.Containers {
		if c.Type == "box" {
			domain = &Region{Min: *c.InnerMin, Max: *c.InnerMax}
			break
		}
	}
	return &Scene{
		Domain:      domain,
		Name:        r.Name,
		Description: r.Description,
		Source:      source,
		Model:       b.model,
		Settings:    settings,
		Duration:    *r.Run.Duration,
		Steps:       r.Run.Steps,
		Trace:       append([]int{}, r.Run.Trace...),
		Doc:         r,
		Entering:    b.entering,
		EntryTimes:  b.entryTimes,
	}, nil
}

// defaultName is the scene name of a document without one: the built-in's
// name or the file name without its extension, made a valid name
// (safepath.Sanitize: "my scene.json" is my_scene) since it becomes a
// folder name; "scene" if nothing is left.
func defaultName(source string) string {
	if name, ok := strings.CutPrefix(source, builtinPrefix); ok {
		return safepath.Sanitize(name, "scene")
	}
	base := filepath.Base(source)
	return safepath.Sanitize(strings.TrimSuffix(base, filepath.Ext(base)), "scene")
}

// BodyCount is the number of bodies d makes, counted from the document
// without making them: its bodies, its generators' counts and its
// containers' walls (a box 5, 6 with a lid; a plane 1). It saturates at
// 2³¹−1 instead of overflowing. Checks of memory use it before Build
// allocates the bodies.
func (d *Doc) BodyCount() int {
	n := int64(len(d.Bodies))
	for _, c := range d.Containers {
		switch {
		case c.Type == "cylinder":
			n += int64(drumSides(c)) + 1
			if c.Lid {
				n++
			}
		case c.Type != "box":
			n++
		case c.Lid:
			n += 6
		default:
			n += 5
		}
	}
	for _, g := range d.Generators {
		if g.Count > 0 {
			n += int64(g.Count)
		}
		if n > math.MaxInt32 {
			break
		}
	}
	return int(min(n, math.MaxInt32))
}

func checkRun(r RunSpec, nbodies int, dt float64) error {
	if r.Steps < 0 {
		return errAt("run.steps", "%d must be ≥ 0", r.Steps)
	}
	if r.Steps == 0 {
		if err := checkPositive("run.duration", *r.Duration); err != nil {
			return err
		}
	} else if err := checkNonNegative("run.duration", *r.Duration); err != nil {
		return err
	}
	if _, err := StepCount(*r.Duration, r.Steps, dt); err != nil {
		p := "run.duration"
		if r.Steps > 0 {
			p = "run.steps"
		}
		return errAt(p, "%v", err)
	}
	seen := map[int]int{}
	for i, id := range r.Trace {
		p := index("run.trace", i)
		if id < 0 || id >= nbodies {
			return errAt(p, "body %d out of range: the scene has %d bodies (ids 0 to %d)", id, nbodies, nbodies-1)
		}
		if j, dup := seen[id]; dup {
			return errAt(p, "body %d is already run.trace[%d]", id, j)
		}
		seen[id] = i
	}
	return nil
}

// apply overrides the fields of e that s gives.
func (s SettingsSpec) apply(e *engine.Settings) {
	set(&e.Dt, s.Dt)
	set(&e.Solver, s.Solver)
	set(&e.Tol, s.Tol)
	set(&e.MaxIter, s.MaxIter)
	set(&e.Gd, s.Gd)
	set(&e.WarmStart, s.WarmStart)
	set(&e.Envelope, s.Envelope)
	set(&e.BinSize, s.BinSize)
	set(&e.MaxRecoverySpeed, s.MaxRecoverySpeed)
	set(&e.Workers, s.Workers)
	set(&e.Precision, s.Precision)
}

// settingsSpec gives every field of e.
func settingsSpec(e engine.Settings) SettingsSpec {
	return SettingsSpec{
		Dt: ptr(e.Dt), Solver: ptr(e.Solver), Tol: ptr(e.Tol), MaxIter: ptr(e.MaxIter), Gd: ptr(e.Gd),
		WarmStart: ptr(e.WarmStart), Envelope: ptr(e.Envelope), BinSize: ptr(e.BinSize),
		MaxRecoverySpeed: ptr(e.MaxRecoverySpeed), Workers: ptr(e.Workers), Precision: ptr(e.Precision),
	}
}

func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

func ptr[T any](v T) *T { return &v }

// cloneDoc deep-copies a document.
func cloneDoc(d *Doc) *Doc {
	c := cloneValue(reflect.ValueOf(d).Elem()).Interface().(Doc)
	return &c
}

func cloneValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(cloneValue(v.Elem()))
		return p
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			s.Index(i).Set(cloneValue(v.Index(i)))
		}
		return s
	case reflect.Struct, reflect.Array:
		c := reflect.New(v.Type()).Elem()
		if v.Kind() == reflect.Array {
			for i := range v.Len() {
				c.Index(i).Set(cloneValue(v.Index(i)))
			}
		} else {
			for i := range v.NumField() {
				c.Field(i).Set(cloneValue(v.Field(i)))
			}
		}
		return c
	}
	return v
}

// builder accumulates the model.
type builder struct {
	lim   limits
	model engine.Model
	mats  map[string]int
	names []string
	dir   string // the scene file's folder, for mesh files
	// pours make the pour generators' bodies after the containers
	// (pour.go); pending counts them until then; entering and
	// entryTimes are those that enter after t = 0.
	pours      []func() ([]pourBody, error)
	pending    int
	entering   []engine.Body
	entryTimes []float64
}

func checkPositive(path string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return errAt(path, "%v must be positive and finite", v)
	}
	return nil
}

func checkNonNegative(path string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return errAt(path, "%v must be ≥ 0 and finite", v)
	}
	return nil
}

func checkFinite(path string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return errAt(path, "%v is not finite", v)
	}
	return nil
}

func checkVec(path string, v Vec3) error {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errAt(path, "%v is not finite", v)
		}
	}
	return nil
}

// vec returns *v (zero if nil), checked finite.
func vec(path string, v *Vec3) (mgl64.Vec3, error) {
	if v == nil {
		return mgl64.Vec3{}, nil
	}
	return mgl64.Vec3(*v), checkVec(path, *v)
}

func (b *builder) materials(ms []MaterialSpec) error {
	if len(ms) == 0 {
		return errAt("materials", "missing: at least one material is required")
	}
	for i, m := range ms {
		p := index("materials", i)
		if m.Name == "" {
			return errAt(join(p, "name"), "missing")
		}
		if j, dup := b.mats[m.Name]; dup {
			return errAt(join(p, "name"), "%q is already the name of materials[%d]", m.Name, j)
		}
		if m.Friction == nil {
			return errAt(join(p, "friction"), "missing (the Coulomb coefficient μ ≥ 0)")
		}
		if err := checkNonNegative(join(p, "friction"), *m.Friction); err != nil {
			return err
		}
		if err := checkNonNegative(join(p, "cohesion"), m.Cohesion); err != nil {
			return err
		}
		if err := checkNonNegative(join(p, "rolling_friction"), m.RollingFriction); err != nil {
			return err
		}
		if err := checkNonNegative(join(p, "spinning_friction"), m.SpinningFriction); err != nil {
			return err
		}
		b.mats[m.Name] = i
		b.names = append(b.names, m.Name)
		b.model.Materials = append(b.model.Materials, engine.Material{Name: m.Name, Friction: *m.Friction, Cohesion: m.Cohesion,
			RollingFriction: m.RollingFriction, SpinningFriction: m.SpinningFriction})
	}
	return nil
}

// material looks a material up by name; "" is the first one.
func (b *builder) material(path, name string) (int, error) {
	if name == "" {
		return 0, nil
	}
	i, ok := b.mats[name]
	if !ok {
		return 0, errAt(path, "unknown material %q (materials: %s)", name, strings.Join(b.names, ", "))
	}
	return i, nil
}

// room checks that n more bodies fit in the body limit.
func (b *builder) room(path string, n int) error {
	if n > b.lim.bodies-len(b.model.Bodies)-b.pending {
		return errAt(path, "too many bodies: a scene may hold at most %d", b.lim.bodies)
	}
	return nil
}

// rotation checks a [w, x, y, z] quaternion and normalises it.
func rotation(path string, q *Quat) (mgl64.Quat, error) {
	if q == nil {
		return mgl64.QuatIdent(), nil
	}
	r := mgl64.Quat{W: q[0], V: mgl64.Vec3{q[1], q[2], q[3]}}
	n := r.Len()
	if !(math.Abs(n-1) <= unitTol) {
		return mgl64.Quat{}, errAt(path, "%v is not a unit quaternion [w, x, y, z] (norm %v; must be within %g of 1)", *q, n, unitTol)
	}
	return scaleQuat(r, 1/n), nil
}

// sizesOf lists a shape's size fields with their paths, in the order they
// are drawn: radius, or the three semi-axes, or the three half-extents.
func sizesOf(path string, s ShapeSpec) (sizes []Size, paths []string) {
	add := func(name string, a *[3]Size) {
		for i := range a {
			sizes = append(sizes, a[i])
			paths = append(paths, index(join(path, name), i))
		}
	}
	if s.Radius != nil {
		sizes, paths = append(sizes, *s.Radius), append(paths, join(path, "radius"))
	}
	if s.HalfHeight != nil {
		sizes, paths = append(sizes, *s.HalfHeight), append(paths, join(path, "half_height"))
	}
	if s.SemiAxes != nil {
		add("semi_axes", s.SemiAxes)
	}
	if s.HalfExtents != nil {
		add("half_extents", s.HalfExtents)
	}
	return sizes, paths
}

// checkShape checks a shape's type and size fields. Distributions are
// allowed in generators only.
func checkShape(path string, s ShapeSpec, inGenerator bool) (engine.ShapeKind, error) {
	if s.Type == "" {
		if s.Radius == nil && s.HalfHeight == nil && s.SemiAxes == nil && s.HalfExtents == nil && s.Parts == nil && s.Points == nil && s.File == "" {
			return 0, errAt(path, "missing")
		}
		return 0, errAt(join(path, "type"), "missing (want sphere, ellipsoid, box, plane, compound, capsule, cylinder, convex or mesh)")
	}
	kind, err := engine.ParseShapeKind(s.Type)
	if err != nil {
		return 0, errAt(join(path, "type"), "%v", err)
	}
	if kind == engine.Compound {
		return kind, checkCompound(path, s, inGenerator)
	}
	if s.Parts != nil {
		return 0, errAt(join(path, "parts"), "does not apply to a %s", kind)
	}
	if kind == engine.Triangle {
		return 0, errAt(join(path, "type"), "a triangle is a part of a mesh (give a mesh shape with its file)")
	}
	if kind == engine.Convex {
		return kind, checkConvex(path, s)
	}
	if s.Points != nil {
		return 0, errAt(join(path, "points"), "does not apply to a %s (only to a convex shape)", kind)
	}
	if kind == engine.Mesh {
		if inGenerator {
			return 0, errAt(join(path, "type"), "a generator cannot make meshes (a mesh belongs to a fixed or kinematic body in \"bodies\")")
		}
		return kind, checkMesh(path, s)
	}
	if s.File != "" || s.Scale != nil {
		return 0, errAt(join(path, map[bool]string{true: "file", false: "scale"}[s.File != ""]), "does not apply to a %s (only to a mesh)", kind)
	}
	want := map[engine.ShapeKind][]string{engine.Sphere: {"radius"}, engine.Ellipsoid: {"semi_axes"}, engine.Box: {"half_extents"},
		engine.Capsule: {"radius", "half_height"}, engine.Cylinder: {"radius", "half_height"}}[kind]
	for _, f := range []struct {
		name  string
		given bool
	}{{"radius", s.Radius != nil}, {"half_height", s.HalfHeight != nil}, {"semi_axes", s.SemiAxes != nil}, {"half_extents", s.HalfExtents != nil}} {
		if f.given && !slices.Contains(want, f.name) {
			return 0, errAt(join(path, f.name), "does not apply to a %s", kind)
		}
		if !f.given && slices.Contains(want, f.name) {
			return 0, errAt(join(path, f.name), "missing (a %s needs it)", kind)
		}
	}
	if kind == engine.Plane && inGenerator {
		return 0, errAt(join(path, "type"), "a generator cannot make planes (use a plane container)")
	}
	sizes, paths := sizesOf(path, s)
	for i, sz := range sizes {
		if err := checkSize(paths[i], sz, inGenerator); err != nil {
			return 0, err
		}
	}
	return kind, nil
}

func checkSize(path string, s Size, inGenerator bool) error {
	switch s.Dist {
	case "":
		return checkPositive(path, s.Value)
	case "uniform", "normal":
		if !inGenerator {
			return errAt(path, "a %s distribution is only allowed in generators", s.Dist)
		}
	default:
		return errAt(join(path, "dist"), "unknown distribution %q (want uniform or normal)", s.Dist)
	}
	if err := checkPositive(join(path, "min"), s.Min); err != nil {
		return err
	}
	if err := checkPositive(join(path, "max"), s.Max); err != nil {
		return err
	}
	if s.Max < s.Min {
		return errAt(join(path, "max"), "%v is less than min %v", s.Max, s.Min)
	}
	if s.Dist == "normal" {
		if err := checkVec(join(path, "mean"), Vec3{s.Mean}); err != nil {
			return err
		}
		if err := checkNonNegative(join(path, "std"), s.Std); err != nil {
			return err
		}
	}
	return nil
}

// makeShape builds a shape of a checked kind from its drawn sizes.
func makeShape(kind engine.ShapeKind, v []float64) engine.Shape {
	switch kind {
	case engine.Sphere:
		return engine.SphereShape(v[0])
	case engine.Ellipsoid:
		return engine.EllipsoidShape(v[0], v[1], v[2])
	case engine.Box:
		return engine.BoxShape(v[0], v[1], v[2])
	case engine.Capsule:
		return engine.CapsuleShape(v[0], v[1])
	case engine.Cylinder:
		return engine.CylinderShape(v[0], v[1])
	}
	return engine.PlaneShape()
}

// setMass sets the body's mass from mass or density; it is an error to
// give both.
func setMass(path string, body *engine.Body, mass, density *float64) error {
	switch {
	case mass != nil && density != nil:
		return errAt(path, "give mass or density, not both")
	case mass != nil:
		if err := checkPositive(join(path, "mass"), *mass); err != nil {
			return err
		}
		body.SetMass(*mass)
	case density != nil:
		if err := checkPositive(join(path, "density"), *density); err != nil {
			return err
		}
		body.SetDensity(*density)
		if !(body.Mass > 0) || math.IsInf(body.Mass, 0) {
			return errAt(join(path, "density"), "%v gives the mass %v for this shape, not positive and finite", *density, body.Mass)
		}
	}
	return nil
}

func (b *builder) body(p string, s BodySpec) error {
	if err := b.room(p, 1); err != nil {
		return err
	}
	kind, err := checkShape(join(p, "shape"), s.Shape, false)
	if err != nil {
		return err
	}
	sizes, _ := sizesOf("", s.Shape)
	v := make([]float64, len(sizes))
	for i, sz := range sizes {
		v[i] = sz.Value
	}
	body := engine.Body{Shape: makeShape(kind, v), Fixed: s.Fixed}
	var centre mgl64.Vec3
	var principal mgl64.Quat
	switch kind {
	case engine.Compound:
		if body.Shape, centre, principal, err = compoundShape(join(p, "shape"), s.Shape); err != nil {
			return err
		}
		if s.Inertia != nil {
			return errAt(join(p, "inertia"), "a compound's inertia comes from its parts")
		}
	case engine.Convex:
		if body.Shape, centre, principal, err = convexShape(join(p, "shape"), s.Shape); err != nil {
			return err
		}
		if s.Inertia != nil {
			return errAt(join(p, "inertia"), "a convex shape's inertia comes from its hull")
		}
	case engine.Mesh:
		if !s.Fixed && s.Motion == nil {
			return errAt(join(p, "fixed"), "a mesh has no volume to weigh: its body must be fixed (\"fixed\": true) or kinematic (a \"motion\")")
		}
		if s.Mass != nil || s.Density != nil || s.Inertia != nil {
			return errAt(p, "a mesh has no mass, density or inertia (its body is fixed or kinematic)")
		}
		if body.Shape, err = b.meshShape(join(p, "shape"), s.Shape); err != nil {
			return err
		}
	}
	if s.Motion != nil {
		if body.Motion, err = motion(join(p, "motion"), s); err != nil {
			return err
		}
	}
	if kind == engine.Plane {
		if !s.Fixed && s.Motion == nil {
			return errAt(join(p, "fixed"), "a plane must be fixed (\"fixed\": true)")
		}
		if s.Mass != nil || s.Density != nil || s.Inertia != nil {
			return errAt(p, "a plane has no mass, density or inertia")
		}
	}
	for _, f := range []struct {
		name string
		src  *Vec3
		dst  *mgl64.Vec3
	}{{"pos", s.Pos, &body.Pos}, {"vel", s.Vel, &body.Vel}, {"omega", s.Omega, &body.Omega}, {"force", s.Force, &body.Force}, {"torque", s.Torque, &body.Torque}} {
		if *f.dst, err = vec(join(p, f.name), f.src); err != nil {
			return err
		}
	}
	if body.Rot, err = rotation(join(p, "rot"), s.Rot); err != nil {
		return err
	}
	if kind == engine.Compound || kind == engine.Convex {
		placeCompound(&body, centre, principal)
	}
	if !s.Fixed && s.Motion == nil && s.Mass == nil && s.Density == nil {
		return errAt(p, "missing mass or density (a movable body needs one)")
	}
	if err := setMass(p, &body, s.Mass, s.Density); err != nil {
		return err
	}
	if s.Inertia != nil {
		for i, j := range s.Inertia {
			if err := checkPositive(index(join(p, "inertia"), i), j); err != nil {
				return err
			}
		}
		body.Inertia = mgl64.Vec3(*s.Inertia)
	}
	if body.Material, err = b.material(join(p, "material"), s.Material); err != nil {
		return err
	}
	b.model.Bodies = append(b.model.Bodies, body)
	return nil
}

// motion checks a body's "motion" (p its path) against the rest of the
// body s and returns it: a kinematic body is neither fixed nor given a
// mass, and its velocity and loads are its motion's business.
func motion(p string, s BodySpec) (*engine.Motion, error) {
	body := strings.TrimSuffix(p, ".motion")
	switch {
	case s.Fixed:
		return nil, errAt(body, "a body with a motion is kinematic, not fixed: drop \"fixed\" or \"motion\"")
	case s.Mass != nil || s.Density != nil || s.Inertia != nil:
		return nil, errAt(body, "a body with a motion is kinematic (infinite mass): it takes no mass, density or inertia")
	case s.Vel != nil || s.Omega != nil:
		return nil, errAt(body, "a kinematic body's velocity is its motion's: give vel and omega inside \"motion\"")
	case s.Force != nil || s.Torque != nil:
		return nil, errAt(body, "a kinematic body takes no force or torque: its motion is prescribed")
	}
	m := &engine.Motion{}
	var err error
	for _, f := range []struct {
		name string
		src  *Vec3
		dst  *mgl64.Vec3
	}{{"vel", s.Motion.Vel, &m.Vel}, {"omega", s.Motion.Omega, &m.Omega}, {"amplitude", s.Motion.Amplitude, &m.Amplitude}} {
		if *f.dst, err = vec(join(p, f.name), f.src); err != nil {
			return nil, err
		}
	}
	if f := s.Motion.Frequency; f != nil {
		if err := checkNonNegative(join(p, "frequency"), *f); err != nil {
			return nil, err
		}
		m.Frequency = *f
	}
	if m.Amplitude != (mgl64.Vec3{}) && m.Frequency == 0 {
		return nil, errAt(join(p, "frequency"), "an amplitude needs a frequency > 0 (Hz)")
	}
	return m, nil
}

// joint checks joint spec s (p its path) against the model's bodies and
// appends it.
func (b *builder) joint(p string, s JointSpec) error {
	kind, err := engine.ParseJointKind(s.Type)
	if err != nil {
		return errAt(join(p, "type"), "%v", err)
	}
	bodies := b.model.Bodies
	n := len(bodies)
	if s.Body1 == nil {
		return errAt(p, "missing body1 (a body id)")
	}
	j := engine.Joint{Kind: kind, Body1: *s.Body1, Body2: engine.World, Collide: s.Collide}
	if j.Body1 < 0 || j.Body1 >= n {
		return errAt(join(p, "body1"), "body id %d out of range [0, %d)", j.Body1, n)
	}
	if s.Body2 != nil {
		j.Body2 = *s.Body2
		if j.Body2 < 0 || j.Body2 >= n {
			return errAt(join(p, "body2"), "body id %d out of range [0, %d) (omit body2 for the world)", j.Body2, n)
		}
		if j.Body2 == j.Body1 {
			return errAt(join(p, "body2"), "the same body as body1 (%d): a joint joins two bodies, or a body and the world", j.Body1)
		}
	}
	static := func(i int) string {
		switch bd := &bodies[i]; {
		case bd.Motion != nil:
			return "kinematic"
		case bd.Shape.Kind == engine.Plane:
			return "a plane"
		case bd.Fixed:
			return "fixed"
		}
		return ""
	}
	if s1 := static(j.Body1); s1 != "" {
		if j.Body2 == engine.World {
			return errAt(p, "joins body %d (%s) to the world: neither can move", j.Body1, s1)
		}
		if s2 := static(j.Body2); s2 != "" {
			return errAt(p, "joins body %d (%s) and body %d (%s): neither can move", j.Body1, s1, j.Body2, s2)
		}
	}
	want := map[string]*Vec3{"point": s.Point, "axis": s.Axis}
	switch kind {
	case engine.JointDistance:
		want = map[string]*Vec3{"point1": s.Point1, "point2": s.Point2}
	case engine.JointSpherical, engine.JointFixed:
		delete(want, "axis")
	}
	given := map[string]*Vec3{"point": s.Point, "point1": s.Point1, "point2": s.Point2, "axis": s.Axis}
	for _, name := range []string{"point", "point1", "point2", "axis"} {
		if _, ok := want[name]; ok {
			if given[name] == nil {
				return errAt(p, "missing %s (a %s joint needs it)", name, kind)
			}
			if err := checkVec(join(p, name), *given[name]); err != nil {
				return err
			}
		} else if given[name] != nil {
			return errAt(join(p, name), "a %s joint takes no %s", kind, name)
		}
	}
	if s.Axis != nil {
		if mgl64.Vec3(*s.Axis).Len() == 0 {
			return errAt(join(p, "axis"), "zero vector")
		}
		j.Axis = mgl64.Vec3(*s.Axis)
	}
	if kind == engine.JointDistance {
		j.Point, j.Point2 = mgl64.Vec3(*s.Point1), mgl64.Vec3(*s.Point2)
		if j.Point2.Sub(j.Point).Len() == 0 {
			return errAt(join(p, "point2"), "the same point as point1: a distance joint needs a positive length")
		}
	} else {
		j.Point = mgl64.Vec3(*s.Point)
	}
	if s.Motor != nil {
		mp := join(p, "motor")
		if kind != engine.JointRevolute && kind != engine.JointPrismatic {
			return errAt(mp, "a %s joint has no motor (only revolute and prismatic)", kind)
		}
		if s.Motor.Speed == nil {
			return errAt(mp, "missing speed (rad/s for revolute, m/s for prismatic)")
		}
		if err := checkFinite(join(mp, "speed"), *s.Motor.Speed); err != nil {
			return err
		}
		j.Motor = &engine.Motor{Speed: *s.Motor.Speed}
		limit, name, other := s.Motor.MaxTorque, "max_torque", s.Motor.MaxForce
		if kind == engine.JointPrismatic {
			limit, name, other = s.Motor.MaxForce, "max_force", s.Motor.MaxTorque
		}
		if other != nil {
			return errAt(mp, "a %s motor's limit is %s", kind, name)
		}
		if limit != nil {
			if err := checkPositive(join(mp, name), *limit); err != nil {
				return err
			}
			j.Motor.MaxForce = *limit
		}
	}
	b.model.Joints = append(b.model.Joints, j)
	return nil
}

func (b *builder) container(p string, c ContainerSpec) error {
	mat, err := b.material(join(p, "material"), c.Material)
	if err != nil {
		return err
	}
	fixed := func(shape engine.Shape, pos mgl64.Vec3, rot mgl64.Quat) engine.Body {
		return engine.Body{Shape: shape, Pos: pos, Rot: rot, Fixed: true, Material: mat}
	}
	switch c.Type {
	case "box":
		if c.Point != nil || c.Normal != nil {
			return errAt(p, "point and normal apply to plane containers only")
		}
		if c.InnerMin == nil {
			return errAt(join(p, "inner_min"), "missing")
		}
		if c.InnerMax == nil {
			return errAt(join(p, "inner_max"), "missing")
		}
		lo, err := vec(join(p, "inner_min"), c.InnerMin)
		if err != nil {
			return err
		}
		hi, err := vec(join(p, "inner_max"), c.InnerMax)
		if err != nil {
			return err
		}
		for i := range 3 {
			if !(hi[i] > lo[i]) {
				return errAt(join(p, "inner_max"), "%v must exceed inner_min %v in every coordinate", hi, lo)
			}
		}
		if err := checkPositive(join(p, "thickness"), c.Thickness); err != nil {
			return err
		}
		walls := boxWalls(lo, hi, c.Thickness, c.Lid)
		if err := b.room(p, len(walls)); err != nil {
			return err
		}
		for _, w := range walls {
			if err := w.shape.Validate(); err != nil {
				return errAt(p, "wall %v: %v", w.pos, err)
			}
			b.model.Bodies = append(b.model.Bodies, fixed(w.shape, w.pos, mgl64.QuatIdent()))
		}
	case "cylinder":
		return b.drum(p, c, mat)
	case "plane":
		if c.InnerMin != nil || c.InnerMax != nil || c.Thickness != 0 || c.Lid {
			return errAt(p, "inner_min, inner_max, thickness and lid apply to box containers only")
		}
		point, err := vec(join(p, "point"), c.Point)
		if err != nil {
			return err
		}
		n := mgl64.Vec3{0, 0, 1}
		if c.Normal != nil {
			if n, err = vec(join(p, "normal"), c.Normal); err != nil {
				return err
			}
		}
		l := n.Len()
		if !(l > 0) || math.IsInf(l, 0) {
			return errAt(join(p, "normal"), "%v has no direction", n)
		}
		if err := b.room(p, 1); err != nil {
			return err
		}
		b.model.Bodies = append(b.model.Bodies, fixed(engine.PlaneShape(), point, rotationTo(n.Mul(1/l))))
	case "":
		return errAt(join(p, "type"), "missing (want box, plane or cylinder)")
	default:
		return errAt(join(p, "type"), "unknown container %q (want box, plane or cylinder)", c.Type)
	}
	if c.Centre != nil || c.Radius != 0 || c.Height != 0 || c.Sides != 0 {
		return errAt(p, "centre, radius, height and sides apply to cylinder containers only")
	}
	return nil
}

// drumSides is a cylinder container's number of walls (default 32).
func drumSides(c ContainerSpec) int {
	if c.Sides == 0 {
		return 32
	}
	return c.Sides
}

// maxDrumSides bounds a cylinder container's walls.
const maxDrumSides = 1024

// drum lays out a cylinder container (a drum about the vertical axis
// through centre): a square floor slab of thickness t whose top face is
// at centre (half-width radius + t), sides walls of thickness t whose
// inner faces are the sides of the regular polygon circumscribing the
// circle of the radius (each as long as that polygon's side at radius + t,
// so that the outer corners meet), height above the floor, and a slab lid
// on top if asked. The polygon lies within radius·(1/cos(π/sides) − 1) of
// the circle: 0.5 % of the radius for the 32 sides of the default.
func (b *builder) drum(p string, c ContainerSpec, mat int) error {
	if c.InnerMin != nil || c.InnerMax != nil || c.Point != nil || c.Normal != nil {
		return errAt(p, "inner_min, inner_max, point and normal do not apply to cylinder containers (give centre, radius, height)")
	}
	centre, err := vec(join(p, "centre"), c.Centre)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"radius", c.Radius}, {"height", c.Height}, {"thickness", c.Thickness}} {
		if err := checkPositive(join(p, f.name), f.v); err != nil {
			return err
		}
	}
	n := drumSides(c)
	if n < 3 || n > maxDrumSides {
		return errAt(join(p, "sides"), "%d must be 3 to %d", n, maxDrumSides)
	}
	if err := b.room(p, n+2); err != nil {
		return err
	}
	fixed := func(shape engine.Shape, pos mgl64.Vec3, rot mgl64.Quat) {
		b.model.Bodies = append(b.model.Bodies, engine.Body{Shape: shape, Pos: pos, Rot: rot, Fixed: true, Material: mat})
	}
	r, t, h := c.Radius, c.Thickness, c.Height
	slab := engine.BoxShape(r+t, r+t, t/2)
	fixed(slab, centre.Sub(mgl64.Vec3{0, 0, t / 2}), mgl64.QuatIdent())
	half := (r + t) * math.Tan(math.Pi/float64(n))
	wall := engine.BoxShape(t/2, half, h/2)
	for k := range n {
		a := 2 * math.Pi * float64(k) / float64(n)
		pos := centre.Add(mgl64.Vec3{(r + t/2) * math.Cos(a), (r + t/2) * math.Sin(a), h / 2})
		fixed(wall, pos, mgl64.QuatRotate(a, mgl64.Vec3{0, 0, 1}))
	}
	if c.Lid {
		fixed(slab, centre.Add(mgl64.Vec3{0, 0, h + t/2}), mgl64.QuatIdent())
	}
	return nil
}

type wall struct {
	pos   mgl64.Vec3
	shape engine.Shape
}

// boxWalls lays out an open box of inner size [lo, hi] and wall thickness
// t: a floor under the inner box and the x-walls' footprint, two x-walls
// spanning the outer y width, two y-walls spanning the inner x width, all
// walls spanning z from lo.z to hi.z, and a lid like the floor on top if
// asked. For lo = (−2, −2, 0), hi = (2, 2, 4), t = 0.2 these are exactly
// the boxes of bench/settle.md.
func boxWalls(lo, hi mgl64.Vec3, t float64, lid bool) []wall {
	c := lo.Add(hi).Mul(0.5) // inner centre
	h := hi.Sub(lo).Mul(0.5) // inner half-size
	slab := engine.BoxShape(h[0]+t, h[1]+t, t/2)
	ws := []wall{
		{mgl64.Vec3{c[0], c[1], lo[2] - t/2}, slab},
		{mgl64.Vec3{lo[0] - t/2, c[1], c[2]}, engine.BoxShape(t/2, h[1]+t, h[2])},
		{mgl64.Vec3{hi[0] + t/2, c[1], c[2]}, engine.BoxShape(t/2, h[1]+t, h[2])},
		{mgl64.Vec3{c[0], lo[1] - t/2, c[2]}, engine.BoxShape(h[0], t/2, h[2])},
		{mgl64.Vec3{c[0], hi[1] + t/2, c[2]}, engine.BoxShape(h[0], t/2, h[2])},
	}
	if lid {
		ws = append(ws, wall{mgl64.Vec3{c[0], c[1], hi[2] + t/2}, slab})
	}
	return ws
}

// rotationTo returns the shortest rotation taking +z to the unit vector n:
// the normalised (1 + n_z, ẑ × n) = (1 + n_z, −n_y, n_x, 0); a half turn
// about x when n = −z. It is exactly the identity for n = +z. For n_z < 0,
// 1 + n_z is computed as (n_x² + n_y²)/(1 − n_z) to avoid cancellation.
func rotationTo(n mgl64.Vec3) mgl64.Quat {
	w := 1 + n[2]
	if n[2] < 0 {
		w = (n[0]*n[0] + n[1]*n[1]) / (1 - n[2])
	}
	q := mgl64.Quat{W: w, V: mgl64.Vec3{-n[1], n[0], 0}}
	l := q.Len()
	if l == 0 {
		return mgl64.Quat{W: 0, V: mgl64.Vec3{1, 0, 0}}
	}
	return scaleQuat(q, 1/l)
}

// MaxSteps bounds the steps of one run: 10⁹ steps is 10⁷ s of simulated
// time at h = 0.01 s, and a quarter of an hour of wall time even at 1 µs a
// step (a scene of a few bodies); a run's per-step bookkeeping stays
// bounded up to it. Longer runs are split with checkpoints.
const MaxSteps = 1_000_000_000

// StepCount returns the steps a run of the given length takes: steps when
// it is positive, else duration/dt rounded to the nearest integer. It is
// an error when that is below 1 (a duration under half a time step) or
// above MaxSteps.
func StepCount(duration float64, steps int, dt float64) (int, error) {
	if steps > 0 {
		if steps > MaxSteps {
			return 0, fmt.Errorf("%d steps is more than the limit of %d in one run (split it with --checkpoint and --resume)", steps, MaxSteps)
		}
		return steps, nil
	}
	n := math.Round(duration / dt)
	switch {
	case !(n <= MaxSteps):
		return 0, fmt.Errorf("%g s at dt = %g s is %g steps, more than the limit of %d in one run (split it with --checkpoint and --resume)", duration, dt, n, MaxSteps)
	case n < 1:
		return 0, fmt.Errorf("%g s is less than half a time step (dt = %g s): the run would take no step", duration, dt)
	}
	return int(n), nil
}

// checkConvex checks a convex shape s at path: points and no size field,
// at least 4 finite points whose hull has volume (geom.NewHull's errors,
// naming the point).
func checkConvex(path string, s ShapeSpec) error {
	if err := noSizes(path, s, "a convex shape (its points give its size)"); err != nil {
		return err
	}
	if s.Points == nil {
		return errAt(join(path, "points"), "missing (a convex shape needs at least 4 points)")
	}
	for i, pt := range s.Points {
		if err := checkVec(index(join(path, "points"), i), pt); err != nil {
			return err
		}
	}
	_, _, _, err := convexShape(path, s)
	return err
}

// convexShape builds the convex shape of s (at path) with
// engine.NewConvex: the hull in its principal frame centred on its centre
// of mass; c, that centre in the frame the points are given in; q, the
// rotation from the principal frame to that frame.
func convexShape(path string, s ShapeSpec) (engine.Shape, mgl64.Vec3, mgl64.Quat, error) {
	pts := make([]mgl64.Vec3, len(s.Points))
	for i, pt := range s.Points {
		pts[i] = mgl64.Vec3(pt)
	}
	sh, c, q, err := engine.NewConvex(pts)
	if err != nil {
		return sh, c, q, errAt(join(path, "points"), "%v", err)
	}
	return sh, c, q, nil
}

// checkMesh checks a mesh shape s at path: a file, an optional positive
// scale, and no size field (the file is read when the body is built).
func checkMesh(path string, s ShapeSpec) error {
	if err := noSizes(path, s, "a mesh (its file gives its size)"); err != nil {
		return err
	}
	if s.File == "" {
		return errAt(join(path, "file"), "missing (a mesh needs an OBJ or STL file)")
	}
	if s.Scale != nil {
		return checkPositive(join(path, "scale"), *s.Scale)
	}
	return nil
}

// meshShape reads a checked mesh shape's file (relative to the scene's
// folder), scales it and makes its triangles (engine.NewMesh); errors name
// the field and the file.
func (b *builder) meshShape(path string, s ShapeSpec) (engine.Shape, error) {
	file := s.File
	if !filepath.IsAbs(file) {
		file = filepath.Join(b.dir, file)
	}
	m, err := geom.LoadMesh(file)
	if err != nil {
		return engine.Shape{}, errAt(join(path, "file"), "%v", err)
	}
	scale := 1.0
	if s.Scale != nil {
		scale = *s.Scale
		m = m.Scaled(scale)
	}
	sh, err := engine.NewMesh(m, file)
	if err != nil {
		return engine.Shape{}, errAt(join(path, "file"), "%v", err)
	}
	sh.Mesh.File, sh.Mesh.Scale = file, scale
	return sh, nil
}

// noSizes reports the first size field of s (at path), none of which
// applies to what.
func noSizes(path string, s ShapeSpec, what string) error {
	for _, f := range []struct {
		name  string
		given bool
	}{{"radius", s.Radius != nil}, {"half_height", s.HalfHeight != nil}, {"semi_axes", s.SemiAxes != nil}, {"half_extents", s.HalfExtents != nil}} {
		if f.given {
			return errAt(join(path, f.name), "does not apply to %s", what)
		}
	}
	return nil
}

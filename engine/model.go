package engine

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/geom"
)

// ShapeKind names a collision shape.
type ShapeKind uint8

// The shapes gpusim can collide.
const (
	Sphere    ShapeKind = iota // radius R
	Ellipsoid                  // semi-axes (a, b, c) along the body axes
	Box                        // half-extents (hx, hy, hz) along the body axes
	Plane                      // infinite half-space z ≤ 0 of the body frame; its outward normal is the body +z axis
	Compound                   // several bounded shapes in one rigid body (Shape.Compound)
	Capsule                    // radius r (Size[0]) about the segment of half-length h (Size[1]) along the body z axis
	Cylinder                   // radius r (Size[0]), half-height h (Size[1]), axis along the body z axis
	Convex                     // the convex hull of points (Shape.Hull), in a principal frame centred on its centre of mass
	Mesh                       // a triangle mesh (Shape.Mesh) of a fixed or kinematic body, in the body frame
	Triangle                   // one triangle of a mesh, a part the Collider makes: vertices (0, 0, 0), (a, 0, 0), (b, c, 0) of its frame, Size = (a, b, c)
)

// NumShapeKinds is the number of shape kinds.
const NumShapeKinds = Triangle + 1

// The kinds keep their numbers (checkpoints and VTK files store them): a
// new kind is appended, after Compound.
var shapeNames = [...]string{"sphere", "ellipsoid", "box", "plane", "compound", "capsule", "cylinder", "convex", "mesh", "triangle"}

func (k ShapeKind) String() string {
	if int(k) < len(shapeNames) {
		return shapeNames[k]
	}
	return fmt.Sprintf("ShapeKind(%d)", k)
}

// ParseShapeKind maps a kind's name ("sphere", "ellipsoid", "box",
// "plane", "compound", "capsule", "cylinder", "convex", "mesh",
// "triangle") to its kind.
func ParseShapeKind(s string) (ShapeKind, error) {
	for i, n := range shapeNames {
		if n == s {
			return ShapeKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown shape %q (want sphere, ellipsoid, box, plane, compound, capsule, cylinder, convex or mesh)", s)
}

// Shape is a convex collision shape in its body frame, centred on the body's
// centre of mass, or a compound of such shapes in a principal frame of the
// body centred on its centre of mass (see NewCompound).
type Shape struct {
	Kind ShapeKind
	// Size holds the radius in Size[0] for a sphere, the semi-axes for an
	// ellipsoid, the half-extents for a box, and the radius and the
	// half-length of the axis in Size[0] and Size[1] for a capsule or a
	// cylinder, in m. Unused for planes and compounds.
	Size mgl64.Vec3
	// Compound holds a compound's parts; nil for the other kinds.
	Compound *CompoundParts
	// Hull holds a convex shape's hull (see NewConvex); nil for the
	// other kinds. Like Compound, it is never changed once made.
	Hull *geom.Hull
	// Mesh holds a mesh shape's triangles (see NewMesh); nil for the other
	// kinds. Never changed once made.
	Mesh *MeshTriangles
}

// SphereShape returns a sphere of radius r (m).
func SphereShape(r float64) Shape { return Shape{Kind: Sphere, Size: mgl64.Vec3{r, r, r}} }

// EllipsoidShape returns an ellipsoid with semi-axes a, b, c (m).
func EllipsoidShape(a, b, c float64) Shape { return Shape{Kind: Ellipsoid, Size: mgl64.Vec3{a, b, c}} }

// BoxShape returns a box with half-extents hx, hy, hz (m).
func BoxShape(hx, hy, hz float64) Shape { return Shape{Kind: Box, Size: mgl64.Vec3{hx, hy, hz}} }

// CapsuleShape returns a capsule: the points within r (m) of the segment
// from (0, 0, −h) to (0, 0, h) (m) of the body frame.
func CapsuleShape(r, h float64) Shape { return Shape{Kind: Capsule, Size: mgl64.Vec3{r, h, 0}} }

// CylinderShape returns a solid circular cylinder of radius r (m) about the
// body z axis, between the planes z = −h and z = h (m).
func CylinderShape(r, h float64) Shape { return Shape{Kind: Cylinder, Size: mgl64.Vec3{r, h, 0}} }

// PlaneShape returns the half-space below the body's xy plane.
func PlaneShape() Shape { return Shape{Kind: Plane} }

// Validate reports a shape with non-positive or non-finite sizes.
func (s Shape) Validate() error {
	switch s.Kind {
	case Plane:
		return nil
	case Compound:
		if s.Compound == nil {
			return fmt.Errorf("compound has no parts")
		}
		return validateParts(s.Compound.Parts)
	case Sphere:
		if !(s.Size[0] > 0) || math.IsInf(s.Size[0], 0) {
			return fmt.Errorf("sphere radius %v must be positive and finite", s.Size[0])
		}
		return nil
	case Ellipsoid, Box:
		for i, v := range s.Size {
			if !(v > 0) || math.IsInf(v, 0) {
				what := "semi-axis"
				if s.Kind == Box {
					what = "half-extent"
				}
				return fmt.Errorf("%s %s %d is %v, must be positive and finite", s.Kind, what, i, v)
			}
		}
		return nil
	case Convex:
		return validateHull(s.Hull)
	case Mesh:
		return validateMesh(s.Mesh)
	case Triangle:
		if !(s.Size[0] > 0) || !(s.Size[2] > 0) || !finite3(s.Size) {
			return fmt.Errorf("triangle (a, b, c) = %v must have a > 0, c > 0 and be finite", s.Size)
		}
		return nil
	case Capsule, Cylinder:
		// A capsule of half-length 0 is a sphere: allowed. A cylinder of
		// height 0 has no volume.
		if !(s.Size[0] > 0) || math.IsInf(s.Size[0], 0) {
			return fmt.Errorf("%s radius %v must be positive and finite", s.Kind, s.Size[0])
		}
		if !(s.Size[1] > 0 || s.Kind == Capsule && s.Size[1] == 0) || math.IsInf(s.Size[1], 0) {
			want := "positive"
			if s.Kind == Capsule {
				want = "non-negative"
			}
			return fmt.Errorf("%s half_height %v must be %s and finite", s.Kind, s.Size[1], want)
		}
		return nil
	}
	return fmt.Errorf("unknown shape kind %d", s.Kind)
}

// Volume returns the shape's volume in m³ (+Inf for a plane, 0 for a mesh
// and a triangle; for a compound the sum of its parts', overlaps counted
// twice).
func (s Shape) Volume() float64 {
	switch s.Kind {
	case Compound:
		return s.Compound.volume()
	case Sphere:
		r := s.Size[0]
		return 4.0 / 3.0 * math.Pi * r * r * r
	case Ellipsoid:
		return 4.0 / 3.0 * math.Pi * s.Size[0] * s.Size[1] * s.Size[2]
	case Box:
		return 8 * s.Size[0] * s.Size[1] * s.Size[2]
	case Capsule:
		r, h := s.Size[0], s.Size[1]
		return math.Pi * r * r * (2*h + 4.0/3.0*r)
	case Cylinder:
		r, h := s.Size[0], s.Size[1]
		return 2 * math.Pi * r * r * h
	case Convex:
		v, _, _ := s.Hull.MassProperties()
		return v
	case Mesh, Triangle:
		return 0 // a surface: bodies of meshes are fixed or kinematic
	}
	return math.Inf(1)
}

// UnitInertia returns the principal moments of inertia per unit mass
// (m²) about the body axes (a compound's parts all of one density).
func (s Shape) UnitInertia() mgl64.Vec3 {
	a, b, c := s.Size[0], s.Size[1], s.Size[2]
	switch s.Kind {
	case Compound:
		return s.Compound.unitInertia()
	case Sphere:
		i := 0.4 * a * a
		return mgl64.Vec3{i, i, i}
	case Ellipsoid:
		return mgl64.Vec3{(b*b + c*c) / 5, (a*a + c*c) / 5, (a*a + b*b) / 5}
	case Box:
		// Full edge lengths are 2a, 2b, 2c: I = m(ℓ₂² + ℓ₃²)/12 = m(b² + c²)/3.
		return mgl64.Vec3{(b*b + c*c) / 3, (a*a + c*c) / 3, (a*a + b*b) / 3}
	case Cylinder:
		// Radius r = a, length ℓ = 2h = 2b: I_z = mr²/2,
		// I_x = I_y = m(3r² + ℓ²)/12 = m(3r² + 4h²)/12.
		ix := (3*a*a + 4*b*b) / 12
		return mgl64.Vec3{ix, ix, a * a / 2}
	case Capsule:
		return capsuleUnitInertia(a, b)
	case Convex:
		return hullUnitInertia(s.Hull)
	}
	return mgl64.Vec3{}
}

// BoundingRadius returns the radius of the smallest sphere about the centre
// that holds the shape (m); +Inf for a plane.
func (s Shape) BoundingRadius() float64 {
	switch s.Kind {
	case Compound:
		return s.Compound.boundingRadius()
	case Sphere:
		return s.Size[0]
	case Ellipsoid:
		return math.Max(s.Size[0], math.Max(s.Size[1], s.Size[2]))
	case Box:
		return s.Size.Len()
	case Capsule:
		return s.Size[0] + s.Size[1]
	case Cylinder:
		return math.Hypot(s.Size[0], s.Size[1])
	case Convex:
		return s.Hull.Radius()
	case Mesh:
		return s.Mesh.radius()
	case Triangle:
		a, b, c := s.Size[0], s.Size[1], s.Size[2]
		return math.Max(a, math.Hypot(b, c))
	}
	return math.Inf(1)
}

// capsuleUnitInertia returns the principal moments per unit mass (m²) of a
// solid capsule of radius r and half-length h: a cylinder of mass
// m_c = πr²·2h·ρ and two hemispheres of total mass m_s = 4/3·πr³·ρ. About
// the axis: m_c r²/2 + 2/5·m_s r². Across it, each hemisphere's moment about
// its flat face's diameter is 2/5·(m_s/2)r², its centroid 3r/8 from that
// face; by the parallel-axis theorem (through the centroid, then to the
// body centre, h + 3r/8 away) the pair gives
// m_s(2r²/5 + h² + 3hr/4), and the cylinder m_c(3r² + 4h²)/12.
func capsuleUnitInertia(r, h float64) mgl64.Vec3 {
	mc, ms := 2*h, 4.0/3.0*r // the masses over πr²ρ
	m := mc + ms
	iz := (mc*r*r/2 + ms*2*r*r/5) / m
	ix := (mc*(3*r*r+4*h*h)/12 + ms*(2*r*r/5+h*h+3*h*r/4)) / m
	return mgl64.Vec3{ix, ix, iz}
}

// Material holds contact properties. Two materials in contact combine by
// CombineMaterials.
type Material struct {
	Name string
	// Friction is the Coulomb coefficient μ ≥ 0.
	Friction float64
	// Cohesion is the largest pulling normal force ĉ ≥ 0 a contact can
	// carry, in N (APGD paper, section 2.4).
	Cohesion float64
	// RollingFriction is the rolling friction coefficient μ_r ≥ 0 (m): a
	// contact resists the relative rolling of its bodies with a torque
	// of at most μ_r times its normal force (Tasora & Anitescu 2013, as
	// Project Chrono's rolling contacts).
	RollingFriction float64
	// SpinningFriction is the spinning friction coefficient μ_s ≥ 0 (m):
	// the torque about the contact normal is at most μ_s times the
	// normal force.
	SpinningFriction float64
}

// CombineMaterials gives the friction and cohesion of a contact between two
// materials: the smaller of the two for each. This is Project Chrono's
// default composition for friction and cohesion, and it keeps a frictionless
// or non-cohesive body frictionless or non-cohesive against anything.
func CombineMaterials(a, b Material) (mu, cohesion float64) {
	return math.Min(a.Friction, b.Friction), math.Min(a.Cohesion, b.Cohesion)
}

// OneMaterial reports whether every material of mats has the same
// friction and the same cohesion, bit for bit: then every contact has them
// (CombineMaterials), whatever the bodies it joins.
func OneMaterial(mats []Material) bool {
	return !slices.ContainsFunc(mats, func(m Material) bool {
		return math.Float64bits(m.Friction) != math.Float64bits(mats[0].Friction) ||
			math.Float64bits(m.Cohesion) != math.Float64bits(mats[0].Cohesion)
	})
}

// CombineRolling gives the rolling and spinning friction coefficients (m)
// of a contact between two materials: the smaller of the two for each,
// Project Chrono's default composition (ChMaterialCompositionStrategy's
// CombineFriction, which ChContactMaterialCompositeNSC applies to the
// rolling and spinning coefficients too). A contact whose two combined
// coefficients are both 0 has no rolling rows (see RollingRows).
func CombineRolling(a, b Material) (rolling, spinning float64) {
	return math.Min(a.RollingFriction, b.RollingFriction), math.Min(a.SpinningFriction, b.SpinningFriction)
}

// HasLoads reports whether a body of the model has an external force or
// torque with a component other than +0 (−0 counts: −0 + −0 is −0 where
// +0 + −0 is +0). A model without loads may let every body read one
// body's +0s (collide.BodyArrays, the Vulkan backend's force and torque):
// the same values.
func (m *Model) HasLoads() bool {
	nonzero := func(v float64) bool { return v != 0 || math.Signbit(v) }
	for i := range m.Bodies {
		b := &m.Bodies[i]
		if slices.ContainsFunc(b.Force[:], nonzero) || slices.ContainsFunc(b.Torque[:], nonzero) {
			return true
		}
	}
	return false
}

// HasRolling reports whether a material of the model has a nonzero
// rolling or spinning friction coefficient, so that some contacts may
// have rolling rows.
func (m *Model) HasRolling() bool {
	for _, mt := range m.Materials {
		if mt.RollingFriction != 0 || mt.SpinningFriction != 0 {
			return true
		}
	}
	return false
}

// ArmsAlongNormal reports whether every contact the collider finds in the
// model has its two contact points on its normal through the bodies'
// centres, as far as the solve can tell: every body's ArmAlongNormal
// holds. The backends then hold a contact's arms as one number each,
// s = ρ n with ρ = s·n (the device's Jacobian of 8 values instead of 12:
// shaders/lib/jac.glsl; cpuref's jacobian.go), the same values on both.
// A kinematic body that is not a sphere keeps it only while its motion
// does not turn it (ArmsLayout).
func (m *Model) ArmsAlongNormal() bool {
	for i := range m.Bodies {
		if !m.Bodies[i].ArmAlongNormal() {
			return false
		}
	}
	return true
}

// ArmsLayout follows a loaded model's ArmsAlongNormal through a run, for
// the backends' Jacobians: Along is the model's at Load, and goes false
// for good when SetMotion gives a kinematic body that is not a sphere a
// motion that turns it (its arm counts from the next step on).
type ArmsLayout struct {
	Along   bool
	turners []int // the kinematic bodies that are not spheres, in order
}

// NewArmsLayout returns the layout of model m at Load.
func NewArmsLayout(m *Model) ArmsLayout {
	a := ArmsLayout{Along: m.ArmsAlongNormal()}
	for i := range m.Bodies {
		if b := &m.Bodies[i]; b.Motion != nil && b.Shape.Kind != Sphere {
			a.turners = append(a.turners, i)
		}
	}
	return a
}

// SetMotion records that kinematic body i takes motion mv
// (Driver.SetMotion).
func (a *ArmsLayout) SetMotion(i int, mv Motion) {
	if _, found := slices.BinarySearch(a.turners, i); found && mv.Omega != (mgl64.Vec3{}) {
		a.Along = false
	}
}

// ArmAlongNormal reports whether the body's contact points lie on the
// contacts' normals through its centre (a sphere: its centre ± its radius
// along the normal), or whether it never turns, so that its arm is never
// read (its angular velocity and inverse inertia are zero): fixed and not
// kinematic, or kinematic with a motion of zero Omega.
func (b *Body) ArmAlongNormal() bool {
	switch {
	case b.Shape.Kind == Sphere:
		return true
	case b.Motion != nil:
		return b.Motion.Omega == mgl64.Vec3{}
	}
	return b.Fixed || b.Shape.Kind == Plane
}

// Body is a rigid body as a user describes it.
type Body struct {
	Shape Shape
	// Pos is the centre of mass in the world frame (m).
	Pos mgl64.Vec3
	// Rot is the orientation, a unit quaternion taking body to world frame.
	Rot mgl64.Quat
	// Vel is the linear velocity in the world frame (m/s).
	Vel mgl64.Vec3
	// Omega is the angular velocity in the body frame (rad/s).
	Omega mgl64.Vec3
	// Mass (kg) and principal moments of inertia about the body axes
	// (kg·m²). Fill them with SetDensity or SetMass.
	Mass    float64
	Inertia mgl64.Vec3
	// Fixed bodies never move; planes are always fixed.
	Fixed bool
	// Material indexes Model.Materials.
	Material int
	// Force (N) and Torque (N·m) are constant external loads in the world
	// frame, applied at the centre of mass, added to gravity.
	Force, Torque mgl64.Vec3
	// Motion, if not nil, makes the body kinematic (see Motion): it needs
	// no mass, must not be Fixed, and ignores Vel, Omega and the loads.
	Motion *Motion
}

// SetMass sets the mass and the inertia of the body's shape for that mass.
func (b *Body) SetMass(m float64) {
	b.Mass = m
	b.Inertia = b.Shape.UnitInertia().Mul(m)
}

// SetDensity sets mass and inertia from the shape's volume and a density
// (kg/m³).
func (b *Body) SetDensity(rho float64) { b.SetMass(rho * b.Shape.Volume()) }

// Model is everything a simulation starts from.
type Model struct {
	Bodies    []Body
	Materials []Material
	// Gravity in m/s².
	Gravity mgl64.Vec3
	// Joints join pairs of bodies, or a body and the world.
	Joints []Joint
}

// Validate checks the model and names the first problem found.
func (m *Model) Validate() error {
	if len(m.Bodies) == 0 {
		return fmt.Errorf("model has no bodies")
	}
	if len(m.Materials) == 0 {
		return fmt.Errorf("model has no materials")
	}
	if !finite3(m.Gravity) {
		return fmt.Errorf("gravity %v is not finite", m.Gravity)
	}
	if math.IsInf(m.Gravity.Len(), 0) {
		return fmt.Errorf("gravity %v is too large: its magnitude overflows float64", m.Gravity)
	}
	for i, mt := range m.Materials {
		if !(mt.Friction >= 0) || math.IsInf(mt.Friction, 0) {
			return fmt.Errorf("material %d (%q): friction %v must be ≥ 0 and finite", i, mt.Name, mt.Friction)
		}
		if !(mt.Cohesion >= 0) || math.IsInf(mt.Cohesion, 0) {
			return fmt.Errorf("material %d (%q): cohesion %v must be ≥ 0 and finite", i, mt.Name, mt.Cohesion)
		}
		if !(mt.RollingFriction >= 0) || math.IsInf(mt.RollingFriction, 0) {
			return fmt.Errorf("material %d (%q): rolling_friction %v must be ≥ 0 and finite (m)", i, mt.Name, mt.RollingFriction)
		}
		if !(mt.SpinningFriction >= 0) || math.IsInf(mt.SpinningFriction, 0) {
			return fmt.Errorf("material %d (%q): spinning_friction %v must be ≥ 0 and finite (m)", i, mt.Name, mt.SpinningFriction)
		}
	}
	for i := range m.Bodies {
		if err := m.Bodies[i].validate(len(m.Materials)); err != nil {
			return fmt.Errorf("body %d: %w", i, err)
		}
	}
	for i := range m.Joints {
		if err := m.Joints[i].validate(m.Bodies); err != nil {
			return fmt.Errorf("joint %d (%s): %w", i, m.Joints[i].Kind, err)
		}
	}
	return nil
}

func (b *Body) validate(nmat int) error {
	if err := b.Shape.Validate(); err != nil {
		return err
	}
	for _, v := range []struct {
		name string
		x    mgl64.Vec3
	}{{"position", b.Pos}, {"velocity", b.Vel}, {"angular velocity", b.Omega}, {"force", b.Force}, {"torque", b.Torque}} {
		if !finite3(v.x) {
			return fmt.Errorf("%s %v is not finite", v.name, v.x)
		}
		if math.IsInf(v.x.Len(), 0) {
			return fmt.Errorf("%s %v is too large: its magnitude overflows float64", v.name, v.x)
		}
	}
	q := b.Rot
	n := q.Len()
	if math.IsNaN(n) || math.IsInf(n, 0) || math.Abs(n-1) > 1e-6 {
		return fmt.Errorf("orientation %v is not a unit quaternion (norm %v)", q, n)
	}
	if b.Material < 0 || b.Material >= nmat {
		return fmt.Errorf("material index %d out of range [0, %d)", b.Material, nmat)
	}
	if b.Motion != nil {
		if b.Fixed {
			return fmt.Errorf("a fixed body cannot have a motion")
		}
		return b.Motion.validate()
	}
	if b.Fixed || b.Shape.Kind == Plane {
		return nil
	}
	if b.Shape.Kind == Mesh {
		return fmt.Errorf("a mesh has no volume to weigh: make its body fixed or give it a motion (a kinematic body)")
	}
	if !(b.Mass > 0) || math.IsInf(b.Mass, 0) {
		return fmt.Errorf("mass %v must be positive and finite", b.Mass)
	}
	if math.IsInf(1/b.Mass, 0) {
		return fmt.Errorf("mass %v is too small: its inverse overflows float64", b.Mass)
	}
	for k, j := range b.Inertia {
		if !(j > 0) || math.IsInf(j, 0) {
			return fmt.Errorf("inertia %d is %v, must be positive and finite", k, j)
		}
		if math.IsInf(1/j, 0) {
			return fmt.Errorf("inertia %d is %v, too small: its inverse overflows float64", k, j)
		}
	}
	if a := b.Force.Mul(1 / b.Mass); math.IsInf(a.Len(), 0) {
		return fmt.Errorf("force %v on mass %v gives an acceleration whose magnitude overflows float64", b.Force, b.Mass)
	}
	return nil
}

func finite3(v mgl64.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

package scene

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Vec3 is a vector written as the JSON array [x, y, z].
type Vec3 [3]float64

// Quat is a quaternion written as the JSON array [w, x, y, z].
type Quat [4]float64

// Doc is a scene document: the Go form of the JSON format described in the
// package documentation. Pointer fields are optional; nil means "not given"
// and Build fills in the documented default.
type Doc struct {
	// Schema is the JSON Schema an editor checks the file against
	// (examples/scene.schema.json, say); gpusim does not read it.
	Schema      string          `json:"$schema,omitempty"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Gravity     *Vec3           `json:"gravity,omitempty"` // m/s²
	Materials   []MaterialSpec  `json:"materials"`
	Settings    SettingsSpec    `json:"settings"`
	Run         RunSpec         `json:"run"`
	Bodies      []BodySpec      `json:"bodies,omitempty"`
	Generators  []GeneratorSpec `json:"generators,omitempty"`
	Containers  []ContainerSpec `json:"containers,omitempty"`
	Joints      []JointSpec     `json:"joints,omitempty"`
	Merit       *MeritSpec      `json:"merit,omitempty"`
}

// MaterialSpec is one entry of "materials".
type MaterialSpec struct {
	Name     string   `json:"name"`
	Friction *float64 `json:"friction"`           // Coulomb μ ≥ 0, required
	Cohesion float64  `json:"cohesion,omitempty"` // N, ≥ 0
	// RollingFriction and SpinningFriction are the rolling and spinning
	// friction coefficients μ_r, μ_s (m, ≥ 0, default 0; see
	// engine.Material).
	RollingFriction  float64 `json:"rolling_friction,omitempty"`
	SpinningFriction float64 `json:"spinning_friction,omitempty"`
}

// SettingsSpec overrides fields of engine.DefaultSettings.
type SettingsSpec struct {
	Dt               *float64 `json:"dt,omitempty"` // s
	Solver           *string  `json:"solver,omitempty"`
	Tol              *float64 `json:"tol,omitempty"`
	MaxIter          *int     `json:"max_iter,omitempty"`
	Gd               *float64 `json:"gd,omitempty"`
	WarmStart        *bool    `json:"warm_start,omitempty"`
	Envelope         *float64 `json:"envelope,omitempty"`           // m
	BinSize          *float64 `json:"bin_size,omitempty"`           // m
	MaxRecoverySpeed *float64 `json:"max_recovery_speed,omitempty"` // m/s
	Workers          *int     `json:"workers,omitempty"`
	Precision        *string  `json:"precision,omitempty"` // "double" or "mixed"
}

// RunSpec says how long to run and what to trace.
type RunSpec struct {
	Duration *float64 `json:"duration,omitempty"` // s, default 1
	Steps    int      `json:"steps"`              // > 0 overrides Duration
	Trace    []int    `json:"trace"`              // body ids
}

// BodySpec is one entry of "bodies".
type BodySpec struct {
	Shape    ShapeSpec   `json:"shape"`
	Pos      *Vec3       `json:"pos,omitempty"`   // m
	Rot      *Quat       `json:"rot,omitempty"`   // unit quaternion [w, x, y, z]
	Vel      *Vec3       `json:"vel,omitempty"`   // m/s
	Omega    *Vec3       `json:"omega,omitempty"` // rad/s, body frame
	Mass     *float64    `json:"mass,omitempty"`  // kg
	Density  *float64    `json:"density,omitempty"`
	Inertia  *Vec3       `json:"inertia,omitempty"` // kg·m², principal moments
	Fixed    bool        `json:"fixed,omitempty"`
	Material string      `json:"material,omitempty"`
	Force    *Vec3       `json:"force,omitempty"`  // N, world frame
	Torque   *Vec3       `json:"torque,omitempty"` // N·m, world frame
	Motion   *MotionSpec `json:"motion,omitempty"` // makes the body kinematic
}

// MotionSpec prescribes a kinematic body's motion (engine.Motion): its
// centre moves by vel·t + amplitude·sin(2π·frequency·t) and it turns at
// omega, all in the world frame.
type MotionSpec struct {
	Vel       *Vec3    `json:"vel,omitempty"`       // m/s
	Omega     *Vec3    `json:"omega,omitempty"`     // rad/s
	Amplitude *Vec3    `json:"amplitude,omitempty"` // m
	Frequency *float64 `json:"frequency,omitempty"` // Hz
}

// JointSpec is one entry of "joints" (engine.Joint). Points and the axis
// are in the world frame at t = 0.
type JointSpec struct {
	Type    string     `json:"type"` // spherical, revolute, prismatic, fixed or distance
	Body1   *int       `json:"body1"`
	Body2   *int       `json:"body2,omitempty"`  // omitted: the world
	Point   *Vec3      `json:"point,omitempty"`  // m; all but distance
	Point1  *Vec3      `json:"point1,omitempty"` // m; distance: on body1
	Point2  *Vec3      `json:"point2,omitempty"` // m; distance: on body2
	Axis    *Vec3      `json:"axis,omitempty"`   // revolute and prismatic
	Motor   *MotorSpec `json:"motor,omitempty"`  // revolute and prismatic
	Collide bool       `json:"collide,omitempty"`
}

// MeritSpec names the figure of merit of a scene, which package run
// computes each step (merit.csv) and at the end (summary.json's "merit"):
// see the package documentation, section merit.
type MeritSpec struct {
	Type   string `json:"type"`             // chain, shaker, shear, mixer or flow-gap
	Bodies []int  `json:"bodies,omitempty"` // body ids it measures
	Point  *Vec3  `json:"point,omitempty"`  // m, world frame
	Axis   *Vec3  `json:"axis,omitempty"`   // world frame, any length but zero
}

// MotorSpec drives a joint (engine.Motor): speed in rad/s (revolute) or
// m/s (prismatic), with an optional limit max_torque (N·m, revolute) or
// max_force (N, prismatic).
type MotorSpec struct {
	Speed     *float64 `json:"speed"`
	MaxTorque *float64 `json:"max_torque,omitempty"`
	MaxForce  *float64 `json:"max_force,omitempty"`
}

// ShapeSpec is a shape. Exactly the size field of its type is given (parts
// for a compound).
type ShapeSpec struct {
	Type        string     `json:"type"`                  // sphere, ellipsoid, box, plane, compound, capsule or cylinder
	Radius      *Size      `json:"radius,omitempty"`      // sphere, capsule, cylinder
	HalfHeight  *Size      `json:"half_height,omitempty"` // capsule, cylinder: half the axis's length, along the body z axis
	SemiAxes    *[3]Size   `json:"semi_axes,omitempty"`
	HalfExtents *[3]Size   `json:"half_extents,omitempty"`
	Points      []Vec3     `json:"points,omitempty"` // convex only: the hull's points (m), in the frame of the body's pos and rot
	File        string     `json:"file,omitempty"`   // mesh only: an OBJ or STL file, relative to the scene file's folder
	Scale       *float64   `json:"scale,omitempty"`  // mesh only: the factor from the file's units to m (default 1)
	Parts       []PartSpec `json:"parts,omitempty"`  // compound only
}

// PartSpec is one part of a compound shape: a sphere, an ellipsoid or a box
// posed in the frame of the body's pos and rot.
type PartSpec struct {
	Shape ShapeSpec `json:"shape"`
	Pos   *Vec3     `json:"pos,omitempty"` // m, default [0, 0, 0]
	Rot   *Quat     `json:"rot,omitempty"` // unit quaternion [w, x, y, z], part to body frame
}

// GeneratorSpec is one entry of "generators": many bodies from one rule.
type GeneratorSpec struct {
	Type              string    `json:"type"` // lattice, random or pour
	Count             int       `json:"count"`
	Shape             ShapeSpec `json:"shape"`
	Mass              *float64  `json:"mass,omitempty"`    // kg per body
	Density           *float64  `json:"density,omitempty"` // kg/m³
	Material          string    `json:"material,omitempty"`
	RandomOrientation bool      `json:"random_orientation,omitempty"`
	Seed              Seed      `json:"seed,omitempty"`
	// Scale multiplies every length of each body's shape (its sizes, on
	// top of their own distributions; a convex hull's points about the
	// frame they are given in): a number, or a distribution drawn per
	// body. nil is 1, with no draw.
	Scale *Size `json:"scale,omitempty"`

	// lattice only
	Spacing   *float64 `json:"spacing,omitempty"` // m
	MaxPerRow int      `json:"max_per_row,omitempty"`
	Origin    *Vec3    `json:"origin,omitempty"` // m
	Jitter    float64  `json:"jitter,omitempty"` // m

	// random and pour: one of Region and Cylinder
	Region      *Region         `json:"region,omitempty"`
	Cylinder    *CylinderRegion `json:"cylinder,omitempty"`
	MaxAttempts int             `json:"max_attempts,omitempty"`

	// pour only: bodies per second (> 0), the first body's entry time (s,
	// ≥ 0; nil is 0) and the bodies' velocity as they enter (m/s; nil is
	// zero).
	Rate     float64  `json:"rate,omitempty"`
	Start    *float64 `json:"start,omitempty"`
	Velocity *Vec3    `json:"velocity,omitempty"`
}

// CylinderRegion is a solid cylinder about a vertical axis, in m: the
// centre of its bottom face, its radius and its height.
type CylinderRegion struct {
	Centre Vec3    `json:"centre"`
	Radius float64 `json:"radius"`
	Height float64 `json:"height"`
}

// Region is an axis-aligned box, in m.
type Region struct {
	Min Vec3 `json:"min"`
	Max Vec3 `json:"max"`
}

// ContainerSpec is one entry of "containers": fixed walls.
type ContainerSpec struct {
	Type     string `json:"type"` // box, plane or cylinder
	Material string `json:"material,omitempty"`

	// box
	InnerMin  *Vec3   `json:"inner_min,omitempty"` // m
	InnerMax  *Vec3   `json:"inner_max,omitempty"` // m
	Thickness float64 `json:"thickness,omitempty"` // m
	Lid       bool    `json:"lid,omitempty"`

	// plane
	Point  *Vec3 `json:"point,omitempty"` // m
	Normal *Vec3 `json:"normal,omitempty"`

	// cylinder (a drum about a vertical axis; Thickness and Lid as a box's)
	Centre *Vec3   `json:"centre,omitempty"` // m: the centre of its floor's top face
	Radius float64 `json:"radius,omitempty"` // m: of the circle its walls touch inside
	Height float64 `json:"height,omitempty"` // m: of its walls above the floor
	Sides  int     `json:"sides,omitempty"`  // walls around; default 32
}

// Size is a length in m: a fixed Value when Dist is empty, else a random
// draw per body from the distribution "uniform" on [Min, Max] or "normal"
// (Mean, Std) truncated to [Min, Max]. In JSON it is a number or an object
// {"dist": …, "min": …, "max": …, "mean": …, "std": …}.
type Size struct {
	Value               float64
	Dist                string
	Min, Max, Mean, Std float64
}

// sizeObject is the JSON object form of a distributed Size.
type sizeObject struct {
	Dist string   `json:"dist"`
	Min  *float64 `json:"min"`
	Max  *float64 `json:"max"`
	Mean *float64 `json:"mean,omitempty"`
	Std  *float64 `json:"std,omitempty"`
}

// MarshalJSON writes a number or a distribution object.
func (s Size) MarshalJSON() ([]byte, error) {
	if s.Dist == "" {
		return json.Marshal(s.Value)
	}
	o := sizeObject{Dist: s.Dist, Min: &s.Min, Max: &s.Max}
	if s.Dist == "normal" {
		o.Mean, o.Std = &s.Mean, &s.Std
	}
	return json.Marshal(o)
}

func (s *Size) decodeGeneric(v any, path string) error {
	if n, ok := v.(json.Number); ok {
		f, err := parseFloat(n, path)
		*s = Size{Value: f}
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return typeError(path, "a number or a distribution object", v)
	}
	var o sizeObject
	if err := decodeValue(v, &o, path); err != nil {
		return err
	}
	switch o.Dist {
	case "":
		return errAt(join(path, "dist"), "missing (want uniform or normal)")
	case "uniform":
		if o.Mean != nil || o.Std != nil {
			return errAt(path, "mean and std apply to the normal distribution only")
		}
	case "normal":
		if o.Mean == nil {
			return errAt(join(path, "mean"), "missing")
		}
		if o.Std == nil {
			return errAt(join(path, "std"), "missing")
		}
		s.Mean, s.Std = *o.Mean, *o.Std
	default:
		return errAt(join(path, "dist"), "unknown distribution %q (want uniform or normal)", o.Dist)
	}
	if o.Min == nil {
		return errAt(join(path, "min"), "missing")
	}
	if o.Max == nil {
		return errAt(join(path, "max"), "missing")
	}
	s.Dist, s.Min, s.Max = o.Dist, *o.Min, *o.Max
	return nil
}

// Seed seeds a generator's SplitMix64 stream. In JSON it is a non-negative
// integer or a string holding one in Go syntax ("1592126957",
// "0x5EED5EED").
type Seed uint64

// MarshalJSON writes seeds up to 2⁵³ as numbers (exact in any JSON reader)
// and larger ones as hexadecimal strings.
func (s Seed) MarshalJSON() ([]byte, error) {
	if s <= 1<<53 {
		return strconv.AppendUint(nil, uint64(s), 10), nil
	}
	return json.Marshal(fmt.Sprintf("0x%X", uint64(s)))
}

func (s *Seed) decodeGeneric(v any, path string) error {
	var text string
	switch x := v.(type) {
	case json.Number:
		text = string(x)
		if u, err := strconv.ParseUint(text, 10, 64); err == nil {
			*s = Seed(u)
			return nil
		}
		// 1e3 and 5.0 are integers too.
		if f, err := strconv.ParseFloat(text, 64); err == nil && f >= 0 && f <= 1<<53 && f == float64(uint64(f)) {
			*s = Seed(uint64(f))
			return nil
		}
	case string:
		text = x
		if u, err := strconv.ParseUint(x, 0, 64); err == nil {
			*s = Seed(u)
			return nil
		}
	default:
		return typeError(path, "an integer or a string like \"0x5EED5EED\"", v)
	}
	return errAt(path, "%s is not an integer in [0, 2⁶⁴)", text)
}

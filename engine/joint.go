package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// ErrUnsupported is returned (wrapped) by a backend that runs on this
// machine but not the model it was given (joints or kinematic bodies on a
// backend without them), so that callers may fall back to another one and
// say so.
var ErrUnsupported = errors.New("not supported by this backend")

// World is the body index of the world in Joint.Body2: a fixed frame at
// the origin with the identity orientation.
const World = -1

// JointKind names a joint.
type JointKind uint8

// The joints gpusim can simulate, with the number of bilateral rows each
// adds to the problem (a motor adds one more, see Motor).
const (
	JointSpherical JointKind = iota // 3 rows: the two bodies share a point
	JointRevolute                   // 5 rows: a shared point and a shared axis
	JointPrismatic                  // 5 rows: no relative rotation, body2's point stays on body1's axis
	JointFixed                      // 6 rows: no relative motion
	JointDistance                   // 1 row: the distance between two points is constant
)

var jointNames = [...]string{"spherical", "revolute", "prismatic", "fixed", "distance"}
var jointRows = [...]int{3, 5, 5, 6, 1}

func (k JointKind) String() string {
	if int(k) < len(jointNames) {
		return jointNames[k]
	}
	return fmt.Sprintf("JointKind(%d)", k)
}

// ParseJointKind maps "spherical", "revolute", "prismatic", "fixed" or
// "distance" to its kind.
func ParseJointKind(s string) (JointKind, error) {
	for i, n := range jointNames {
		if n == s {
			return JointKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown joint type %q (want spherical, revolute, prismatic, fixed or distance)", s)
}

// Rows returns the number of bilateral rows of a joint of this kind,
// without its motor row.
func (k JointKind) Rows() int {
	if int(k) < len(jointRows) {
		return jointRows[k]
	}
	return 0
}

// Joint joins Body1 to Body2 (a body index, or World). Point, Point2 and
// Axis are given in the world frame at t = 0 and attached to the bodies
// there.
type Joint struct {
	Kind         JointKind
	Body1, Body2 int
	// Point is the shared point (m); for a distance joint, the point on
	// Body1, and Point2 the point on Body2 (the joint keeps their distance
	// at t = 0).
	Point, Point2 mgl64.Vec3
	// Axis is the revolute joint's rotation axis or the prismatic joint's
	// sliding axis (any length but zero); it is attached to Body1.
	Axis mgl64.Vec3
	// Motor, if not nil, drives a revolute or prismatic joint.
	Motor *Motor
	// Collide lets the two bodies collide with each other; by default
	// jointed bodies do not.
	Collide bool
}

// Motor drives the relative speed of a revolute joint (Body1's angular
// velocity minus Body2's, about the axis, rad/s) or of a prismatic joint
// (Body1's point velocity minus Body2's, along the axis, m/s): one more
// row, whose impulse lies in [−MaxForce·h, MaxForce·h] (N·m·s or N·s).
type Motor struct {
	Speed float64
	// MaxForce is the largest torque (N·m) or force (N) the motor
	// applies; 0 means no limit.
	MaxForce float64
}

// Rows returns the joint's number of rows in the problem: its kind's plus
// one for a motor.
func (j *Joint) Rows() int {
	n := j.Kind.Rows()
	if j.Motor != nil {
		n++
	}
	return n
}

// Motion makes a body kinematic: its motion is prescribed, it has infinite
// mass in the solve, and contacts and joints see its velocity. Its centre
// follows x(t) = x₀ + Vel·t + Amplitude·sin(2π·Frequency·t) and its
// orientation q(t) = exp(Omega·t)·q₀ (a constant world-frame angular
// velocity).
type Motion struct {
	Vel       mgl64.Vec3 // m/s, world frame
	Omega     mgl64.Vec3 // rad/s, world frame
	Amplitude mgl64.Vec3 // m, world frame
	Frequency float64    // Hz
}

// Offset returns the displacement x(t) − x₀ (m) at time t.
func (m *Motion) Offset(t float64) mgl64.Vec3 {
	s := 0.0
	if m.Frequency != 0 {
		s = math.Sin(2 * math.Pi * m.Frequency * t)
	}
	return m.Vel.Mul(t).Add(m.Amplitude.Mul(s))
}

// Turn returns the rotation exp(Omega·t) (world frame) at time t.
func (m *Motion) Turn(t float64) mgl64.Quat {
	th := m.Omega.Mul(t)
	a := th.Len()
	if a == 0 {
		return mgl64.QuatIdent()
	}
	s, c := math.Sincos(a / 2)
	return mgl64.Quat{W: c, V: th.Mul(s / a)}
}

// Path is a kinematic body's prescribed trajectory: its Motion from the
// pose (Pos0, Rot0, unit) it had at time T0 (0 from the start of a run; a
// motion changed during a run restarts from the pose it had then, see
// Driver). Every backend takes a kinematic body's velocities and poses
// from Path's methods, so that all compute the same doubles.
type Path struct {
	Motion Motion
	Pos0   mgl64.Vec3
	Rot0   mgl64.Quat
	T0     float64
}

// StartVelocity returns the body's velocity at t = 0: v = Vel +
// 2π·Frequency·Amplitude (world frame; the derivative of the sine at 0)
// and ω̄ = Rot0⁻¹·Omega (body frame).
func (p *Path) StartVelocity() (v, w mgl64.Vec3) {
	m := &p.Motion
	v = m.Vel.Add(m.Amplitude.Mul(2 * math.Pi * m.Frequency))
	w = p.Rot0.Conjugate().Rotate(m.Omega)
	return v, w
}

// StepVelocity returns the body's velocity over the step [t, t+h]: the
// secant v = (x(t+h) − x(t))/h (world frame), so that integrating it lands
// exactly on the prescribed position, and ω̄ = Rot0⁻¹·Omega (body frame),
// constant in the body frame (the rotation exp(Omega·t) about a fixed
// world axis leaves Omega fixed).
func (p *Path) StepVelocity(t, h float64) (v, w mgl64.Vec3) {
	m := &p.Motion
	t -= p.T0
	v = m.Offset(t + h).Sub(m.Offset(t)).Mul(1 / h)
	w = p.Rot0.Conjugate().Rotate(m.Omega)
	return v, w
}

// Pose returns the body's prescribed centre Pos0 + Offset(t) and
// orientation Turn(t)·Rot0 (normalised) at time t.
func (p *Path) Pose(t float64) (mgl64.Vec3, mgl64.Quat) {
	m := &p.Motion
	t -= p.T0
	return p.Pos0.Add(m.Offset(t)), m.Turn(t).Mul(p.Rot0).Normalize()
}

// Kinematic reports whether the body's motion is prescribed.
func (b *Body) Kinematic() bool { return b.Motion != nil }

// Static reports whether the body has infinite mass in the solve: fixed,
// a plane, or kinematic.
func (b *Body) Static() bool { return b.Fixed || b.Shape.Kind == Plane || b.Motion != nil }

// JointRows returns the total number of joint rows of the model.
func (m *Model) JointRows() int {
	n := 0
	for i := range m.Joints {
		n += m.Joints[i].Rows()
	}
	return n
}

// HasKinematic reports whether a body of the model is kinematic.
func (m *Model) HasKinematic() bool {
	for i := range m.Bodies {
		if m.Bodies[i].Motion != nil {
			return true
		}
	}
	return false
}

// Retarget returns the path that follows motion m from time t on,
// starting from this path's pose at t (Pose(t)): the position and
// orientation stay continuous, the velocity becomes m's.
func (p *Path) Retarget(m Motion, t float64) Path {
	x, q := p.Pose(t)
	return Path{Motion: m, Pos0: x, Rot0: q, T0: t}
}

// Driver is implemented by backends that let a run change its motors and
// kinematic bodies' motions between steps (Sim.SetMotor, Sim.SetMotion).
type Driver interface {
	// SetMotor replaces the motor of joint j, which must have one.
	SetMotor(j int, m Motor) error
	// SetMotion replaces the motion of kinematic body i from time t (the
	// start of the coming step) on (Path.Retarget).
	SetMotion(i int, m Motion, t float64) error
}

// Check reports a motor whose speed is not finite or whose limit is
// negative or not finite.
func (m *Motor) Check() error {
	if math.IsNaN(m.Speed) || math.IsInf(m.Speed, 0) {
		return fmt.Errorf("motor speed %v is not finite", m.Speed)
	}
	if !(m.MaxForce >= 0) || math.IsInf(m.MaxForce, 0) {
		return fmt.Errorf("motor limit %v must be ≥ 0 and finite (0: no limit)", m.MaxForce)
	}
	return nil
}

// Check reports a motion with a value that is not finite or a negative
// frequency.
func (m *Motion) Check() error { return m.validate() }

func (m *Motion) validate() error {
	for _, v := range []struct {
		name string
		x    mgl64.Vec3
	}{{"velocity", m.Vel}, {"angular velocity", m.Omega}, {"amplitude", m.Amplitude}} {
		if !finite3(v.x) || math.IsInf(v.x.Len(), 0) {
			return fmt.Errorf("motion %s %v is not finite", v.name, v.x)
		}
	}
	if !(m.Frequency >= 0) || math.IsInf(m.Frequency, 0) {
		return fmt.Errorf("motion frequency %v must be ≥ 0 and finite", m.Frequency)
	}
	return nil
}

// validate checks joint j of a model with the given bodies.
func (j *Joint) validate(bodies []Body) error {
	if int(j.Kind) >= len(jointNames) {
		return fmt.Errorf("unknown joint kind %d", j.Kind)
	}
	n := len(bodies)
	if j.Body1 < 0 || j.Body1 >= n {
		return fmt.Errorf("body1 %d out of range [0, %d)", j.Body1, n)
	}
	if j.Body2 != World && (j.Body2 < 0 || j.Body2 >= n) {
		return fmt.Errorf("body2 %d out of range [0, %d) (or %d for the world)", j.Body2, n, World)
	}
	if j.Body1 == j.Body2 {
		return fmt.Errorf("body1 and body2 are the same body %d", j.Body1)
	}
	if bodies[j.Body1].Static() && (j.Body2 == World || bodies[j.Body2].Static()) {
		what := fmt.Sprintf("body %d", j.Body2)
		if j.Body2 == World {
			what = "the world"
		}
		return fmt.Errorf("joins body %d and %s, neither of which can move under forces (fixed, plane or kinematic)", j.Body1, what)
	}
	for _, v := range []struct {
		name string
		x    mgl64.Vec3
	}{{"point", j.Point}, {"point2", j.Point2}, {"axis", j.Axis}} {
		if !finite3(v.x) || math.IsInf(v.x.Len(), 0) {
			return fmt.Errorf("%s %v is not finite", v.name, v.x)
		}
	}
	switch j.Kind {
	case JointRevolute, JointPrismatic:
		if a := j.Axis.Len(); !(a > 0) {
			return fmt.Errorf("axis: zero vector")
		}
	case JointDistance:
		if !(j.Point2.Sub(j.Point).Len() > 0) {
			return fmt.Errorf("point1 and point2 coincide: a distance joint needs a positive length")
		}
	}
	if j.Motor != nil {
		if j.Kind != JointRevolute && j.Kind != JointPrismatic {
			return fmt.Errorf("a %s joint cannot have a motor (only revolute and prismatic)", j.Kind)
		}
		if err := j.Motor.Check(); err != nil {
			return err
		}
	}
	return nil
}

// Reaction is what a joint applies to its Body1 over the last step, in the
// world frame: the force (N) and the torque about Body1's centre of mass
// (N·m), from its rows' impulses divided by h (a motor's included).
type Reaction struct {
	Force, Torque mgl64.Vec3
}

// JointReactor is implemented by backends that run joints: the reactions
// of the model's joints, in order, for the impulses gamma of a step of
// length h (dst is reused when long enough).
type JointReactor interface {
	JointReactions(gamma Vec, h float64, dst []Reaction) ([]Reaction, error)
}

// Clock is implemented by backends that move kinematic bodies: Sim sets
// the simulated time at the start of each step, so that their prescribed
// motion is taken from the step's time also after a restore.
type Clock interface {
	SetTime(t float64)
}

// JointRows is implemented by a Problem that has joint rows after its
// 3·nc contact rows: γ = [contact rows | joint rows]. Joint rows are
// bilateral (their impulse is free: the projection is the identity) or
// motor rows (their impulse is clamped to an interval by Project). A
// Problem without the method has no joint rows.
type JointRows interface {
	// Joints returns the number of joint rows.
	Joints() int
}

// Rows returns the length of p's γ: 3·nc contact rows, the joint rows
// and 3 rows per rolling block (RollingRows).
func Rows(p Problem) int {
	n := 3 * p.Contacts()
	if j, ok := p.(JointRows); ok {
		n += j.Joints()
	}
	if r, ok := p.(RollingRows); ok {
		n += 3 * r.Rolling()
	}
	return n
}

// jointRowsOf returns the number of joint rows of p.
func jointRowsOf(p Problem) int {
	if j, ok := p.(JointRows); ok {
		return j.Joints()
	}
	return 0
}

package engine

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// MaxParts is the most parts a compound may have: a contact's index within
// its body pair packs the two parts' indices (collide.Collider.Sub).
const MaxParts = 1024

// Part is one shape of a compound body, posed in the body frame.
type Part struct {
	// Shape is a sphere, an ellipsoid or a box (a plane is unbounded, and
	// compounds do not nest).
	Shape Shape
	// Pos is the part's centre in the body frame (m).
	Pos mgl64.Vec3
	// Rot is a unit quaternion taking the part's frame to the body frame.
	Rot mgl64.Quat
}

// CompoundParts is the list of a compound shape's parts. A Shape refers to it
// by pointer so that Shape stays a comparable value; it is never changed
// once made.
type CompoundParts struct {
	Parts []Part
}

// CompoundShape returns the compound of parts, which must already be in a
// principal frame of the body with its origin at the centre of mass (as
// NewCompound puts them): the engine stores a body's inertia as its
// principal moments about its centre of mass.
func CompoundShape(parts []Part) Shape {
	return Shape{Kind: Compound, Compound: &CompoundParts{Parts: parts}}
}

// NewCompound makes a compound body's shape from parts given in any frame
// F of the body, all of one density: it finds the centre of mass c (in F)
// and a rotation q from the principal frame P to F, and returns the shape
// with its parts in P (centred on c). A body placed at pose (p, r) with
// the parts as given in F is the body at pose (p + r·c, r ⊗ q) with the
// returned shape; its angular velocity ω̄_F in F is q⁻¹·ω̄_F in P.
//
// Mass and inertia are the sums over the parts: overlapping parts count
// their common volume twice. Each part's inertia about its own centre is
// turned into F (R J Rᵀ) and moved to c by the parallel-axis theorem
// (+ V(|d|² 1 − d dᵀ), d the part's centre from c); the sum is
// diagonalised by Jacobi rotations. A tensor that is already diagonal up
// to offDiagTol keeps its axes: q is then the identity, exactly, so parts
// given in a principal frame (a symmetric body) keep their poses.
func NewCompound(parts []Part) (s Shape, c mgl64.Vec3, q mgl64.Quat, err error) {
	if err := validateParts(parts); err != nil {
		return Shape{}, c, q, err
	}
	vol := 0.0
	for _, p := range parts {
		v := p.Shape.Volume()
		vol += v
		c = c.Add(p.Pos.Mul(v))
	}
	c = c.Mul(1 / vol)
	if !finite3(c) || !(vol > 0) || math.IsInf(vol, 0) {
		return Shape{}, c, q, fmt.Errorf("compound: the parts' volume %v or centre %v is not finite", vol, c)
	}
	moved := make([]Part, len(parts))
	for i, p := range parts {
		moved[i] = Part{Shape: p.Shape, Pos: p.Pos.Sub(c), Rot: p.Rot}
	}
	q = principalRotation(unitInertiaTensor(moved))
	if q == mgl64.QuatIdent() {
		return CompoundShape(moved), c, q, nil
	}
	qi := q.Conjugate()
	for i := range moved {
		moved[i].Pos = qi.Rotate(moved[i].Pos)
		moved[i].Rot = qi.Mul(moved[i].Rot).Normalize()
	}
	return CompoundShape(moved), c, q, nil
}

// validateParts checks a compound's parts: at least one and at most
// MaxParts, each a valid sphere, ellipsoid or box with a finite centre
// and a unit orientation.
func validateParts(parts []Part) error {
	if len(parts) == 0 {
		return fmt.Errorf("compound has no parts")
	}
	if len(parts) > MaxParts {
		return fmt.Errorf("compound has %d parts, more than %d", len(parts), MaxParts)
	}
	for i, p := range parts {
		switch p.Shape.Kind {
		case Plane:
			return fmt.Errorf("part %d: a plane cannot be a part of a compound (it is unbounded)", i)
		case Compound:
			return fmt.Errorf("part %d: compounds do not nest (list the inner compound's parts in the outer one)", i)
		case Mesh, Triangle:
			return fmt.Errorf("part %d: a mesh cannot be a part of a compound (it has no volume to weigh: make it a fixed or kinematic body of its own)", i)
		}
		if err := p.Shape.Validate(); err != nil {
			return fmt.Errorf("part %d: %w", i, err)
		}
		if !finite3(p.Pos) || math.IsInf(p.Pos.Len(), 0) {
			return fmt.Errorf("part %d: position %v is not finite", i, p.Pos)
		}
		if n := p.Rot.Len(); math.IsNaN(n) || math.IsInf(n, 0) || math.Abs(n-1) > 1e-6 {
			return fmt.Errorf("part %d: orientation %v is not a unit quaternion (norm %v)", i, p.Rot, n)
		}
	}
	return nil
}

// unitInertiaTensor returns the inertia tensor per unit mass (m²) of parts
// of one density about the origin of their frame:
// Σ V_i (R_i diag(J_i) R_iᵀ + |p_i|² 1 − p_i p_iᵀ) / Σ V_i, with J_i the
// part's UnitInertia.
func unitInertiaTensor(parts []Part) mgl64.Mat3 {
	var t mgl64.Mat3
	vol := 0.0
	for _, p := range parts {
		v := p.Shape.Volume()
		vol += v
		r := p.Rot.Mat4().Mat3()
		j := p.Shape.UnitInertia()
		d := p.Pos
		dd := d.Dot(d)
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				// (R diag(j) Rᵀ)_ab = Σ_k R_ak j_k R_bk.
				s := r.At(a, 0)*j[0]*r.At(b, 0) + r.At(a, 1)*j[1]*r.At(b, 1) + r.At(a, 2)*j[2]*r.At(b, 2)
				s -= d[a] * d[b]
				if a == b {
					s += dd
				}
				t.Set(a, b, t.At(a, b)+v*s)
			}
		}
	}
	return t.Mul(1 / vol)
}

// offDiagTol is the size of an off-diagonal inertia term, relative to the
// trace, below which it counts as zero: 1e-14 is a few hundred roundings
// of the sums above, far below any physical asymmetry.
const offDiagTol = 1e-14

// principalRotation returns a unit quaternion q whose rotation matrix has
// the eigenvectors of the symmetric t as its columns (q takes the
// principal frame to t's frame), found by cyclic Jacobi rotations; the
// identity when t is diagonal up to offDiagTol.
func principalRotation(t mgl64.Mat3) mgl64.Quat {
	a := [3][3]float64{}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			a[i][j] = t.At(i, j)
		}
	}
	tol := offDiagTol * (math.Abs(a[0][0]) + math.Abs(a[1][1]) + math.Abs(a[2][2]))
	off := func() bool {
		return math.Abs(a[0][1]) > tol || math.Abs(a[0][2]) > tol || math.Abs(a[1][2]) > tol
	}
	if !off() {
		return mgl64.QuatIdent()
	}
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for sweep := 0; sweep < 50 && off(); sweep++ {
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			if math.Abs(a[p][q]) <= tol {
				continue
			}
			// The rotation by θ in the (p, q) plane that zeroes a_pq
			// (Numerical Recipes, §11.1): t = tan θ from cot 2θ.
			theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
			tn := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			cs := 1 / math.Sqrt(tn*tn+1)
			sn := tn * cs
			for k := 0; k < 3; k++ { // A ← A·G
				akp, akq := a[k][p], a[k][q]
				a[k][p], a[k][q] = cs*akp-sn*akq, sn*akp+cs*akq
			}
			for k := 0; k < 3; k++ { // A ← Gᵀ·A
				apk, aqk := a[p][k], a[q][k]
				a[p][k], a[q][k] = cs*apk-sn*aqk, sn*apk+cs*aqk
			}
			for k := 0; k < 3; k++ { // V ← V·G
				vkp, vkq := v[k][p], v[k][q]
				v[k][p], v[k][q] = cs*vkp-sn*vkq, sn*vkp+cs*vkq
			}
		}
	}
	m := mgl64.Mat3{v[0][0], v[1][0], v[2][0], v[0][1], v[1][1], v[2][1], v[0][2], v[1][2], v[2][2]}
	// Rotations keep det V = +1, so V is a proper rotation.
	return mgl64.Mat4ToQuat(m.Mat4()).Normalize()
}

// volume is the sum of the parts' volumes (m³).
func (c *CompoundParts) volume() float64 {
	v := 0.0
	if c == nil {
		return v
	}
	for _, p := range c.Parts {
		v += p.Shape.Volume()
	}
	return v
}

// unitInertia is the diagonal of the parts' inertia tensor per unit mass
// about the body origin (m²): the principal moments when the parts are in
// a principal frame centred on the centre of mass.
func (c *CompoundParts) unitInertia() mgl64.Vec3 {
	if c == nil {
		return mgl64.Vec3{}
	}
	t := unitInertiaTensor(c.Parts)
	return mgl64.Vec3{t.At(0, 0), t.At(1, 1), t.At(2, 2)}
}

// boundingRadius is the largest distance from the body origin of a point
// of a part's bounding sphere (m).
func (c *CompoundParts) boundingRadius() float64 {
	r := 0.0
	if c == nil {
		return r
	}
	for _, p := range c.Parts {
		r = math.Max(r, p.Pos.Len()+p.Shape.BoundingRadius())
	}
	return r
}

package engine

import (
	"errors"

	"github.com/go-gl/mathgl/mgl64"
)

// ErrUnavailable is returned (wrapped) by a backend that cannot run on this
// machine, so that callers may fall back to another one and say so.
var ErrUnavailable = errors.New("backend unavailable")

// Vec is a vector that lives on a backend (host memory for cpuref, a device
// buffer for gpu). Only the backend that made it can operate on it.
type Vec interface {
	Len() int
}

// LinAlg is the vector algebra the solvers need. Scalars come back to the
// caller; vectors stay on the backend.
type LinAlg interface {
	// NewVec returns a zeroed vector of length n.
	NewVec(n int) Vec
	// Copy sets dst = src.
	Copy(dst, src Vec)
	// Fill sets every element of dst to v.
	Fill(dst Vec, v float64)
	// Axpby sets dst = a·x + b·y; dst may alias x or y.
	Axpby(dst Vec, a float64, x Vec, b float64, y Vec)
	// MulElem sets dst_i = x_i·y_i; dst may alias x or y.
	MulElem(dst, x, y Vec)
	// Dot returns xᵀy.
	Dot(x, y Vec) float64
	// Write copies src (host) into dst; Read copies src into dst (host).
	Write(dst Vec, src []float64)
	Read(dst []float64, src Vec)
}

// VecReuser is implemented by a LinAlg that can give a vector's storage a
// new length, so that solvers and Sim keep their vectors from step to
// step instead of allocating them while the number of contacts changes.
type VecReuser interface {
	// ReuseVec returns a vector of length n: v's storage when v was made
	// by this LinAlg's kind and has room for n elements, else a new one
	// (v may be nil). Its contents are unspecified; v must not be used
	// afterwards.
	ReuseVec(v Vec, n int) Vec
}

// ReuseVec returns a vector of length n from l, reusing v's storage when
// l implements VecReuser, else l.NewVec(n). Its contents are unspecified.
func ReuseVec(l LinAlg, v Vec, n int) Vec {
	if r, ok := l.(VecReuser); ok {
		return r.ReuseVec(v, n)
	}
	return l.NewVec(n)
}

// Problem is one cone-complementarity problem
//
//	min ½γᵀNγ + rᵀγ   subject to γ_i ∈ Υ_i, i = 1…nc,
//
// with γ_i = (γ_n, γ_u, γ_w) and Υ_i = {‖(γ_u, γ_w)‖ ≤ μ_i (γ_n + c_i)},
// the friction cone shifted by the cohesion impulse c_i (APGD paper, eq. 11
// and section 2.4). Vectors have length 3·nc, contact i at 3i, 3i+1, 3i+2,
// unless the problem has joint rows (see JointRows and Rows): then nj more
// follow, each with its own set Υ_r: all of ℝ for a bilateral row (Project
// leaves it unchanged) or an interval [lo_r, hi_r] for a motor row (Project
// clamps it). BlockDiag writes N_rr on joint row r, Sweep updates joint
// rows one by one after the contacts (a projected Gauss–Seidel step with
// N_rr), AntiRelax leaves them at r, Cones covers contacts only. A problem
// with rolling friction (RollingRows) has 3·nr more rows after the joint
// rows, three per contact with rolling rows; see RollingRows for what
// each method does on them.
type Problem interface {
	LinAlg
	// Contacts returns nc.
	Contacts() int
	// Schur sets dst = N·x, matrix-free where N = Dᵀ M⁻¹ D.
	Schur(dst, x Vec)
	// Project sets dst = Π_Υ(x), contact by contact; dst may alias x.
	Project(dst, x Vec)
	// R returns r. Callers must not modify it.
	R() Vec
	// AntiRelax sets dst = r and then adds μ_i‖(u_i,u, u_i,w)‖ to each
	// normal row, the anti-relaxation term a_i of eq. 15 of the
	// anti-relaxation paper with u = Nγ + r the contact velocities.
	AntiRelax(dst, u Vec)
	// BlockDiag sets dst_3i = dst_3i+1 = dst_3i+2 = g_i = tr(N_ii)/3, the
	// block preconditioner of eq. 27 of the APGD paper (N_ii = D_iᵀM⁻¹D_i).
	BlockDiag(dst Vec)
	// Sweep runs one projected Gauss–Seidel sweep (Algorithm 2 of the APGD
	// paper, lines 3–7) over the contacts in order (SweepOrder's, where
	// the problem has one; else by index), updating gamma in place:
	// γ_i ← λ Π(γ_i − ω B_i (Nγ + r)_i) + (1 − λ) γ_i with B_i = I/g_i,
	// each contact seeing the updates of those before it; diag holds g_i
	// as BlockDiag writes it.
	Sweep(gamma, diag Vec, omega, lambda float64)
	// Cones copies μ_i and the cohesion impulse c_i of each contact into
	// mu and cohesion (host slices of length nc).
	Cones(mu, cohesion []float64)
}

// SweepOrder is a Problem whose Sweep takes the contacts in an order of
// its own: the backends colour the contacts so that no two of a colour
// share a movable body (a constraint graph colouring, as Box2D v3's) and
// sweep colour by colour, which lets a device update a colour's contacts
// in parallel with the result of the sequential sweep.
type SweepOrder interface {
	Problem
	// SweepOrder returns the contact indices in the order Sweep updates
	// them, a permutation of 0…nc−1 (the slice is the problem's; it is
	// valid until the next Build).
	SweepOrder() []int32
}

// CarriedSweeps is a Problem that runs several Gauss–Seidel sweeps in one
// call, carrying the bodies' velocities from one sweep to the next: Sweep
// forms M⁻¹Dγ from gamma and adds to it, contact by contact, M⁻¹D_i Δγ_i
// of each update; Sweeps(…, k) forms it once and runs k such sweeps, each
// from the velocities the last one left, as sequential-impulse solvers
// do. Each sweep makes Sweep's updates in Sweep's order; the velocities
// they read differ from M⁻¹Dγ formed anew only by the rounding of the
// updates added to them, so k = 1 is Sweep bit for bit, and backends that
// agree on Sweep agree on Sweeps. GaussSeidel.Solve calls it when it reads
// no residual between sweeps (no stopping test, no history), and saves the
// pass that forms M⁻¹Dγ in every sweep but the first.
type CarriedSweeps interface {
	Problem
	Sweeps(gamma, diag Vec, omega, lambda float64, k int)
}

// Backend computes the parts of a time step that touch bodies and contacts.
// A backend holds one simulation's state between calls.
type Backend interface {
	// Name identifies the backend and device ("cpu", "vulkan: <device>").
	Name() string
	// Load copies a validated model and settings into the backend.
	Load(m *Model, s *Settings) error
	// Collide finds the contacts at the current positions (the set
	// A(q, δ)) and returns their number.
	Collide() (int, error)
	// Build makes the problem of this step from the contacts: D (eq. 4),
	// and r = b + DᵀM⁻¹k with k = Mv + hf, b_i = (Φ_i/h, 0, 0).
	Build(h float64) (Problem, error)
	// WarmStart fills gamma with the last step's impulses of the contacts
	// that persist and zero elsewhere.
	WarmStart(gamma Vec) error
	// Integrate sets v = M⁻¹(k + Dγ) and advances positions and
	// orientations by h (eqs. 5 and 8), and remembers γ for WarmStart.
	Integrate(gamma Vec, h float64) error
	// FixedForce returns the total contact force (N) on fixed bodies for
	// the impulses gamma of a step of length h.
	FixedForce(gamma Vec, h float64) (mgl64.Vec3, error)
	// ReadState copies the body state back into s.
	ReadState(s *State) error
	// ReadContacts copies the current contacts into c.
	ReadContacts(c *Contacts) error
	// Close releases the backend's resources.
	Close() error
}

// State is the body state in structure-of-arrays form.
type State struct {
	// Pos: centre of mass, world frame (m), 3 per body.
	Pos []float64
	// Rot: orientation quaternion (w, x, y, z), 4 per body.
	Rot []float64
	// Vel: linear velocity, world frame (m/s), 3 per body.
	Vel []float64
	// Omega: angular velocity, body frame (rad/s), 3 per body.
	Omega []float64
}

// Resize makes room for n bodies.
func (s *State) Resize(n int) {
	s.Pos = resize(s.Pos, 3*n)
	s.Rot = resize(s.Rot, 4*n)
	s.Vel = resize(s.Vel, 3*n)
	s.Omega = resize(s.Omega, 3*n)
}

// Len returns the number of bodies.
func (s *State) Len() int { return len(s.Pos) / 3 }

// CopyFrom makes s a copy of src, resized to src's number of bodies (its
// arrays reused where they have room).
func (s *State) CopyFrom(src *State) {
	s.Resize(src.Len())
	copy(s.Pos, src.Pos)
	copy(s.Rot, src.Rot)
	copy(s.Vel, src.Vel)
	copy(s.Omega, src.Omega)
}

// Contacts holds contacts in structure-of-arrays form.
type Contacts struct {
	// A and B are the body indices, A < B.
	A, B []int32
	// Normal is the unit normal from A to B, world frame, 3 per contact.
	Normal []float64
	// PA and PB are the contact points in the frames of A and B (m).
	PA, PB []float64
	// Phi is the signed gap (m), negative when the bodies overlap.
	Phi []float64
	// Mu and Cohesion are the combined friction coefficient and cohesion
	// force (N) of the contact.
	Mu, Cohesion []float64
	// Rolling and Spinning are the combined rolling and spinning friction
	// coefficients (m) of the contact (CombineRolling). A contact with
	// either nonzero has three rolling rows (RollingRows); shorter slices
	// (contacts made by hand) read as zeros.
	Rolling, Spinning []float64
}

// HasRollingRows reports whether contact k has rolling rows: a nonzero
// combined rolling or spinning coefficient.
func (c *Contacts) HasRollingRows(k int) bool {
	return k < len(c.Rolling) && c.Rolling[k] != 0 || k < len(c.Spinning) && c.Spinning[k] != 0
}

// RollingCoefficients returns contact k's μ_r and μ_s (0 where the slices
// are short).
func (c *Contacts) RollingCoefficients(k int) (mur, mus float64) {
	if k < len(c.Rolling) {
		mur = c.Rolling[k]
	}
	if k < len(c.Spinning) {
		mus = c.Spinning[k]
	}
	return mur, mus
}

// RollingContacts returns the number of contacts with rolling rows.
func (c *Contacts) RollingContacts() int {
	n := 0
	for k := range c.Len() {
		if c.HasRollingRows(k) {
			n++
		}
	}
	return n
}

// Len returns the number of contacts.
func (c *Contacts) Len() int { return len(c.A) }

// Resize makes room for n contacts.
func (c *Contacts) Resize(n int) {
	c.A = resizeInt32(c.A, n)
	c.B = resizeInt32(c.B, n)
	c.Normal = resize(c.Normal, 3*n)
	c.PA = resize(c.PA, 3*n)
	c.PB = resize(c.PB, 3*n)
	c.Phi = resize(c.Phi, n)
	c.Mu = resize(c.Mu, n)
	c.Cohesion = resize(c.Cohesion, n)
	c.Rolling = resize(c.Rolling, n)
	c.Spinning = resize(c.Spinning, n)
}

// Empty empties c with room for n contacts, and for their rolling and
// spinning coefficients only when rolling (a model without rolling
// friction stores none: the accessors above read them as 0).
func (c *Contacts) Empty(n int, rolling bool) {
	c.A, c.B = emptyRoom(c.A, n), emptyRoom(c.B, n)
	c.Normal, c.PA, c.PB = emptyRoom(c.Normal, 3*n), emptyRoom(c.PA, 3*n), emptyRoom(c.PB, 3*n)
	c.Phi, c.Mu, c.Cohesion = emptyRoom(c.Phi, n), emptyRoom(c.Mu, n), emptyRoom(c.Cohesion, n)
	if !rolling {
		n = 0
	}
	c.Rolling, c.Spinning = emptyRoom(c.Rolling, n), emptyRoom(c.Spinning, n)
}

// Append appends src's contacts to c.
func (c *Contacts) Append(src *Contacts) {
	c.A = append(c.A, src.A...)
	c.B = append(c.B, src.B...)
	c.Normal = append(c.Normal, src.Normal...)
	c.PA = append(c.PA, src.PA...)
	c.PB = append(c.PB, src.PB...)
	c.Phi = append(c.Phi, src.Phi...)
	c.Mu = append(c.Mu, src.Mu...)
	c.Cohesion = append(c.Cohesion, src.Cohesion...)
	c.Rolling = append(c.Rolling, src.Rolling...)
	c.Spinning = append(c.Spinning, src.Spinning...)
}

// emptyRoom returns s emptied, with room for n elements.
func emptyRoom[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n, n+n/4)
}

func resizeInt32(s []int32, n int) []int32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int32, n, n+n/4)
}

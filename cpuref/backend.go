package cpuref

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/collide"
	"github.com/gpusim/gpusim/engine"
)

// Backend is the pure-Go engine.Backend.
//
// Body data is kept as structure of arrays: pos, vel (world, 3 per body),
// rot (w, x, y, z), omega (body frame, 3 per body), invMass (1/kg, 0 when
// fixed), invInertia (body frame principal, 1/(kg·m²), 3 per body).
type Backend struct {
	linalg
	// Collider holds the constant collision data (shapes, materials,
	// fixed flags, gravity, envelope), the contacts and their adjacency
	// and warm-start keys.
	collide.Collider
	settings engine.Settings
	mixed    bool // settings.precision "mixed" for this model (Settings.MixedFor)

	// What the kernels read of the Collider, set by Load and after each
	// Collide (see collided; not copies): the body count, the fixed flags
	// (true for planes), gravity (m/s²), the contacts and the body →
	// contact lists (Collider.Adjacency).
	n           int
	fixed       []bool
	gravity     mgl64.Vec3
	con         *engine.Contacts
	adjOff, adj []int32
	byA         bool // the contacts run by body A (runByA)

	pos, rot, vel, omega []float64
	invMass, invInertia  []float64
	invInertiaW          []float64 // R J̄⁻¹ Rᵀ of the step, 6 per body, for bodies that are not isotropic (frame.go); nil if there are none
	force, torque        []float64 // external, world frame
	vfree                []float64 // v + h M⁻¹ f, 6 per body (linear world, angular body)
	dv                   []float64 // M⁻¹ D x, 6 per body (world: frame.go; scratch of Schur, and of Build for vfree in the world frame)

	// The contacts' Jacobian (contacts: see collide.Collider): n, u and
	// the contact points from the bodies' centres s_A, s_B, all world, 12
	// per contact (contactRows); where arms is set, s = ρ n (Build), and
	// where compact is set too, n, u, ρ_A, ρ_B, 8 per contact
	// (contactRowsArms, jacobian.go's compactFrom).
	jac     []float64
	compact bool
	// The contacts' μ and cohesion impulses h·ĉ (N·s) as the solver
	// reads them: per contact (mu is the collider's Contacts.Mu), or, in
	// a model of one friction and one cohesion (oneMaterial) with the
	// collider's contacts, one value each that every contact takes (mu
	// and coh of length 1: projectCones' convention, coneAt), as the
	// device holds them (Build).
	mu, coh     []float64
	mu1         [1]float64
	oneMaterial bool
	r           Vec        // r = b + Dᵀ M⁻¹ k
	rv          engine.Vec // r as R returns it (nil: not boxed yet)
	h           float64
	prob        problem

	// arms: the model's contact points lie on the normals through the
	// bodies' centres (engine.Model.ArmsAlongNormal, as layout follows it
	// through SetMotion) and the contacts are the collider's (not set by
	// SetContacts, external).
	arms, external bool
	layout         engine.ArmsLayout

	// Warm start: the last step's impulses (keys: see collide.Collider).
	prevGamma []float64

	fixedPart [3][]float64 // FixedForce's per-chunk sums, per component

	col colouring // the gs sweep's contact colouring (colour.go)

	jt joints  // joint rows and kinematic bodies (joint.go)
	rl rolling // rolling and spinning friction rows (rolling.go)

	apgd  apgdWork // SolveAPGD's vectors and loops
	args  loopArgs // operands of the running parallel loop
	loops struct { // the parallel loops' bodies, made once by New
		contactVelocities, project, blockDiag, build taskFunc
		freeVelocity, worldVelocity, bodyImpulse     taskFunc
		integrate, sweep                             taskFunc
	}
}

// loopArgs are the operands of the parallel loop that runs, set before
// and cleared after it, so that loops need no closures (no allocation per
// loop).
type loopArgs struct {
	x, d Vec
	dv   []float64
	h    float64
	// The sweep's (sweepContacts): ω, λ, and the first contact in the
	// colouring's order of the colour that runs.
	omega, lambda float64
	base          int
}

// New returns a CPU backend running loops on up to workers goroutines (0:
// GOMAXPROCS).
func New(workers int) *Backend {
	b := &Backend{linalg: linalg{pool: newPool(workers)}}
	l := &b.loops
	l.contactVelocities, l.project, l.blockDiag, l.build = b.contactVelocities, b.project, b.blockDiag, b.build
	l.freeVelocity, l.worldVelocity, l.bodyImpulse = b.freeVelocities, b.worldVelocities, b.bodyImpulses
	l.integrate, l.sweep = b.integrate, b.sweepPart
	return b
}

// runCollide is the collide.Runner of the backend's pool.
func (b *Backend) runCollide(n, grain int, f func(part, lo, hi int)) {
	b.pool.run(n, grain, taskFunc(f))
}

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Close releases nothing: memory is garbage collected.
func (b *Backend) Close() error { return nil }

// Load copies the model into the backend's arrays.
func (b *Backend) Load(m *engine.Model, s *engine.Settings) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("cpuref: %w", err)
	}
	if s.Workers > 0 {
		b.pool = newPool(s.Workers)
	}
	b.Collider.Load(m, s)
	// The narrowphase on the pool's workers where there are several (the
	// contacts are the same for any number: collide.Runner).
	b.Collider.SetRunner(nil)
	if b.pool.workers > 1 {
		b.Collider.SetRunner(b.runCollide)
	}
	b.collided()
	n := b.n
	b.settings = *s
	b.mixed = s.MixedFor(m)
	b.oneMaterial = engine.OneMaterial(b.MaterialTable())
	b.layout, b.external = engine.NewArmsLayout(m), false
	b.arms = b.layout.Along
	a := b.Collider.BodyArrays(m)
	b.pos, b.rot, b.vel, b.omega = a.Pos, a.Rot, a.Vel, a.Omega
	b.invMass, b.invInertia, b.force, b.torque = a.InvMass, a.InvInertia, a.Force, a.Torque
	b.vfree = make([]float64, 6*n)
	b.dv = make([]float64, 6*n, 6*n+2) // room for bodyImpulses4's 8-wide masked stores
	b.invInertiaW = nil
	for i := range n {
		if !b.fixed[i] && !b.isotropic(i) {
			// Only bodies that are not isotropic read it (frame.go): a
			// model of spheres keeps no 48 bytes per body for it.
			b.invInertiaW = make([]float64, 6*n)
			break
		}
	}
	b.prevGamma = b.prevGamma[:0]
	b.loadJoints(m)
	b.rl = rolling{on: m.HasRolling(), prev: b.rl.prev[:0]}
	return nil
}

// ReadState copies the body state into s.
func (b *Backend) ReadState(s *engine.State) error {
	st := b.state()
	s.CopyFrom(&st)
	return nil
}

// state is the body state over b's own arrays (not a copy).
func (b *Backend) state() engine.State {
	return engine.State{Pos: b.pos, Rot: b.rot, Vel: b.vel, Omega: b.omega}
}

// ReadContacts copies the current contacts into c.
func (b *Backend) ReadContacts(c *engine.Contacts) error {
	nc := b.con.Len()
	c.Resize(nc)
	copy(c.A, b.con.A)
	copy(c.B, b.con.B)
	copy(c.Normal, b.con.Normal)
	copy(c.PA, b.con.PA)
	copy(c.PB, b.con.PB)
	copy(c.Phi, b.con.Phi)
	copy(c.Mu, b.con.Mu)
	copy(c.Cohesion, b.con.Cohesion)
	clear(c.Rolling[copy(c.Rolling, b.con.Rolling):])
	clear(c.Spinning[copy(c.Spinning, b.con.Spinning):])
	return nil
}

func (b *Backend) quat(i int) mgl64.Quat {
	return mgl64.Quat{W: b.rot[4*i], V: mgl64.Vec3{b.rot[4*i+1], b.rot[4*i+2], b.rot[4*i+3]}}
}

func (b *Backend) position(i int) mgl64.Vec3 {
	return mgl64.Vec3{b.pos[3*i], b.pos[3*i+1], b.pos[3*i+2]}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// Backend is the Vulkan engine.Backend: the time step's arithmetic runs in
// the compute kernels of package shaders on float64 device buffers, in
// cpuref's structure-of-arrays layout, and matches cpuref bit for bit
// kernel by kernel (see each kernel's header); only the reductions
// (LinAlg.Dot, FixedForce) sum in another fixed order.
//
// Per step:
//
//   - Collide: on the device (see deviceCollider): the collide_* kernels
//     (margins and AABBs, grid binning, candidate pairs, the narrowphase of
//     every pair kind of collide's table — closed forms for sphere–sphere,
//     sphere–box, sphere–plane, box–plane and ellipsoid–plane; SAT and
//     clipping for box–box; Eberly's closest point for sphere–ellipsoid;
//     GJK, EPA and Newton for ellipsoid–ellipsoid and ellipsoid–box —,
//     contacts, adjacency) are recorded after the last step's Integrate
//     and submitted together, one submit, and the counts read back from
//     host-visible memory. An ellipsoid pair whose EPA polytope outgrows
//     the device's 32 vertices is read back and run through collide's
//     narrowphase on the host, and a second submit merges its contacts in
//     pair order; so is every pair of a row of the narrowphase table that
//     the device cannot build (narrow.go: one pipeline per group of rows
//     the model needs). Outgrown buffers grow and the kernels run again.
//     A model with compound bodies collides on the host (collideHost).
//   - Build: free_velocity, world_velocity (vfree turned into the world
//     frame, into dv, for r) and jacobian, recorded, not submitted; the
//     kinematic bodies' free velocities are recorded over free_velocity's
//     (Batch.Update, kinematic.go); joint_rows builds the joint rows
//     (joint.go), which follow the 3·nc contact rows in γ and r.
//   - the solver: Problem's Schur (body_impulse + contact_velocity, with
//     joint_ops on the joint rows), Project, AntiRelax, BlockDiag and
//     Sweep record into the LinAlg's
//     open batch with the vector operations; only Dot, Read, Write and
//     Cones submit. APGD and APGD-AR run on the device (SolveAPGD, see
//     apgd.go), and so do Jacobi with the power iteration of its ω
//     (SolveJacobi and JacobiRho, jacobi.go), gs with a tolerance or
//     history (SolveGS, gs.go; without either engine's loop reads no
//     residual until the end and its sweeps already share a submit) and
//     SPG (SolveSPG, spg.go): scalars in a device buffer, 16 to 64
//     iterations per submit. A sweep is a dispatch per colour (the
//     contacts coloured so that a colour's share no movable body,
//     gs_colour, in the first Sweep or SolveGS of a step; gs_colour_sweep
//     runs a colour's contacts in parallel, gs_sweep's one invocation the
//     tail, joint rows and rolling blocks in order: cpuref's order,
//     colour.go). pdip keeps its Newton iteration's scalars (the line
//     search, the step lengths, the multipliers) on the host, each of its
//     Dots a submit and a read-back, and solves its Newton systems on the
//     device (SolvePCG, pcg.go: PCG with its scalars in the device buffer,
//     16 iterations per submit, the first submit as many as the last
//     system took and two more, for a symmetric N; BiCGSTAB for a
//     non-symmetric one stays host-driven).
//   - FixedForce: fixed_force and three sum passes, one submit.
//   - Integrate: body_impulse and integrate (then the kinematic bodies'
//     prescribed poses and velocities, recorded), and collide_keys' copy
//     of the contact keys and γ for the next WarmStart (keepKeys),
//     recorded; the next Collide or ReadState submits them.
//   - WarmStart: collide_keys matches the contact keys with the last
//     step's on the device, recorded, not submitted.
//
// Body buffers (n bodies, SI units as in engine.State): pos, rot, vel,
// omega, invMass, invInertia, force, torque as cpuref's Backend, vfree (6
// per body: linear world frame, angular body frame) and dv (6 per body,
// world frame: cpuref's frame.go; Build's copy of vfree so turned, then
// the solve's M⁻¹Dx), fixedBody
// (uint32, nonzero for fixed bodies and planes, fixedKinematic for
// kinematic bodies), adjOff (uint32, n+1), invInertiaW (6 per body: the
// step's R J̄⁻¹ Rᵀ, world_velocity; one body's room in a model whose
// bodies are all isotropic).
// Contact buffers (nc contacts), grown with Buffer.Grow as nc grows: a, b
// (uint32), normal, pa, pb (3), phi, mu, cohesion (1), jac (12: n, u,
// s_A, s_B, world frame), coh (1, N·s), r (3), adj (uint32, at most 2nc),
// prevGamma (3, float32 with settings.precision "mixed"); mu, cohesion
// and coh hold one value in all for a model of one material
// (oneMaterial). deviceCollider lists its own.
//
// A Backend is not safe for concurrent use.
type Backend struct {
	d      *Device
	owned  bool // Close closes d
	closed bool
	l      *LinAlg
	k      struct {
		freeVelocity, worldVelocity, jacobian, bodyImpulse, contactVelocity, project, antiRelax,
		blockDiag, sweep, integrate, fixedForce, jointRows, jointOps, rollingOps *Kernel
	}

	host     hostCollider
	dc       deviceCollider
	kin      kinematics
	jt       joints
	rl       rolling
	col      colouring  // the gs sweep's contact colouring (colour.go)
	grd      guardState // engine.StateGuard (guard.go)
	dchk     diagCheck  // engine.DeviceBlockDiag (diagcheck.go)
	settings engine.Settings
	mixed    bool // settings.precision "mixed" for this model (Settings.MixedFor): apgd's float32 kernels
	n        int  // bodies
	nc       int  // contacts
	loaded   bool // Load succeeded

	// Body buffers, made by Load.
	pos, rot, vel, omega, invMass, invInertia, force, torque, vfree, dv, fixedBody, adjOff *Buffer
	// invInertiaW: R J̄⁻¹ Rᵀ of the step, 6 per body (world_velocity).
	invInertiaW *Buffer
	// fstride is the stride of force and torque in free_velocity and
	// collide_aabb: 3, or 0 for a model without external loads
	// (engine.Model.HasLoads), whose force and torque hold one body's +0s
	// as the host's arrays do (collide.BodyArrays): 48 B per body less.
	fstride uint32
	// Contact buffers, made empty by newBackendOn and grown by Collide.
	a, b, normal, pa, pb, phi, mu, cohesion, jac, coh, r, adj, prevGamma *Buffer
	// oneMaterial: every material of the model has the same friction and
	// the same cohesion, so every contact has them, and mu, cohesion and
	// coh hold one value that the kernels share (matBytes,
	// shaders/lib/contact_material.glsl): 16 B per contact slot and 8 B
	// per contact found less, the bodies' materials as one body's (16 B
	// per body less), and 16 B per contact less to read in each
	// iteration.
	oneMaterial bool
	// footprint: the loaded model's Footprint (without a run's guard),
	// for EstimateDeviceMemoryBytes; its Arms, the Jacobian's layout
	// (jacBytes, jac.arms), is layout's Along, which SetMotion may turn
	// off (engine.ArmsLayout).
	footprint Footprint
	layout    engine.ArmsLayout

	// fixed_force's per-chunk sums, per component, and FixedForce's result
	// (host-visible).
	partial [3]*Buffer
	force3  *Buffer

	rVec Vec // r as a vector of l, length 3nc after Build
	prob problem

	// The device solvers' work vectors and scalar buffer (apgd.go,
	// devsolve.go), kept from solve to solve so that a time step makes no
	// new Vulkan buffers once they have grown to its size (devVec).
	devVecs    []engine.Vec
	devScalars *Buffer
	pcgHost    []float64 // SolvePCG's blocks, packed for the device (pcg.go)
	pcgLast    int       // the last SolvePCG's iterations
}

// newBackend opens the device opt chooses and makes a backend that owns it.
func newBackend(opt Options) (*Backend, error) {
	d, err := Open(opt)
	if err != nil {
		return nil, err
	}
	b, err := newBackendOn(d)
	if err != nil {
		d.Close()
		return nil, err
	}
	b.owned = true
	return b, nil
}

// jacKernels sets the kernels that read or write the Jacobian or the
// warm start's kept impulses to their float32-storage builds
// (settings.precision "mixed", shaders/lib/store.glsl) when f32, else to
// the float64 ones. The float64 ones are built with the backend; the
// others on first use (the device keeps every kernel built).
func (b *Backend) jacKernels(f32 bool) error {
	for _, k := range []struct {
		k    **Kernel
		d, f shaders.Module
	}{
		{&b.k.jacobian, shaders.Jacobian, shaders.JacobianF32},
		{&b.k.bodyImpulse, shaders.BodyImpulse, shaders.BodyImpulseF32},
		{&b.k.contactVelocity, shaders.ContactVelocity, shaders.ContactVelocityF32},
		{&b.k.fixedForce, shaders.FixedForce, shaders.FixedForceF32},
		{&b.dc.k.keys, shaders.CollideKeys, shaders.CollideKeysF32},
	} {
		m := k.d
		if f32 {
			m = k.f
		}
		var err error
		if *k.k, err = b.d.Kernel(m); err != nil {
			return fmt.Errorf("gpu: settings.precision %q: %w", b.settings.Precision, err)
		}
	}
	return nil
}

// keptBytes is the bytes per contact of the warm start's kept impulses
// (prevGamma): 3 float64, or 3 float32 with settings.precision "mixed"
// (collide_keys_f32).
func (b *Backend) keptBytes() int64 {
	if b.mixed {
		return 12
	}
	return 24
}

// jacBytes is the Jacobian's bytes per contact: 12 float64, or 12 float32
// with settings.precision "mixed"; two thirds of that (8 values: n, u,
// ρ_A, ρ_B) where the contacts' arms lie along their normals
// (footprint.Arms, lib/jac.glsl's JAC_ARMS).
func (b *Backend) jacBytes() int64 {
	n := int64(jacobianBytes)
	if b.mixed {
		n /= 2
	}
	if b.footprint.Arms {
		n = n * 2 / 3
	}
	return n
}

// newBackendOn makes a backend on an open device, which it does not close.
func newBackendOn(d *Device) (*Backend, error) {
	b := &Backend{d: d}
	for _, k := range []struct {
		k **Kernel
		m shaders.Module
	}{
		{&b.k.freeVelocity, shaders.FreeVelocity}, {&b.k.worldVelocity, shaders.WorldVelocity},
		{&b.k.jacobian, shaders.Jacobian},
		{&b.k.bodyImpulse, shaders.BodyImpulse}, {&b.k.contactVelocity, shaders.ContactVelocity},
		{&b.k.project, shaders.Project}, {&b.k.antiRelax, shaders.AntiRelax},
		{&b.k.blockDiag, shaders.BlockDiag}, {&b.k.sweep, shaders.GsSweep},
		{&b.k.integrate, shaders.Integrate}, {&b.k.fixedForce, shaders.FixedForce},
		{&b.k.jointRows, shaders.JointRows}, {&b.k.jointOps, shaders.JointOps},
		{&b.k.rollingOps, shaders.RollingOps},
	} {
		var err error
		if *k.k, err = d.Kernel(k.m); err != nil {
			// A device that cannot build the kernels is not usable: let
			// --backend auto fall back.
			return nil, fmt.Errorf("gpu: %w: %s cannot build the backend's kernels: %v", ErrNoDevice, d.Info.Name, err)
		}
	}
	if err := b.dc.buildKernels(d); err != nil {
		return nil, fmt.Errorf("gpu: %w: %s cannot build the backend's kernels: %v", ErrNoDevice, d.Info.Name, err)
	}
	l, err := NewLinAlg(d)
	if err != nil {
		return nil, err
	}
	b.l = l
	for _, p := range []**Buffer{&b.a, &b.b, &b.normal, &b.pa, &b.pb, &b.phi, &b.mu, &b.cohesion,
		&b.jac, &b.coh, &b.r, &b.adj, &b.prevGamma, &b.partial[0], &b.partial[1], &b.partial[2]} {
		// The Jacobian's kernels bind it in windows (window.go).
		if *p, err = d.newBuffer(0, Buffer{windowed: p == &b.jac}); err != nil {
			b.release()
			return nil, err
		}
	}
	if b.force3, err = d.NewHostBuffer(3 * 8); err != nil {
		b.release()
		return nil, err
	}
	b.prob = problem{LinAlg: l, b: b}
	return b, nil
}

// bodyBuffers lists the buffers Load makes.
func (b *Backend) bodyBuffers() []**Buffer {
	return []**Buffer{&b.pos, &b.rot, &b.vel, &b.omega, &b.invMass, &b.invInertia, &b.force, &b.torque,
		&b.vfree, &b.dv, &b.fixedBody, &b.adjOff, &b.invInertiaW}
}

// release frees the backend's buffers and LinAlg (not the device).
func (b *Backend) release() error {
	var err error
	if b.l != nil {
		err = b.l.Close()
	}
	b.dc.release()
	b.jt.release()
	b.rl.release()
	b.col.release()
	b.grd.release()
	b.dchk.release()
	bufs := append(b.bodyBuffers(), &b.a, &b.b, &b.normal, &b.pa, &b.pb, &b.phi, &b.mu, &b.cohesion,
		&b.jac, &b.coh, &b.r, &b.adj, &b.prevGamma, &b.partial[0], &b.partial[1], &b.partial[2], &b.force3)
	for _, p := range bufs {
		if *p != nil {
			(*p).Release()
			*p = nil
		}
	}
	return err
}

// Name returns "vulkan: " and the device's name.
func (b *Backend) Name() string { return "vulkan: " + b.d.Info.Name }

// DeviceInfo describes the device the backend runs on.
func (b *Backend) DeviceInfo() DeviceInfo { return b.d.Info }

// Submits returns the number of queue submissions on the backend's device
// so far: batches, uploads, downloads.
func (b *Backend) Submits() int { return b.d.Submits() }

// CommandBuffersRecorded returns the number of command buffers the
// backend's batch recorded so far; its other submits ran one it had
// recorded before (cmdcache.go, and the device solvers' Resubmit).
func (b *Backend) CommandBuffersRecorded() int {
	r, _ := b.l.b.CommandBuffers()
	return r
}

var _ engine.Recorder = (*Backend)(nil)

// Close releases the backend, and its device if New opened it. Closing
// again returns nil.
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	err := b.release()
	if b.owned {
		err = errors.Join(err, b.d.Close())
	}
	return err
}

// sync submits the recorded work and waits for it.
func (b *Backend) sync() error { return b.l.Flush() }

func (b *Backend) mustLoad(op string) {
	if !b.loaded {
		panic("gpu: " + op + " before Load")
	}
	if b.closed {
		panic("gpu: " + op + " on a closed Backend")
	}
}

// Load copies a validated model into the body buffers, as cpuref's Load.
func (b *Backend) Load(m *engine.Model, s *engine.Settings) error {
	if b.closed {
		panic("gpu: Load on a closed Backend")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	fp := modelFootprint(m, s)
	if err := checkHeap(len(m.Bodies), b.d.Info, fp); err != nil {
		return err
	}
	if err := b.sync(); err != nil {
		return err
	}
	b.loaded = false
	h := &b.host
	h.load(m, s)
	b.settings = *s
	b.mixed = s.MixedFor(m)
	b.footprint = fp
	if err := b.jacKernels(b.mixed); err != nil {
		return err
	}
	// The kernels that bind jac take its layout's specialization
	// (Kernel.forBuffers); cpuref's Build forms the same s = ρ n.
	b.layout = engine.NewArmsLayout(m)
	b.jac.arms = fp.Arms
	b.n, b.nc = h.n, 0
	for _, p := range b.bodyBuffers() {
		if *p != nil {
			(*p).Release()
			*p = nil
		}
	}
	n := int64(h.n)
	// invInertiaW holds R J̄⁻¹ Rᵀ only for bodies that are not isotropic
	// (world_velocity writes no other): a model without them binds one
	// body's room, never written (cpuref keeps none).
	nw := int64(1)
	for i := range h.n {
		if ji := h.invInertia[3*i : 3*i+3]; ji[0] != ji[1] || ji[1] != ji[2] {
			nw = n
			break
		}
	}
	// force and torque: every body's only for a model with a load.
	nf := int64(1)
	b.fstride = 0
	if b.footprint.Loads {
		nf, b.fstride = n, 3
	}
	sizes := []int64{24 * n, 32 * n, 24 * n, 24 * n, 8 * n, 24 * n, 24 * nf, 24 * nf, 48 * n, 48 * n, 4 * n, 4 * (n + 1), 48 * nw}
	for i, p := range b.bodyBuffers() {
		var err error
		if *p, err = b.d.NewBuffer(sizes[i]); err != nil {
			return fmt.Errorf("gpu: load %d bodies: %w", n, err)
		}
	}
	b.loadKinematic(m)
	fixed := make([]uint32, h.n)
	for i, f := range h.fixed {
		if f {
			fixed[i] = 1
		}
	}
	for _, i := range b.kin.ids {
		fixed[i] = fixedKinematic
	}
	for _, w := range []struct {
		dst *Buffer
		src []float64
	}{{b.pos, h.pos}, {b.rot, h.rot}, {b.vel, h.vel}, {b.omega, h.omega}, {b.invMass, h.invMass},
		{b.invInertia, h.invInertia}, {b.force, h.force}, {b.torque, h.torque}} {
		if err := w.dst.WriteFloat64(0, w.src); err != nil {
			return err
		}
	}
	if err := b.fixedBody.WriteUint32(0, fixed); err != nil {
		return err
	}
	if err := b.loadJoints(m); err != nil {
		return err
	}
	if err := b.loadMaterials(); err != nil {
		return err
	}
	if err := b.loadCollider(m); err != nil {
		return err
	}
	if err := b.loadRolling(m); err != nil {
		return err
	}
	b.rVec = Vec{l: b.l, buf: b.r}
	b.loaded = true
	return nil
}

// modelFootprint is the Footprint of model m under settings s: which of
// the buffers that depend on the model Load and the steps will make
// (checkHeap). It reads the model as Load's host arrays hold it.
func modelFootprint(m *engine.Model, s *engine.Settings) Footprint {
	f := Footprint{Mixed: s.MixedFor(m), PairExtras: modelPairExtras(m), Materials: !engine.OneMaterial(m.Materials), Arms: m.ArmsAlongNormal()}
	f.Loads = m.HasLoads()
	for _, bd := range m.Bodies {
		if i := bd.Inertia; !bd.Fixed && (i[0] != i[1] || i[1] != i[2]) {
			f.Anisotropic = true
		}
	}
	return f
}

// loadMaterials sets oneMaterial for the loaded model and makes mu,
// cohesion and coh anew, empty: the collider and the solver grow them to
// matBytes (a buffer grown for an earlier model would keep its room).
// They are bound at their size (exact): the kernels read their lengths
// (shaders/lib/contact_material.glsl).
func (b *Backend) loadMaterials() error {
	b.oneMaterial = engine.OneMaterial(b.host.col.MaterialTable())
	for _, p := range []**Buffer{&b.mu, &b.cohesion, &b.coh} {
		(*p).Release()
		*p = nil
		var err error
		if *p, err = b.d.NewBuffer(0); err != nil {
			return err
		}
		(*p).exact = true
	}
	return nil
}

// matBytes is the size of mu, cohesion or coh with room for c contacts:
// 8 B per contact, or 8 B in all where the model has one material
// (oneMaterial).
func (b *Backend) matBytes(c int64) int64 {
	if b.oneMaterial {
		return 8
	}
	return 8 * c
}

// matValues is what of a contact material array (μ or cohesion, one per
// contact) the device holds: all of it, or where the model has one
// material the first value, which every contact shares.
func (b *Backend) matValues(v []float64) []float64 {
	if b.oneMaterial {
		return v[:min(len(v), 1)]
	}
	return v
}

// readMat reads a contact material array (mu or coh) into dst, one per
// contact: where the model has one material, the one value the device
// holds, repeated.
func (b *Backend) readMat(dst []float64, src *Buffer) error {
	if err := src.ReadFloat64(b.matValues(dst), 0); err != nil || !b.oneMaterial || len(dst) == 0 {
		return err
	}
	for k := range dst {
		dst[k] = dst[0]
	}
	return nil
}

// Collide finds the contacts at the current positions: on the device
// when the model's shapes allow it (see deviceCollider), else on the host
// (see hostCollider).
func (b *Backend) Collide() (int, error) {
	b.mustLoad("Collide")
	return b.collide()
}

// upload grows the contact buffers to nc contacts and writes the host's
// contacts and adjacency into them. Nothing may be recording.
func (b *Backend) upload(nc int) error {
	h := &b.host
	if err := b.growSolver(nc); err != nil {
		return err
	}
	if err := b.adj.Grow(4 * int64(len(h.adj))); err != nil {
		return err
	}
	con := h.con
	for _, w := range []struct {
		dst *Buffer
		src []float64
	}{{b.normal, con.Normal}, {b.pa, con.PA}, {b.pb, con.PB}, {b.phi, con.Phi}, {b.mu, b.matValues(con.Mu)},
		{b.cohesion, b.matValues(con.Cohesion)}} {
		if err := w.dst.WriteFloat64(0, w.src); err != nil {
			return err
		}
	}
	for _, w := range []struct {
		dst *Buffer
		src []uint32
	}{{b.a, h.a}, {b.b, h.b}, {b.dc.sub, h.sub}, {b.adjOff, h.adjOff}, {b.adj, h.adj}} {
		if err := w.dst.WriteUint32(0, w.src); err != nil {
			return err
		}
	}
	return nil
}

// Build records free_velocity, world_velocity and jacobian and returns the problem of this
// step; nothing is submitted.
func (b *Backend) Build(h float64) (engine.Problem, error) {
	b.mustLoad("Build")
	if !(h > 0) || !finite(h) {
		return nil, fmt.Errorf("gpu: build: step %v must be positive and finite", h)
	}
	l := b.l
	g := b.host.gravity
	kf := b.k.freeVelocity
	l.record(kf, l.groups(kf, b.n), shaders.FreeVelocityArgs{Gx: g[0], Gy: g[1], Gz: g[2], H: h, N: uint32(b.n), Fstride: b.fstride},
		b.vfree, b.vel, b.omega, b.rot, b.force, b.torque, b.invMass, b.invInertia, b.fixedBody)
	b.recordKinematicVelocity(h)
	// The rows' r reads vfree in the world frame, in dv (cpuref's Build).
	kw := b.k.worldVelocity
	l.record(kw, l.groups(kw, b.n), shaders.WorldVelocityArgs{N: uint32(b.n)}, b.dv, b.vfree, b.rot, b.invInertia, b.invInertiaW)
	if b.nc > 0 {
		kj := b.k.jacobian
		l.record(kj, l.groups(kj, b.nc), shaders.JacobianArgs{H: h, MaxRecovery: b.settings.MaxRecoverySpeed, NC: uint32(b.nc)},
			b.jac, b.coh, b.r, b.a, b.b, b.normal, b.pa, b.pb, b.phi, b.cohesion, b.rot, b.dv)
	}
	b.recordJointRows(h)
	b.recordBuildRolling()
	b.rVec = Vec{l: l, buf: b.r, n: b.rows()}
	if err := l.Err(); err != nil {
		return nil, err
	}
	return &b.prob, nil
}

// gammaVec returns gamma as a vector of this backend of length
// 3nc + nj + 3nr.
func (b *Backend) gammaVec(op string, gamma engine.Vec) (*Vec, error) {
	g := b.l.vec(gamma)
	if g.n != b.rows() {
		return nil, fmt.Errorf("gpu: %s: gamma has length %d, want %d", op, g.n, b.rows())
	}
	return g, nil
}

// recordBodyImpulse records dv = M⁻¹ D x, joint rows and rolling blocks
// included.
func (b *Backend) recordBodyImpulse(x *Buffer) {
	k := b.k.bodyImpulse
	j := &b.jt
	rl := &b.rl
	b.l.record(k, b.l.groups(k, b.n), shaders.BodyImpulseArgs{N: uint32(b.n), Jbase: b.jbase(), Nr: uint32(rl.n), Rbase: b.rbase()},
		b.dv, x, b.adjOff, b.adj, b.jac, b.invMass, b.invInertia, b.fixedBody,
		j.adjOff, j.adj, j.lin, j.rotA, j.rotB, b.invInertiaW, rl.ridx, rl.rotA, rl.rotB)
}

// WarmStart fills gamma with the last step's impulse of each contact
// whose (A, B, index within the pair) persists, else zero: collide_keys
// merges the kept keys on the device, recorded, not submitted.
func (b *Backend) WarmStart(gamma engine.Vec) error {
	b.mustLoad("WarmStart")
	g, err := b.gammaVec("warm start", gamma)
	if err != nil {
		return err
	}
	b.warmStart(g)
	// The joint rows start from the last step's impulses (zero before
	// the first step), as cpuref's.
	b.recordJointOp(jointCopyMode, g.buf, b.jbase(), b.jt.prev, 0)
	// The rolling rows start from the kept impulses of the contacts that
	// persist, matched by key as the contacts' (zero elsewhere).
	b.recordWarmRolling(g.buf)
	return b.l.Err()
}

// Integrate records body_impulse (dv = M⁻¹Dγ) and integrate, and the
// copy of the contacts' keys and γ for the next WarmStart (keepKeys);
// nothing is submitted.
func (b *Backend) Integrate(gamma engine.Vec, h float64) error {
	b.mustLoad("Integrate")
	g, err := b.gammaVec("integrate", gamma)
	if err != nil {
		return err
	}
	l := b.l
	b.recordBodyImpulse(g.buf)
	ki := b.k.integrate
	l.record(ki, l.groups(ki, b.n), shaders.IntegrateArgs{H: h, N: uint32(b.n)}, b.pos, b.rot, b.vel, b.omega, b.vfree, b.dv, b.fixedBody)
	b.recordKinematicMove(h)
	b.recordJointOp(jointCopyMode, b.jt.prev, 0, g.buf, b.jbase())
	b.jt.warm = b.jt.Rows > 0
	b.recordKeepRolling(g.buf)
	b.keepKeys(g)
	return l.Err()
}

// FixedForce returns the total contact force (N) on fixed bodies for the
// impulses gamma of a step of length h: fixed_force sums chunks of 2048
// contacts and sum.comp adds the chunk sums, per component, in a fixed
// order (cpuref sums the same terms in contact order). One submit.
func (b *Backend) FixedForce(gamma engine.Vec, h float64) (mgl64.Vec3, error) {
	b.mustLoad("FixedForce")
	g, err := b.gammaVec("fixed force", gamma)
	if err != nil {
		return mgl64.Vec3{}, err
	}
	if b.nc == 0 {
		return mgl64.Vec3{}, nil
	}
	l := b.l
	chunks := (b.nc + dotChunk - 1) / dotChunk
	groups := [3]uint32{uint32(min(chunks, int(b.d.Info.MaxWorkgroupCount[0]))), 1, 1}
	l.record(b.k.fixedForce, groups, shaders.FixedForceArgs{H: h, NC: uint32(b.nc)},
		b.partial[0], b.partial[1], b.partial[2], g.buf, b.a, b.b, b.jac, b.fixedBody)
	for j := range 3 {
		l.record(l.sum, [3]uint32{1, 1, 1}, shaders.SumArgs{N: uint32(chunks), Index: uint32(j)}, b.force3, b.partial[j])
	}
	if err := b.sync(); err != nil {
		return mgl64.Vec3{}, err
	}
	var f [3]float64
	if err := b.force3.ReadFloat64(f[:], 0); err != nil {
		return mgl64.Vec3{}, err
	}
	return mgl64.Vec3(f), nil
}

// ReadState submits pending work and downloads the body state into s.
func (b *Backend) ReadState(s *engine.State) error {
	b.mustLoad("ReadState")
	if err := b.sync(); err != nil {
		return err
	}
	s.Resize(b.n)
	for _, r := range []struct {
		dst []float64
		src *Buffer
	}{{s.Pos, b.pos}, {s.Rot, b.rot}, {s.Vel, b.vel}, {s.Omega, b.omega}} {
		if err := r.src.ReadFloat64(r.dst, 0); err != nil {
			return err
		}
	}
	return nil
}

// ReadContacts downloads the current contacts into c.
func (b *Backend) ReadContacts(c *engine.Contacts) error {
	b.mustLoad("ReadContacts")
	if err := b.sync(); err != nil {
		return err
	}
	nc := b.nc
	c.Resize(nc)
	ab := make([]uint32, 2*nc)
	if err := b.a.ReadUint32(ab[:nc], 0); err != nil {
		return err
	}
	if err := b.b.ReadUint32(ab[nc:], 0); err != nil {
		return err
	}
	for k := 0; k < nc; k++ {
		c.A[k], c.B[k] = int32(ab[k]), int32(ab[nc+k])
	}
	for _, r := range []struct {
		dst []float64
		src *Buffer
	}{{c.Normal, b.normal}, {c.PA, b.pa}, {c.PB, b.pb}, {c.Phi, b.phi}} {
		if err := r.src.ReadFloat64(r.dst, 0); err != nil {
			return err
		}
	}
	if err := b.readMat(c.Mu[:nc], b.mu); err != nil {
		return err
	}
	if err := b.readMat(c.Cohesion[:nc], b.cohesion); err != nil {
		return err
	}
	// The combined rolling and spinning coefficients (zero without
	// rolling friction), as cpuref's.
	if b.rl.on && nc > 0 {
		if err := b.rl.cmur.ReadFloat64(c.Rolling[:nc], 0); err != nil {
			return err
		}
		if err := b.rl.cmus.ReadFloat64(c.Spinning[:nc], 0); err != nil {
			return err
		}
	} else {
		clear(c.Rolling)
		clear(c.Spinning)
	}
	return nil
}

// Envelope returns the collision envelope in use (m).
func (b *Backend) Envelope() float64 { return b.host.envelope }

var _ engine.Backend = (*Backend)(nil)

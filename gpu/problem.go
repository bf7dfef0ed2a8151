//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// problem is the engine.Problem of the backend's current step, on device
// vectors: its LinAlg is the backend's, and its methods record kernels
// into the LinAlg's open batch (only Cones, and the LinAlg's Dot, Read and
// Write, submit). It also implements engine.DeviceAPGD (apgd.go), so APGD
// and APGD-AR run their iterations on the device, many per submit. It is
// valid until the next Collide.
type problem struct {
	*LinAlg
	b *Backend
}

// Contacts returns nc.
func (p *problem) Contacts() int { return p.b.nc }

// Joints returns nj, the number of joint rows after the 3nc contact rows
// (engine.JointRows).
func (p *problem) Joints() int { return p.b.jt.Rows }

// DeviceJoints reports that the device solvers take the joint rows
// (engine.DeviceJoints): their kernels run the rows after the contacts.
func (p *problem) DeviceJoints() bool { return true }

var (
	_ engine.JointRows    = (*problem)(nil)
	_ engine.DeviceJoints = (*problem)(nil)
)

// R returns r = b + DᵀM⁻¹k, which jacobian wrote.
func (p *problem) R() engine.Vec { return &p.b.rVec }

// contactVec returns v as a vector of this problem's LinAlg; a length
// other than 3nc + nj is a programmer error.
func (p *problem) contactVec(op string, v engine.Vec) *Vec {
	x := p.vec(v)
	if x.n != p.b.rows() {
		panic(fmt.Sprintf("gpu: %s: vector of length %d, want 3·%d + %d + 3·%d", op, x.n, p.b.nc, p.b.jt.Rows, p.b.rl.n))
	}
	return x
}

// empty reports a problem with no rows.
func (p *problem) empty() bool { return p.b.rows() == 0 }

// groupsNC is the dispatch shape of a per-contact kernel.
func (p *problem) groupsNC(k *Kernel) [3]uint32 { return p.groups(k, p.b.nc) }

// groupsRows is the dispatch shape of a device solver's kernel over the
// nc contacts and then the nj joint rows, one item each.
func (p *problem) groupsRows(k *Kernel) [3]uint32 { return p.groups(k, p.b.nc+p.b.jt.Rows) }

// nj is the number of joint rows, for the kernels' arguments.
func (p *problem) nj() uint32 { return uint32(p.b.jt.Rows) }

// Schur sets dst = Dᵀ(M⁻¹(D x)): body_impulse then contact_velocity (and
// joint_ops' velocity on the joint rows), with a barrier between them.
// dst may alias x.
func (p *problem) Schur(dst, x engine.Vec) {
	b := p.b
	d, xv := p.contactVec("Schur", dst), p.contactVec("Schur", x)
	if p.empty() {
		return
	}
	b.recordBodyImpulse(xv.buf)
	if b.nc > 0 {
		k := b.k.contactVelocity
		p.record(k, p.groupsNC(k), shaders.ContactVelocityArgs{NC: uint32(b.nc)}, d.buf, b.dv, b.a, b.b, b.jac)
	}
	b.recordJointOp(jointVelocityMode, d.buf, b.jbase(), d.buf, 0)
	b.recordRollingOp(rollingVelocityMode, b.rl.n, d.buf, b.rbase(), d.buf, 0, b.dv)
}

// Project sets dst_i = Π_Υi(x_i) (project.comp) and clamps each joint
// row into its bounds (joint_ops); dst may alias x.
func (p *problem) Project(dst, x engine.Vec) {
	b := p.b
	d, xv := p.contactVec("Project", dst), p.contactVec("Project", x)
	if b.nc > 0 {
		k := b.k.project
		p.record(k, p.groupsNC(k), shaders.ProjectArgs{NC: uint32(b.nc)}, d.buf, xv.buf, b.mu, b.coh)
	}
	b.recordJointOp(jointProjectMode, d.buf, b.jbase(), xv.buf, b.jbase())
	// The rolling blocks after their contacts, with the projected γ_n.
	b.recordRollingOp(rollingProjectMode, b.rl.n, d.buf, 0, xv.buf, 0, b.dv)
}

// AntiRelax sets dst = r, then dst_3i += μ_i‖(u_3i+1, u_3i+2)‖
// (anti_relax.comp). When dst is u, the tangential velocities read are
// those of r, as cpuref's copy-then-add gives.
func (p *problem) AntiRelax(dst, u engine.Vec) {
	b := p.b
	d, uv := p.contactVec("AntiRelax", dst), p.contactVec("AntiRelax", u)
	if b.nc > 0 {
		ub := uv.buf
		if d == uv {
			ub = b.r
		}
		k := b.k.antiRelax
		p.record(k, p.groupsNC(k), shaders.AntiRelaxArgs{NC: uint32(b.nc)}, d.buf, b.r, ub, b.mu)
	}
	// The joint rows of dst are r's (the anti-relaxation is for contacts).
	b.recordJointOp(jointCopyMode, d.buf, b.jbase(), b.r, b.jbase())
	b.recordRollingOp(rollingCopyMode, b.rl.n, d.buf, b.rbase(), b.r, b.rbase(), b.dv)
}

// refusesMixed fails the problem and reports true when its Jacobian is
// stored as float32 (settings.precision "mixed"), which op's kernels
// (block_diag, gs_sweep, gs_colour_sweep) read as float64: mixed precision
// is for apgd and apgd-ar (engine.Settings.Validate), which call neither.
func (p *problem) refusesMixed(op string) bool {
	if !p.b.mixed {
		return false
	}
	p.fail(fmt.Errorf("gpu: %s: settings.precision %q is for the solvers apgd and apgd-ar", op, engine.PrecisionMixed))
	return true
}

// BlockDiag sets the three rows of contact i to tr(N_ii)/3 (block_diag.comp)
// and joint row r to N_rr (joint_ops), as cpuref's.
func (p *problem) BlockDiag(dst engine.Vec) {
	b := p.b
	d := p.contactVec("BlockDiag", dst)
	if p.refusesMixed("BlockDiag") {
		return
	}
	if b.nc > 0 {
		k := b.k.blockDiag
		p.record(k, p.groupsNC(k), shaders.BlockDiagArgs{NC: uint32(b.nc)}, d.buf, b.a, b.b, b.jac, b.invMass, b.invInertia, b.rot)
	}
	b.recordJointOp(jointDiagMode, d.buf, b.jbase(), d.buf, 0)
	b.recordRollingOp(rollingDiagMode, b.rl.n, d.buf, 0, d.buf, 0, b.dv)
}

// Sweep runs one projected Gauss–Seidel sweep, cpuref's bit for bit:
// body_impulse for dv = M⁻¹Dγ, then gs_colour_sweep once per non-empty
// colour (its contacts in parallel: they share no movable body), then
// gs_sweep, whose single invocation walks the colouring's tail, the joint
// rows and the rolling blocks in order (recordSweep, under a gate of every
// phase: the host drives this sweep). The first Sweep after Collide
// colours the contacts (gs_colour; one submit, which reads back the
// colours' sizes).
func (p *problem) Sweep(gamma, diag engine.Vec, omega, lambda float64) {
	p.Sweeps(gamma, diag, omega, lambda, 1)
}

// Sweeps runs k sweeps (engine.CarriedSweeps), cpuref's bit for bit:
// body_impulse once, then k times Sweep's dispatches, each from the dv
// the last one left.
func (p *problem) Sweeps(gamma, diag engine.Vec, omega, lambda float64, k int) {
	g, dg := p.contactVec("Sweep", gamma), p.contactVec("Sweep", diag)
	if p.empty() || p.refusesMixed("Sweep") {
		return
	}
	s, err := p.sweepReady()
	if err != nil {
		p.fail(err)
		return
	}
	p.b.recordBodyImpulse(g.buf)
	for range k {
		p.recordSweep(g, dg, omega, lambda, s, gateAlways)
	}
}

var _ engine.CarriedSweeps = (*problem)(nil)

// sweepReady makes the colouring's kernels and buffers, colours the
// contacts unless the colouring is still valid (once after Collide), and
// returns the scalar buffer that the sweep kernels' gate reads
// (devScalarBuffer).
func (p *problem) sweepReady() (*Buffer, error) {
	b := p.b
	if err := b.col.make(b.d); err != nil {
		return nil, err
	}
	if b.nc > 0 {
		if _, err := b.colour(); err != nil {
			return nil, err
		}
	}
	return p.devScalarBuffer()
}

// recordSweep records a sweep's updates once dv = M⁻¹Dγ is recorded:
// gs_colour_sweep once per non-empty colour, then gs_sweep for the tail,
// the joint rows and the rolling blocks (when there are any), every kernel
// under gate gt of the scalar buffer s. sweepReady must have coloured the
// contacts.
func (p *problem) recordSweep(g, dg *Vec, omega, lambda float64, s *Buffer, gt uint32) {
	b := p.b
	j, rl := &b.jt, &b.rl
	cl := &b.col
	k := cl.k.sweep
	for c := 0; c < maxColours && b.nc > 0; c++ {
		if m := int(cl.starts[c+1] - cl.starts[c]); m > 0 {
			p.record(k, p.groups(k, m), shaders.GsColourSweepArgs{Omega: omega, Lambda: lambda, Colour: uint32(c), Gate: gt},
				g.buf, b.dv, dg.buf, b.r, b.a, b.b, b.jac, b.mu, b.coh, b.invMass, b.invInertia, b.fixedBody, b.invInertiaW,
				cl.perm, cl.start, s)
		}
	}
	tail := b.nc > 0 && cl.starts[maxColours+1] > cl.starts[maxColours]
	if !tail && j.Rows == 0 && rl.n == 0 {
		return
	}
	p.record(b.k.sweep, [3]uint32{1, 1, 1}, shaders.GsSweepArgs{Omega: omega, Lambda: lambda, NC: uint32(b.nc), Nj: uint32(j.Rows), Nr: uint32(rl.n), Gate: gt},
		g.buf, b.dv, dg.buf, b.r, b.a, b.b, b.jac, b.mu, b.coh, b.invMass, b.invInertia, b.fixedBody, b.invInertiaW,
		j.lin, j.rotA, j.rotB, j.rowA, j.rowB, j.lo, j.hi, rl.rcon, rl.rotA, rl.rotB, rl.mur, rl.mus, cl.perm, cl.start, s)
}

// SweepOrder downloads the order of Sweep's contacts (engine.SweepOrder):
// perm, colouring the contacts first if needed.
func (p *problem) SweepOrder() []int32 {
	order, err := p.b.sweepOrder()
	p.fail(err)
	return order
}

var _ engine.SweepOrder = (*problem)(nil)

// Cones downloads μ_i and the cohesion impulses c_i (submits pending work).
func (p *problem) Cones(mu, cohesion []float64) {
	b := p.b
	if p.Flush() != nil {
		return
	}
	nc := b.nc
	p.fail(b.readMat(mu[:nc], b.mu))
	p.fail(b.readMat(cohesion[:nc], b.coh))
}

var _ engine.Problem = (*problem)(nil)

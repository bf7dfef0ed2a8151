//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// rolling is the backend's rolling and spinning friction rows on the
// device (engine.RollingRows, cpuref's rolling.go): per contact with a
// nonzero combined μ_r or μ_s a block of three rows after the joint rows,
// γ = [3·nc contacts | nj joint rows | 3·nr rolling rows]. Each Collide
// finds the blocks on the device (rolling_ops modes 0 and 1: the combined
// coefficients from the bodies' materials, or the host collider's per
// contact, then a block scan in contact order) and reads back nr, the one
// count the host needs to size γ; Build records their Jacobian and r
// (mode 2); the problem's methods run them after the joint rows: Schur
// (body_impulse adds each block's torques to its contact's, then mode 3),
// Project (mode 4, after the contacts' projection, with the projected
// γ_n), BlockDiag (mode 5), AntiRelax (mode 6: r), Sweep (gs_sweep after
// the joint rows). WarmStart merges the kept per-contact impulses by
// contact key with collide_keys (into tmp) and gathers them (mode 8);
// Integrate keeps them per contact (mode 7). The device solvers' fused
// iterations (engine.DeviceAPGD and the rest) do not take the rows: the
// engine runs their host-driven iterations on the device LinAlg for a
// problem with rolling rows (engine.RollingRows).
//
// A model without rolling friction binds one small zeroed buffer in every
// rolling binding (nr = 0: never read).
//
// Buffers: bmat (2 float64 per body: μ_r, μ_s of its material), cmur,
// cmus (1 float64 per contact), ridx (uint32 per contact), rcon (uint32
// per block), rotA, rotB (9 float64 per block), mur, mus (1 per block),
// count (uint32, host-visible readback of nr), prev (3 float64 per kept
// contact), tmp (3 per contact).
type rolling struct {
	on   bool // the model has rolling friction (engine.Model.HasRolling)
	n    int  // nr, the blocks of the current contacts
	kept bool // prev holds a step's impulses (or SetWarmStartData's)

	bmat, cmur, cmus, ridx, rcon, rotA, rotB, mur, mus, count, prev, tmp *Buffer

	con     []uint32 // rcon downloaded (RollingContact), valid when conOK
	conOK   bool
	counts  [1]uint32
	scratch []float64
}

// rollingNote is the backend's note (engine.Noter) for a model with
// rolling friction.
const rollingNote = "gpu: rolling friction: the rolling rows run on the device, but the solvers' iterations are the engine's host-driven ones on the device's vectors (a submit per dot product), not the fused device iterations"

// The modes of rolling_ops.comp.
const (
	rollingCoeffMode = iota
	rollingPlaceMode
	rollingBuildMode
	rollingVelocityMode
	rollingProjectMode
	rollingDiagMode
	rollingCopyMode
	rollingKeepMode
	rollingWarmMode
)

func (r *rolling) buffers() []**Buffer {
	return []**Buffer{&r.bmat, &r.cmur, &r.cmus, &r.ridx, &r.rcon, &r.rotA, &r.rotB, &r.mur, &r.mus, &r.count, &r.prev, &r.tmp}
}

// release frees the buffers (the shared zero buffer once).
func (r *rolling) release() {
	seen := map[*Buffer]bool{}
	for _, p := range r.buffers() {
		if *p != nil && !seen[*p] {
			seen[*p] = true
			(*p).Release()
		}
		*p = nil
	}
}

// Rolling returns nr, the number of rolling blocks (engine.RollingRows).
func (p *problem) Rolling() int { return p.b.rl.n }

// RollingContact returns the contact of rolling block k (downloading the
// blocks' contacts once per step; it submits pending work then).
func (p *problem) RollingContact(k int) int {
	rl := &p.b.rl
	if !rl.conOK {
		if p.Flush() != nil {
			return -1
		}
		rl.con = resize(rl.con, rl.n)
		if err := rl.rcon.ReadUint32(rl.con, 0); err != nil {
			p.fail(err)
			return -1
		}
		rl.conOK = true
	}
	return int(rl.con[k])
}

var _ engine.RollingRows = (*problem)(nil)

// loadRolling makes the rolling buffers for m (after the collider is
// loaded: the bodies' materials come from it).
func (b *Backend) loadRolling(m *engine.Model) error {
	rl := &b.rl
	rl.release()
	*rl = rolling{on: m.HasRolling(), con: rl.con, scratch: rl.scratch}
	if !rl.on {
		z, err := b.d.NewBuffer(64)
		if err != nil {
			return fmt.Errorf("gpu: load %d bodies: %w", b.n, err)
		}
		for _, p := range rl.buffers() {
			*p = z
		}
		return nil
	}
	for _, p := range rl.buffers() {
		var err error
		if p == &rl.count {
			*p, err = b.d.NewHostBuffer(16)
		} else {
			*p, err = b.d.NewBuffer(16)
		}
		if err != nil {
			rl.release()
			return fmt.Errorf("gpu: load %d bodies: %w", b.n, err)
		}
	}
	mat := make([]float64, 2*b.n)
	mats := b.host.col.MaterialTable()
	for i, mi := range b.host.col.Materials() {
		mat[2*i], mat[2*i+1] = mats[mi].RollingFriction, mats[mi].SpinningFriction
	}
	if err := rl.bmat.Grow(max(8*int64(len(mat)), 16)); err != nil {
		return err
	}
	return rl.bmat.WriteFloat64(0, mat)
}

// growRolling grows the per-contact and per-block buffers to nc contacts
// (or the contact capacity). Nothing may be recording.
func (b *Backend) growRolling(nc int) error {
	rl := &b.rl
	if !rl.on {
		return nil
	}
	c := int64(max(nc, b.dc.ccap, 1))
	for _, g := range []struct {
		buf  *Buffer
		size int64
	}{{rl.cmur, 8 * c}, {rl.cmus, 8 * c}, {rl.ridx, 4 * c}, {rl.rcon, 4 * c}, {rl.rotA, 72 * c}, {rl.rotB, 72 * c},
		{rl.mur, 8 * c}, {rl.mus, 8 * c}, {rl.tmp, 24 * c}, {rl.prev, 24 * c}, {b.r, 48*c + 8*int64(b.jt.Rows)}} {
		if err := g.buf.Grow(g.size); err != nil {
			return fmt.Errorf("gpu: collide: %d contacts: %w", nc, err)
		}
	}
	return nil
}

// recordRollingOp records rolling_ops.comp in mode over n items.
func (b *Backend) recordRollingOp(mode uint32, n int, dst *Buffer, dstOff uint32, src *Buffer, srcOff uint32, v *Buffer) {
	if n == 0 {
		return
	}
	rl := &b.rl
	l := b.l
	k := b.k.rollingOps
	groups := l.groups(k, n)
	if mode == rollingPlaceMode {
		groups = [3]uint32{1, 1, 1}
	}
	from := uint32(0)
	if b.dc.on {
		from = 1
	}
	l.record(k, groups, shaders.RollingOpsArgs{Mode: mode, N: uint32(n), Off: b.rbase(), DstOff: dstOff, SrcOff: srcOff, FromBodies: from},
		dst, src, v, b.a, b.b, rl.ridx, rl.rcon, rl.rotA, rl.rotB, rl.mur, rl.mus, rl.cmur, rl.cmus, rl.bmat,
		b.jac, b.rot, b.invInertia, b.fixedBody, rl.count)
}

// rbase is the index of γ's first rolling row: 3nc + nj.
func (b *Backend) rbase() uint32 { return uint32(3*b.nc + b.jt.Rows) }

// listRolling finds the rolling blocks of the nc current contacts (after
// Collide's contacts are on the device; the host collider's coefficients
// uploaded for host contacts) and reads back nr: one submit.
func (b *Backend) listRolling(nc int) error {
	rl := &b.rl
	rl.n, rl.conOK = 0, false
	if !rl.on || nc == 0 {
		return nil
	}
	if err := b.growRolling(nc); err != nil {
		return err
	}
	if b.dc.on {
		b.recordRollingOp(rollingCoeffMode, nc, b.dv, 0, b.dv, 0, b.dv)
	}
	b.recordRollingOp(rollingPlaceMode, nc, b.dv, 0, b.dv, 0, b.dv)
	if err := b.sync(); err != nil {
		return err
	}
	if err := rl.count.ReadUint32(rl.counts[:], 0); err != nil {
		return fmt.Errorf("gpu: collide: %w", err)
	}
	rl.n = int(rl.counts[0])
	return nil
}

// uploadRolling writes the host collider's combined coefficients of the
// nc contacts (host collision; Nothing may be recording).
func (b *Backend) uploadRolling(con *engine.Contacts, nc int) error {
	rl := &b.rl
	if !rl.on || nc == 0 {
		return nil
	}
	if err := b.growRolling(nc); err != nil {
		return err
	}
	rl.scratch = grow(rl.scratch, 2*nc)
	mr, ms := rl.scratch[:nc], rl.scratch[nc:]
	for k := range nc {
		mr[k], ms[k] = con.RollingCoefficients(k)
	}
	if err := rl.cmur.WriteFloat64(0, mr); err != nil {
		return err
	}
	return rl.cmus.WriteFloat64(0, ms)
}

// recordBuildRolling records the blocks' Jacobian and r (Build, after
// jacobian wrote the contact frames).
func (b *Backend) recordBuildRolling() {
	b.recordRollingOp(rollingBuildMode, b.rl.n, b.r, 0, b.r, 0, b.dv) // vfree in the world frame (Build)
}

// recordWarmRolling fills g's rolling rows with the kept impulses of the
// contacts that persist (zero elsewhere, and before the first step).
func (b *Backend) recordWarmRolling(g *Buffer) {
	rl := &b.rl
	if rl.n == 0 {
		return
	}
	c := &b.dc
	l := b.l
	np := uint32(c.np)
	if !rl.kept {
		np = 0
	}
	l.record(c.k.keys, l.groups(c.k.keys, b.nc), shaders.CollideKeysArgs{NC: uint32(b.nc), NP: np, Mode: 1},
		b.a, b.b, c.sub, c.prevA, c.prevB, c.prevSub, rl.prev, rl.tmp)
	b.recordRollingOp(rollingWarmMode, rl.n, g, 0, rl.tmp, 0, b.dv)
}

// recordKeepRolling keeps g's rolling impulses per contact for the next
// warm start (Integrate; the keys are kept by keepKeys). prev was grown to
// the contacts by listRolling.
func (b *Backend) recordKeepRolling(g *Buffer) {
	rl := &b.rl
	if !rl.on {
		return
	}
	b.recordRollingOp(rollingKeepMode, b.nc, rl.prev, 0, g, 0, b.dv)
	rl.kept = true
}

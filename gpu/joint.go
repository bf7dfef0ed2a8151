//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// joints is the backend's joint rows on the device. The layout
// (engine.JointLayout, as cpuref's) is uploaded at Load; each Build,
// joint_rows.comp computes every row's Jacobian, bounds and r from the
// bodies' poses and free velocities, bit for bit as cpuref's buildJoints,
// and the problem's methods run the rows beside the contacts: γ is
// [3·nc contact rows | nj joint rows] as in cpuref, the body → row lists
// are read by lib/body_impulse.glsl before each body's contacts, and
// joint_ops.comp does the per-row velocity, projection, diagonal and
// copies. A model without joints binds one zeroed buffer of n+1 uint32
// in every joint binding (its jadjOff: empty lists; the other bindings are
// never read), so the kernels need no variants.
//
// Buffers: frame (26 float64 per joint: see joint_rows.comp), meta (5
// uint32 per joint), lin, rotA, rotB (3 float64 per row), lo, hi (1 per
// row), rowA, rowB (uint32 per row; jointWorld for the world), adjOff
// (n+1 uint32), adj (uint32 entries 2r + side), prev (nj float64: the
// last step's joint impulses, zero until a step has run).
type joints struct {
	engine.JointLayout
	frame, meta, lin, rotA, rotB, lo, hi, rowA, rowB, adjOff, adj, prev *Buffer

	// warm: prev holds a step's impulses (or SetWarmStartData's).
	warm bool

	// Host scratch for JointReactions.
	g, hlin, hrotA []float64
}

// jointWorld is engine.World in the rowA, rowB and meta buffers
// (lib/joint_row.glsl's JOINT_WORLD).
const jointWorld = ^uint32(0)

// Per-joint strides of the frame and meta buffers (joint_rows.comp).
const (
	jointFrameWords = 26
	jointMetaWords  = 5
)

func (j *joints) buffers() []**Buffer {
	return []**Buffer{&j.frame, &j.meta, &j.lin, &j.rotA, &j.rotB, &j.lo, &j.hi, &j.rowA, &j.rowB, &j.adjOff, &j.adj, &j.prev}
}

// release frees the buffers, the shared zero buffer of a model without
// joints once.
func (j *joints) release() {
	adj := j.adjOff
	for _, p := range j.buffers() {
		if *p != nil && *p != adj {
			(*p).Release()
		}
		*p = nil
	}
	if adj != nil {
		adj.Release()
	}
}

func worldIndex(i int) uint32 {
	if i == engine.World {
		return jointWorld
	}
	return uint32(i)
}

// loadJoints builds m's joint layout from the host's loaded body arrays
// and uploads it (after the body buffers are made).
func (b *Backend) loadJoints(m *engine.Model) error {
	j := &b.jt
	j.release()
	h := &b.host
	*j = joints{JointLayout: engine.NewJointLayout(m, h.pos, h.rot, h.fixed), g: j.g, hlin: j.hlin, hrotA: j.hrotA}
	nj, nJoints := int64(j.Rows), int64(len(j.Frames))
	if nj == 0 {
		z, err := b.d.NewBuffer(max(4*int64(b.n+1), 16))
		if err != nil {
			return fmt.Errorf("gpu: load %d bodies: %w", b.n, err)
		}
		for _, p := range j.buffers() {
			*p = z
		}
		return nil
	}
	sizes := []int64{8 * jointFrameWords * nJoints, 4 * jointMetaWords * nJoints, 24 * nj, 24 * nj, 24 * nj, 8 * nj, 8 * nj,
		4 * nj, 4 * nj, 4 * int64(b.n+1), 4 * int64(len(j.Adj)), 8 * nj}
	for i, p := range j.buffers() {
		var err error
		if *p, err = b.d.NewBuffer(max(sizes[i], 16)); err != nil {
			j.release()
			return fmt.Errorf("gpu: load %d bodies, %d joints: %w", b.n, len(j.Frames), err)
		}
	}
	frame := make([]float64, 0, jointFrameWords*nJoints)
	meta := make([]uint32, 0, jointMetaWords*nJoints)
	for _, f := range j.Frames {
		var speed, limit float64
		motor := uint32(0)
		if f.Motor != nil {
			speed, limit, motor = f.Motor.Speed, f.Motor.MaxForce, 1
		}
		frame = append(frame, f.SA[:]...)
		frame = append(frame, f.SB[:]...)
		frame = append(frame, f.AxisA[:]...)
		frame = append(frame, f.AxisB[:]...)
		frame = append(frame, f.UA[:]...)
		frame = append(frame, f.WA[:]...)
		frame = append(frame, f.Rel.W, f.Rel.V[0], f.Rel.V[1], f.Rel.V[2], f.Length, speed, limit, 0)
		meta = append(meta, uint32(f.Kind), worldIndex(f.A), worldIndex(f.B), uint32(f.Row), motor)
	}
	rowA, rowB := make([]uint32, nj), make([]uint32, nj)
	for r := range rowA {
		rowA[r], rowB[r] = worldIndex(int(j.RowA[r])), worldIndex(int(j.RowB[r]))
	}
	u32 := func(s []int32) []uint32 {
		o := make([]uint32, len(s))
		for i, v := range s {
			o[i] = uint32(v)
		}
		return o
	}
	if err := j.frame.WriteFloat64(0, frame); err != nil {
		return err
	}
	for _, w := range []struct {
		dst *Buffer
		src []uint32
	}{{j.meta, meta}, {j.rowA, rowA}, {j.rowB, rowB}, {j.adjOff, u32(j.AdjOff)}, {j.adj, u32(j.Adj)}} {
		if err := w.dst.WriteUint32(0, w.src); err != nil {
			return err
		}
	}
	return nil
}

// jbase is the index of γ's first joint row: 3nc.
func (b *Backend) jbase() uint32 { return uint32(3 * b.nc) }

// rows returns the length of γ: 3nc + nj + 3nr.
func (b *Backend) rows() int { return 3*b.nc + b.jt.Rows + 3*b.rl.n }

// recordJointRows records joint_rows.comp for a step of length h (Build).
func (b *Backend) recordJointRows(h float64) {
	j := &b.jt
	if j.Rows == 0 {
		return
	}
	l := b.l
	k := b.k.jointRows
	l.record(k, l.groups(k, len(j.Frames)), shaders.JointRowsArgs{H: h, MaxRecovery: b.settings.MaxRecoverySpeed, Jbase: b.jbase(), Nj: uint32(len(j.Frames))},
		j.frame, j.meta, b.pos, b.rot, b.dv, j.lo, j.hi, b.r, j.lin, j.rotA, j.rotB, j.rowA, j.rowB)
}

// The modes of joint_ops.comp.
const (
	jointVelocityMode = iota
	jointProjectMode
	jointDiagMode
	jointCopyMode
)

// recordJointOp records joint_ops.comp in mode over the nj joint rows:
// dst[dstOff+r] from src[srcOff+r] (src unused by the velocity and
// diagonal modes, which read dv and the rows).
func (b *Backend) recordJointOp(mode uint32, dst *Buffer, dstOff uint32, src *Buffer, srcOff uint32) {
	j := &b.jt
	if j.Rows == 0 {
		return
	}
	l := b.l
	k := b.k.jointOps
	l.record(k, l.groups(k, j.Rows), shaders.JointOpsArgs{Mode: mode, Nj: uint32(j.Rows), DstOff: dstOff, SrcOff: srcOff},
		dst, src, b.dv, j.lo, j.hi, b.invMass, b.invInertia, b.fixedBody, j.lin, j.rotA, j.rotB, j.rowA, j.rowB, b.rot)
}

// JointReactions returns each joint's force and torque on its Body1 for
// the impulses gamma of a step of length h (engine.JointLayout.Reactions
// on the downloaded joint rows; engine.JointReactor).
// It submits pending work.
func (b *Backend) JointReactions(gamma engine.Vec, h float64, dst []engine.Reaction) ([]engine.Reaction, error) {
	b.mustLoad("JointReactions")
	g, err := b.gammaVec("joint reactions", gamma)
	if err != nil {
		return dst[:0], err
	}
	j := &b.jt
	if len(j.Frames) == 0 {
		return dst[:0], nil
	}
	if err := b.sync(); err != nil {
		return dst[:0], err
	}
	nj := j.Rows
	j.g = grow(j.g, nj)
	j.hlin, j.hrotA = grow(j.hlin, 3*nj), grow(j.hrotA, 3*nj)
	for _, r := range []struct {
		dst []float64
		src *Buffer
		off int
	}{{j.g, g.buf, 3 * b.nc}, {j.hlin, j.lin, 0}, {j.hrotA, j.rotA, 0}} {
		if err := r.src.ReadFloat64(r.dst, r.off); err != nil {
			return dst[:0], fmt.Errorf("gpu: joint reactions: %w", err)
		}
	}
	return j.Reactions(j.g, j.hlin, j.hrotA, h, dst), nil
}

var _ engine.JointReactor = (*Backend)(nil)

// grow returns s resized to n, reusing its storage when large enough.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// SetMotor replaces joint j's motor (engine.Driver): its speed and limit
// in the frame buffer, recorded in order with the kernels (the joint
// keeps its rows: only a joint that has a motor can take one).
func (b *Backend) SetMotor(j int, m engine.Motor) error {
	b.mustLoad("SetMotor")
	fr := b.jt.Frames
	if j < 0 || j >= len(fr) {
		return fmt.Errorf("gpu: joint %d out of range [0, %d)", j, len(fr))
	}
	if fr[j].Motor == nil {
		return fmt.Errorf("gpu: joint %d (%s) has no motor", j, fr[j].Kind)
	}
	*fr[j].Motor = m
	data := binary.LittleEndian.AppendUint64(nil, math.Float64bits(m.Speed))
	data = binary.LittleEndian.AppendUint64(data, math.Float64bits(m.MaxForce))
	b.l.update(b.jt.frame, int64(8*(jointFrameWords*j+23)), data)
	return b.l.Err()
}

// SetMotion replaces kinematic body i's motion from time t on
// (engine.Driver, engine.Path.Retarget).
func (b *Backend) SetMotion(i int, m engine.Motion, t float64) error {
	b.mustLoad("SetMotion")
	if i < 0 || i >= b.n {
		return fmt.Errorf("gpu: body %d out of range [0, %d)", i, b.n)
	}
	k := &b.kin
	e, ok := slices.BinarySearch(k.ids, i)
	if !ok {
		return fmt.Errorf("gpu: body %d is not kinematic (it has no motion in the model)", i)
	}
	k.paths[e] = k.paths[e].Retarget(m, t)
	// A body that now turns: from the next step on the Jacobian takes 12
	// values per contact (jacBytes) and the kernels that bind it their
	// 12-value build (Kernel.forBuffers).
	b.layout.SetMotion(i, m)
	b.footprint.Arms = b.layout.Along
	b.jac.arms = b.layout.Along
	return nil
}

var _ engine.Driver = (*Backend)(nil)

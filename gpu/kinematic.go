//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"encoding/binary"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// fixedKinematic is a kinematic body's value in the fixedBody buffer:
// nonzero, so that every kernel treats it as fixed (infinite mass, no
// pairs with other fixed bodies, no adjacency), and distinct from a fixed
// body's 1 so that collide_aabb gives it its speculative margin.
const fixedKinematic = 2

// kinematics is the backend's host side of kinematic bodies. GLSL has no
// float64 sin and cos, so the host computes their prescribed velocities
// and poses with engine.Path, as cpuref does, and records them into the
// open batch with vkCmdUpdateBuffer (LinAlg.update), in order with the
// kernels: after free_velocity their free velocity (which that kernel set
// to zero, as for any fixed body), after integrate their pose and
// velocity (which it left as they were).
type kinematics struct {
	ids   []int         // kinematic bodies, increasing
	paths []engine.Path // their trajectories, per entry of ids
	vf    []float64     // their velocity over the step of the last Build (6 each: linear world, angular body frame)
	pos   []float64     // scratch for their poses at the end of the step (3 each)
	rot   []float64     // (4 each)
	time  float64       // simulated time at the start of the step (s)
	data  []byte        // scratch for the update's bytes
}

// SetTime sets the simulated time (s) at the start of the coming step,
// from which kinematic bodies take their prescribed motion
// (engine.Clock).
func (b *Backend) SetTime(t float64) { b.kin.time = t }

var _ engine.Clock = (*Backend)(nil)

// loadKinematic sets up the kinematic bodies of m from the host's body
// arrays (after hostCollider.load, before the upload): their trajectories
// from the loaded (normalised) orientation, and their velocity at t = 0
// in h.vel and h.omega, as cpuref's loadJoints.
func (b *Backend) loadKinematic(m *engine.Model) {
	k := &b.kin
	*k = kinematics{data: k.data[:0]}
	h := &b.host
	for i := range m.Bodies {
		bd := &m.Bodies[i]
		if bd.Motion == nil {
			continue
		}
		q := mgl64.Quat{W: h.rot[4*i], V: mgl64.Vec3{h.rot[4*i+1], h.rot[4*i+2], h.rot[4*i+3]}}
		p := engine.Path{Motion: *bd.Motion, Pos0: bd.Pos, Rot0: q}
		v, w := p.StartVelocity()
		copy(h.vel[3*i:], v[:])
		copy(h.omega[3*i:], w[:])
		k.ids = append(k.ids, i)
		k.paths = append(k.paths, p)
	}
	k.vf = make([]float64, 6*len(k.ids))
	k.pos = make([]float64, 3*len(k.ids))
	k.rot = make([]float64, 4*len(k.ids))
}

// recordKinematicVelocity records, after free_velocity, the kinematic
// bodies' free velocities for the step [t, t+h] (engine.Path.StepVelocity,
// cpuref's kinematicVelocity).
func (b *Backend) recordKinematicVelocity(h float64) {
	k := &b.kin
	if len(k.ids) == 0 {
		return
	}
	for e := range k.ids {
		v, w := k.paths[e].StepVelocity(k.time, h)
		copy(k.vf[6*e:], v[:])
		copy(k.vf[6*e+3:], w[:])
	}
	b.recordRows(b.vfree, 6, func(e int) []float64 { return k.vf[6*e : 6*e+6] })
}

// recordKinematicMove records, after integrate, the kinematic bodies'
// poses at t + h (engine.Path.Pose) and their velocity of the step, and
// advances the time by h (cpuref's moveKinematic and Integrate).
func (b *Backend) recordKinematicMove(h float64) {
	k := &b.kin
	if len(k.ids) == 0 {
		k.time += h
		return
	}
	pos, rot := k.pos, k.rot
	for e := range k.ids {
		x, q := k.paths[e].Pose(k.time + h)
		copy(pos[3*e:], x[:])
		rot[4*e], rot[4*e+1], rot[4*e+2], rot[4*e+3] = q.W, q.V[0], q.V[1], q.V[2]
	}
	b.recordRows(b.pos, 3, func(e int) []float64 { return pos[3*e : 3*e+3] })
	b.recordRows(b.rot, 4, func(e int) []float64 { return rot[4*e : 4*e+4] })
	b.recordRows(b.vel, 3, func(e int) []float64 { return k.vf[6*e : 6*e+3] })
	b.recordRows(b.omega, 3, func(e int) []float64 { return k.vf[6*e+3 : 6*e+6] })
	k.time += h
}

// recordRows records the writes of row(e) (stride float64s) at the row of
// each kinematic body ids[e] of buf: one update per run of consecutive
// bodies, split where it would exceed vkCmdUpdateBuffer's 65536 bytes.
func (b *Backend) recordRows(buf *Buffer, stride int, row func(e int) []float64) {
	k := &b.kin
	per := maxUpdate / (8 * stride) // bodies per update
	for e := 0; e < len(k.ids); {
		f := e + 1
		for f < len(k.ids) && f-e < per && k.ids[f] == k.ids[f-1]+1 {
			f++
		}
		k.data = k.data[:0]
		for g := e; g < f; g++ {
			for _, x := range row(g) {
				k.data = binary.LittleEndian.AppendUint64(k.data, math.Float64bits(x))
			}
		}
		b.l.update(buf, int64(8*stride*k.ids[e]), k.data)
		e = f
	}
}

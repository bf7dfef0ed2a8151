package cpuref

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// joints is the backend's joint data: the layout (engine.JointLayout:
// frames, rows' bodies, body → row lists of movable bodies), and per joint
// row r its Jacobian row D_rᵀ, which acts like a contact row: the velocity
// of row r is
//
//	lin_r·(v_B − v_A) + rotA_r·ω_A + rotB_r·ω_B
//
// (v and ω world, as the solve takes them: frame.go; the world's velocity
// is zero), its impulse γ_r applies −lin_r γ_r to A and +lin_r γ_r to B
// with torques rotA_r γ_r and rotB_r γ_r, and γ_r ∈ [lo_r, hi_r] (±Inf for a bilateral
// row: Project leaves it as it is).
type joints struct {
	engine.JointLayout
	lin, rotA, rotB []float64      // 3 per row
	lo, hi          []float64      // bounds per row
	prev            []float64      // last step's joint impulses, for WarmStart
	kin             []*engine.Path // kinematic bodies' trajectories (nil: not kinematic)
	time            float64        // simulated time at the start of the step (s)
}

// SetTime sets the simulated time (s) at the start of the coming step,
// from which kinematic bodies take their prescribed motion
// (engine.Clock).
func (b *Backend) SetTime(t float64) { b.jt.time = t }

var _ engine.Clock = (*Backend)(nil)

// loadJoints sets up the joints and kinematic bodies of m (after the body
// arrays are loaded).
func (b *Backend) loadJoints(m *engine.Model) {
	j := &b.jt
	*j = joints{prev: j.prev[:0]}
	j.kin = make([]*engine.Path, b.n)
	for i := range m.Bodies {
		bd := &m.Bodies[i]
		if bd.Motion == nil {
			continue
		}
		p := &engine.Path{Motion: *bd.Motion, Pos0: bd.Pos, Rot0: b.quat(i)}
		j.kin[i] = p
		v, w := p.StartVelocity()
		copy(b.vel[3*i:], v[:])
		copy(b.omega[3*i:], w[:])
	}
	j.JointLayout = engine.NewJointLayout(m, b.pos, b.rot, b.fixed)
	row := j.Rows
	j.lin, j.rotA, j.rotB = make([]float64, 3*row), make([]float64, 3*row), make([]float64, 3*row)
	j.lo, j.hi = make([]float64, row), make([]float64, row)
	for r := range row {
		j.lo[r], j.hi[r] = math.Inf(-1), math.Inf(1)
	}
}

// pose returns body i's centre and orientation; the world's for
// engine.World.
func (b *Backend) pose(i int) (mgl64.Vec3, mgl64.Quat) {
	if i == engine.World {
		return mgl64.Vec3{}, mgl64.QuatIdent()
	}
	return b.position(i), b.quat(i)
}

// buildJoints computes every joint row's D_rᵀ at the current poses and
// r_r = b_r + D_rᵀ vfree into b.r[3nc:], with b_r the stabilisation
// term of eqs. 5–8 written for an equality: b_r = C_r/h, C_r the row's
// position error (m for point and distance rows, rad for angle rows), so
// that the solved velocity D_rᵀv = −C_r/h removes the error over the
// step. Like a contact's Φ/h it is capped: |b_r| ≤ MaxRecoverySpeed when
// that is set (read as rad/s for angle rows), so that a joint far from
// its constraint (an impulse that tore it, a bad start) is pulled back at
// a bounded speed rather than in one step. A motor row has b_r = −speed
// and the bounds ±MaxForce·h.
func (b *Backend) buildJoints(h float64) {
	j := &b.jt
	nc := b.con.Len()
	r := b.r[3*nc:]
	capSpeed := b.settings.MaxRecoverySpeed
	stab := func(c float64) float64 {
		c /= h
		if capSpeed > 0 {
			c = math.Max(-capSpeed, math.Min(capSpeed, c))
		}
		return c
	}
	for fi := range j.Frames {
		f := &j.Frames[fi]
		xa, qa := b.pose(f.A)
		xb, qb := b.pose(f.B)
		pa := xa.Add(qa.Rotate(f.SA))
		pb := xb.Add(qb.Rotate(f.SB))
		k := f.Row
		// point sets a row of velocity d·(ṗ_B − ṗ_A), ṗ of the points at
		// sa from A's centre and sb from B's (world), and bias C.
		point := func(d, sa, sb mgl64.Vec3, c float64) {
			b.setRow(k, d, d.Cross(sa), sb.Cross(d), stab(c))
			k++
		}
		// angle sets a row of velocity (ω_B − ω_A)·c (world) and bias C.
		angle := func(c mgl64.Vec3, e float64) {
			b.setRow(k, mgl64.Vec3{}, c.Mul(-1), c, stab(e))
			k++
		}
		sa, sb := pa.Sub(xa), pb.Sub(xb)
		sharedPoint := func() {
			for _, e := range [3]mgl64.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
				point(e, sa, sb, e.Dot(pb.Sub(pa)))
			}
		}
		// noTwist: the rotation vector θ of q_B·(q_A·rel)⁻¹ (world), whose
		// rate is ω_B − ω_A at θ = 0.
		noTwist := func() {
			qe := qb.Mul(qa.Mul(f.Rel).Conjugate())
			if qe.W < 0 {
				qe = qe.Scale(-1)
			}
			th := qe.V.Mul(2)
			for k, e := range [3]mgl64.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
				angle(e, th[k])
			}
		}
		switch f.Kind {
		case engine.JointSpherical:
			sharedPoint()
		case engine.JointRevolute:
			sharedPoint()
			// The axes stay parallel: C = d·a_B for d = u_A, w_A ⊥ a_A,
			// whose rate is (ω_B − ω_A)·(a_B × d).
			ab := qb.Rotate(f.AxisB)
			for _, dl := range [2]mgl64.Vec3{f.UA, f.WA} {
				d := qa.Rotate(dl)
				angle(ab.Cross(d), d.Dot(ab))
			}
		case engine.JointPrismatic:
			noTwist()
			// p_B stays on A's line through p_A: C = d·(p_B − p_A) for
			// d = u_A, w_A (attached to A). The rate of C is d·(ṗ_B − ṗ_A')
			// with A' the point of A at p_B, since ḋ·(p_B − p_A) =
			// (ω_A × d)·(p_B − p_A) moves A's point from p_A to p_B.
			for _, dl := range [2]mgl64.Vec3{f.UA, f.WA} {
				d := qa.Rotate(dl)
				point(d, pb.Sub(xa), sb, d.Dot(pb.Sub(pa)))
			}
		case engine.JointFixed:
			sharedPoint()
			noTwist()
		case engine.JointDistance:
			u := pb.Sub(pa)
			l := u.Len()
			d := mgl64.Vec3{0, 0, 1}
			if l > 0 {
				d = u.Mul(1 / l)
			}
			point(d, sa, sb, l-f.Length)
		}
		if f.Motor != nil {
			a := qa.Rotate(f.AxisA)
			if f.Kind == engine.JointRevolute {
				// (ω_A − ω_B)·a = speed.
				angle(a.Mul(-1), 0)
			} else {
				// a·(ṗ_A' − ṗ_B) = speed, A' the point of A at p_B.
				point(a.Mul(-1), pb.Sub(xa), sb, 0)
			}
			r0 := k - 1
			b.r[3*nc+r0] = -f.Motor.Speed
			lim := math.Inf(1)
			if f.Motor.MaxForce > 0 {
				lim = f.Motor.MaxForce * h
			}
			j.lo[r0], j.hi[r0] = -lim, lim
		}
	}
	b.jointVelocities(b.dv, r, true) // vfree in the world frame (Build)
}

// setRow sets joint row k's Jacobian and bias (its r_k before the
// velocities are added).
func (b *Backend) setRow(k int, lin, rotA, rotB mgl64.Vec3, bias float64) {
	j := &b.jt
	copy(j.lin[3*k:], lin[:])
	copy(j.rotA[3*k:], rotA[:])
	copy(j.rotB[3*k:], rotB[:])
	b.r[3*b.con.Len()+k] = bias
}

// jointVelocities sets out_r = D_rᵀ v for every joint row r, v the
// 6-per-body velocities (adds them to out when add is set).
func (b *Backend) jointVelocities(v, out []float64, add bool) {
	j := &b.jt
	for r := 0; r < j.Rows; r++ {
		u := b.jointVelocity(r, v)
		if add {
			out[r] += u
		} else {
			out[r] = u
		}
	}
}

// jointVelocity returns D_rᵀ v for joint row r.
func (b *Backend) jointVelocity(r int, v []float64) float64 {
	j := &b.jt
	l := j.lin[3*r : 3*r+3]
	u := 0.0
	if ia := j.RowA[r]; ia >= 0 {
		va := v[6*ia : 6*ia+6]
		ra := j.rotA[3*r : 3*r+3]
		u += -(l[0]*va[0] + l[1]*va[1] + l[2]*va[2]) + ra[0]*va[3] + ra[1]*va[4] + ra[2]*va[5]
	}
	if ib := j.RowB[r]; ib >= 0 {
		vb := v[6*ib : 6*ib+6]
		rb := j.rotB[3*r : 3*r+3]
		u += l[0]*vb[0] + l[1]*vb[1] + l[2]*vb[2] + rb[0]*vb[3] + rb[1]*vb[4] + rb[2]*vb[5]
	}
	return u
}

// addJointImpulses adds body i's joint rows' forces and torques (world) for the impulses x (joint rows at x[3nc:]) to f and t.
func (b *Backend) addJointImpulses(i int, x []float64, f, t *[3]float64) {
	j := &b.jt
	xj := x[3*b.con.Len():]
	for _, e := range j.Adj[j.AdjOff[i]:j.AdjOff[i+1]] {
		r := int(e >> 1)
		g := xj[r]
		l := j.lin[3*r : 3*r+3]
		rot, s := j.rotA[3*r:3*r+3], -1.0
		if e&1 == 1 {
			rot, s = j.rotB[3*r:3*r+3], 1
		}
		for k := 0; k < 3; k++ {
			f[k] += s * g * l[k]
			t[k] += g * rot[k]
		}
	}
}

// addJointRowImpulse adds M⁻¹D_r x to the velocities dv of joint row r's
// movable bodies.
func (b *Backend) addJointRowImpulse(r int, x float64, dv []float64) {
	j := &b.jt
	for side, body := range [2]int32{j.RowA[r], j.RowB[r]} {
		if body < 0 || b.fixed[body] {
			continue
		}
		i := int(body)
		rot, s := j.rotA[3*r:3*r+3], -1.0
		if side == 1 {
			rot, s = j.rotB[3*r:3*r+3], 1
		}
		im := b.invMass[i]
		w := b.invInertiaWorld(i, [3]float64{x * rot[0], x * rot[1], x * rot[2]})
		for k := 0; k < 3; k++ {
			dv[6*i+k] += im * s * x * j.lin[3*r+k]
			dv[6*i+3+k] += w[k]
		}
	}
}

// jointDiag returns N_rr = D_rᵀM⁻¹D_r of joint row r.
func (b *Backend) jointDiag(r int) float64 {
	j := &b.jt
	d := 0.0
	l := j.lin[3*r : 3*r+3]
	ll := l[0]*l[0] + l[1]*l[1] + l[2]*l[2]
	for side, body := range [2]int32{j.RowA[r], j.RowB[r]} {
		if body < 0 || b.fixed[body] {
			continue
		}
		i := int(body)
		rot := j.rotA[3*r : 3*r+3]
		if side == 1 {
			rot = j.rotB[3*r : 3*r+3]
		}
		d += b.invMass[i] * ll
		rb := b.inBodyFrame(i, mgl64.Vec3{rot[0], rot[1], rot[2]})
		for k := 0; k < 3; k++ {
			d += rb[k] * rb[k] * b.invInertia[3*i+k]
		}
	}
	return d
}

// projectJoints clamps the joint rows x[3nc:] into their bounds, into d
// (which may alias x).
func (b *Backend) projectJoints(d, x []float64) {
	j := &b.jt
	o := 3 * b.con.Len()
	for r := 0; r < j.Rows; r++ {
		d[o+r] = math.Max(j.lo[r], math.Min(j.hi[r], x[o+r]))
	}
}

// JointReactions returns each joint's force and torque on its Body1 (world
// frame, torque about Body1's centre) for the impulses gamma of a step of
// length h (engine.JointLayout.Reactions; engine.JointReactor).
func (b *Backend) JointReactions(gamma engine.Vec, h float64, dst []engine.Reaction) ([]engine.Reaction, error) {
	j := &b.jt
	g := vec(gamma)
	nc := b.con.Len()
	if len(g) != b.rows() {
		return dst[:0], fmt.Errorf("cpuref: joint reactions: gamma has length %d, want %d", len(g), b.rows())
	}
	return j.Reactions(g[3*nc:3*nc+j.Rows], j.lin, j.rotA, h, dst), nil
}

var _ engine.JointReactor = (*Backend)(nil)

// kinematicVelocity sets vf (6 values: linear world, angular body frame)
// to kinematic body i's velocity over the step [t, t+h]
// (engine.Path.StepVelocity).
func (b *Backend) kinematicVelocity(i int, h float64, vf []float64) {
	v, w := b.jt.kin[i].StepVelocity(b.jt.time, h)
	vf[0], vf[1], vf[2], vf[3], vf[4], vf[5] = v[0], v[1], v[2], w[0], w[1], w[2]
}

// moveKinematic sets kinematic body i's pose to the prescribed one at
// t + h (engine.Path.Pose), and its velocity to that of the step, vf.
func (b *Backend) moveKinematic(i int, h float64, vf []float64) {
	x, q := b.jt.kin[i].Pose(b.jt.time + h)
	copy(b.pos[3*i:], x[:])
	b.rot[4*i], b.rot[4*i+1], b.rot[4*i+2], b.rot[4*i+3] = q.W, q.V[0], q.V[1], q.V[2]
	copy(b.vel[3*i:3*i+3], vf[0:3])
	copy(b.omega[3*i:3*i+3], vf[3:6])
}

// SetMotor replaces joint j's motor (engine.Driver): buildJoints reads
// its speed and limit each step.
func (b *Backend) SetMotor(j int, m engine.Motor) error {
	fr := b.jt.Frames
	if j < 0 || j >= len(fr) {
		return fmt.Errorf("cpuref: joint %d out of range [0, %d)", j, len(fr))
	}
	if fr[j].Motor == nil {
		return fmt.Errorf("cpuref: joint %d (%s) has no motor", j, fr[j].Kind)
	}
	*fr[j].Motor = m
	return nil
}

// SetMotion replaces kinematic body i's motion from time t on
// (engine.Driver, engine.Path.Retarget).
func (b *Backend) SetMotion(i int, m engine.Motion, t float64) error {
	if i < 0 || i >= b.n {
		return fmt.Errorf("cpuref: body %d out of range [0, %d)", i, b.n)
	}
	p := b.jt.kin[i]
	if p == nil {
		return fmt.Errorf("cpuref: body %d is not kinematic (it has no motion in the model)", i)
	}
	*p = p.Retarget(m, t)
	b.layout.SetMotion(i, m)
	b.arms = b.arms && b.layout.Along
	return nil
}

var _ engine.Driver = (*Backend)(nil)

// JointJacobian loads m into a CPU backend and returns its joint layout,
// the joint rows' Jacobian at the model's poses (lin, rotA, rotB: 3 per
// row, as Build makes them for a step of s.Dt) and which bodies cannot
// move: what engine.JointLayout.JointRank needs.
func JointJacobian(m *engine.Model, s *engine.Settings) (l engine.JointLayout, lin, rotA, rotB []float64, static []bool, err error) {
	b := New(1)
	defer b.Close()
	if err := b.Load(m, s); err != nil {
		return l, nil, nil, nil, nil, err
	}
	if _, err := b.Build(s.Dt); err != nil {
		return l, nil, nil, nil, nil, err
	}
	j := &b.jt
	return j.JointLayout, j.lin, j.rotA, j.rotB, append([]bool(nil), b.fixed...), nil
}

package engine

import (
	"github.com/go-gl/mathgl/mgl64"
)

// JointFrame is a joint's data in its bodies' frames, fixed at Load from
// the model's world-frame points and axis at t = 0. A or B may be World,
// whose frame is the world frame. Every backend builds its joint rows
// from these (cpuref in Go, gpu in joint_rows.comp), so all start from
// the same doubles.
type JointFrame struct {
	Kind   JointKind
	A, B   int        // Body1, Body2 (World: −1)
	SA, SB mgl64.Vec3 // the joint's point in A's and B's frames (m); for a distance joint Point on A, Point2 on B
	AxisA  mgl64.Vec3 // unit axis in A's frame (revolute, prismatic)
	AxisB  mgl64.Vec3 // unit axis in B's frame
	UA, WA mgl64.Vec3 // unit vectors ⊥ axis in A's frame, (axis, u, w) right-handed
	Rel    mgl64.Quat // q_A⁻¹·q_B at t = 0 (fixed, prismatic)
	Length float64    // distance joint's length (m)
	Motor  *Motor     // a copy of the joint's motor, or nil
	Row    int        // its first row among the joint rows
}

// JointLayout is what a backend derives from a model's joints at Load:
// their frames, and per joint row the two bodies it acts on and, per
// movable body, the list of rows acting on it.
type JointLayout struct {
	Frames []JointFrame
	// Rows is n_j, the number of joint rows (motor rows included): γ's
	// rows after the 3·n_c contact rows.
	Rows int
	// RowA and RowB are the bodies of each row (World: −1).
	RowA, RowB []int32
	// AdjOff and Adj are the body → row lists of the movable bodies (CSR:
	// body i's entries are Adj[AdjOff[i]:AdjOff[i+1]], each 2r + side, side
	// 0 for A and 1 for B), rows in increasing order; a static body's list
	// is empty.
	AdjOff, Adj []int32
}

// NewJointLayout builds the layout of m's joints for n bodies at the
// poses pos (3 per body) and rot (4 per body: w, x, y, z) they have at
// Load; static[i] reports a body that does not move under forces (fixed,
// plane or kinematic).
func NewJointLayout(m *Model, pos, rot []float64, static []bool) JointLayout {
	n := len(static)
	pose := func(i int) (mgl64.Vec3, mgl64.Quat) {
		if i == World {
			return mgl64.Vec3{}, mgl64.QuatIdent()
		}
		return mgl64.Vec3{pos[3*i], pos[3*i+1], pos[3*i+2]},
			mgl64.Quat{W: rot[4*i], V: mgl64.Vec3{rot[4*i+1], rot[4*i+2], rot[4*i+3]}}
	}
	var l JointLayout
	row := 0
	for _, jm := range m.Joints {
		f := JointFrame{Kind: jm.Kind, A: jm.Body1, B: jm.Body2, Row: row}
		if jm.Motor != nil {
			mo := *jm.Motor
			f.Motor = &mo
		}
		xa, qa := pose(f.A)
		xb, qb := pose(f.B)
		pa, pb := jm.Point, jm.Point
		if jm.Kind == JointDistance {
			pb = jm.Point2
			f.Length = pb.Sub(pa).Len()
		}
		f.SA = qa.Conjugate().Rotate(pa.Sub(xa))
		f.SB = qb.Conjugate().Rotate(pb.Sub(xb))
		if ax := jm.Axis.Len(); ax > 0 {
			a := jm.Axis.Mul(1 / ax)
			f.AxisA = qa.Conjugate().Rotate(a)
			f.AxisB = qb.Conjugate().Rotate(a)
			f.UA, f.WA = TangentBasis(f.AxisA)
		}
		f.Rel = qa.Conjugate().Mul(qb)
		l.Frames = append(l.Frames, f)
		row += jm.Rows()
	}
	l.Rows = row
	l.RowA, l.RowB = make([]int32, row), make([]int32, row)
	for _, f := range l.Frames {
		for r := f.Row; r < f.Row+f.Kind.Rows()+btoi(f.Motor != nil); r++ {
			l.RowA[r], l.RowB[r] = int32(f.A), int32(f.B)
		}
	}
	movable := func(i int32) bool { return i >= 0 && !static[i] }
	l.AdjOff = make([]int32, n+1)
	for r := 0; r < row; r++ {
		for _, i := range [2]int32{l.RowA[r], l.RowB[r]} {
			if movable(i) {
				l.AdjOff[i+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		l.AdjOff[i+1] += l.AdjOff[i]
	}
	l.Adj = make([]int32, l.AdjOff[n])
	cur := append([]int32(nil), l.AdjOff[:n]...)
	for r := 0; r < row; r++ {
		for side, i := range [2]int32{l.RowA[r], l.RowB[r]} {
			if movable(i) {
				l.Adj[cur[i]] = int32(2*r + side)
				cur[i]++
			}
		}
	}
	return l
}

// Reactions returns each joint's force and torque on its Body1 (world
// frame, torque about Body1's centre) for the joint rows' impulses g (n_j)
// of a step of length h, whose Jacobian rows have the linear parts lin
// and Body1's angular parts rotA (3 per row, world frame, as the solve
// takes them): Σ over its rows of −lin_r γ_r/h and rotA_r γ_r/h. dst is
// reused when long enough (JointReactor).
func (l *JointLayout) Reactions(g, lin, rotA []float64, h float64, dst []Reaction) []Reaction {
	if cap(dst) < len(l.Frames) {
		dst = make([]Reaction, len(l.Frames))
	}
	dst = dst[:len(l.Frames)]
	for fi, f := range l.Frames {
		var force, torque mgl64.Vec3
		for r := f.Row; r < f.Row+f.Kind.Rows()+btoi(f.Motor != nil); r++ {
			x := g[r] / h
			for k := 0; k < 3; k++ {
				force[k] -= x * lin[3*r+k]
				torque[k] += x * rotA[3*r+k]
			}
		}
		dst[fi] = Reaction{Force: force, Torque: torque}
	}
	return dst
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

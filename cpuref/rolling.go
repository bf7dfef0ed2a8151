package cpuref

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// rolling is the backend's rolling and spinning friction data
// (engine.RollingRows): per rolling block k (a contact with a nonzero
// combined rolling or spinning coefficient, blocks in contact order) its
// contact, its coefficients and its Jacobian, whose three rows d ∈ {u, w,
// n} (the contact's frame) have the velocity
//
//	rotA_k,d·ω_A + rotB_k,d·ω_B,  rotA_k,d = −d, rotB_k,d = d,
//
// (world frame, as the solve takes ω: frame.go), that is (ω_B − ω_A)·d.
// Its impulse applies the torques rotA_k,d γ_k,d to A and
// rotB_k,d γ_k,d to B and no force. The blocks take
// γ's rows from off = 3nc + nj on.
type rolling struct {
	on         bool      // the model has rolling friction (engine.Model.HasRolling); without it nothing here runs
	n          int       // nr, the number of rolling blocks of the current step
	off        int       // their first row, 3nc + nj
	idx        []int32   // per contact: its rolling block, or −1
	con        []int32   // per block: its contact
	mur, mus   []float64 // per block: μ_r and μ_s (m)
	rotA, rotB []float64 // per block: 9 (rows u, w, n)
	prev       []float64 // last step's rolling impulses, 3 per kept contact key (0 without rolling rows)
	tmp        []float64 // WarmStart's scratch, 3 per contact
}

// Rolling returns nr, the number of rolling blocks (engine.RollingRows).
func (p *problem) Rolling() int { return p.b.rl.n }

// RollingContact returns the contact of rolling block k.
func (p *problem) RollingContact(k int) int { return int(p.b.rl.con[k]) }

var _ engine.RollingRows = (*problem)(nil)

// rows returns the length of the current step's γ: 3nc + nj + 3nr.
func (b *Backend) rows() int { return 3*b.con.Len() + b.jt.Rows + 3*b.rl.n }

// listRolling finds the current contacts' rolling blocks (before r is
// sized).
func (b *Backend) listRolling() {
	rl := &b.rl
	rl.n, rl.off = 0, 3*b.con.Len()+b.jt.Rows
	if !rl.on {
		return
	}
	nc := b.con.Len()
	rl.idx = resizeI32(rl.idx, nc)
	rl.con, rl.mur, rl.mus = rl.con[:0], rl.mur[:0], rl.mus[:0]
	for k := range nc {
		rl.idx[k] = -1
		if b.con.HasRollingRows(k) {
			mur, mus := b.con.RollingCoefficients(k)
			rl.idx[k] = int32(len(rl.con))
			rl.con = append(rl.con, int32(k))
			rl.mur = append(rl.mur, mur)
			rl.mus = append(rl.mus, mus)
		}
	}
	rl.n = len(rl.con)
}

// buildRolling computes the rolling blocks' Jacobian from the contact
// frames in b.jac and r_k = D_kᵀ vfree (no bias: nothing drifts; vfree in
// the world frame, in dv: Build).
func (b *Backend) buildRolling() {
	rl := &b.rl
	rl.rotA, rl.rotB = resizeF(rl.rotA, 9*rl.n), resizeF(rl.rotB, 9*rl.n)
	var blk [12]float64
	for k := range rl.n {
		j := b.jacBlock(int(rl.con[k]), &blk)
		wx, wy, wz := contactW(j)
		for d, dir := range [3]mgl64.Vec3{{j[3], j[4], j[5]}, {wx, wy, wz}, {j[0], j[1], j[2]}} { // u, w, n
			ra := dir.Mul(-1)
			copy(rl.rotA[9*k+3*d:], ra[:])
			copy(rl.rotB[9*k+3*d:], dir[:])
		}
	}
	b.rollingVelocities(b.dv, b.r[rl.off:], false)
}

// rollingVelocities sets out[3k+d] = D_k,dᵀ v for every rolling block k
// and row d (adds them when add is set), v the 6-per-body velocities.
func (b *Backend) rollingVelocities(v, out []float64, add bool) {
	rl := &b.rl
	for k := range rl.n {
		var u [3]float64
		b.rollingVelocity(k, v, &u)
		for d := range 3 {
			if add {
				out[3*k+d] += u[d]
			} else {
				out[3*k+d] = u[d]
			}
		}
	}
}

// rollingVelocity sets u to rolling block k's D_kᵀ v.
func (b *Backend) rollingVelocity(k int, v []float64, u *[3]float64) {
	rl := &b.rl
	c := int(rl.con[k])
	va := v[6*b.con.A[c]+3 : 6*b.con.A[c]+6]
	vb := v[6*b.con.B[c]+3 : 6*b.con.B[c]+6]
	ra, rb := rl.rotA[9*k:9*k+9], rl.rotB[9*k:9*k+9]
	for d := range 3 {
		u[d] = ra[3*d]*va[0] + ra[3*d+1]*va[1] + ra[3*d+2]*va[2] +
			rb[3*d]*vb[0] + rb[3*d+1]*vb[1] + rb[3*d+2]*vb[2]
	}
}

// addRollingTorque returns the torque (t0, t1, t2) of contact k on its
// side (0: A, 1: B) plus, when the contact has a rolling block, the
// block's torque on that side from the impulses x: Σ_d γ_d rot_d over its
// rows u, w, n (rot = rotA or rotB).
func (b *Backend) addRollingTorque(k int, side int32, x []float64, t0, t1, t2 float64) (float64, float64, float64) {
	rl := &b.rl
	r := rl.idx[k]
	if r < 0 {
		return t0, t1, t2
	}
	g := (*[3]float64)(x[rl.off+3*int(r) : rl.off+3*int(r)+3])
	rot := (*[9]float64)(rl.rotA[9*r : 9*r+9])
	if side != 0 {
		rot = (*[9]float64)(rl.rotB[9*r : 9*r+9])
	}
	t0 += g[0]*rot[0] + g[1]*rot[3] + g[2]*rot[6]
	t1 += g[0]*rot[1] + g[1]*rot[4] + g[2]*rot[7]
	t2 += g[0]*rot[2] + g[1]*rot[5] + g[2]*rot[8]
	return t0, t1, t2
}

// rollingSide is one body of a rolling block: its index and its three
// rows' angular parts (9 values, rows u, w, n), or i < 0 when it is
// fixed.
type rollingSide struct {
	i   int
	rot []float64
}

// rollingSides returns the bodies A and B of rolling block k (i = −1 for
// a fixed one).
func (b *Backend) rollingSides(k int) [2]rollingSide {
	rl := &b.rl
	c := int(rl.con[k])
	s := [2]rollingSide{{int(b.con.A[c]), rl.rotA[9*k : 9*k+9]}, {int(b.con.B[c]), rl.rotB[9*k : 9*k+9]}}
	for j := range s {
		if b.fixed[s[j].i] {
			s[j].i = -1
		}
	}
	return s
}

// addRollingImpulse adds M⁻¹D_k x to the velocities dv of rolling block
// k's movable bodies.
func (b *Backend) addRollingImpulse(k int, x [3]float64, dv []float64) {
	for _, sd := range b.rollingSides(k) {
		i, rot := sd.i, sd.rot
		if i < 0 {
			continue
		}
		w := b.invInertiaWorld(i, [3]float64{
			x[0]*rot[0] + x[1]*rot[3] + x[2]*rot[6],
			x[0]*rot[1] + x[1]*rot[4] + x[2]*rot[7],
			x[0]*rot[2] + x[1]*rot[5] + x[2]*rot[8]})
		for j := range 3 {
			dv[6*i+3+j] += w[j]
		}
	}
}

// rollingDiag returns tr(N_kk)/3 of rolling block k.
func (b *Backend) rollingDiag(k int) float64 {
	tr := 0.0
	for _, sd := range b.rollingSides(k) {
		i, rot := sd.i, sd.rot
		if i < 0 {
			continue
		}
		for d := range 3 {
			rb := b.inBodyFrame(i, mgl64.Vec3{rot[3*d], rot[3*d+1], rot[3*d+2]})
			for m := range 3 {
				tr += rb[m] * rb[m] * b.invInertia[3*i+m]
			}
		}
	}
	return tr / 3
}

// projectRolling projects every rolling block of x into d (which may
// alias x) with its contact's normal impulse d[3c], already projected.
func (b *Backend) projectRolling(d, x []float64) {
	rl := &b.rl
	for k := range rl.n {
		o := rl.off + 3*k
		d[o], d[o+1], d[o+2] = ProjectRolling(d[3*rl.con[k]], x[o], x[o+1], x[o+2], rl.mur[k], rl.mus[k])
	}
}

// ProjectRolling projects a rolling block (ru, rw, s) onto the set of a
// contact whose normal impulse, already projected onto its friction cone,
// is gn, as Project Chrono's rolling contacts do with γ_n held (see
// engine.RollingRows): with n = max(gn, 0) (the cohesion impulse is not
// added), (ru, rw) onto the disc of radius μ_r n — unchanged inside, else
// scaled back to its rim along the same direction — and s clamped into
// [−μ_s n, μ_s n]. With μ_r = 0 the rolling part is 0, with μ_s = 0 the
// spinning part.
func ProjectRolling(gn, ru, rw, s, mur, mus float64) (float64, float64, float64) {
	n := math.Max(gn, 0)
	if rad := mur * n; rad == 0 {
		ru, rw = 0, 0
	} else if t := math.Sqrt(ru*ru + rw*rw); t > rad {
		f := rad / t
		ru, rw = ru*f, rw*f
	}
	lim := mus * n
	s = math.Max(-lim, math.Min(lim, s))
	return ru, rw, s
}

// keepRolling remembers the rolling impulses of γ for the next warm start,
// 3 per contact (0 for contacts without a block), in the order of the
// contact keys Integrate keeps.
func (b *Backend) keepRolling(g []float64) {
	rl := &b.rl
	if !rl.on {
		rl.prev = rl.prev[:0]
		return
	}
	nc := b.con.Len()
	rl.prev = resizeF(rl.prev, 3*nc)
	clear(rl.prev)
	for k := range rl.n {
		c := int(rl.con[k])
		copy(rl.prev[3*c:3*c+3], g[rl.off+3*k:rl.off+3*k+3])
	}
}

// warmRolling fills the rolling rows of g with the kept impulses of the
// contacts that persist (matched by key as the contact rows are), zero
// elsewhere.
func (b *Backend) warmRolling(g []float64) {
	rl := &b.rl
	if rl.n == 0 {
		return
	}
	gr := g[rl.off : rl.off+3*rl.n]
	if len(rl.prev) == 0 {
		clear(gr)
		return
	}
	nc := b.con.Len()
	rl.tmp = resizeF(rl.tmp, 3*nc)
	b.Collider.WarmStart(rl.tmp, rl.prev)
	for k := range rl.n {
		c := int(rl.con[k])
		copy(gr[3*k:3*k+3], rl.tmp[3*c:3*c+3])
	}
}

func resizeI32(s []int32, n int) []int32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int32, n, roomy(n))
}

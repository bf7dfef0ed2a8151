package enginetest

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// eps is float64's unit roundoff u = 2⁻⁵³: a correctly rounded operation
// is within u·|result| of the exact one (Higham, Accuracy and Stability
// of Numerical Algorithms, eq. 2.4).
const eps = 0x1p-53

// gammaK is Higham's γ_k = ku/(1 − ku) (Lemma 3.1): a result computed with
// k roundings, each relative, is within γ_k of the exact one relative to
// the magnitudes that flow into it.
func gammaK(k int) float64 { return float64(k) * eps / (1 - float64(k)*eps) }

// row is one side's part of a contact's Jacobian D_k (eq. 4 of the APGD
// paper) for one movable body: lin[d] = ±d (world frame) and ang[d] the
// rotational row in the body frame, for d = n, u, w.
type row struct {
	body     int // −1: a fixed body, no rows
	lin, ang [3][3]float64
}

// dense is the problem of a step assembled from the model and the
// backend's contacts and state, independently of the backend: N = DᵀM⁻¹D
// as a dense matrix, |D|ᵀM⁻¹|D| (the magnitudes its products round
// against), r = b + DᵀM⁻¹k and the magnitudes of its terms, and the cones.
type dense struct {
	nc      int
	n, abs  [][]float64 // 3nc × 3nc
	r, rAbs []float64
	mu, coh []float64
	deg     int // the most contacts on one movable body
}

// tangentBasis returns the contact frame's u and w for the unit normal n:
// u = n × e normalised, e the coordinate axis least aligned with n (x
// before y before z in ties), w = n × u. This is the convention of
// cpuref.TangentBasis, which every backend uses so that impulses mean the
// same on all of them (warm start, problem dumps); it is written out here
// so that the reference shares no code with a backend.
func tangentBasis(n [3]float64) (u, w [3]float64) {
	ax, ay, az := math.Abs(n[0]), math.Abs(n[1]), math.Abs(n[2])
	var e [3]float64
	switch {
	case ax <= ay && ax <= az:
		e[0] = 1
	case ay <= az:
		e[1] = 1
	default:
		e[2] = 1
	}
	u = cross(n, e)
	l := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
	for i := range u {
		u[i] /= l
	}
	return u, cross(n, u)
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// toBody returns Rᵀd for the unit quaternion q = (w, x, y, z) (body to
// world), by the rotation matrix rather than quaternion products.
func toBody(q []float64, d [3]float64) [3]float64 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	r := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
	return [3]float64{
		r[0][0]*d[0] + r[1][0]*d[1] + r[2][0]*d[2],
		r[0][1]*d[0] + r[1][1]*d[1] + r[2][1]*d[2],
		r[0][2]*d[0] + r[1][2]*d[1] + r[2][2]*d[2],
	}
}

// assemble builds the dense reference of l's current problem from l.m,
// the backend's contacts (ReadContacts) and body state (ReadState).
func assemble(t *testing.T, l *loaded) *dense {
	t.Helper()
	var c engine.Contacts
	if err := l.b.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	var s engine.State
	if err := l.b.ReadState(&s); err != nil {
		t.Fatal(err)
	}
	nc := c.Len()
	if nc != l.nc {
		t.Fatalf("ReadContacts has %d contacts, Collide found %d", nc, l.nc)
	}
	h := l.set.Dt
	bodies := l.m.Bodies
	fixed := func(i int) bool { return bodies[i].Fixed || bodies[i].Shape.Kind == engine.Plane }

	// vfree = v + hM⁻¹f per movable body (linear, world; angular, body
	// frame, the gyroscopic torque −ω×Jω by engine.GyroStep), and its
	// magnitude (|ω* − ω| bounds the rounding of GyroStep's solve).
	vfree := make([][6]float64, len(bodies))
	vAbs := make([][6]float64, len(bodies))
	g := l.m.Gravity
	for i, bd := range bodies {
		if fixed(i) {
			continue
		}
		for k := range 3 {
			vfree[i][k] = s.Vel[3*i+k] + h*(g[k]+bd.Force[k]/bd.Mass)
			vAbs[i][k] = math.Abs(s.Vel[3*i+k]) + h*(math.Abs(g[k])+math.Abs(bd.Force[k])/bd.Mass)
		}
		w := [3]float64{s.Omega[3*i], s.Omega[3*i+1], s.Omega[3*i+2]}
		ws := engine.GyroStep(w, [3]float64{1 / bd.Inertia[0], 1 / bd.Inertia[1], 1 / bd.Inertia[2]}, h)
		tq := toBody(s.Rot[4*i:4*i+4], [3]float64(bd.Torque))
		for k := range 3 {
			vfree[i][3+k] = ws[k] + h*tq[k]/bd.Inertia[k]
			vAbs[i][3+k] = math.Abs(ws[k]) + math.Abs(ws[k]-w[k]) + h*math.Abs(tq[k])/bd.Inertia[k]
		}
	}

	rows := make([][2]row, nc)
	perBody := map[int][]int{}
	for k := range nc {
		nrm := [3]float64{c.Normal[3*k], c.Normal[3*k+1], c.Normal[3*k+2]}
		u, w := tangentBasis(nrm)
		dirs := [3][3]float64{nrm, u, w}
		for side, b := range [2]int{int(c.A[k]), int(c.B[k])} {
			rw := &rows[k][side]
			rw.body = -1
			if fixed(b) {
				continue
			}
			rw.body = b
			perBody[b] = append(perBody[b], k)
			p := [3]float64{c.PA[3*k], c.PA[3*k+1], c.PA[3*k+2]}
			if side == 1 {
				p = [3]float64{c.PB[3*k], c.PB[3*k+1], c.PB[3*k+2]}
			}
			for d, dir := range dirs {
				db := toBody(s.Rot[4*b:4*b+4], dir)
				if side == 0 {
					rw.lin[d] = [3]float64{-dir[0], -dir[1], -dir[2]}
					rw.ang[d] = cross(db, p) // ρ_A,d = d̄_A × s̄_A
				} else {
					rw.lin[d] = dir
					rw.ang[d] = cross(p, db) // ρ_B,d = s̄_B × d̄_B
				}
			}
		}
	}

	ref := &dense{nc: nc, mu: append([]float64(nil), c.Mu...), coh: make([]float64, nc)}
	for k := range nc {
		ref.coh[k] = h * c.Cohesion[k]
	}
	n := 3 * nc
	ref.n, ref.abs = make([][]float64, n), make([][]float64, n)
	for i := range ref.n {
		ref.n[i], ref.abs[i] = make([]float64, n), make([]float64, n)
	}
	for b, ks := range perBody {
		ref.deg = max(ref.deg, len(ks))
		im := 1 / bodies[b].Mass
		ji := [3]float64{1 / bodies[b].Inertia[0], 1 / bodies[b].Inertia[1], 1 / bodies[b].Inertia[2]}
		sideOf := func(k int) *row {
			if rows[k][0].body == b {
				return &rows[k][0]
			}
			return &rows[k][1]
		}
		for _, k := range ks {
			rk := sideOf(k)
			for _, j := range ks {
				rj := sideOf(j)
				for d := range 3 {
					for e := range 3 {
						v, a := 0.0, 0.0
						for m := range 3 {
							v += im*rk.lin[d][m]*rj.lin[e][m] + ji[m]*rk.ang[d][m]*rj.ang[e][m]
							a += im*math.Abs(rk.lin[d][m]*rj.lin[e][m]) + ji[m]*math.Abs(rk.ang[d][m]*rj.ang[e][m])
						}
						ref.n[3*k+d][3*j+e] += v
						ref.abs[3*k+d][3*j+e] += a
					}
				}
			}
		}
	}

	ref.r, ref.rAbs = make([]float64, n), make([]float64, n)
	capSpeed := l.set.MaxRecoverySpeed
	for k := range nc {
		for _, rw := range rows[k] {
			if rw.body < 0 {
				continue
			}
			v, a := vfree[rw.body], vAbs[rw.body]
			for d := range 3 {
				for m := range 3 {
					ref.r[3*k+d] += rw.lin[d][m]*v[m] + rw.ang[d][m]*v[3+m]
					ref.rAbs[3*k+d] += math.Abs(rw.lin[d][m])*a[m] + math.Abs(rw.ang[d][m])*a[3+m]
				}
			}
		}
		bn := c.Phi[k] / h
		if capSpeed > 0 {
			bn = math.Max(bn, -capSpeed)
		}
		ref.r[3*k] += bn
		ref.rAbs[3*k] += math.Abs(bn)
	}
	return ref
}

// mul returns (Nx)_i and (|D|ᵀM⁻¹|D||x|)_i.
func (d *dense) mul(x []float64) (nx, abs []float64) {
	nx, abs = make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		for j, v := range d.n[i] {
			nx[i] += v * x[j]
			abs[i] += d.abs[i][j] * math.Abs(x[j])
		}
	}
	return nx, abs
}

// schurRoundings bounds the roundings on any path from x to an element of
// Nx in either computation, the backend's or the reference's: the basis
// (normalisation: 4), the rotation into the body frame (about 12), the
// cross product (2), the rows times M⁻¹ (2), the sum over a body's
// contacts (3·deg terms, in any order) and over the 6 coordinates and the
// two bodies (12); 40 covers the fixed part with room. Each computation is
// then within γ_k of the exact N x relative to |D|ᵀM⁻¹|D||x|, so the two
// are within 2γ_k of each other.
func (d *dense) schurRoundings() int { return 3*d.deg + 40 }

// project is Π onto the shifted cone of contact k, exactly as the
// interface defines it (ProjectCone's closed form).
func project(xn, xu, xw, mu, c float64) (float64, float64, float64) {
	n := xn + c
	t := math.Hypot(xu, xw)
	switch {
	case mu == 0:
		return math.Max(n, 0) - c, 0, 0
	case t <= mu*n:
		return xn, xu, xw
	case mu*t <= -n:
		return -c, 0, 0
	}
	np := (mu*t + n) / (mu*mu + 1)
	return np - c, xu * mu * np / t, xw * mu * np / t
}

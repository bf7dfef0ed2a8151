package cpuref

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// randomBuilt is randomSystem(t, rng, nb, nc) built with h = 0.01 s: the
// backend and its problem.
func randomBuilt(t testing.TB, rng *rand.Rand, nb, nc int) (*Backend, engine.Problem) {
	t.Helper()
	b := randomSystem(t, rng, nb, nc)
	pr, err := b.Build(0.01)
	if err != nil {
		t.Fatal(err)
	}
	return b, pr
}

// randomSystem loads nb random movable bodies (plus one fixed) into a
// backend and gives it nc random contacts, without collision detection.
func randomSystem(t testing.TB, rng *rand.Rand, nb, nc int) *Backend {
	t.Helper()
	m := engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	for i := 0; i < nb; i++ {
		bd := engine.Body{Shape: engine.EllipsoidShape(0.5+rng.Float64(), 0.5+rng.Float64(), 0.5+rng.Float64())}
		bd.Pos = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		bd.Rot = mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}.Normalize()
		bd.Vel = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		bd.Omega = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		bd.SetDensity(500 + 1000*rng.Float64())
		m.Bodies = append(m.Bodies, bd)
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	s := engine.DefaultSettings()
	b := New(3)
	if err := b.Load(&m, &s); err != nil {
		t.Fatal(err)
	}
	c := &engine.Contacts{}
	c.Resize(nc)
	for k := 0; k < nc; k++ {
		i := rng.IntN(nb + 1)
		j := rng.IntN(nb + 1)
		for j == i {
			j = rng.IntN(nb + 1)
		}
		c.A[k], c.B[k] = int32(min(i, j)), int32(max(i, j))
		n := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		copy(c.Normal[3*k:], n[:])
		for d := 0; d < 3; d++ {
			c.PA[3*k+d] = rng.NormFloat64()
			c.PB[3*k+d] = rng.NormFloat64()
		}
		c.Phi[k] = 0.1 * rng.NormFloat64()
		c.Mu[k] = 0.3
	}
	b.SetContacts(c)
	return b
}

func skew(s mgl64.Vec3) mgl64.Mat3 {
	// Column-major: s̃ y = s × y.
	return mgl64.Mat3{0, s[2], -s[1], -s[2], 0, s[0], s[1], -s[0], 0}
}

// assembleD builds D (6nb × 3nc, row-major) literally from eq. 4 of the APGD
// paper: D_iᵀ has −A_pᵀ and A_pᵀ A_A s̃̄_A in body A's columns, A_pᵀ and
// −A_pᵀ A_B s̃̄_B in body B's.
func assembleD(b *Backend) [][]float64 {
	nb, nc := b.n, b.con.Len()
	D := make([][]float64, 6*nb)
	for i := range D {
		D[i] = make([]float64, 3*nc)
	}
	for k := 0; k < nc; k++ {
		n := mgl64.Vec3{b.con.Normal[3*k], b.con.Normal[3*k+1], b.con.Normal[3*k+2]}
		u, w := TangentBasis(n)
		Ap := mgl64.Mat3FromCols(n, u, w)
		for side, body := range []int32{b.con.A[k], b.con.B[k]} {
			i := int(body)
			A := b.quat(i).Mat4().Mat3()
			pts := b.con.PA
			sign := -1.0
			if side == 1 {
				pts, sign = b.con.PB, 1
			}
			s := mgl64.Vec3{pts[3*k], pts[3*k+1], pts[3*k+2]}
			trans := Ap.Transpose().Mul(sign)
			rot := Ap.Transpose().Mul3(A).Mul3(skew(s)).Mul(-sign)
			for r := 0; r < 3; r++ { // row r of D_iᵀ = column 3k+r of D
				for c := 0; c < 3; c++ {
					D[6*i+c][3*k+r] += trans.At(r, c)
					D[6*i+3+c][3*k+r] += rot.At(r, c)
				}
			}
		}
	}
	return D
}

// assembledProducts are N x, r and the block diagonal (tr(N_ii)/3 in each
// row of contact i) of the assembled N = DᵀM⁻¹D.
type assembledProducts struct{ nx, r, g []float64 }

// assembled computes assembledProducts from assembleD(b), for b built at
// step h, by the definitions: (N x)_row = Σ_q D_q,row M⁻¹_q (D x)_q, r_row
// = Σ_q D_q,row (M⁻¹k)_q (+ φ/h in a normal row), with M⁻¹k = vfree and
// M⁻¹ diagonal in the body frame, as assembleD's rows take ω.
func assembled(b *Backend, x Vec, h float64) assembledProducts {
	D := assembleD(b)
	nc := b.con.Len()
	minv := make([]float64, 6*b.n)
	for i := 0; i < b.n; i++ {
		for d := 0; d < 3; d++ {
			minv[6*i+d] = b.invMass[i]
			minv[6*i+3+d] = b.invInertia[3*i+d]
		}
	}
	p := assembledProducts{make([]float64, 3*nc), make([]float64, 3*nc), make([]float64, 3*nc)}
	for row := 0; row < 3*nc; row++ {
		for q := 0; q < 6*b.n; q++ {
			dx := 0.0
			for c := 0; c < 3*nc; c++ {
				dx += D[q][c] * x[c]
			}
			p.nx[row] += D[q][row] * minv[q] * dx
			p.r[row] += D[q][row] * b.vfree[q]
			for c := 3 * (row / 3); c < 3*(row/3)+3; c++ {
				p.g[row] += D[q][c] * minv[q] * D[q][c] / 3
			}
		}
		if row%3 == 0 {
			p.r[row] += b.con.Phi[row/3] / h
		}
	}
	return p
}

// TestSchurAgainstAssembled compares the matrix-free Dᵀ(M⁻¹(Dx)) and
// r = b + DᵀM⁻¹k with the explicitly assembled N = DᵀM⁻¹D on small random
// systems.
func TestSchurAgainstAssembled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 20; trial++ {
		nb, nc := 1+rng.IntN(6), 1+rng.IntN(12)
		const h = 0.01 // randomBuilt's
		b, pr := randomBuilt(t, rng, nb, nc)
		x := make(Vec, 3*nc)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		got := make(Vec, 3*nc)
		pr.Schur(got, x)
		want := assembled(b, x, h)
		for row := 0; row < 3*nc; row++ {
			nx, r := want.nx[row], want.r[row]
			// Sums of O(10) products of O(1) numbers in another order:
			// agreement to 1e-12 relative.
			if math.Abs(got[row]-nx) > 1e-12*(1+math.Abs(nx)) {
				t.Fatalf("trial %d row %d: matrix-free %v, assembled %v", trial, row, got[row], nx)
			}
			if rr := b.r[row]; math.Abs(rr-r) > 1e-12*(1+math.Abs(r)) {
				t.Fatalf("trial %d row %d: r %v, assembled %v", trial, row, rr, r)
			}
		}
	}
}

// TestSweepAndBlockDiagAgainstAssembled compares the matrix-free
// Gauss–Seidel sweep and block diagonal of the contact problem with those
// of a MatrixProblem holding the assembled N = DᵀM⁻¹D.
func TestSweepAndBlockDiagAgainstAssembled(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for trial := 0; trial < 20; trial++ {
		nb, nc := 1+rng.IntN(6), 1+rng.IntN(12)
		b, pr := randomBuilt(t, rng, nb, nc)
		// Assemble N column by column with the matrix-free product (itself
		// checked against eq. 4 in TestSchurAgainstAssembled).
		// The matrix problem sweeps in index order, the backend's colour
		// by colour (SweepOrder): its contact i is the backend's perm[i].
		perm := pr.(engine.SweepOrder).SweepOrder()
		at := make([]int, 3*nc) // the backend's row → the matrix problem's
		for i, k := range perm {
			for d := range 3 {
				at[3*int(k)+d] = 3*i + d
			}
		}
		var entries []Entry
		e := make(Vec, 3*nc)
		col := make(Vec, 3*nc)
		for c := 0; c < 3*nc; c++ {
			e[c] = 1
			pr.Schur(col, e)
			e[c] = 0
			for r, v := range col {
				entries = append(entries, Entry{Row: at[r], Col: at[c], Val: v})
			}
		}
		mu0, coh0 := make([]float64, nc), make([]float64, nc)
		pr.Cones(mu0, coh0)
		mu, coh, rp := make([]float64, nc), make([]float64, nc), make([]float64, 3*nc)
		for i, k := range perm {
			mu[i], coh[i] = mu0[k], coh0[k]
		}
		for r := range rp {
			rp[at[r]] = b.r[r]
		}
		mp, err := NewMatrixProblem(nc, entries, rp, mu, coh, 1)
		if err != nil {
			t.Fatal(err)
		}
		d1, d2 := make(Vec, 3*nc), make(Vec, 3*nc)
		pr.BlockDiag(d1)
		mp.BlockDiag(d2)
		g1, g2 := make(Vec, 3*nc), make(Vec, 3*nc)
		for i := range g1 {
			g1[i] = rng.NormFloat64()
			g2[at[i]] = g1[i]
		}
		pr.Sweep(g1, d1, 0.3, 0.9)
		mp.Sweep(g2, d2, 0.3, 0.9)
		for i := range d1 {
			// Same sums in another order: 1e-12 relative.
			if math.Abs(d1[i]-d2[at[i]]) > 1e-12*(1+math.Abs(d2[at[i]])) {
				t.Fatalf("trial %d: block diagonal %v vs %v", trial, d1, d2)
			}
			if math.Abs(g1[i]-g2[at[i]]) > 1e-11*(1+math.Abs(g2[at[i]])) {
				t.Fatalf("trial %d: sweep %v vs %v", trial, g1, g2)
			}
		}
	}
}

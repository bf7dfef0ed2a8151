package cpuref

import (
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// Assembler is a problem whose N can be written out as an explicit sparse
// matrix: the contact problem of the CPU backend and MatrixProblem. Callers
// that need N itself (a problem dump, a direct solver) check for it with a
// type assertion on the engine.Problem they hold.
type Assembler interface {
	// Entries returns the stored elements of the 3nc × 3nc matrix N,
	// 0-based, sorted by row and then column, with no duplicates.
	Entries() []Entry
}

// Entries assembles N = DᵀM⁻¹D from the Jacobian blocks of the current
// step. N is a sum over movable bodies: for each body b and each pair (i, j)
// of its contacts,
//
//	N_ij += D_i,bᵀ M_b⁻¹ D_j,b,
//	(D_i,bᵀ M_b⁻¹ D_j,b)_de = s_i s_j m_b⁻¹ (d_i · e_j) + Σ_m ρ̄_i,d,m J_b,m⁻¹ ρ̄_j,e,m,
//
// with d, e ∈ {n, u, w} the rows of the two contacts' frames, s = −1 on
// side A and +1 on side B, and ρ̄ the rotational rows (d × s_A or s_B × d
// as the body is A or B of the contact) in the body's frame
// (inBodyFrame). Fixed bodies contribute nothing. Each block is
// computed once for i ≤ j and mirrored, and contributions to one element are
// summed in body order, so the result is exactly symmetric and does not
// depend on the number of workers. Stored elements may be zero (a block
// whose products cancel); every block of two contacts that share a movable
// body is stored in full.
//
// It costs Σ_b deg(b)² blocks of 9 products of length 6; the problem must
// be the one of the backend's current step.
func (p *problem) Entries() []Entry {
	b := p.b
	var es []Entry
	for i := 0; i < b.n; i++ {
		if b.fixed[i] {
			continue
		}
		im := b.invMass[i]
		ji := b.invInertia[3*i : 3*i+3]
		list := b.adj[b.adjOff[i]:b.adjOff[i+1]]
		for x, ex := range list {
			kx, sx, rx := b.bodyRows(i, ex)
			for _, ey := range list[x:] {
				ky, sy, ry := b.bodyRows(i, ey)
				if ky < kx {
					kx, ky, sx, sy, rx, ry = ky, kx, sy, sx, ry, rx
				}
				bx, by := b.frame(kx), b.frame(ky)
				for d := 0; d < 3; d++ {
					for e := 0; e < 3; e++ {
						v := sx * sy * im * (bx[3*d]*by[3*e] + bx[3*d+1]*by[3*e+1] + bx[3*d+2]*by[3*e+2])
						for m := 0; m < 3; m++ {
							v += rx[3*d+m] * ji[m] * ry[3*e+m]
						}
						es = append(es, Entry{Row: 3*kx + d, Col: 3*ky + e, Val: v})
						if kx != ky {
							es = append(es, Entry{Row: 3*ky + e, Col: 3*kx + d, Val: v})
						}
					}
				}
				if kx == ky {
					// The diagonal block of a contact is symmetric in exact
					// arithmetic; take its upper triangle so that it is in
					// floating point too.
					n := len(es)
					blk := es[n-9:]
					for d := 0; d < 3; d++ {
						for e := 0; e < d; e++ {
							blk[3*d+e].Val = blk[3*e+d].Val
						}
					}
				}
			}
		}
	}
	return SumSorted(es)
}

// bodyRows decodes an adjacency entry of body i into the contact index,
// the sign s of the body's linear rows and its rotational rows ρ̄ in its
// body frame (9 values, rows n, u, w).
func (b *Backend) bodyRows(i int, e int32) (k int, sign float64, rho [9]float64) {
	k = int(e >> 1)
	var blk [12]float64
	j := b.jacBlock(k, &blk)
	f := b.frame(k)
	sign = -1
	s := mgl64.Vec3{j[6], j[7], j[8]}
	if e&1 == 1 {
		sign, s = 1, mgl64.Vec3{j[9], j[10], j[11]}
	}
	for d := range 3 {
		dir := mgl64.Vec3{f[3*d], f[3*d+1], f[3*d+2]}
		r := dir.Cross(s)
		if e&1 == 1 {
			r = s.Cross(dir)
		}
		r = b.inBodyFrame(i, r)
		copy(rho[3*d:], r[:])
	}
	return k, sign, rho
}

// frame returns contact k's n, u, w (9 values).
func (b *Backend) frame(k int) [9]float64 {
	var blk [12]float64
	j := b.jacBlock(k, &blk)
	wx, wy, wz := contactW(j)
	return [9]float64{j[0], j[1], j[2], j[3], j[4], j[5], wx, wy, wz}
}

// SumSorted sorts entries by row and column, keeping the order of equal
// keys, and sums the duplicates in that order (in place: it returns a
// prefix of es).
func SumSorted(es []Entry) []Entry {
	slices.SortStableFunc(es, func(x, y Entry) int {
		if x.Row != y.Row {
			return x.Row - y.Row
		}
		return x.Col - y.Col
	})
	out := es[:0]
	for _, e := range es {
		if n := len(out); n > 0 && out[n-1].Row == e.Row && out[n-1].Col == e.Col {
			out[n-1].Val += e.Val
			continue
		}
		out = append(out, e)
	}
	return slices.Clip(out)
}

// Entries returns the stored elements of N (duplicates of the input
// already summed), sorted by row and then column.
func (p *MatrixProblem) Entries() []Entry {
	es := make([]Entry, 0, len(p.val))
	for r := 0; r < 3*p.nc; r++ {
		for k := p.rowPtr[r]; k < p.rowPtr[r+1]; k++ {
			es = append(es, Entry{Row: r, Col: p.col[k], Val: p.val[k]})
		}
	}
	return es
}

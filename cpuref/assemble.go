package cpuref

import "slices"

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
//	(D_i,bᵀ M_b⁻¹ D_j,b)_de = s_i s_j m_b⁻¹ (d_i · e_j) + Σ_m ρ_i,d,m J_b,m⁻¹ ρ_j,e,m,
//
// with d, e ∈ {n, u, w} the rows of the two contacts' frames, s = −1 on
// side A and +1 on side B, and ρ the rotational rows (ρ_A or ρ_B as the body
// is A or B of the contact). Fixed bodies contribute nothing. Each block is
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
			kx, sx, rx := b.bodyRows(ex)
			for _, ey := range list[x:] {
				ky, sy, ry := b.bodyRows(ey)
				if ky < kx {
					kx, ky, sx, sy, rx, ry = ky, kx, sy, sx, ry, rx
				}
				bx, by := b.basis[9*kx:9*kx+9], b.basis[9*ky:9*ky+9]
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

// bodyRows decodes an adjacency entry into the contact index, the sign s of
// the body's linear rows and its rotational rows ρ (9 values).
func (b *Backend) bodyRows(e int32) (k int, sign float64, rho []float64) {
	k = int(e >> 1)
	if e&1 == 1 {
		return k, 1, b.rhoB[9*k : 9*k+9]
	}
	return k, -1, b.rhoA[9*k : 9*k+9]
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

package cpuref

import (
	"fmt"
	"math"
	"sort"

	"github.com/gpusim/gpusim/engine"
)

// MatrixProblem is a CCP with an explicit sparse N in compressed sparse row
// form: a standalone problem (read from a file, or assembled for tests)
// rather than one built from bodies and contacts.
type MatrixProblem struct {
	linalg
	nc      int
	rowPtr  []int
	col     []int
	val     []float64
	r       Vec
	mu, coh []float64
	d, x    Vec      // Schur's operands while it runs
	rows    taskFunc // schurRows, made once
}

// Entry is one stored element of a sparse matrix (0-based indices).
type Entry struct {
	Row, Col int
	Val      float64
}

// NewMatrixProblem makes a problem of nc contacts from the entries of the
// 3nc × 3nc matrix N (duplicates are summed), r (3nc), μ (nc) and the
// cohesion impulses (nc, nil for none). workers as in New.
func NewMatrixProblem(nc int, entries []Entry, r, mu, cohesion []float64, workers int) (*MatrixProblem, error) {
	n := 3 * nc
	if len(r) != n {
		return nil, fmt.Errorf("cpuref: r has %d values, want 3·%d = %d", len(r), nc, n)
	}
	if len(mu) != nc {
		return nil, fmt.Errorf("cpuref: mu has %d values, want %d", len(mu), nc)
	}
	if cohesion == nil {
		cohesion = make([]float64, nc)
	}
	if len(cohesion) != nc {
		return nil, fmt.Errorf("cpuref: cohesion has %d values, want %d", len(cohesion), nc)
	}
	for i, v := range r {
		if !finite(v) {
			return nil, fmt.Errorf("cpuref: r[%d] = %v is not finite", i, v)
		}
	}
	for i := range mu {
		if !(mu[i] >= 0) || math.IsInf(mu[i], 0) {
			return nil, fmt.Errorf("cpuref: mu[%d] = %v must be ≥ 0 and finite", i, mu[i])
		}
		if !(cohesion[i] >= 0) || math.IsInf(cohesion[i], 0) {
			return nil, fmt.Errorf("cpuref: cohesion[%d] = %v must be ≥ 0 and finite", i, cohesion[i])
		}
	}
	es := append([]Entry(nil), entries...)
	for _, e := range es {
		if e.Row < 0 || e.Row >= n || e.Col < 0 || e.Col >= n {
			return nil, fmt.Errorf("cpuref: entry (%d, %d) outside the %d × %d matrix", e.Row, e.Col, n, n)
		}
		if !finite(e.Val) {
			return nil, fmt.Errorf("cpuref: entry (%d, %d) = %v is not finite", e.Row, e.Col, e.Val)
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].Row != es[j].Row {
			return es[i].Row < es[j].Row
		}
		return es[i].Col < es[j].Col
	})
	p := &MatrixProblem{linalg: linalg{pool: newPool(workers)}, nc: nc, rowPtr: make([]int, n+1),
		r: append(Vec(nil), r...), mu: append([]float64(nil), mu...), coh: append([]float64(nil), cohesion...)}
	for i, e := range es {
		if i > 0 && es[i-1].Row == e.Row && es[i-1].Col == e.Col {
			p.val[len(p.val)-1] += e.Val
			continue
		}
		p.col = append(p.col, e.Col)
		p.val = append(p.val, e.Val)
		p.rowPtr[e.Row+1] = len(p.col)
	}
	for i := 1; i <= n; i++ {
		p.rowPtr[i] = max(p.rowPtr[i], p.rowPtr[i-1])
	}
	p.rows = p.schurRows
	return p, nil
}

// Contacts returns nc.
func (p *MatrixProblem) Contacts() int { return p.nc }

// R returns r.
func (p *MatrixProblem) R() engine.Vec { return p.r }

// Schur sets dst = N x (row by row).
func (p *MatrixProblem) Schur(dst, x engine.Vec) {
	p.d, p.x = vec(dst), vec(x)
	p.pool.forChunks(len(p.d), contactGrain, taskFunc(p.rows))
	p.d, p.x = nil, nil
}

// schurRows sets d_i = (N x)_i for the rows i in [lo, hi).
func (p *MatrixProblem) schurRows(_, lo, hi int) {
	for i := lo; i < hi; i++ {
		s := 0.0
		for k := p.rowPtr[i]; k < p.rowPtr[i+1]; k++ {
			s += p.val[k] * p.x[p.col[k]]
		}
		p.d[i] = s
	}
}

// Project sets dst_i = Π_Υi(x_i).
func (p *MatrixProblem) Project(dst, x engine.Vec) {
	d, xv := vec(dst), vec(x)
	for k := 0; k < p.nc; k++ {
		d[3*k], d[3*k+1], d[3*k+2] = ProjectCone(xv[3*k], xv[3*k+1], xv[3*k+2], p.mu[k], p.coh[k])
	}
}

// AntiRelax sets dst = r, then dst_i,n += μ_i‖(u_i,u, u_i,w)‖.
func (p *MatrixProblem) AntiRelax(dst, u engine.Vec) {
	d, uv := vec(dst), vec(u)
	copy(d, p.r)
	for k := 0; k < p.nc; k++ {
		d[3*k] += p.mu[k] * math.Hypot(uv[3*k+1], uv[3*k+2])
	}
}

// BlockDiag sets g_i = (N_3i,3i + N_3i+1,3i+1 + N_3i+2,3i+2)/3 on the three
// rows of contact i.
func (p *MatrixProblem) BlockDiag(dst engine.Vec) {
	d := vec(dst)
	for k := 0; k < p.nc; k++ {
		tr := 0.0
		for r := 3 * k; r < 3*k+3; r++ {
			tr += p.at(r, r)
		}
		d[3*k], d[3*k+1], d[3*k+2] = tr/3, tr/3, tr/3
	}
}

// at returns N_rc (0 if not stored), by binary search in row r.
func (p *MatrixProblem) at(r, c int) float64 {
	cols := p.col[p.rowPtr[r]:p.rowPtr[r+1]]
	k := sort.SearchInts(cols, c)
	if k < len(cols) && cols[k] == c {
		return p.val[p.rowPtr[r]+k]
	}
	return 0
}

// Sweep runs one projected Gauss–Seidel sweep over the contacts in index
// order, computing (Nγ + r)_i from the current γ row by row. A matrix
// problem has no bodies, so no colouring: unlike the backends' Sweep,
// which takes the contacts colour by colour (colour.go), it stays in
// index order.
func (p *MatrixProblem) Sweep(gamma, diag engine.Vec, omega, lambda float64) {
	g, dg := vec(gamma), vec(diag)
	for k := 0; k < p.nc; k++ {
		var u [3]float64
		for d := 0; d < 3; d++ {
			r := 3*k + d
			s := p.r[r]
			for e := p.rowPtr[r]; e < p.rowPtr[r+1]; e++ {
				s += p.val[e] * g[p.col[e]]
			}
			u[d] = s
		}
		x := g[3*k : 3*k+3]
		y := RelaxContact(x, u, omega/dg[3*k], lambda, p.mu[k], p.coh[k])
		copy(x, y[:])
	}
}

// Cones copies μ and the cohesion impulses.
func (p *MatrixProblem) Cones(mu, cohesion []float64) {
	copy(mu, p.mu)
	copy(cohesion, p.coh)
}

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
	return p, nil
}

// Contacts returns nc.
func (p *MatrixProblem) Contacts() int { return p.nc }

// R returns r.
func (p *MatrixProblem) R() engine.Vec { return p.r }

// Schur sets dst = N x (row by row).
func (p *MatrixProblem) Schur(dst, x engine.Vec) {
	d, xv := vec(dst), vec(x)
	p.pool.forChunks(len(d), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			s := 0.0
			for k := p.rowPtr[i]; k < p.rowPtr[i+1]; k++ {
				s += p.val[k] * xv[p.col[k]]
			}
			d[i] = s
		}
	})
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

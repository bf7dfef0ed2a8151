package fclib

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// Problem is one standalone cone-complementarity problem of NC contacts:
// N (3NC × 3NC, as sparse entries), r (Q, 3NC), μ (Mu, NC) and the cohesion
// impulses (Cohesion, NC, nil for none), in the units of its source (N·s
// and m/s for a problem dumped by gpusim).
type Problem struct {
	// Name identifies the problem (meta.json's name, else the folder's).
	Name string
	// Description is free text (meta.json's description).
	Description string
	// NC is the number of contacts.
	NC int
	// Entries are the stored elements of N, 0-based. Read returns them
	// sorted by row and then column without duplicates; elsewhere
	// duplicates are allowed and summed.
	Entries []cpuref.Entry
	// Q is r (FCLib's q): u = Nγ + r.
	Q []float64
	// Mu holds the friction coefficients μ_i ≥ 0.
	Mu []float64
	// Cohesion holds the cohesion impulses c_i ≥ 0 (nil: all zero).
	Cohesion []float64
}

// N returns 3·NC, the number of unknowns.
func (p *Problem) N() int { return 3 * p.NC }

// Validate checks the sizes and that every number is finite, μ and the
// cohesion impulses non-negative and every entry inside the matrix.
func (p *Problem) Validate() error {
	if p.NC < 1 {
		return fmt.Errorf("fclib: problem %q has %d contacts, want at least 1", p.Name, p.NC)
	}
	n := 3 * p.NC
	if len(p.Q) != n {
		return fmt.Errorf("fclib: problem %q: q has %d values, want 3·%d = %d", p.Name, len(p.Q), p.NC, n)
	}
	if len(p.Mu) != p.NC {
		return fmt.Errorf("fclib: problem %q: mu has %d values, want %d", p.Name, len(p.Mu), p.NC)
	}
	if p.Cohesion != nil && len(p.Cohesion) != p.NC {
		return fmt.Errorf("fclib: problem %q: cohesion has %d values, want %d", p.Name, len(p.Cohesion), p.NC)
	}
	for i, v := range p.Q {
		if !finite(v) {
			return fmt.Errorf("fclib: problem %q: q[%d] = %v is not finite", p.Name, i, v)
		}
	}
	for i, v := range p.Mu {
		if !finite(v) || v < 0 {
			return fmt.Errorf("fclib: problem %q: mu[%d] = %v must be finite and ≥ 0", p.Name, i, v)
		}
	}
	for i, v := range p.Cohesion {
		if !finite(v) || v < 0 {
			return fmt.Errorf("fclib: problem %q: cohesion[%d] = %v must be finite and ≥ 0", p.Name, i, v)
		}
	}
	for _, e := range p.Entries {
		if e.Row < 0 || e.Row >= n || e.Col < 0 || e.Col >= n {
			return fmt.Errorf("fclib: problem %q: entry (%d, %d) outside the %d × %d matrix", p.Name, e.Row, e.Col, n, n)
		}
		if !finite(e.Val) {
			return fmt.Errorf("fclib: problem %q: entry (%d, %d) = %v is not finite", p.Name, e.Row, e.Col, e.Val)
		}
	}
	return p.checkBlocks()
}

// blockPSDTol: a diagonal block's smallest eigenvalue may fall below zero
// by this fraction of its largest magnitude, for rounding (the FCLib
// problems' W have global smallest eigenvalues of −5e-16 relative, and
// one product of a block carries a few ulps).
const blockPSDTol = 1e-10

// checkBlocks reports a contact whose 3×3 diagonal block of W (its
// symmetric part) is not positive semidefinite: a Delassus matrix DᵀM⁻¹D
// is, and so is each of its principal blocks. On such a block the
// objective falls without bound along the block's negative direction
// (or the problem is not one of contact at all), and a solver could
// otherwise report γ = 0 (a stationary point) as converged. Indefinite W
// whose blocks are all semidefinite are not caught here (that takes an
// eigenvalue computation of the whole matrix).
func (p *Problem) checkBlocks() error {
	blocks := make([][9]float64, p.NC)
	for _, e := range p.Entries {
		if i := e.Row / 3; e.Col/3 == i {
			blocks[i][3*(e.Row%3)+e.Col%3] += e.Val
		}
	}
	for i, b := range blocks {
		var a [3][3]float64
		for r := range 3 {
			for c := range 3 {
				a[r][c] = 0.5 * (b[3*r+c] + b[3*c+r])
			}
		}
		lo, hi := symEig3Range(a)
		if lo < -blockPSDTol*math.Max(math.Abs(lo), math.Abs(hi)) {
			return fmt.Errorf("fclib: problem %q: contact %d: its 3×3 block of W has the eigenvalue %.3g < 0, so W is not positive semidefinite as a Delassus matrix DᵀM⁻¹D is", p.Name, i, lo)
		}
	}
	return nil
}

// symEig3Range returns the smallest and largest eigenvalues of the
// symmetric 3×3 matrix a, by cyclic Jacobi rotations (Golub and Van Loan,
// section 8.5) until the off-diagonal part is below rounding.
func symEig3Range(a [3][3]float64) (float64, float64) {
	for sweep := 0; sweep < 50; sweep++ {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		diag := a[0][0]*a[0][0] + a[1][1]*a[1][1] + a[2][2]*a[2][2]
		if off <= 1e-32*diag || off == 0 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			if a[p][q] == 0 {
				continue
			}
			theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			for k := range 3 { // A ← JᵀAJ: columns, then rows
				akp, akq := a[k][p], a[k][q]
				a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
			}
			for k := range 3 {
				apk, aqk := a[p][k], a[q][k]
				a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
			}
		}
	}
	lo := math.Min(a[0][0], math.Min(a[1][1], a[2][2]))
	hi := math.Max(a[0][0], math.Max(a[1][1], a[2][2]))
	return lo, hi
}

// CCP returns the problem as an engine.Problem on the CPU, its loops on up
// to workers goroutines (0: GOMAXPROCS).
func (p *Problem) CCP(workers int) (*cpuref.MatrixProblem, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return cpuref.NewMatrixProblem(p.NC, p.Entries, p.Q, p.Mu, p.Cohesion, workers)
}

// FromEngine copies a problem of a backend into a Problem: N through
// cpuref.Assembler (an error if the problem does not implement it), r, μ
// and the cohesion impulses (nil when all are zero). It does not change
// the problem.
func FromEngine(ep engine.Problem, name string) (*Problem, error) {
	as, ok := ep.(cpuref.Assembler)
	if !ok {
		return nil, fmt.Errorf("fclib: a problem of type %T cannot be assembled into an explicit N (use the CPU backend)", ep)
	}
	nc := ep.Contacts()
	if nc == 0 {
		return nil, fmt.Errorf("fclib: problem %q has no contacts", name)
	}
	if n := engine.Rows(ep); n != 3*nc {
		return nil, fmt.Errorf("fclib: problem %q has %d joint rows, which the problem format does not hold yet (contacts only)", name, n-3*nc)
	}
	p := &Problem{Name: name, NC: nc, Entries: as.Entries(), Q: make([]float64, 3*nc),
		Mu: make([]float64, nc), Cohesion: make([]float64, nc)}
	ep.Read(p.Q, ep.R())
	ep.Cones(p.Mu, p.Cohesion)
	if !slices.ContainsFunc(p.Cohesion, func(c float64) bool { return c != 0 }) {
		p.Cohesion = nil
	}
	return p, p.Validate()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

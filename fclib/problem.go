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
	return nil
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

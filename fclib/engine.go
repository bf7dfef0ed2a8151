package fclib

import (
	"fmt"
	"time"

	"github.com/gpusim/gpusim/engine"
)

// Figure is a figure of merit of a solve's γ, such as the total shear
// force of the direct shear test: a column of compare's tables.
type Figure struct {
	// Name is the column's name (letters, digits and '_').
	Name string
	// Unit is the SI unit ("" for none); table.csv's column is Name_Unit.
	Unit string
	// Value is in Unit.
	Value float64
}

// column returns the name of f's column in table.csv.
func (f Figure) column() string {
	if f.Unit == "" {
		return f.Name
	}
	return f.Name + "_" + f.Unit
}

// EngineProblem is a problem of a backend kept in memory and compared
// there, for a problem that the folder format cannot hold: one with joint
// rows, γ = [3nc contact rows | nj joint rows] (engine.JointRows), each
// joint row free (bilateral) or clamped to an interval (a motor row).
// check.py's measures (Report) are defined for contacts only, so its
// results have none (Result.Measured is false).
type EngineProblem struct {
	// Name and Description identify the problem in the tables.
	Name, Description string
	// Problem is the problem; each solve starts from a new vector of it.
	Problem engine.Problem
	// Figures, if set, computes figures of merit of a solve's γ (a vector
	// of Problem); each Result of Compare holds them.
	Figures func(gamma engine.Vec) ([]Figure, error)
}

// Contacts returns nc.
func (e *EngineProblem) Contacts() int { return e.Problem.Contacts() }

// JointRows returns nj, the joint rows after the 3nc contact rows.
func (e *EngineProblem) JointRows() int { return engine.Rows(e.Problem) - 3*e.Problem.Contacts() }

// SolveOptions returns the solver options for e: those of opt, with Gd
// or else 1/n², n = 3nc + nj the number of unknowns (check.py's default
// 1/(3nc)² with the joint rows counted), and a history of every iteration.
func (e *EngineProblem) SolveOptions(opt Options) engine.SolveOptions {
	so := opt.SolveOptions(1)
	if opt.Gd == 0 {
		n := float64(engine.Rows(e.Problem))
		so.Gd = 1 / (n * n)
	}
	return so
}

// Compare runs each named solver on e.Problem from γ₀ = 0, one after the
// other, and returns their results in order, with the figures of merit
// when e.Figures is set. The error is for what kept the comparison from
// starting (an unknown solver, options out of range, a problem without
// rows) or from finishing (Figures failed); how each solve went is in its
// Result.
func (e *EngineProblem) Compare(solvers []string, opt Options) ([]*Result, error) {
	ss, err := newSolvers(solvers, opt)
	if err != nil {
		return nil, err
	}
	n := engine.Rows(e.Problem)
	if n == 0 {
		return nil, fmt.Errorf("fclib: problem %q has no contacts and no joint rows", e.Name)
	}
	so := e.SolveOptions(opt)
	rs := make([]*Result, len(ss))
	for i, s := range ss {
		mp := e.Problem
		r := &Result{Solver: solvers[i], Options: so}
		x := mp.NewVec(n)
		t0 := time.Now()
		r.Stats, r.Err = s.Solve(mp, x, so)
		r.Wall = time.Since(t0).Seconds()
		r.Gamma = make([]float64, n)
		mp.Read(r.Gamma, x)
		r.Status, r.Certificate = engine.Classify(mp, x, r.Stats, r.Err)
		if e.Figures != nil {
			f, err := e.Figures(x)
			if err != nil {
				return nil, fmt.Errorf("fclib: %s: figures of merit of %s's γ: %w", e.Name, r.Solver, err)
			}
			r.Figures = f
		}
		rs[i] = r
	}
	return rs, nil
}

// TableMD renders Compare's results on e with opt as gpusim compare's
// table.md: lines on the problem, the options and why check.py's columns
// are n/a, then the table of TableMD's columns and the figures of merit.
func (e *EngineProblem) TableMD(opt Options, rs []*Result) []byte {
	so := e.SolveOptions(opt)
	head := fmt.Sprintf("Problem %s: %d contacts and %d joint rows (%d unknowns), solved in memory on the backend that built it (N matrix-free). "+
		"From γ₀ = 0, tol %g on the residual of eq. 25 (g_d = %g), max-iter %d.\n\n"+
		"ccp_res_chrono and fc_err_siconos are n/a: check.py's measures are defined for contact-only problems "+
		"(friction cones, no joint rows) in the folder format, which cannot hold joint rows.\n",
		e.Name, e.Contacts(), e.JointRows(), engine.Rows(e.Problem), so.Tol, so.Gd, so.MaxIter)
	if e.Description != "" {
		head += "\n" + e.Description + "\n"
	}
	return tableMD(head, rs)
}

// WriteCompare writes the tables of gpusim compare for Compare's results
// on e with opt into the folder dir, as the package function WriteCompare
// does for a problem of the folder format.
func (e *EngineProblem) WriteCompare(dir string, opt Options, rs []*Result) error {
	return writeCompare(dir, e.TableMD(opt, rs), rs)
}

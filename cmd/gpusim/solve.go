package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/internal/safepath"
)

// solveFlags are the solver flags that solve and compare share.
type solveFlags struct {
	tol     *float64
	maxIter *int
	gd      *float64
	workers *int
	out     *string
}

func addSolveFlags(fs *flag.FlagSet) solveFlags {
	return solveFlags{
		tol:     fs.Float64("tol", 1e-10, "tolerance on the residual of eq. 25 of the APGD paper (0: always run --max-iter)"),
		maxIter: fs.Int("max-iter", 10000, "iteration cap"),
		gd:      fs.Float64("gd", 0, "g_d of eq. 25 (0: 1/(3nc)², as check.py, so that proj_grad = ccp_res_chrono; 1/n² with n = 3nc + joint rows for compare on a scene with joints)"),
		workers: fs.Int("workers", 0, "goroutines of the products with N (0: all cores)"),
		out:     fs.String("out", "", "output folder"),
	}
}

// options validates the flags and returns the options of fclib.Solve and
// fclib.Compare.
func (f solveFlags) options() (fclib.Options, error) {
	if !(*f.tol >= 0) || math.IsInf(*f.tol, 0) {
		return fclib.Options{}, usageError{fmt.Errorf("--tol %v must be ≥ 0 and finite", *f.tol)}
	}
	if *f.maxIter < 1 {
		return fclib.Options{}, usageError{fmt.Errorf("--max-iter %d must be ≥ 1", *f.maxIter)}
	}
	if !(*f.gd >= 0) || math.IsInf(*f.gd, 0) {
		return fclib.Options{}, usageError{fmt.Errorf("--gd %v must be > 0 and finite (0: the default)", *f.gd)}
	}
	if *f.workers < 0 {
		return fclib.Options{}, usageError{fmt.Errorf("--workers %d must be ≥ 0", *f.workers)}
	}
	return fclib.Options{Tol: *f.tol, MaxIter: *f.maxIter, Gd: *f.gd, Workers: *f.workers}, nil
}

func cmdSolve(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gpusim solve", stderr, `Usage: gpusim solve PROBLEM [flags]

Solves the cone-complementarity problem in the folder PROBLEM (W.mtx, q.txt,
mu.txt, optional cohesion.txt: the FCLib-style format of shared/fclib, or a
folder written by gpusim run --dump-problem) from γ₀ = 0, and writes
DIR/gamma.txt (3nc values), DIR/history.csv (one row per iteration) and
DIR/summary.json (the solve and the measures of shared/fclib/check.py).
DIR defaults to out/solve-NAME-SOLVER.

Flags:
`)
	solver := fs.String("solver", "apgd", "solver (see gpusim solvers)")
	maxInput := fs.String("max-input-size", "", "largest file of the problem folder read, in bytes with an optional suffix (default 2G); off: no cap")
	sf := addSolveFlags(fs)
	dir, err := parseOne(fs, args, "solve takes one problem folder")
	if err != nil {
		return err
	}
	if _, err := engine.NewSolver(*solver); err != nil {
		return usageError{err}
	}
	inputCap, err := bytesFlag("max-input-size", *maxInput)
	if err != nil {
		return err
	}
	p, err := fclib.ReadWith(dir, inputCap)
	if err != nil {
		return usageError{err}
	}
	opt, err := sf.options()
	if err != nil {
		return err
	}
	out := *sf.out
	if out == "" {
		out = filepath.Join("out", "solve-"+fileName(p.Name)+"-"+*solver)
	}
	res, err := fclib.Solve(p, *solver, opt)
	if err != nil {
		return usageError{err}
	}
	if res.Err != nil && res.Status != engine.StatusUnbounded {
		return fmt.Errorf("%s on %s: %w", *solver, dir, res.Err)
	}
	if err := fclib.WriteSolve(out, p, dir, res); err != nil {
		return err
	}
	st, so, rep := res.Stats, res.Options, res.Measures
	fmt.Fprintf(stdout, "problem     %s (%d contacts, %d entries of N)\n", p.Name, p.NC, len(p.Entries))
	fmt.Fprintf(stdout, "solver      %s, tol %g, max-iter %d, g_d %g\n", *solver, so.Tol, so.MaxIter, so.Gd)
	fmt.Fprintf(stdout, "result      %s after %d iterations in %.3g s: residual %.3g (eq. 25), proj_grad %.3g, objective %.10g\n",
		res.StatusText(), st.Iterations, res.Wall, st.Residual, st.ProjGrad, st.Objective)
	fmt.Fprintf(stdout, "check.py    ccp_res_chrono %.3g, fc_err_siconos %.3g, cone violation %.3g, dual violation %.3g, γᵀu %.3g\n",
		rep.CCPResChrono, rep.FCErrSiconos, rep.MaxConeViolation, rep.MaxDualViolation, rep.ComplementarityGTu)
	fmt.Fprintf(stdout, "outputs     %s/{gamma.txt,history.csv,summary.json}\n", out)
	if res.Status == engine.StatusUnbounded {
		return fmt.Errorf("%s on %s: %s", *solver, dir, res.UnboundedText())
	}
	return nil
}

// fileName makes a problem name safe as one path element (safepath's
// rule: letters, digits, '.', '_', '-', not starting with '.').
func fileName(s string) string { return safepath.Sanitize(s, "problem") }

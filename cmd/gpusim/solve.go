package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/internal/atomicfile"
	"github.com/gpusim/gpusim/internal/safepath"
)

// solveSummary is what summary.json of gpusim solve holds.
type solveSummary struct {
	Problem    string  `json:"problem"`
	Path       string  `json:"path"`
	Contacts   int     `json:"number_of_contacts"`
	Solver     string  `json:"solver"`
	Tol        float64 `json:"tol"`
	MaxIter    int     `json:"max_iter"`
	Gd         float64 `json:"gd"`
	Iterations int     `json:"iterations"`
	// Status is engine.Classify's: converged, not_converged or unbounded
	// (the problem has no solution, Certificate holds the evidence, and
	// solve exits with status 1). A failed solve writes no summary.
	Status      engine.Status       `json:"status"`
	Certificate *engine.Certificate `json:"unbounded_certificate,omitempty"`
	// Error is the solver's error when it failed on an unbounded problem.
	Error string `json:"error,omitempty"`
	// Converged is Status == converged.
	Converged   bool    `json:"converged"`
	Residual    float64 `json:"residual"`
	ProjGrad    float64 `json:"proj_grad"`
	Objective   float64 `json:"objective"`
	WallSeconds float64 `json:"wall_s"`
	// Measures are those of shared/fclib/check.py for the returned γ,
	// with its g_d = 1/(3nc)².
	Measures fclib.Report `json:"measures"`
}

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
		gd:      fs.Float64("gd", 0, "g_d of eq. 25 (0: 1/(3nc)², as check.py, so that proj_grad = ccp_res_chrono)"),
		workers: fs.Int("workers", 0, "goroutines of the products with N (0: all cores)"),
		out:     fs.String("out", "", "output folder"),
	}
}

// options validates the flags and returns the solve options for nc
// contacts.
func (f solveFlags) options(nc int) (engine.SolveOptions, error) {
	if !(*f.tol >= 0) || math.IsInf(*f.tol, 0) {
		return engine.SolveOptions{}, usageError{fmt.Errorf("--tol %v must be ≥ 0 and finite", *f.tol)}
	}
	if *f.maxIter < 1 {
		return engine.SolveOptions{}, usageError{fmt.Errorf("--max-iter %d must be ≥ 1", *f.maxIter)}
	}
	if !(*f.gd >= 0) || math.IsInf(*f.gd, 0) {
		return engine.SolveOptions{}, usageError{fmt.Errorf("--gd %v must be > 0 and finite (0: the default)", *f.gd)}
	}
	if *f.workers < 0 {
		return engine.SolveOptions{}, usageError{fmt.Errorf("--workers %d must be ≥ 0", *f.workers)}
	}
	gd := *f.gd
	if gd == 0 {
		gd = fclib.DefaultGd(nc)
	}
	return engine.SolveOptions{Tol: *f.tol, MaxIter: *f.maxIter, Gd: gd, History: true}, nil
}

// solved is one solve of a problem.
type solved struct {
	solver string
	stats  engine.SolveStats
	gamma  []float64
	wall   float64 // s
	rep    fclib.Report
	err    error
	status engine.Status
	cert   *engine.Certificate // with status unbounded
}

// solveOnce runs the named solver on p from γ₀ = 0.
func solveOnce(mp engine.Problem, p *fclib.Problem, name string, opt engine.SolveOptions) solved {
	out := solved{solver: name}
	s, err := engine.NewSolver(name)
	if err != nil {
		out.err = usageError{err}
		return out
	}
	x := mp.NewVec(p.N())
	t0 := time.Now()
	out.stats, out.err = s.Solve(mp, x, opt)
	out.wall = time.Since(t0).Seconds()
	out.gamma = make([]float64, p.N())
	mp.Read(out.gamma, x)
	out.rep = fclib.Measures(p, out.gamma)
	out.status, out.cert = engine.Classify(mp, x, out.stats, out.err)
	return out
}

func cmdSolve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gpusim solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	solver := fs.String("solver", "apgd", "solver (see gpusim solvers)")
	maxInput := fs.String("max-input-size", "", "largest file of the problem folder read, in bytes with an optional suffix (default 2G); off: no cap")
	sf := addSolveFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: gpusim solve PROBLEM [flags]

Solves the cone-complementarity problem in the folder PROBLEM (W.mtx, q.txt,
mu.txt, optional cohesion.txt: the FCLib-style format of shared/fclib, or a
folder written by gpusim run --dump-problem) from γ₀ = 0, and writes
DIR/gamma.txt (3nc values), DIR/history.csv (one row per iteration) and
DIR/summary.json (the solve and the measures of shared/fclib/check.py).
DIR defaults to out/solve-NAME-SOLVER.

Flags:
`)
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Errorf("solve takes one problem folder, got %d arguments", len(pos))}
	}
	if _, err := engine.NewSolver(*solver); err != nil {
		return usageError{err}
	}
	inputCap, err := bytesFlag("max-input-size", *maxInput)
	if err != nil {
		return err
	}
	p, err := fclib.ReadWith(pos[0], inputCap)
	if err != nil {
		return usageError{err}
	}
	opt, err := sf.options(p.NC)
	if err != nil {
		return err
	}
	out := *sf.out
	if out == "" {
		out = filepath.Join("out", "solve-"+fileName(p.Name)+"-"+*solver)
	}
	mp, err := p.CCP(*sf.workers)
	if err != nil {
		return usageError{err}
	}
	res := solveOnce(mp, p, *solver, opt)
	if res.err != nil && res.status != engine.StatusUnbounded {
		return fmt.Errorf("%s on %s: %w", *solver, pos[0], res.err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := fclib.WriteVector(filepath.Join(out, "gamma.txt"), res.gamma); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, "history.csv"), historyCSV(res.stats.History, 0)); err != nil {
		return err
	}
	st := res.stats
	sum := solveSummary{Problem: p.Name, Path: pos[0], Contacts: p.NC, Solver: *solver, Tol: opt.Tol, MaxIter: opt.MaxIter, Gd: opt.Gd,
		Iterations: st.Iterations, Status: res.status, Certificate: res.cert, Converged: res.status == engine.StatusConverged,
		Residual: st.Residual, ProjGrad: st.ProjGrad, Objective: st.Objective, WallSeconds: res.wall, Measures: res.rep}
	if res.err != nil {
		sum.Error = res.err.Error()
	}
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, "summary.json"), append(data, '\n')); err != nil {
		return err
	}
	conv := statusText(res)
	fmt.Fprintf(stdout, "problem     %s (%d contacts, %d entries of N)\n", p.Name, p.NC, len(p.Entries))
	fmt.Fprintf(stdout, "solver      %s, tol %g, max-iter %d, g_d %g\n", *solver, opt.Tol, opt.MaxIter, opt.Gd)
	fmt.Fprintf(stdout, "result      %s after %d iterations in %.3g s: residual %.3g (eq. 25), proj_grad %.3g, objective %.10g\n",
		conv, st.Iterations, res.wall, st.Residual, st.ProjGrad, st.Objective)
	fmt.Fprintf(stdout, "check.py    ccp_res_chrono %.3g, fc_err_siconos %.3g, cone violation %.3g, dual violation %.3g, γᵀu %.3g\n",
		res.rep.CCPResChrono, res.rep.FCErrSiconos, res.rep.MaxConeViolation, res.rep.MaxDualViolation, res.rep.ComplementarityGTu)
	fmt.Fprintf(stdout, "outputs     %s/{gamma.txt,history.csv,summary.json}\n", out)
	if res.status == engine.StatusUnbounded {
		return fmt.Errorf("%s on %s: %s", *solver, pos[0], unboundedText(res))
	}
	return nil
}

// statusText is the status of a solve for the result line.
func statusText(r solved) string {
	switch r.status {
	case engine.StatusConverged:
		return "converged"
	case engine.StatusUnbounded:
		return "UNBOUNDED (no solution)"
	case engine.StatusFailed:
		return "FAILED"
	}
	return "NOT converged"
}

// unboundedText says why a solve's problem is unbounded.
func unboundedText(r solved) string {
	c := r.cert
	s := fmt.Sprintf("the problem is unbounded: along %s (‖δ‖ = %.3g) the objective descends with slope %.3g and curvature %.3g (ratio %.3g ≤ %g), so it has no minimum",
		c.From, c.Norm, c.Slope, c.Curvature, c.Ratio, engine.UnboundedRho)
	if r.err != nil {
		s += fmt.Sprintf(" (the solver failed: %v)", r.err)
	}
	return s
}

// historyCSV renders a solve's history: iteration, residual, objective,
// step, restart (0 or 1) and, when wall > 0, time_s, the wall time at the
// end of the iteration estimated as iteration × wall / iterations.
func historyCSV(h []engine.IterRecord, wall float64) []byte {
	var b bytes.Buffer
	b.WriteString("iteration,residual,objective,step,restart")
	if wall > 0 {
		b.WriteString(",time_s")
	}
	b.WriteByte('\n')
	var buf []byte
	for _, r := range h {
		buf = strconv.AppendInt(buf[:0], int64(r.Iter), 10)
		for _, v := range []float64{r.Residual, r.Objective, r.Step} {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		if r.Restart {
			buf = append(buf, ",1"...)
		} else {
			buf = append(buf, ",0"...)
		}
		if wall > 0 {
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, iterTime(r.Iter, len(h), wall), 'g', -1, 64)
		}
		buf = append(buf, '\n')
		b.Write(buf)
	}
	return b.Bytes()
}

// iterTime estimates the wall time at the end of iteration k of n taking
// wall seconds in all: the solvers report no time per iteration, so the
// mean is used.
func iterTime(k, n int, wall float64) float64 {
	return wall * float64(k) / float64(n)
}

// writeFile writes data to a temporary file beside path and renames it
// into place.
func writeFile(path string, data []byte) error {
	return atomicfile.WriteBytes(path, data)
}

// fileName makes a problem name safe as one path element (safepath's
// rule: letters, digits, '.', '_', '-', not starting with '.').
func fileName(s string) string { return safepath.Sanitize(s, "problem") }

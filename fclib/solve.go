package fclib

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/atomicfile"
)

// Options control Solve and Compare.
type Options struct {
	// Tol is the tolerance on the residual of eq. 25 of the APGD paper
	// (0: always run MaxIter iterations).
	Tol float64
	// MaxIter caps the iterations; it must be at least 1.
	MaxIter int
	// Gd is g_d of eq. 25; 0 means DefaultGd(nc), check.py's, so that
	// proj_grad is check.py's ccp_res_chrono.
	Gd float64
	// Workers is the number of goroutines of the products with N
	// (0: GOMAXPROCS).
	Workers int
}

// Check reports an option out of range: Tol or Gd negative or not
// finite, MaxIter < 1, Workers < 0.
func (o Options) Check() error {
	switch {
	case !(o.Tol >= 0) || math.IsInf(o.Tol, 0):
		return fmt.Errorf("fclib: tolerance %v must be ≥ 0 and finite", o.Tol)
	case o.MaxIter < 1:
		return fmt.Errorf("fclib: iteration cap %d must be ≥ 1", o.MaxIter)
	case !(o.Gd >= 0) || math.IsInf(o.Gd, 0):
		return fmt.Errorf("fclib: g_d %v must be > 0 and finite (0: the default)", o.Gd)
	case o.Workers < 0:
		return fmt.Errorf("fclib: workers %d must be ≥ 0", o.Workers)
	}
	return nil
}

// SolveOptions returns the solver options for a problem of nc contacts:
// Tol and MaxIter, Gd or else DefaultGd(nc), and a history of every
// iteration.
func (o Options) SolveOptions(nc int) engine.SolveOptions {
	gd := o.Gd
	if gd == 0 {
		gd = DefaultGd(nc)
	}
	return engine.SolveOptions{Tol: o.Tol, MaxIter: o.MaxIter, Gd: gd, History: true}
}

// Result is one solver's solve of a problem from γ₀ = 0: a row of
// Compare's table.
type Result struct {
	// Solver is the solver's name (see engine.Solvers).
	Solver string
	// Options are the solver options used (Gd resolved).
	Options engine.SolveOptions
	// Stats are the solver's: iterations, residual of eq. 25, proj_grad,
	// objective and the history of every iteration.
	Stats engine.SolveStats
	// Gamma is the returned γ, 3nc values and then the joint rows of an
	// EngineProblem (N·s for a problem dumped by gpusim).
	Gamma []float64
	// Wall is the wall time of the solve (s).
	Wall float64
	// Measures are those of shared/fclib/check.py for Gamma, with its
	// g_d = 1/(3nc)² whatever Options.Gd is, when Measured.
	Measures Report
	// Measured says that Measures hold check.py's measures: true for a
	// problem of the folder format (Compare), false for one with joint
	// rows (EngineProblem.Compare), for which they are not defined.
	Measured bool
	// Figures are the figures of merit of Gamma (EngineProblem.Figures),
	// nil when the problem has none.
	Figures []Figure
	// Status is engine.Classify's: converged, not_converged, unbounded (the
	// problem has no solution; Certificate holds the evidence) or failed.
	Status engine.Status
	// Certificate is the evidence of an unbounded problem (nil otherwise).
	Certificate *engine.Certificate
	// Err is the solver's error: with Status failed, or unbounded when the
	// solver failed on an unbounded problem.
	Err error
}

// TimeToTol is the wall time of a solve that stopped at the tolerance,
// and NaN for one that did not (or whose problem is unbounded).
func (r *Result) TimeToTol() float64 {
	if r.Status == engine.StatusConverged {
		return r.Wall
	}
	return math.NaN()
}

// Solve runs the named solver (see engine.Solvers) on p from γ₀ = 0 and
// measures the result. The error is for what kept it from starting: an
// unknown solver, options out of range (Options.Check), a problem that
// Validate rejects. How the solve itself went, failures included, is in
// the Result's Status and Err.
func Solve(p *Problem, solver string, opt Options) (*Result, error) {
	rs, err := Compare(p, []string{solver}, opt)
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// Compare runs each named solver on p from γ₀ = 0, one after the other on
// the same engine.Problem, and returns their results in order (see
// Solve; the error is as Solve's).
func Compare(p *Problem, solvers []string, opt Options) ([]*Result, error) {
	ss, err := newSolvers(solvers, opt)
	if err != nil {
		return nil, err
	}
	mp, err := p.CCP(opt.Workers)
	if err != nil {
		return nil, err
	}
	so := opt.SolveOptions(p.NC)
	rs := make([]*Result, len(ss))
	for i, s := range ss {
		rs[i] = solveOnce(mp, p, s, solvers[i], so)
	}
	return rs, nil
}

// solveOnce runs s (named name) on mp, the engine.Problem of p, from
// γ₀ = 0.
func solveOnce(mp engine.Problem, p *Problem, s engine.Solver, name string, opt engine.SolveOptions) *Result {
	r := &Result{Solver: name, Options: opt}
	x := mp.NewVec(p.N())
	t0 := time.Now()
	r.Stats, r.Err = s.Solve(mp, x, opt)
	r.Wall = time.Since(t0).Seconds()
	r.Gamma = make([]float64, p.N())
	mp.Read(r.Gamma, x)
	r.Measures, r.Measured = Measures(p, r.Gamma), true
	r.Status, r.Certificate = engine.Classify(mp, x, r.Stats, r.Err)
	return r
}

// StatusText is the status of a solve as gpusim solve prints it:
// converged, NOT converged, UNBOUNDED (no solution) or FAILED.
func (r *Result) StatusText() string {
	switch r.Status {
	case engine.StatusConverged:
		return "converged"
	case engine.StatusUnbounded:
		return "UNBOUNDED (no solution)"
	case engine.StatusFailed:
		return "FAILED"
	}
	return "NOT converged"
}

// UnboundedText says why the problem of a solve with Status unbounded has
// no solution: the certificate's direction, slope and curvature, and the
// solver's error if it failed.
func (r *Result) UnboundedText() string {
	c := r.Certificate
	s := fmt.Sprintf("the problem is unbounded: along %s (‖δ‖ = %.3g) the objective descends with slope %.3g and curvature %.3g (ratio %.3g ≤ %g), so it has no minimum",
		c.From, c.Norm, c.Slope, c.Curvature, c.Ratio, engine.UnboundedRho)
	if r.Err != nil {
		s += fmt.Sprintf(" (the solver failed: %v)", r.Err)
	}
	return s
}

// Summary is what gpusim solve writes as summary.json.
type Summary struct {
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
	// gpusim solve exits with status 1). A failed solve has no summary.
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
	Measures Report `json:"measures"`
}

// Summary returns the summary of r, a solve of p read from the folder
// path.
func (r *Result) Summary(p *Problem, path string) Summary {
	st := r.Stats
	sum := Summary{Problem: p.Name, Path: path, Contacts: p.NC, Solver: r.Solver, Tol: r.Options.Tol, MaxIter: r.Options.MaxIter, Gd: r.Options.Gd,
		Iterations: st.Iterations, Status: r.Status, Certificate: r.Certificate, Converged: r.Status == engine.StatusConverged,
		Residual: st.Residual, ProjGrad: st.ProjGrad, Objective: st.Objective, WallSeconds: r.Wall, Measures: r.Measures}
	if r.Err != nil {
		sum.Error = r.Err.Error()
	}
	return sum
}

// WriteSolve writes the outputs of gpusim solve for r, a solve of p read
// from the folder path, into the folder dir (made if missing):
// gamma.txt (WriteVector), history.csv (HistoryCSV without times) and
// summary.json (Result.Summary).
func WriteSolve(dir string, p *Problem, path string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := WriteVector(filepath.Join(dir, "gamma.txt"), r.Gamma); err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "history.csv"), HistoryCSV(r.Stats.History, 0)); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r.Summary(p, path), "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "summary.json"), append(data, '\n'))
}

// HistoryCSV renders a solve's history: iteration, residual, objective,
// step, restart (0 or 1) and, when wall > 0, time_s, the wall time at the
// end of the iteration estimated by IterTime.
func HistoryCSV(h []engine.IterRecord, wall float64) []byte {
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
			buf = strconv.AppendFloat(buf, IterTime(r.Iter, len(h), wall), 'g', -1, 64)
		}
		buf = append(buf, '\n')
		b.Write(buf)
	}
	return b.Bytes()
}

// IterTime estimates the wall time (s) at the end of iteration k of n
// taking wall seconds in all, as wall·k/n: the solvers report no time per
// iteration, so the mean is used.
func IterTime(k, n int, wall float64) float64 {
	return wall * float64(k) / float64(n)
}

// newSolvers makes the named solvers, after checking opt.
func newSolvers(names []string, opt Options) ([]engine.Solver, error) {
	var ss []engine.Solver
	for _, name := range names {
		s, err := engine.NewSolver(name)
		if err != nil {
			return nil, err
		}
		ss = append(ss, s)
	}
	if err := opt.Check(); err != nil {
		return nil, err
	}
	return ss, nil
}

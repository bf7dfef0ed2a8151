package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/viz"
)

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gpusim compare", stderr, `Usage: gpusim compare PROBLEM|FOLDER|SCENE --solvers a,b,... [flags]

Runs each solver from γ₀ = 0 on one problem: a problem folder (see gpusim
solve), or the problem of step --step of a scene, which is run on the CPU
backend with its own solver up to that step (its outputs go to DIR/run and
the problem to DIR/problem). A scene with joints has joint rows in its
problem, which the problem folder cannot hold: its problem is compared in
memory on the backend that built it, and no DIR/problem is written. Writes
DIR/table.md and DIR/table.csv (iterations, residual, proj_grad, objective,
wall time, time to reach --tol, and check.py's ccp_res_chrono and
fc_err_siconos, n/a for a problem with joint rows, for which they are not
defined; for the shear and chain scenes also the forces of their figure of
merit for each solver's γ: the total shear force and the normal force on
the lid, the anchors' force), DIR/history-SOLVER.csv, and the plots
DIR/residual-iterations.png and DIR/residual-time.png. The
time axis is the wall time of each solve spread evenly over its iterations
(the solvers do not time single iterations). DIR defaults to
out/compare-NAME.

Over a FOLDER of problem folders (../shared/fclib, say) it runs every
solver on every problem, each stopped at proj_grad ≤ half the last of
--targets (check.py's ccp_res_chrono at the default g_d) or its cap
(--max-iter, or --max-iter-of for the solvers it names), and writes
DIR/collection.md and DIR/collection.csv: for each problem and solver the
iterations and wall time to reach each target and check.py's measure of
the returned γ; each problem's tables and histories are in DIR/NAME. DIR
defaults to out/compare-FOLDER.

Flags:
`)
	list := fs.String("solvers", "", "comma-separated solvers (default: every solver of gpusim solvers)")
	step := fs.Int("step", 0, "for a scene: the step whose problem is compared (default: the scene's last)")
	maxInput := fs.String("max-input-size", "", "largest scene file or file of the problem folder read, in bytes with an optional suffix (default 256M for a scene, 2G for a problem file); off: no cap")
	var sets multi
	fs.Var(&sets, "set", "for a scene: key=value override of a scene parameter or field (repeatable)")
	targets := fs.String("targets", "1e-6,1e-8", "over a folder of problems: accuracies on proj_grad, falling, whose iterations and time the table gives")
	maxIterOf := fs.String("max-iter-of", "", "over a folder of problems: per-solver iteration caps overriding --max-iter, as solver=N,...")
	sf := addSolveFlags(fs)
	arg, err := parseOne(fs, args, "compare takes one problem folder, a folder of them, or a scene")
	if err != nil {
		return err
	}
	names, err := solverList(*list)
	if err != nil {
		return err
	}
	set := setFlags(fs)
	opt, err := sf.options()
	if err != nil {
		return err
	}
	inputCap, err := bytesFlag("max-input-size", *maxInput)
	if err != nil {
		return err
	}

	if isCollection(arg) {
		if set["step"] || len(sets) > 0 || set["tol"] {
			return usageError{fmt.Errorf("--step, --set and --tol do not apply to a folder of problems (%s): each solve stops at half the last of --targets", arg)}
		}
		return compareCollection(arg, names, opt, *targets, *maxIterOf, inputCap, *sf.out, stdout, stderr)
	}
	if set["targets"] || set["max-iter-of"] {
		return usageError{fmt.Errorf("--targets and --max-iter-of apply to a folder of problems, and %s is not one", arg)}
	}

	var p *fclib.Problem
	var ep *fclib.EngineProblem // a scene's problem with joint rows, compared in memory
	var results []*fclib.Result
	out := *sf.out
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		if set["step"] || len(sets) > 0 {
			return usageError{fmt.Errorf("--step and --set apply to a scene, and %s is a problem folder", arg)}
		}
		if p, err = fclib.ReadWith(arg, inputCap); err != nil {
			return usageError{err}
		}
		if out == "" {
			out = filepath.Join("out", "compare-"+fileName(p.Name))
		}
	} else {
		sc, err := scene.LoadWith(arg, sets, scene.LoadOptions{MaxInputSize: inputCap})
		if err != nil {
			return usageError{fmt.Errorf("%s is neither a problem folder nor a scene: %w", arg, err)}
		}
		n := run.Steps(sc)
		k := n
		if set["step"] {
			k = *step
		}
		if k < 1 || k > n {
			return usageError{fmt.Errorf("--step %d is not one of the scene's steps 1…%d", k, n)}
		}
		if out == "" {
			out = filepath.Join("out", fmt.Sprintf("compare-%s-step%d", fileName(sc.Name), k))
		}
		sc.Steps = k
		if set["workers"] {
			sc.Settings.Workers = opt.Workers
		}
		dir := filepath.Join(out, "problem")
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		fmt.Fprintf(stderr, "gpusim: running %s to step %d on the CPU backend with solver %s\n", sc.Name, k, sc.Settings.Solver)
		ropt := run.Options{Backend: "cpu", OutDir: filepath.Join(out, "run"), Overwrite: true,
			Notice: func(s string) { fmt.Fprintf(stderr, "gpusim: %s\n", s) }}
		if sc.Model.JointRows() == 0 {
			ropt.DumpStep, ropt.DumpDir = k, dir
		} else {
			// The folder format holds contacts only: the problem of step k
			// is compared in memory, at the end of the run, on the
			// backend that built it.
			ropt.AtEnd = func(sim *engine.Sim) error {
				s := sim.Settings()
				ep = &fclib.EngineProblem{Name: fmt.Sprintf("%s-step%d", sc.Name, k), Problem: sim.Problem(),
					Description: fmt.Sprintf("Scene %s (%s), step %d, t = %g s, h = %g s, CPU backend; the run's own solve (%s) is in run/stats.csv.",
						sc.Name, sc.Source, k, sim.Time(), s.Dt, s.Solver),
					Figures: func(g engine.Vec) ([]fclib.Figure, error) { return run.MeritForces(sc, sim, g) }}
				fmt.Fprintf(stderr, "gpusim: comparing %s on the problem of step %d (%d contacts, %d joint rows) in memory: the problem folder format holds contacts only\n",
					strings.Join(names, ", "), k, ep.Contacts(), ep.JointRows())
				var err error
				results, err = ep.Compare(names, opt)
				return err
			}
		}
		if _, err := run.Run(ctx, sc, ropt); err != nil {
			return err
		}
		if ep == nil {
			if p, err = fclib.Read(dir); err != nil {
				return err
			}
		}
	}
	if ep == nil {
		var err error
		if results, err = fclib.Compare(p, names, opt); err != nil {
			return usageError{err}
		}
	}
	var failed, unbounded []string
	for _, r := range results {
		switch {
		case r.Status == engine.StatusUnbounded:
			fmt.Fprintf(stderr, "gpusim: %s: %s\n", r.Solver, r.UnboundedText())
			unbounded = append(unbounded, r.Solver)
		case r.Err != nil:
			fmt.Fprintf(stderr, "gpusim: %s: %v\n", r.Solver, r.Err)
			failed = append(failed, r.Solver)
		}
	}
	var title string
	var table []byte
	if ep != nil {
		if err := ep.WriteCompare(out, opt, results); err != nil {
			return err
		}
		title = fmt.Sprintf("%s (%d contacts, %d joint rows)", ep.Name, ep.Contacts(), ep.JointRows())
		table = ep.TableMD(opt, results)
	} else {
		if err := fclib.WriteCompare(out, p, opt, results); err != nil {
			return err
		}
		title = fmt.Sprintf("%s (%d contacts)", p.Name, p.NC)
		table = fclib.TableMD(p, opt, results)
	}
	if err := viz.PlotResiduals(filepath.Join(out, "residual-iterations.png"), title, results, opt.Tol, false); err != nil {
		return err
	}
	if err := viz.PlotResiduals(filepath.Join(out, "residual-time.png"), title, results, opt.Tol, true); err != nil {
		return err
	}
	stdout.Write(table)
	fmt.Fprintf(stdout, "\noutputs: %s/{table.md,table.csv,history-SOLVER.csv,residual-iterations.png,residual-time.png}\n", out)
	var errs []string
	if len(failed) > 0 {
		errs = append(errs, fmt.Sprintf("solvers %s failed", strings.Join(failed, ", ")))
	}
	if len(unbounded) > 0 {
		errs = append(errs, fmt.Sprintf("solvers %s found the problem unbounded", strings.Join(unbounded, ", ")))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s (see the table)", strings.Join(errs, "; "))
	}
	return nil
}

// solverList parses --solvers; empty means every registered solver.
func solverList(s string) ([]string, error) {
	var names []string
	if strings.TrimSpace(s) == "" {
		for _, line := range engine.Solvers() {
			name, _, _ := strings.Cut(line, ":")
			names = append(names, name)
		}
		return names, nil
	}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if _, err := engine.NewSolver(f); err != nil {
			return nil, usageError{fmt.Errorf("--solvers: %w", err)}
		}
		if slices.Contains(names, f) {
			return nil, usageError{fmt.Errorf("--solvers: %s given twice", f)}
		}
		names = append(names, f)
	}
	if len(names) == 0 {
		return nil, usageError{fmt.Errorf("--solvers %q names no solver", s)}
	}
	return names, nil
}

// isCollection reports whether path is a folder with none of a problem
// folder's files (W.mtx, q.txt, mu.txt): a folder of problem folders
// (fclib.CollectionProblems says whether it holds any). A problem folder
// missing some of them is read as one, so that the error names the file.
func isCollection(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	for _, f := range []string{"W.mtx", "q.txt", "mu.txt"} {
		if _, err := os.Stat(filepath.Join(path, f)); err == nil {
			return false
		}
	}
	return true
}

// compareCollection is gpusim compare over a folder of problem folders.
func compareCollection(dir string, names []string, opt fclib.Options, targets, maxIterOf string, inputCap int64, out string, stdout, stderr io.Writer) error {
	co := fclib.CollectionOptions{Options: opt, MaxIterOf: map[string]int{}}
	for _, f := range strings.Split(targets, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return usageError{fmt.Errorf("--targets: %q is not a number", f)}
		}
		co.Targets = append(co.Targets, v)
	}
	for _, f := range strings.Split(maxIterOf, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		name, v, ok := strings.Cut(f, "=")
		name = strings.TrimSpace(name)
		it, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil {
			return usageError{fmt.Errorf("--max-iter-of: %q is not solver=N", f)}
		}
		if !slices.Contains(names, name) {
			return usageError{fmt.Errorf("--max-iter-of: %s is not one of the solvers compared (%s)", name, strings.Join(names, ", "))}
		}
		co.MaxIterOf[name] = it
	}
	dirs, err := fclib.CollectionProblems(dir)
	if err != nil {
		return usageError{err}
	}
	if out == "" {
		out = filepath.Join("out", "compare-"+fileName(filepath.Base(filepath.Clean(dir))))
	}
	co.Progress = func(problem string, nc int, solver string) {
		fmt.Fprintf(stderr, "gpusim: %s (%d contacts): %s\n", problem, nc, solver)
	}
	es, err := fclib.CompareCollection(dirs, names, co, inputCap)
	if err != nil {
		return usageError{err}
	}
	if err := fclib.WriteCollection(out, es, names, co); err != nil {
		return err
	}
	stdout.Write(fclib.CollectionMD(es, names, co))
	fmt.Fprintf(stdout, "\noutputs: %s/{collection.md,collection.csv,PROBLEM/}\n", out)
	var failed []string
	for _, e := range es {
		for _, r := range e.Results {
			if r.Err != nil {
				failed = append(failed, e.Name+"/"+r.Solver)
			}
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("solves %s failed (see the table)", strings.Join(failed, ", "))
	}
	return nil
}

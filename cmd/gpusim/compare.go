package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/viz"
)

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gpusim compare", stderr, `Usage: gpusim compare PROBLEM|SCENE --solvers a,b,... [flags]

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

Flags:
`)
	list := fs.String("solvers", "", "comma-separated solvers (default: every solver of gpusim solvers)")
	step := fs.Int("step", 0, "for a scene: the step whose problem is compared (default: the scene's last)")
	maxInput := fs.String("max-input-size", "", "largest scene file or file of the problem folder read, in bytes with an optional suffix (default 256M for a scene, 2G for a problem file); off: no cap")
	var sets multi
	fs.Var(&sets, "set", "for a scene: key=value override of a scene parameter or field (repeatable)")
	sf := addSolveFlags(fs)
	arg, err := parseOne(fs, args, "compare takes one problem folder or scene")
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

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
the problem to DIR/problem). Writes DIR/table.md and DIR/table.csv
(iterations, residual, proj_grad, objective, wall time, time to reach --tol,
and check.py's ccp_res_chrono and fc_err_siconos), DIR/history-SOLVER.csv,
and the plots DIR/residual-iterations.png and DIR/residual-time.png. The
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
		dir := filepath.Join(out, "problem")
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		fmt.Fprintf(stderr, "gpusim: running %s to step %d on the CPU backend with solver %s\n", sc.Name, k, sc.Settings.Solver)
		ropt := run.Options{Backend: "cpu", OutDir: filepath.Join(out, "run"), Overwrite: true, DumpStep: k, DumpDir: dir,
			Notice: func(s string) { fmt.Fprintf(stderr, "gpusim: %s\n", s) }}
		if _, err := run.Run(ctx, sc, ropt); err != nil {
			return err
		}
		if p, err = fclib.Read(dir); err != nil {
			return err
		}
	}
	results, err := fclib.Compare(p, names, opt)
	if err != nil {
		return usageError{err}
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
	if err := fclib.WriteCompare(out, p, opt, results); err != nil {
		return err
	}
	title := fmt.Sprintf("%s (%d contacts)", p.Name, p.NC)
	if err := viz.PlotResiduals(filepath.Join(out, "residual-iterations.png"), title, results, opt.Tol, false); err != nil {
		return err
	}
	if err := viz.PlotResiduals(filepath.Join(out, "residual-time.png"), title, results, opt.Tol, true); err != nil {
		return err
	}
	stdout.Write(fclib.TableMD(p, opt, results))
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

package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
)

// palette holds the line colours, Matplotlib's "tab10", which stay
// distinct from one another.
var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{44, 160, 44, 255}, color.RGBA{214, 39, 40, 255},
	color.RGBA{148, 103, 189, 255}, color.RGBA{140, 86, 75, 255}, color.RGBA{227, 119, 194, 255}, color.RGBA{127, 127, 127, 255},
	color.RGBA{188, 189, 34, 255}, color.RGBA{23, 190, 207, 255},
}

// Plot size: 8 × 5 inches, 768 × 480 pixels at gonum/plot's 96 dpi.
const plotW, plotH = 8 * vg.Inch, 5 * vg.Inch

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gpusim compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.String("solvers", "", "comma-separated solvers (default: every solver of gpusim solvers)")
	step := fs.Int("step", 0, "for a scene: the step whose problem is compared (default: the scene's last)")
	maxInput := fs.String("max-input-size", "", "largest scene file or file of the problem folder read, in bytes with an optional suffix (default 256M for a scene, 2G for a problem file); off: no cap")
	var sets multi
	fs.Var(&sets, "set", "for a scene: key=value override of a scene parameter or field (repeatable)")
	sf := addSolveFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: gpusim compare PROBLEM|SCENE --solvers a,b,... [flags]

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
		fs.PrintDefaults()
	}
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{fmt.Errorf("compare takes one problem folder or scene, got %d arguments", len(pos))}
	}
	names, err := solverList(*list)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if _, err := sf.options(1); err != nil {
		return err
	}
	inputCap, err := bytesFlag("max-input-size", *maxInput)
	if err != nil {
		return err
	}

	var p *fclib.Problem
	out := *sf.out
	if st, err := os.Stat(pos[0]); err == nil && st.IsDir() {
		if set["step"] || len(sets) > 0 {
			return usageError{fmt.Errorf("--step and --set apply to a scene, and %s is a problem folder", pos[0])}
		}
		if p, err = fclib.ReadWith(pos[0], inputCap); err != nil {
			return usageError{err}
		}
		if out == "" {
			out = filepath.Join("out", "compare-"+fileName(p.Name))
		}
	} else {
		sc, err := scene.LoadWith(pos[0], sets, scene.LoadOptions{MaxInputSize: inputCap})
		if err != nil {
			return usageError{fmt.Errorf("%s is neither a problem folder nor a scene: %w", pos[0], err)}
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
		opt := run.Options{Backend: "cpu", OutDir: filepath.Join(out, "run"), Overwrite: true, DumpStep: k, DumpDir: dir,
			Notice: func(s string) { fmt.Fprintf(stderr, "gpusim: %s\n", s) }}
		if _, err := run.Run(ctx, sc, opt); err != nil {
			return err
		}
		if p, err = fclib.Read(dir); err != nil {
			return err
		}
	}
	opt, err := sf.options(p.NC)
	if err != nil {
		return err
	}
	mp, err := p.CCP(*sf.workers)
	if err != nil {
		return usageError{err}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var results []solved
	var failed, unbounded []string
	for _, name := range names {
		r := solveOnce(mp, p, name, opt)
		switch {
		case r.status == engine.StatusUnbounded:
			fmt.Fprintf(stderr, "gpusim: %s: %s\n", name, unboundedText(r))
			unbounded = append(unbounded, name)
		case r.err != nil:
			fmt.Fprintf(stderr, "gpusim: %s: %v\n", name, r.err)
			failed = append(failed, name)
		}
		results = append(results, r)
		if err := writeFile(filepath.Join(out, "history-"+name+".csv"), historyCSV(r.stats.History, r.wall)); err != nil {
			return err
		}
	}
	md := tableMD(p, opt, results)
	if err := writeFile(filepath.Join(out, "table.md"), md); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, "table.csv"), tableCSV(opt, results)); err != nil {
		return err
	}
	title := fmt.Sprintf("%s (%d contacts)", p.Name, p.NC)
	if err := plotHistories(filepath.Join(out, "residual-iterations.png"), title, results, opt.Tol, false); err != nil {
		return err
	}
	if err := plotHistories(filepath.Join(out, "residual-time.png"), title, results, opt.Tol, true); err != nil {
		return err
	}
	stdout.Write(md)
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

// timeToTol is the wall time of a solve that stopped at the tolerance, and
// NaN for one that did not (or whose problem is unbounded).
func timeToTol(r solved) float64 {
	if r.status == engine.StatusConverged {
		return r.wall
	}
	return math.NaN()
}

func tableCSV(opt engine.SolveOptions, rs []solved) []byte {
	var b bytes.Buffer
	b.WriteString("solver,iterations,converged,status,residual,proj_grad,objective,wall_s,time_to_tol_s,ccp_res_chrono,fc_err_siconos,error\n")
	g := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, r := range rs {
		errText := ""
		if r.err != nil {
			errText = strconv.Quote(r.err.Error())
		}
		fmt.Fprintf(&b, "%s,%d,%t,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r.solver, r.stats.Iterations, r.status == engine.StatusConverged, r.status,
			g(r.stats.Residual), g(r.stats.ProjGrad), g(r.stats.Objective), g(r.wall), g(timeToTol(r)),
			g(r.rep.CCPResChrono), g(r.rep.FCErrSiconos), errText)
	}
	return b.Bytes()
}

func tableMD(p *fclib.Problem, opt engine.SolveOptions, rs []solved) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Problem %s: %d contacts, %d entries of N. From γ₀ = 0, tol %g on the residual of eq. 25 (g_d = %g), max-iter %d.\n\n",
		p.Name, p.NC, len(p.Entries), opt.Tol, opt.Gd, opt.MaxIter)
	b.WriteString("| solver | status | iterations | residual | proj_grad | objective | wall (s) | time to tol (s) | ccp_res_chrono | fc_err_siconos |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	g := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	for _, r := range rs {
		if r.err != nil {
			fmt.Fprintf(&b, "| %s | %s | %d | failed: %s | | | %s | — | | |\n", r.solver, r.status, r.stats.Iterations, strings.ReplaceAll(r.err.Error(), "|", "\\|"), g(r.wall))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.solver, r.status, r.stats.Iterations, g(r.stats.Residual), g(r.stats.ProjGrad),
			strconv.FormatFloat(r.stats.Objective, 'g', 10, 64), g(r.wall), g(timeToTol(r)), g(r.rep.CCPResChrono), g(r.rep.FCErrSiconos))
	}
	return b.Bytes()
}

// plotHistories draws the residual of each solve against the iteration or
// the (estimated) wall time, log scale, one line per solver, with the
// tolerance as a dashed line, like Fig. 5 of the APGD paper.
func plotHistories(path, title string, rs []solved, tol float64, byTime bool) error {
	pl := plot.New()
	pl.Title.Text = title
	pl.Y.Label.Text = "residual (eq. 25)"
	pl.Y.Scale = plot.LogScale{}
	pl.Y.Tick.Marker = plot.LogTicks{Prec: 1}
	if byTime {
		pl.X.Label.Text = "wall time (s), iterations × mean time per iteration"
		pl.X.Scale = plot.LogScale{}
		pl.X.Tick.Marker = plot.LogTicks{Prec: 1}
	} else {
		pl.X.Label.Text = "iteration"
	}
	pl.Add(plotter.NewGrid())
	xr, yr := span{}, span{}
	for i, r := range rs {
		var pts plotter.XYs
		for _, h := range r.stats.History {
			x := float64(h.Iter)
			if byTime {
				x = iterTime(h.Iter, len(r.stats.History), r.wall)
			}
			if !(h.Residual > 0) || math.IsInf(h.Residual, 0) || !(x > 0) || math.IsInf(x, 0) {
				continue
			}
			pts = append(pts, plotter.XY{X: x, Y: h.Residual})
			xr.add(x)
			yr.add(h.Residual)
		}
		if len(pts) == 0 {
			continue
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("plot %s: %w", r.solver, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		l.Dashes = plotutil.Dashes(i / len(palette)) // solid for the first ten
		pl.Add(l)
		pl.Legend.Add(r.solver, l)
	}
	if tol > 0 && xr.ok() {
		yr.add(tol)
		l, err := plotter.NewLine(plotter.XYs{{X: xr.lo, Y: tol}, {X: xr.hi, Y: tol}})
		if err != nil {
			return fmt.Errorf("plot tolerance: %w", err)
		}
		l.Color = color.Gray{Y: 90}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		pl.Add(l)
		pl.Legend.Add("tol", l)
	}
	pl.Legend.Top = true
	pl.X.Min, pl.X.Max = xr.rangeFor(byTime)
	pl.Y.Min, pl.Y.Max = yr.rangeFor(true)
	wt, err := pl.WriterTo(plotW, plotH, "png")
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return writeFile(path, buf.Bytes())
}

// span is the range of the values added to it.
type span struct{ lo, hi float64 }

func (s *span) ok() bool { return s.hi > 0 }

func (s *span) add(v float64) {
	if !s.ok() {
		s.lo, s.hi = v, v
		return
	}
	s.lo, s.hi = min(s.lo, v), max(s.hi, v)
}

// rangeFor returns an axis range that holds the span: widened to a decade
// each way on a log axis when it is a single value, to [1, 10] when empty.
func (s span) rangeFor(log bool) (float64, float64) {
	if !s.ok() {
		return 1, 10
	}
	if s.lo < s.hi {
		return s.lo, s.hi
	}
	if log {
		return s.lo / 10, s.hi * 10
	}
	return s.lo - 1, s.hi + 1
}

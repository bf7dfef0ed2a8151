package fclib

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/atomicfile"
)

// TableCSV renders Compare's results as gpusim compare's table.csv: a
// header and one row per result (solver, iterations, converged, status,
// residual, proj_grad, objective, wall_s, time_to_tol_s, ccp_res_chrono,
// fc_err_siconos, error), every number in full precision, an empty field
// for NaN.
func TableCSV(rs []*Result) []byte {
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
		if r.Err != nil {
			errText = strconv.Quote(r.Err.Error())
		}
		fmt.Fprintf(&b, "%s,%d,%t,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r.Solver, r.Stats.Iterations, r.Status == engine.StatusConverged, r.Status,
			g(r.Stats.Residual), g(r.Stats.ProjGrad), g(r.Stats.Objective), g(r.Wall), g(r.TimeToTol()),
			g(r.Measures.CCPResChrono), g(r.Measures.FCErrSiconos), errText)
	}
	return b.Bytes()
}

// TableMD renders Compare's results on p with opt as gpusim compare's
// table.md: a line on the problem and the options, then a Markdown table
// of the same columns as TableCSV's, numbers to 3 digits (the objective
// to 10).
func TableMD(p *Problem, opt Options, rs []*Result) []byte {
	so := opt.SolveOptions(p.NC)
	var b bytes.Buffer
	fmt.Fprintf(&b, "Problem %s: %d contacts, %d entries of N. From γ₀ = 0, tol %g on the residual of eq. 25 (g_d = %g), max-iter %d.\n\n",
		p.Name, p.NC, len(p.Entries), so.Tol, so.Gd, so.MaxIter)
	b.WriteString("| solver | status | iterations | residual | proj_grad | objective | wall (s) | time to tol (s) | ccp_res_chrono | fc_err_siconos |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	g := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	for _, r := range rs {
		if r.Err != nil {
			fmt.Fprintf(&b, "| %s | %s | %d | failed: %s | | | %s | — | | |\n", r.Solver, r.Status, r.Stats.Iterations, strings.ReplaceAll(r.Err.Error(), "|", "\\|"), g(r.Wall))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", r.Solver, r.Status, r.Stats.Iterations, g(r.Stats.Residual), g(r.Stats.ProjGrad),
			strconv.FormatFloat(r.Stats.Objective, 'g', 10, 64), g(r.Wall), g(r.TimeToTol()), g(r.Measures.CCPResChrono), g(r.Measures.FCErrSiconos))
	}
	return b.Bytes()
}

// WriteCompare writes the tables of gpusim compare for Compare's results
// on p with opt into the folder dir (made if missing): history-SOLVER.csv
// for each result (HistoryCSV with times), table.md (TableMD) and
// table.csv (TableCSV). The plots are viz.PlotResiduals'.
func WriteCompare(dir string, p *Problem, opt Options, rs []*Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range rs {
		if err := atomicfile.WriteBytes(filepath.Join(dir, "history-"+r.Solver+".csv"), HistoryCSV(r.Stats.History, r.Wall)); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "table.md"), TableMD(p, opt, rs)); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "table.csv"), TableCSV(rs))
}

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

// notApplicable is what the tables print for check.py's measures of a
// problem with joint rows (Result.Measured false).
const notApplicable = "n/a"

// figureColumns returns the figures of merit of the results, in the order
// of the first that has any: the tables' last columns.
func figureColumns(rs []*Result) []Figure {
	for _, r := range rs {
		if len(r.Figures) > 0 {
			return r.Figures
		}
	}
	return nil
}

// figureValue returns r's figure named like f, NaN if it has none.
func figureValue(r *Result, f Figure) float64 {
	for _, g := range r.Figures {
		if g.Name == f.Name && g.Unit == f.Unit {
			return g.Value
		}
	}
	return math.NaN()
}

// productsText renders st.Products, or "" where the solver does not
// count them (0).
func productsText(st engine.SolveStats) string {
	if st.Products == 0 {
		return ""
	}
	return strconv.Itoa(st.Products)
}

// TableCSV renders Compare's results as gpusim compare's table.csv: a
// header and one row per result (solver, iterations, converged, status,
// residual, proj_grad, objective, wall_s, time_to_tol_s, ccp_res_chrono,
// fc_err_siconos, products (engine.SolveStats.Products; empty where the
// solver does not count them), error, then a column per figure of merit, named
// Name_Unit), every number in full precision, an empty field for NaN, and
// n/a for check.py's measures of a result without them (Result.Measured).
func TableCSV(rs []*Result) []byte {
	var b bytes.Buffer
	figs := figureColumns(rs)
	b.WriteString("solver,iterations,converged,status,residual,proj_grad,objective,wall_s,time_to_tol_s,ccp_res_chrono,fc_err_siconos,products,error")
	for _, f := range figs {
		b.WriteString("," + f.column())
	}
	b.WriteByte('\n')
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
		chrono, siconos := notApplicable, notApplicable
		if r.Measured {
			chrono, siconos = g(r.Measures.CCPResChrono), g(r.Measures.FCErrSiconos)
		}
		fmt.Fprintf(&b, "%s,%d,%t,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s", r.Solver, r.Stats.Iterations, r.Status == engine.StatusConverged, r.Status,
			g(r.Stats.Residual), g(r.Stats.ProjGrad), g(r.Stats.Objective), g(r.Wall), g(r.TimeToTol()),
			chrono, siconos, productsText(r.Stats), errText)
		for _, f := range figs {
			b.WriteString("," + g(figureValue(r, f)))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TableMD renders Compare's results on p with opt as gpusim compare's
// table.md: a line on the problem and the options, then a Markdown table
// of the same columns as TableCSV's, numbers to 3 digits (the objective
// to 10, figures of merit to 6).
func TableMD(p *Problem, opt Options, rs []*Result) []byte {
	so := opt.SolveOptions(p.NC)
	head := fmt.Sprintf("Problem %s: %d contacts, %d entries of N. From γ₀ = 0, tol %g on the residual of eq. 25 (g_d = %g), max-iter %d.\n",
		p.Name, p.NC, len(p.Entries), so.Tol, so.Gd, so.MaxIter)
	return tableMD(head, rs)
}

// tableMD renders the results under head (lines ending in a newline).
func tableMD(head string, rs []*Result) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	b.WriteByte('\n')
	figs := figureColumns(rs)
	b.WriteString("| solver | status | iterations | residual | proj_grad | objective | wall (s) | time to tol (s) | ccp_res_chrono | fc_err_siconos |")
	for _, f := range figs {
		name := strings.ReplaceAll(f.Name, "_", " ")
		if f.Unit != "" {
			name += " (" + f.Unit + ")"
		}
		b.WriteString(" " + name + " |")
	}
	b.WriteString("\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	b.WriteString(strings.Repeat("---:|", len(figs)))
	b.WriteByte('\n')
	g := func(v float64) string {
		if math.IsNaN(v) {
			return "—"
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	for _, r := range rs {
		if r.Err != nil {
			fmt.Fprintf(&b, "| %s | %s | %d | failed: %s | | | %s | — | | |", r.Solver, r.Status, r.Stats.Iterations, strings.ReplaceAll(r.Err.Error(), "|", "\\|"), g(r.Wall))
		} else {
			chrono, siconos := notApplicable, notApplicable
			if r.Measured {
				chrono, siconos = g(r.Measures.CCPResChrono), g(r.Measures.FCErrSiconos)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |", r.Solver, r.Status, r.Stats.Iterations, g(r.Stats.Residual), g(r.Stats.ProjGrad),
				strconv.FormatFloat(r.Stats.Objective, 'g', 10, 64), g(r.Wall), g(r.TimeToTol()), chrono, siconos)
		}
		for _, f := range figs {
			v := figureValue(r, f)
			if math.IsNaN(v) || r.Err != nil {
				b.WriteString(" — |")
				continue
			}
			b.WriteString(" " + strconv.FormatFloat(v, 'g', 6, 64) + " |")
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// WriteCompare writes the tables of gpusim compare for Compare's results
// on p with opt into the folder dir (made if missing): history-SOLVER.csv
// for each result (HistoryCSV with times), table.md (TableMD) and
// table.csv (TableCSV). The plots are viz.PlotResiduals'.
func WriteCompare(dir string, p *Problem, opt Options, rs []*Result) error {
	return writeCompare(dir, TableMD(p, opt, rs), rs)
}

// writeCompare writes the histories, md as table.md and table.csv.
func writeCompare(dir string, md []byte, rs []*Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, r := range rs {
		if err := atomicfile.WriteBytes(filepath.Join(dir, "history-"+r.Solver+".csv"), HistoryCSV(r.Stats.History, r.Wall)); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "table.md"), md); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "table.csv"), TableCSV(rs))
}

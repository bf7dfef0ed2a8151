package fclib

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/internal/atomicfile"
)

// A collection is a folder of problem folders (../shared/fclib is one):
// gpusim compare over it runs every solver on every problem and tabulates
// how fast each reaches each target accuracy.

// CollectionOptions control CompareCollection.
type CollectionOptions struct {
	// Options apply to every solve; Tol is replaced per problem by half
	// the smallest target (see Targets), MaxIter by MaxIterOf where it
	// names the solver.
	Options
	// Targets are accuracies on proj_grad, ‖γ − Π(γ − g_d(Nγ + r))‖/g_d
	// (check.py's ccp_res_chrono at the default g_d), ascending: the
	// table gives the iterations and time each solver needed to reach
	// each. Every solve stops at half the smallest, a margin for the
	// difference between the solver's own residual and check.py's measure
	// of the returned γ (recomputed independently, with a correctly
	// rounded hypot).
	Targets []float64
	// MaxIterOf overrides MaxIter for the solvers it names.
	MaxIterOf map[string]int
	// Progress, when set, is told of each solve before it starts.
	Progress func(problem string, nc int, solver string)
}

// CollectionEntry is one problem of a collection and its solvers' results.
type CollectionEntry struct {
	// Folder is the problem folder's base name: its results' sub-folder.
	Folder  string
	Name    string
	NC      int
	Results []*Result
}

// CollectionProblems lists the problem folders of dir (sub-folders holding
// a W.mtx), sorted by name; an error if there are none.
func CollectionProblems(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("fclib: %w", err)
	}
	var dirs []string
	for _, e := range ents {
		sub := filepath.Join(dir, e.Name())
		if st, err := os.Stat(filepath.Join(sub, "W.mtx")); err == nil && !st.IsDir() { // through links too
			dirs = append(dirs, sub)
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("fclib: %s is neither a problem folder (W.mtx, q.txt, mu.txt) nor a folder of them", dir)
	}
	slices.Sort(dirs)
	return dirs, nil
}

// checkTargets reports targets that are empty, not positive and finite, or
// not ascending.
func (o CollectionOptions) checkTargets() error {
	if len(o.Targets) == 0 {
		return fmt.Errorf("fclib: no target accuracy")
	}
	for k, t := range o.Targets {
		if !(t > 0) || math.IsInf(t, 0) {
			return fmt.Errorf("fclib: target %v must be positive and finite", t)
		}
		if k > 0 && !(t < o.Targets[k-1]) {
			return fmt.Errorf("fclib: targets %v must fall from first to last", o.Targets)
		}
	}
	for name, it := range o.MaxIterOf {
		if it < 1 {
			return fmt.Errorf("fclib: iteration cap %d of %s must be ≥ 1", it, name)
		}
	}
	return nil
}

// CompareCollection reads each problem folder of dirs (with ReadWith's
// cap maxFileSize) in turn and runs each solver on it from γ₀ = 0, as
// Compare does, stopping at half the last (smallest) target; a problem is
// dropped from memory before the next is read. The error is for what
// kept a comparison from starting (an unreadable problem, an unknown
// solver, options out of range).
func CompareCollection(dirs []string, solvers []string, opt CollectionOptions, maxFileSize int64) ([]CollectionEntry, error) {
	if err := opt.checkTargets(); err != nil {
		return nil, err
	}
	if _, err := newSolvers(solvers, opt.Options); err != nil {
		return nil, err
	}
	var out []CollectionEntry
	for _, d := range dirs {
		p, err := ReadWith(d, maxFileSize)
		if err != nil {
			return nil, err
		}
		e := CollectionEntry{Folder: filepath.Base(d), Name: p.Name, NC: p.NC}
		for _, s := range solvers {
			o := opt.Options
			o.Tol = 0.5 * opt.Targets[len(opt.Targets)-1] / float64(p.N())
			if it, ok := opt.MaxIterOf[s]; ok {
				o.MaxIter = it
			}
			if opt.Progress != nil {
				opt.Progress(p.Name, p.NC, s)
			}
			rs, err := Compare(p, []string{s}, o)
			if err != nil {
				return nil, err
			}
			e.Results = append(e.Results, rs[0])
		}
		out = append(out, e)
	}
	return out, nil
}

// Reached returns the first iteration at which the solve's proj_grad
// (n times the residual of its history) was at most target, and the wall
// time then (IterTime); if no iterate of the history got there but the
// returned γ did (solvers that return a point other than their last
// iterate, pdip's purification), the last iteration. ok is false if the
// solve failed or never reached it.
func (r *Result) Reached(target float64) (iter int, wall float64, ok bool) {
	if r.Err != nil {
		return 0, math.NaN(), false
	}
	n := float64(len(r.Gamma))
	h := r.Stats.History
	for _, rec := range h {
		if rec.Residual*n <= target {
			return rec.Iter, IterTime(rec.Iter, len(h), r.Wall), true
		}
	}
	if r.Stats.ProjGrad <= target {
		return r.Stats.Iterations, r.Wall, true
	}
	return 0, math.NaN(), false
}

// finalMeasure is the measure the table shows for r's returned γ:
// check.py's fc_err_siconos for apgd-ar, whose problem is the exact
// Coulomb one, ccp_res_chrono for the others; with its name.
func finalMeasure(r *Result) (float64, string) {
	if r.Solver == "apgd-ar" {
		return r.Measures.FCErrSiconos, "fc_err_siconos"
	}
	return r.Measures.CCPResChrono, "ccp_res_chrono"
}

// CollectionMD renders CompareCollection's entries as a Markdown table: a
// row per problem (named by its folder), a column per solver, each cell the iterations to each
// target ("—" if not reached), the wall time to the last, and the final
// measure of the returned γ (finalMeasure) with ✓ when it is at most the
// last target (apgd-ar: fc_err_siconos ≤ 1e-6, shared/fclib's README's
// target for the exact problem).
func CollectionMD(es []CollectionEntry, solvers []string, opt CollectionOptions) []byte {
	var b bytes.Buffer
	ts := make([]string, len(opt.Targets))
	for k, t := range opt.Targets {
		ts[k] = strconv.FormatFloat(t, 'g', -1, 64)
	}
	caps := []string{fmt.Sprintf("%d", opt.MaxIter)}
	for _, s := range solvers {
		if it, ok := opt.MaxIterOf[s]; ok {
			caps = append(caps, fmt.Sprintf("%s %d", s, it))
		}
	}
	fmt.Fprintf(&b, "Each solver from γ₀ = 0 on each problem, stopped at proj_grad ≤ %g (half the last target) or at its cap (%s iterations). "+
		"A cell: iterations to proj_grad ≤ %s (— not reached), the wall time to the last, and the final measure of shared/fclib/check.py "+
		"(ccp_res_chrono; fc_err_siconos for apgd-ar), ✓ when it meets the target (%s; apgd-ar: 1e-6).\n\n",
		0.5*opt.Targets[len(opt.Targets)-1], strings.Join(caps, ", "), strings.Join(ts, " / "), ts[len(ts)-1])
	b.WriteString("| problem | nc |")
	for _, s := range solvers {
		b.WriteString(" " + s + " |")
	}
	b.WriteString("\n|---|---:|" + strings.Repeat("---|", len(solvers)) + "\n")
	for _, e := range es {
		fmt.Fprintf(&b, "| %s | %d |", e.Folder, e.NC)
		for _, r := range e.Results {
			if r.Err != nil {
				fmt.Fprintf(&b, " %s: %s |", r.Status, strings.ReplaceAll(r.Err.Error(), "|", "\\|"))
				continue
			}
			var its []string
			last := math.NaN()
			for _, t := range opt.Targets {
				it, w, ok := r.Reached(t)
				if ok {
					its = append(its, strconv.Itoa(it))
				} else {
					its = append(its, "—")
				}
				last = w
			}
			v, _ := finalMeasure(r)
			bound := opt.Targets[len(opt.Targets)-1]
			if r.Solver == "apgd-ar" {
				bound = 1e-6
			}
			mark := "✗"
			if v <= bound {
				mark = "✓"
			}
			fmt.Fprintf(&b, " %s it, %s, %.1e %s |", strings.Join(its, " / "), msText(last), v, mark)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// msText renders seconds as milliseconds to 3 digits ("—" for NaN).
func msText(s float64) string {
	if math.IsNaN(s) {
		return "—"
	}
	return strconv.FormatFloat(s*1e3, 'g', 3, 64) + " ms"
}

// CollectionCSV renders the entries as one row per problem (its folder)
// and solver:
// problem, nc, solver, status, iterations, wall_s, then iterations_T and
// time_T_s per target T (empty if not reached), ccp_res_chrono,
// fc_err_siconos, products (the products with N of the whole solve,
// engine.SolveStats.Products; empty where the solver does not count
// them), error.
func CollectionCSV(es []CollectionEntry, opt CollectionOptions) []byte {
	var b bytes.Buffer
	b.WriteString("problem,nc,solver,status,iterations,wall_s")
	for _, t := range opt.Targets {
		ts := strconv.FormatFloat(t, 'g', -1, 64)
		b.WriteString(",iterations_" + ts + ",time_" + ts + "_s")
	}
	b.WriteString(",ccp_res_chrono,fc_err_siconos,products,error\n")
	g := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, e := range es {
		for _, r := range e.Results {
			fmt.Fprintf(&b, "%s,%d,%s,%s,%d,%s", e.Folder, e.NC, r.Solver, r.Status, r.Stats.Iterations, g(r.Wall))
			for _, t := range opt.Targets {
				if it, w, ok := r.Reached(t); ok {
					fmt.Fprintf(&b, ",%d,%s", it, g(w))
				} else {
					b.WriteString(",,")
				}
			}
			errText := ""
			if r.Err != nil {
				errText = strconv.Quote(r.Err.Error())
			}
			fmt.Fprintf(&b, ",%s,%s,%s,%s\n", g(r.Measures.CCPResChrono), g(r.Measures.FCErrSiconos), productsText(r.Stats), errText)
		}
	}
	return b.Bytes()
}

// WriteCollection writes collection.md and collection.csv into dir (made
// if missing), and for each problem the folder dir/NAME with its
// histories and tables as WriteCompare writes them (NAME the problem
// folder's base name).
func WriteCollection(dir string, es []CollectionEntry, solvers []string, opt CollectionOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, e := range es {
		var md bytes.Buffer
		fmt.Fprintf(&md, "Problem %s: %d contacts. From γ₀ = 0, each solver stopped at proj_grad ≤ %g.\n",
			e.Name, e.NC, 0.5*opt.Targets[len(opt.Targets)-1])
		if err := writeCompare(filepath.Join(dir, e.Folder), tableMD(md.String(), e.Results), e.Results); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "collection.md"), CollectionMD(es, solvers, opt)); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "collection.csv"), CollectionCSV(es, opt))
}

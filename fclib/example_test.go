package fclib_test

import (
	"fmt"
	"log"
	"math"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/fclib"
)

// twoContacts is a problem of two contacts with N = I plus a coupling of
// 0.25 between their normal rows: the first is pressed (r_n = −1) and
// slides sideways (r_u = 0.8, beyond the cone of μ = 0.5), the second
// separates (r_n = 0.5). Its solution: γ₂ = 0, and γ₁ the projection of
// −r₁ = (1, −0.8, 0) onto the cone, n = (1 + 0.5·0.8)/(1 + 0.5²) = 1.12,
// t = 0.5·n = 0.56 (the objective is then ½‖γ₁‖² + r₁ᵀγ₁ = −0.784).
func twoContacts() *fclib.Problem {
	p := &fclib.Problem{Name: "two-contacts", NC: 2,
		Q:  []float64{-1, 0.8, 0, 0.5, 0, 0},
		Mu: []float64{0.5, 0.5}}
	for i := range 6 {
		p.Entries = append(p.Entries, cpuref.Entry{Row: i, Col: i, Val: 1})
	}
	p.Entries = append(p.Entries, cpuref.Entry{Row: 0, Col: 3, Val: 0.25}, cpuref.Entry{Row: 3, Col: 0, Val: 0.25})
	return p
}

// Solve a problem with one solver and read its status, the impulses and
// check.py's measures. A problem folder is read with fclib.Read (or
// written with fclib.Write, and the outputs of gpusim solve with
// fclib.WriteSolve).
func ExampleSolve() {
	p := twoContacts()
	r, err := fclib.Solve(p, "apgd", fclib.Options{Tol: 1e-10, MaxIter: 1000})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("status:", r.Status)
	fmt.Printf("γ₁ = (%.4f, %.4f, %.4f)\n", r.Gamma[0], r.Gamma[1], r.Gamma[2])
	// γ₂ is zero up to the solve's tolerance (1e-10 on the residual).
	fmt.Println("γ₂ = 0:", math.Abs(r.Gamma[3])+math.Abs(r.Gamma[4])+math.Abs(r.Gamma[5]) < 1e-10)
	fmt.Println("ccp_res_chrono < 1e-8:", r.Measures.CCPResChrono < 1e-8)
	// Output:
	// status: converged
	// γ₁ = (1.1200, -0.5600, 0.0000)
	// γ₂ = 0: true
	// ccp_res_chrono < 1e-8: true
}

// Compare solvers on one problem: a row of gpusim compare's table per
// solver, as Go values (fclib.TableMD and fclib.TableCSV render them,
// fclib.WriteCompare writes the tables and viz.PlotResiduals the plots).
func ExampleCompare() {
	p := twoContacts()
	rs, err := fclib.Compare(p, []string{"apgd", "gs", "jacobi"}, fclib.Options{Tol: 1e-10, MaxIter: 1000})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rs {
		fmt.Printf("%-6s %s, objective %.4f\n", r.Solver, r.Status, r.Stats.Objective)
	}
	// Output:
	// apgd   converged, objective -0.7840
	// gs     converged, objective -0.7840
	// jacobi converged, objective -0.7840
}

package fclib

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// TestEngineProblem: on a contact-only problem EngineProblem.Compare runs
// the same solves as Compare (its g_d = 1/n² is check.py's 1/(3nc)² when
// there are no joint rows), bit for bit, without check.py's measures, with
// its figures of merit; the tables print n/a for the measures and a column
// per figure.
func TestEngineProblem(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nc = 6
	n := 3 * nc
	// N = AᵀA + I (symmetric positive definite), r with negative normals
	// so that contacts are active.
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rng.NormFloat64() / 3
	}
	p := &Problem{Name: "spd", NC: nc, Q: make([]float64, n), Mu: make([]float64, nc)}
	for i := range n {
		for j := range n {
			v := 0.0
			for k := range n {
				v += a[k*n+i] * a[k*n+j]
			}
			if i == j {
				v++
			}
			p.Entries = append(p.Entries, cpuref.Entry{Row: i, Col: j, Val: v})
		}
		p.Q[i] = rng.NormFloat64()
	}
	for i := range nc {
		p.Q[3*i] = -1 - rng.Float64()
		p.Mu[i] = 0.5
	}
	solvers := []string{"apgd", "gs", "pdip"}
	opt := Options{Tol: 1e-9, MaxIter: 10000}
	want, err := Compare(p, solvers, opt)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := p.CCP(1)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(g engine.Vec) ([]Figure, error) {
		x := make([]float64, g.Len())
		mp.Read(x, g)
		s := 0.0
		for _, v := range x {
			s += v
		}
		return []Figure{{Name: "sum", Unit: "N", Value: s}}, nil
	}
	ep := &EngineProblem{Name: "spd", Problem: mp, Figures: sum}
	if ep.Contacts() != nc || ep.JointRows() != 0 {
		t.Fatalf("contacts %d, joint rows %d", ep.Contacts(), ep.JointRows())
	}
	got, err := ep.Compare(solvers, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range got {
		w := want[i]
		if g.Status != engine.StatusConverged || g.Stats.Iterations != w.Stats.Iterations || g.Stats.Residual != w.Stats.Residual ||
			!slices.Equal(g.Gamma, w.Gamma) || g.Options.Gd != w.Options.Gd {
			t.Errorf("%s: %s after %d iterations, residual %g, g_d %g; Compare: %d, %g, %g", g.Solver, g.Status,
				g.Stats.Iterations, g.Stats.Residual, g.Options.Gd, w.Stats.Iterations, w.Stats.Residual, w.Options.Gd)
		}
		s := 0.0
		for _, v := range w.Gamma {
			s += v
		}
		if g.Measured || !w.Measured || len(g.Figures) != 1 || g.Figures[0].Value != s {
			t.Errorf("%s: measured %t (Compare's %t), figures %v, want sum %v", g.Solver, g.Measured, w.Measured, g.Figures, s)
		}
	}
	csv := strings.Split(strings.TrimSpace(string(TableCSV(got))), "\n")
	if !strings.HasSuffix(csv[0], ",error,sum_N") || len(csv) != 4 || !strings.Contains(csv[1], ",n/a,n/a,") {
		t.Errorf("table.csv:\n%s", strings.Join(csv, "\n"))
	}
	md := string(ep.TableMD(opt, got))
	if !strings.Contains(md, "| sum (N) |") || !strings.Contains(md, "| n/a | n/a |") || !strings.Contains(md, "0 joint rows") {
		t.Errorf("table.md:\n%s", md)
	}
	if strings.Contains(string(TableCSV(want)), "n/a") {
		t.Errorf("Compare's table.csv has n/a:\n%s", TableCSV(want))
	}
}

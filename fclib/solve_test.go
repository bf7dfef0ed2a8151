package fclib

import (
	"math"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// Solve refuses what keeps it from starting with an error, and reports
// how a solve went in the Result.
func TestSolveStatus(t *testing.T) {
	one := func(rn float64) *Problem {
		return &Problem{Name: "one", NC: 1, Q: []float64{rn, 0, 0}, Mu: []float64{0.5}}
	}
	for _, c := range []struct {
		name   string
		solver string
		opt    Options
		err    string
	}{
		{"unknown solver", "newton", Options{MaxIter: 10}, "newton"},
		{"negative tol", "apgd", Options{Tol: -1, MaxIter: 10}, "fclib: tolerance -1"},
		{"no iterations", "apgd", Options{MaxIter: 0}, "fclib: iteration cap 0"},
		{"NaN g_d", "apgd", Options{MaxIter: 10, Gd: math.NaN()}, "fclib: g_d NaN"},
		{"negative workers", "apgd", Options{MaxIter: 10, Workers: -1}, "fclib: workers -1"},
	} {
		if _, err := Solve(one(-1), c.solver, c.opt); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
		}
	}
	if _, err := Solve(&Problem{Name: "empty"}, "apgd", Options{MaxIter: 10}); err == nil {
		t.Error("a problem without contacts: no error")
	}

	// N = 0 and r_n = −1: the objective −γ_n has no minimum on the cone.
	r, err := Solve(one(-1), "apgd", Options{Tol: 1e-8, MaxIter: 100})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != engine.StatusUnbounded || r.Certificate == nil || !strings.Contains(r.UnboundedText(), "unbounded") {
		t.Errorf("N = 0, r_n = -1: status %s, certificate %v", r.Status, r.Certificate)
	}
	if !math.IsNaN(r.TimeToTol()) {
		t.Errorf("unbounded: time to tol %v, want NaN", r.TimeToTol())
	}
	// N = 0: Gauss–Seidel's blocks g_i = 0 make it fail.
	r, err = Solve(one(1), "gs", Options{Tol: 1e-8, MaxIter: 100})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != engine.StatusFailed || r.Err == nil || r.StatusText() != "FAILED" {
		t.Errorf("gs on N = 0: status %s, error %v", r.Status, r.Err)
	}
	// N = I, r_n = +1: γ = 0 is the solution.
	p := one(1)
	for i := range 3 {
		p.Entries = append(p.Entries, cpuref.Entry{Row: i, Col: i, Val: 1})
	}
	r, err = Solve(p, "gs", Options{Tol: 1e-8, MaxIter: 100})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != engine.StatusConverged || r.StatusText() != "converged" || r.TimeToTol() != r.Wall || r.Options.Gd != DefaultGd(1) {
		t.Errorf("N = I, r_n = 1: status %s, time to tol %v of %v, g_d %v", r.Status, r.TimeToTol(), r.Wall, r.Options.Gd)
	}
	if sum := r.Summary(p, "p"); !sum.Converged || sum.Path != "p" || sum.Contacts != 1 || sum.Error != "" {
		t.Errorf("summary %+v", sum)
	}
}

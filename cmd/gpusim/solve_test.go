package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/internal/testfile"
)

// tinyProblem writes a problem of nc contacts with N = AAᵀ + 0.1 I (A
// random, 3nc × 3nc) into a new folder and returns it.
func tinyProblem(t *testing.T, nc int) (string, *fclib.Problem) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(nc), 17))
	n := 3 * nc
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
		}
	}
	p := &fclib.Problem{Name: "tiny", NC: nc, Q: make([]float64, n), Mu: make([]float64, nc)}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := 0.0
			for k := 0; k < n; k++ {
				v += a[i][k] * a[j][k]
			}
			if i == j {
				v += 0.1
			}
			p.Entries = append(p.Entries, cpuref.Entry{Row: i, Col: j, Val: v})
		}
		p.Q[i] = rng.NormFloat64()
	}
	for i := range p.Mu {
		p.Mu[i] = 0.2 + 0.5*rng.Float64()
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := fclib.Write(dir, p); err != nil {
		t.Fatal(err)
	}
	return dir, p
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestSolveTinyProblem(t *testing.T) {
	dir, p := tinyProblem(t, 4)
	out := t.TempDir()
	const tol = 1e-12
	stdout := runOK(t, "solve", dir, "--tol", "1e-12", "--out", out)
	if !strings.Contains(stdout, "converged") || !strings.Contains(stdout, "ccp_res_chrono") {
		t.Errorf("summary:\n%s", stdout)
	}
	if lines := readLines(t, filepath.Join(out, "gamma.txt")); len(lines) != 3*p.NC {
		t.Errorf("gamma.txt has %d lines, want %d", len(lines), 3*p.NC)
	}
	g, err := fclib.ReadVector(filepath.Join(out, "gamma.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sum := readSummary(t, out)
	if !sum.Converged || !(sum.Residual < tol) || sum.Solver != "apgd" || sum.Contacts != p.NC {
		t.Errorf("summary.json: %+v", sum)
	}
	// The measures of summary.json are those of the written γ; with the
	// default g_d, proj_grad is check.py's ccp_res_chrono of the same γ:
	// the same sums up to the rounding of γ − g_d u, a few ulps of γ
	// divided by g_d (64ε(‖γ‖/g_d + ‖u‖), as in package fclib's tests).
	rep := fclib.Measures(p, g)
	if rep != sum.Measures {
		t.Errorf("summary.json measures %+v, want %+v", sum.Measures, rep)
	}
	if d := math.Abs(rep.CCPResChrono - sum.ProjGrad); d > 64*0x1p-52*(rep.NormGamma/rep.Gd+rep.NormU) {
		t.Errorf("proj_grad %g, ccp_res_chrono %g", sum.ProjGrad, rep.CCPResChrono)
	}
	hist := testfile.CSV(t, filepath.Join(out, "history.csv"))
	if strings.Join(hist[0], ",") != "iteration,residual,objective,step,restart" || len(hist)-1 != sum.Iterations {
		t.Errorf("history.csv: header %v, %d rows for %d iterations", hist[0], len(hist)-1, sum.Iterations)
	}
}

func TestSolveDefaultOutput(t *testing.T) {
	dir, _ := tinyProblem(t, 2)
	t.Chdir(t.TempDir())
	if code, _, stderr := runCLI(t, "solve", "--solver", "apgd-ar", dir); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join("out", "solve-tiny-apgd-ar", "gamma.txt")); err != nil {
		t.Error(err)
	}
}

// TestSolveBadInput: bad problem folders and flags exit with code 2 and
// name the file or flag.
func TestSolveBadInput(t *testing.T) {
	dir, _ := tinyProblem(t, 2)
	broken := func(file, body string) string {
		d := filepath.Join(t.TempDir(), "p")
		if err := os.CopyFS(d, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	noMu := broken("mu.txt", "")
	os.Remove(filepath.Join(noMu, "mu.txt"))
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"solve"}, []string{"one problem folder"}},
		{[]string{"solve", dir, dir}, []string{"one problem folder"}},
		{[]string{"solve", filepath.Join(dir, "nope")}, []string{"nope"}},
		{[]string{"solve", broken("W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n9 1 1\n")}, []string{"W.mtx:3", "out of range"}},
		{[]string{"solve", broken("W.mtx", "%%MatrixMarket matrix array real general\n6 6\n")}, []string{"W.mtx:1", "array"}},
		{[]string{"solve", broken("q.txt", "1\n2\n")}, []string{"q.txt", "2 values"}},
		{[]string{"solve", broken("mu.txt", "0.1\n-1\n")}, []string{"mu.txt:2", "negative"}},
		{[]string{"solve", noMu}, []string{"mu.txt"}},
		{[]string{"solve", dir, "--solver", "nope"}, []string{"unknown solver"}},
		{[]string{"solve", dir, "--tol", "-1"}, []string{"--tol"}},
		{[]string{"solve", dir, "--max-iter", "0"}, []string{"--max-iter"}},
		{[]string{"solve", dir, "--gd", "-1"}, []string{"--gd"}},
		{[]string{"solve", dir, "--bogus"}, []string{"bogus"}},
	}
	for _, c := range cases {
		args := append(append([]string{}, c.args...), "--out", t.TempDir())
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, exitUsage, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, w)
			}
		}
	}
}

// oneContactProblem writes the one-contact problem N = I (eye) or N = 0
// (no entries), r = (rn, 0, 0), μ = 0.5 into a new folder.
func oneContactProblem(t *testing.T, eye bool, rn float64) string {
	t.Helper()
	p := &fclib.Problem{Name: "one", NC: 1, Q: []float64{rn, 0, 0}, Mu: []float64{0.5}}
	if eye {
		p.Entries = []cpuref.Entry{{Row: 0, Col: 0, Val: 1}, {Row: 1, Col: 1, Val: 1}, {Row: 2, Col: 2, Val: 1}}
	}
	dir := filepath.Join(t.TempDir(), "one")
	if err := fclib.Write(dir, p); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readSummary reads a solve's summary.json.
func readSummary(t *testing.T, out string) fclib.Summary {
	t.Helper()
	var sum fclib.Summary
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestSolveUnbounded: N = 0, r = (−1, 0, 0), μ = 0.5 has no minimum (the
// objective −γ_n falls without bound along γ = (s, 0, 0)). APGD, APGD-AR
// and PDIP used to print "converged" with γ_n ≈ 1e15 and exit 0;
// Gauss–Seidel, Jacobi and SPG failed on the zero block without saying
// why. Every solver must now print UNBOUNDED, write status unbounded with
// its certificate, and exit 1; with N stored as explicit zeros too.
func TestSolveUnbounded(t *testing.T) {
	zeros := filepath.Join(t.TempDir(), "zeros")
	if err := fclib.Write(zeros, &fclib.Problem{Name: "zeros", NC: 1, Q: []float64{-1, 0, 0}, Mu: []float64{0.5},
		Entries: []cpuref.Entry{{Row: 0, Col: 0}, {Row: 1, Col: 1}, {Row: 2, Col: 2}}}); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{oneContactProblem(t, false, -1), zeros} {
		for _, solver := range []string{"apgd", "apgd-ar", "gs", "jacobi", "spg", "pdip"} {
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, "solve", dir, "--solver", solver, "--out", out)
			if code != exitFailure || strings.Contains(stdout, " converged") || !strings.Contains(stdout, "UNBOUNDED") ||
				!strings.Contains(stderr, "the problem is unbounded") {
				t.Errorf("%s on %s: exit %d, want %d, UNBOUNDED and no \"converged\"; stdout:\n%s\nstderr:\n%s", solver, filepath.Base(dir), code, exitFailure, stdout, stderr)
			}
			sum := readSummary(t, out)
			if sum.Status != "unbounded" || sum.Converged || sum.Certificate == nil || !(sum.Certificate.Slope < 0) {
				t.Errorf("%s on %s: summary.json status %q, converged %v, certificate %+v", solver, filepath.Base(dir), sum.Status, sum.Converged, sum.Certificate)
			}
		}
	}
}

// TestSolveBoundedConverges: the same pattern with a minimum still
// converges and exits 0 for every solver: N = I with r = (−1, 0, 0)
// (γ = (1, 0, 0)); and N = 0 with r = (1, 0, 0) (γ = 0) for the solvers
// that accept a zero block diagonal.
func TestSolveBoundedConverges(t *testing.T) {
	cases := []struct {
		dir     string
		solvers []string
	}{
		{oneContactProblem(t, true, -1), []string{"apgd", "apgd-ar", "gs", "jacobi", "spg", "pdip"}},
		{oneContactProblem(t, false, 1), []string{"apgd", "apgd-ar", "pdip"}},
	}
	for _, c := range cases {
		for _, solver := range c.solvers {
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, "solve", c.dir, "--solver", solver, "--out", out)
			if code != exitOK || !strings.Contains(stdout, "result      converged") {
				t.Errorf("%s: exit %d; stdout:\n%s\nstderr:\n%s", solver, code, stdout, stderr)
			}
			if sum := readSummary(t, out); sum.Status != "converged" || !sum.Converged || sum.Certificate != nil {
				t.Errorf("%s: summary.json status %q, converged %v, certificate %+v", solver, sum.Status, sum.Converged, sum.Certificate)
			}
		}
	}
}

// TestSolveLongSeparating: APGD and APGD-AR on a separating contact (N = I,
// r = (1, 0, 0)) with --tol 0 --max-iter 7000 run all 7000 iterations and
// keep γ = 0, status not_converged (tol 0 never converges), exit 0. They
// used to fail with "objective is NaN at iteration 6737": L shrank by 0.9
// per iteration until 1/L overflowed.
func TestSolveLongSeparating(t *testing.T) {
	dir := oneContactProblem(t, true, 1)
	for _, solver := range []string{"apgd", "apgd-ar"} {
		out := t.TempDir()
		runOK(t, "solve", dir, "--solver", solver, "--tol", "0", "--max-iter", "7000", "--out", out)
		sum := readSummary(t, out)
		if sum.Status != "not_converged" || sum.Iterations != 7000 || sum.Residual != 0 || sum.Measures.NormGamma != 0 {
			t.Errorf("%s: summary.json status %q, %d iterations, residual %g, ‖γ‖ %g; want not_converged, 7000, 0, 0",
				solver, sum.Status, sum.Iterations, sum.Residual, sum.Measures.NormGamma)
		}
	}
}

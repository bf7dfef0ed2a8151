package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/internal/testfile"
)

// checkPlot decodes a PNG and checks its size and that it holds a drawing:
// enough pixels that are not white, in several colours.
func checkPlot(t *testing.T, path string) {
	t.Helper()
	img := testfile.PNG(t, path)
	b := img.Bounds()
	if b.Dx() != 768 || b.Dy() != 480 {
		t.Errorf("%s is %d × %d, want 768 × 480 (8 × 5 in at 96 dpi)", path, b.Dx(), b.Dy())
	}
	ink := 0
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
			colours[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	// Axes, labels and two curves cover well over 1% of the pixels, in
	// black, grey and the lines' colours (counted at 4 bits a channel).
	if ink < b.Dx()*b.Dy()/100 || len(colours) < 4 {
		t.Errorf("%s looks blank: %d pixels of ink, %d colours", path, ink, len(colours))
	}
}

func TestCompareProblem(t *testing.T) {
	dir, _ := tinyProblem(t, 5)
	out := t.TempDir()
	stdout := runOK(t, "compare", dir, "--solvers", "apgd,apgd-ar", "--tol", "1e-9", "--out", out)
	if !strings.Contains(stdout, "| apgd |") {
		t.Errorf("stdout does not show the table:\n%s", stdout)
	}
	table := testfile.CSV(t, filepath.Join(out, "table.csv"))
	want := "solver,iterations,converged,status,residual,proj_grad,objective,wall_s,time_to_tol_s,ccp_res_chrono,fc_err_siconos,error"
	if strings.Join(table[0], ",") != want || len(table) != 3 || table[1][0] != "apgd" || table[2][0] != "apgd-ar" {
		t.Fatalf("table.csv: %v", table)
	}
	for _, row := range table[1:] {
		if row[2] != "true" || row[3] != "converged" || row[8] == "" {
			t.Errorf("table.csv row %v: not converged or no time to tol", row)
		}
	}
	md := readLines(t, filepath.Join(out, "table.md"))
	if len(md) != 6 || !strings.HasPrefix(md[4], "| apgd | converged |") {
		t.Errorf("table.md:\n%s", strings.Join(md, "\n"))
	}
	for _, s := range []string{"apgd", "apgd-ar"} {
		h := testfile.CSV(t, filepath.Join(out, "history-"+s+".csv"))
		if strings.Join(h[0], ",") != "iteration,residual,objective,step,restart,time_s" || len(h) < 2 {
			t.Errorf("history-%s.csv: header %v, %d rows", s, h[0], len(h)-1)
		}
	}
	checkPlot(t, filepath.Join(out, "residual-iterations.png"))
	checkPlot(t, filepath.Join(out, "residual-time.png"))
}

// TestCompareScene runs a small scene to a step and compares two solvers
// on its problem, which is kept as a problem folder.
func TestCompareScene(t *testing.T) {
	out := t.TempDir()
	runOK(t, "compare", "pressure", "--set", "n=30", "--step", "3", "--solvers", "apgd,apgd-ar", "--tol", "1e-8", "--out", out)
	p, err := fclib.Read(filepath.Join(out, "problem"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "pressure-step3" || p.NC == 0 {
		t.Errorf("problem %q with %d contacts", p.Name, p.NC)
	}
	if table := testfile.CSV(t, filepath.Join(out, "table.csv")); len(table) != 3 {
		t.Errorf("table.csv has %d rows, want 2", len(table)-1)
	}
	if stats := testfile.CSV(t, filepath.Join(out, "run", "stats.csv")); len(stats) != 4 {
		t.Errorf("run/stats.csv has %d rows, want 3 steps", len(stats)-1)
	}
	checkPlot(t, filepath.Join(out, "residual-iterations.png"))
}

func TestCompareBadInput(t *testing.T) {
	dir, _ := tinyProblem(t, 2)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "one problem folder or scene"},
		{[]string{"compare", dir, "--solvers", "apgd,nope"}, "unknown solver"},
		{[]string{"compare", dir, "--solvers", "apgd,apgd"}, "twice"},
		{[]string{"compare", dir, "--solvers", ","}, "names no solver"},
		{[]string{"compare", dir, "--step", "3"}, "problem folder"},
		{[]string{"compare", dir, "--set", "n=3"}, "problem folder"},
		{[]string{"compare", dir, "--tol", "-1"}, "--tol"},
		{[]string{"compare", "no-such-scene"}, "no-such-scene"},
		{[]string{"compare", "rolling-ball", "--step", "0"}, "--step 0"},
		{[]string{"compare", "rolling-ball", "--step", "1000000"}, "--step 1000000"},
	}
	for _, c := range cases {
		args := append(append([]string{}, c.args...), "--out", t.TempDir())
		wantUsage(t, c.args, args, c.want)
	}
}

// TestCompareUnbounded: on the unbounded problem N = 0, r = (−1, 0, 0)
// every solver's row says unbounded (not converged, no time to tol), and
// compare exits with status 1 naming them; on N = I the same pattern
// converges for all and exits 0.
func TestCompareUnbounded(t *testing.T) {
	all := "apgd,apgd-ar,gs,jacobi,spg,pdip"
	out := t.TempDir()
	code, _, stderr := runCLI(t, "compare", oneContactProblem(t, false, -1), "--solvers", all, "--out", out)
	if code != exitFailure || !strings.Contains(stderr, "found the problem unbounded") {
		t.Errorf("exit %d, stderr %q; want %d and the unbounded solvers named", code, stderr, exitFailure)
	}
	table := testfile.CSV(t, filepath.Join(out, "table.csv"))
	if len(table) != 7 {
		t.Fatalf("table.csv: %v", table)
	}
	for _, row := range table[1:] {
		if row[2] != "false" || row[3] != "unbounded" || row[8] != "" {
			t.Errorf("table.csv row %v: want not converged, status unbounded, no time to tol", row)
		}
	}
	out = t.TempDir()
	if code, _, stderr := runCLI(t, "compare", oneContactProblem(t, true, -1), "--solvers", all, "--out", out); code != exitOK {
		t.Fatalf("N = I: exit %d: %s", code, stderr)
	}
	for _, row := range testfile.CSV(t, filepath.Join(out, "table.csv"))[1:] {
		if row[2] != "true" || row[3] != "converged" {
			t.Errorf("N = I: table.csv row %v: want converged", row)
		}
	}
}

package fclib

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

var update = flag.Bool("update", false, "regenerate testdata/gamma and testdata/golden (needs /usr/bin/python3 with numpy and scipy, and ../../shared/fclib/check.py)")

// checkPy is the reference checker, relative to this package.
var checkPy = filepath.Join("..", "..", "shared", "fclib", "check.py")

// Three FCLib problems copied into testdata/problems (see its README).
var goldenProblems = []string{"NESpheres_10_1", "OneObject-i1028-138", "Rover1039"}

// The candidates: γ = 0, a seeded random γ (mostly outside the cones, so
// that every branch of the projection is taken) and an APGD solution.
var goldenGammas = []string{"zero", "random", "apgd"}

// makeGamma returns the candidate γ of the given kind for p.
func makeGamma(t *testing.T, p *Problem, kind string) []float64 {
	t.Helper()
	g := make([]float64, p.N())
	switch kind {
	case "random":
		rng := rand.New(rand.NewPCG(uint64(p.NC), 42))
		for i := range g {
			g[i] = rng.NormFloat64()
		}
	case "apgd":
		mp, err := p.CCP(1)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := engine.NewSolver("apgd")
		x := mp.NewVec(p.N())
		if _, err := s.Solve(mp, x, engine.SolveOptions{Tol: 1e-14, MaxIter: 20000, Gd: DefaultGd(p.NC)}); err != nil {
			t.Fatal(err)
		}
		mp.Read(g, x)
	}
	return g
}

// updateGolden writes the γ files and runs check.py on each.
func updateGolden(t *testing.T) {
	for _, name := range goldenProblems {
		dir := filepath.Join("testdata", "problems", name)
		p, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range goldenGammas {
			args := []string{checkPy, dir}
			if kind == "zero" {
				args = append(args, "--zero")
			} else {
				gp := filepath.Join("testdata", "gamma", name+"-"+kind+".txt")
				if err := os.MkdirAll(filepath.Dir(gp), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := WriteVector(gp, makeGamma(t, p, kind)); err != nil {
					t.Fatal(err)
				}
				args = append(args, gp)
			}
			args = append(args, "--json")
			// check.py's usage line names /usr/bin/python3: Debian's
			// python3-numpy and python3-scipy are installed for it.
			out, err := exec.Command("/usr/bin/python3", args...).Output()
			if err != nil {
				t.Fatalf("/usr/bin/python3 %s: %v", strings.Join(args, " "), err)
			}
			var buf bytes.Buffer
			buf.WriteString("# (cd fclib && /usr/bin/python3 " + strings.Join(args, " ") + ")\n")
			buf.Write(out)
			gold := filepath.Join("testdata", "golden", name+"-"+kind+".json")
			if err := os.MkdirAll(filepath.Dir(gold), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(gold, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// readGolden reads check.py's JSON output after the comment lines.
func readGolden(t *testing.T, path string) map[string]float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			body = append(body, l)
		}
	}
	var m map[string]float64
	if err := json.Unmarshal([]byte(strings.Join(body, "\n")), &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// TestMeasuresAgainstCheckPy compares Measures with the numbers check.py
// printed for the same problems and γ (testdata/golden; regenerate with
// go test ./fclib -run TestMeasuresAgainstCheckPy -update).
func TestMeasuresAgainstCheckPy(t *testing.T) {
	if *update {
		updateGolden(t)
	}
	for _, name := range goldenProblems {
		p, err := Read(filepath.Join("testdata", "problems", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range goldenGammas {
			want := readGolden(t, filepath.Join("testdata", "golden", name+"-"+kind+".json"))
			g := make([]float64, p.N())
			if kind != "zero" {
				if g, err = ReadVector(filepath.Join("testdata", "gamma", name+"-"+kind+".txt")); err != nil {
					t.Fatal(err)
				}
			}
			rep := Measures(p, g)
			var got map[string]float64
			data, _ := json.Marshal(rep)
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			tol := measureTolerances(rep)
			for k, w := range want {
				v, ok := got[k]
				if !ok {
					t.Errorf("%s/%s: Report has no %q", name, kind, k)
					continue
				}
				if d := math.Abs(v - w); d > tol[k] {
					t.Errorf("%s/%s: %s = %.17g, check.py %.17g (difference %.3g > %.3g)", name, kind, k, v, w, d, tol[k])
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s/%s: check.py does not print %q", name, kind, k)
				}
			}
		}
	}
}

// measureTolerances bounds |Go − check.py| for each measure. The two
// compute the same sums in the same order, with correctly rounded
// tangential norms on both sides (our hypot, numpy's from glibc), except for the norms
// (numpy's dot may add in another order), so the measures agree to a few
// ulps of the numbers they are made of: ε·(the terms) before cancellation.
// A residual is a difference of nearly equal numbers near a solution, so
// its bound is ε times the size of those numbers (‖γ‖ and g_d‖u‖, divided
// by g_d), not times the residual itself. The factor 64 covers the sums of
// 3nc ≤ 69 terms here; measured, the largest difference is 1.6% of its
// bound (ccp_res_chrono of NESpheres_10_1 at the random γ).
func measureTolerances(r Report) map[string]float64 {
	const eps = 64 * 0x1p-52
	scale := max(r.NormQ, r.NormGamma, r.NormU)
	rel := func(x float64) float64 {
		if scale > 0x1p-52 {
			return x / scale
		}
		return x
	}
	ab := r.NormGamma + r.NormU // size of γ − (γ − u) and of γ − Π(γ − ũ)
	tol := map[string]float64{
		"objective":           eps * (0.5*r.NormGamma*r.NormU + r.NormQ*r.NormGamma + math.Abs(r.Objective)),
		"gd":                  0,
		"ccp_res_chrono":      eps * (r.NormGamma/r.Gd + r.NormU),
		"ccp_res_natmap":      eps * ab,
		"ccp_res_rel":         eps * rel(ab),
		"fc_err_abs":          eps * 2 * ab,
		"fc_err_siconos":      eps * 2 * rel(ab),
		"fc_err_siconos_old":  eps * 2 * ab / (r.NormQ + 1),
		"fc_err_fclib":        eps * 2 * ab / (1 + math.Sqrt(r.NormQ)),
		"max_cone_violation":  eps * r.NormGamma,
		"max_dual_violation":  eps * r.NormU,
		"complementarity_gTu": eps * r.NormGamma * r.NormU,
		"norm_q":              eps * r.NormQ,
		"norm_gamma":          eps * r.NormGamma,
		"norm_u":              eps * r.NormU,
		"number_of_contacts":  0,
	}
	return tol
}

// TestMeasuresCohesion: with cohesion the measures use the shifted cone: a
// γ that pulls (γ_n < 0) within the cohesion and has u = 0 is a solution.
func TestMeasuresCohesion(t *testing.T) {
	p := &Problem{Name: "pull", NC: 1, Entries: []cpuref.Entry{{Row: 0, Col: 0, Val: 1}, {Row: 1, Col: 1, Val: 1}, {Row: 2, Col: 2, Val: 1}},
		Q: []float64{0.5, -0.1, 0}, Mu: []float64{0.5}, Cohesion: []float64{1}}
	// u = γ + r = 0 at γ = (−0.5, 0.1, 0), inside ‖γ_T‖ ≤ μ(γ_n + c) = 0.25.
	rep := Measures(p, []float64{-0.5, 0.1, 0})
	if rep.CCPResChrono > 1e-15 || rep.MaxConeViolation > 0 || rep.ComplementarityGTu != 0 || rep.FCErrAbs > 1e-15 {
		t.Errorf("%+v", rep)
	}
	p.Cohesion = nil
	if rep := Measures(p, []float64{-0.5, 0.1, 0}); rep.MaxConeViolation != 0.1+0.25 {
		t.Errorf("without cohesion: cone violation %v, want 0.35", rep.MaxConeViolation)
	}
}

// TestProjectConeMatchesCpuref: the measures' projection is the solvers'
// up to the rounding of the tangential norm.
func TestProjectConeMatchesCpuref(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 10000; i++ {
		x := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		mu, c := rng.Float64(), 0.0
		if i%4 == 0 {
			mu = 0
		}
		if i%3 == 0 {
			c = rng.Float64()
		}
		a0, a1, a2 := projectCone(x[0], x[1], x[2], mu, c)
		b0, b1, b2 := cpuref.ProjectCone(x[0], x[1], x[2], mu, c)
		// Both are a few flops from x of size O(1): 1e-14.
		if math.Abs(a0-b0)+math.Abs(a1-b1)+math.Abs(a2-b2) > 1e-14 {
			t.Fatalf("Π(%v; μ %v, c %v): %v %v %v, cpuref %v %v %v", x, mu, c, a0, a1, a2, b0, b1, b2)
		}
	}
}

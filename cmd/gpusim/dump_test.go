package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/scene"
)

// TestRunDumpProblem: gpusim run --dump-problem writes a folder that
// fclib.Read accepts and whose N, r and μ are those of the simulation's own
// problem at that step (the same scene stepped here on the CPU backend,
// which is deterministic).
func TestRunDumpProblem(t *testing.T) {
	const step = 4
	dir := filepath.Join(t.TempDir(), "dump")
	code, _, stderr := runCLI(t, "run", "pressure", "--set", "n=30", "--steps", "5", "--backend", "cpu", "--quiet",
		"--dump-problem", "4", dir, "--out", t.TempDir())
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	p, err := fclib.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := p.CCP(1)
	if err != nil {
		t.Fatal(err)
	}

	sc, err := scene.Load("pressure", []string{"n=30"})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := engine.NewSim(&sc.Model, sc.Settings, cpuref.New(1))
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < step; k++ {
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
	}
	sp := sim.Problem()
	if sp.Contacts() != p.NC || p.NC < 10 {
		t.Fatalf("dump has %d contacts, the simulation %d (want a problem with ≥ 10)", p.NC, sp.Contacts())
	}
	n := 3 * p.NC
	rng := rand.New(rand.NewPCG(4, 4))
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	xs, ys := sp.NewVec(n), sp.NewVec(n)
	sp.Write(xs, x)
	sp.Schur(ys, xs)
	want := make([]float64, n)
	sp.Read(want, ys)
	xm, ym := mp.NewVec(n), mp.NewVec(n)
	mp.Write(xm, x)
	mp.Schur(ym, xm)
	got := make([]float64, n)
	mp.Read(got, ym)
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range got {
		// Sums of the same products in another order (assembled N against
		// the matrix-free DᵀM⁻¹D): 1e-12 of the largest element.
		if math.Abs(got[i]-want[i]) > 1e-12*scale {
			t.Fatalf("row %d: dumped N x = %v, simulation %v", i, got[i], want[i])
		}
	}
	r := make([]float64, n)
	sp.Read(r, sp.R())
	for i := range r {
		if r[i] != p.Q[i] {
			t.Fatalf("r[%d] = %v in the dump, %v in the simulation", i, p.Q[i], r[i])
		}
	}
	mu, coh := make([]float64, p.NC), make([]float64, p.NC)
	sp.Cones(mu, coh)
	for i := range mu {
		if mu[i] != p.Mu[i] {
			t.Fatalf("mu[%d] = %v in the dump, %v in the simulation", i, p.Mu[i], mu[i])
		}
	}
	if p.Cohesion != nil {
		t.Errorf("the pressure scene has no cohesion, the dump has %v", p.Cohesion)
	}
}

func TestRunDumpProblemBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--dump-problem"}, "two values"},
		{[]string{"--dump-problem", "3"}, "two values"},
		{[]string{"--dump-problem=3", dir}, "two values"},
		{[]string{"--dump-problem", "x", dir}, `step "x"`},
		{[]string{"--dump-problem", "0", dir}, `step "0"`},
		{[]string{"--dump-problem", "3", "--steps"}, "not a folder"},
		{[]string{"--dump-problem", "3", dir, "-dump-problem", "4", dir}, "twice"},
		{[]string{"--dump-problem", "30", dir}, "past the run's last step 20"},
		{[]string{"--dump-problem", "3", dir, "--backend", "vulkan"}, "CPU backend"},
	}
	for _, c := range cases {
		args := append([]string{"run", "rolling-ball", "--steps", "20", "--out", t.TempDir()}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", c.args, code, exitUsage, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr %q does not mention %q", c.args, stderr, c.want)
		}
	}
}

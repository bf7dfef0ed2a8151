package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/bench"
)

func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--backends", "gpu"}, `unknown backend "gpu"`},
		{[]string{"--backends", "cpu,cpu"}, "given twice"},
		{[]string{"--cases", "settle-1000,nope"}, `no case "nope"`},
		{[]string{"--quick", "--cases", "settle-1000"}, `no case "settle-1000"`},
		{[]string{"--quick", "--cases", "bed-1000"}, `no case "bed-1000"`},
		{[]string{"--cases", "bed-x"}, "bed-N with N a whole number"},
		{[]string{"--cases", "bed-0"}, "bed-N with N a whole number"},
		{[]string{"--steps", "-1"}, "--steps -1"},
		{[]string{"--warmup", "-2"}, "--warmup -2"},
		{[]string{"--steps", "x"}, "invalid value"},
		{[]string{"--quick", "--scaling"}, "exclude each other"},
		{[]string{"--out", ""}, "--out"},
		{[]string{"extra"}, "no arguments"},
		{[]string{"--nope"}, "not defined"},
		{[]string{"--workers", "0"}, "not a worker count"},
		{[]string{"--workers", "1,x"}, `"x" is not a worker count`},
		{[]string{"--workers", "2,2"}, "2 given twice"},
		{[]string{"--cases", "file:"}, "file:PATH"},
	} {
		code, _, errOut := runCLI(t, append([]string{"bench"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("gpusim bench %v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, exitUsage, c.want)
		}
	}
	code, _, errOut := runCLI(t, "bench-case", "--case", "nope")
	if code != exitFailure || !strings.Contains(errOut, `no case "nope"`) {
		t.Errorf("gpusim bench-case --case nope: exit %d, %q", code, errOut)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	code, _, errOut = runCLI(t, "bench-case", "--case", "file:"+missing)
	if code != exitFailure || !strings.Contains(errOut, missing) {
		t.Errorf("gpusim bench-case --case file:%s: exit %d, %q; want a failure naming the file", missing, code, errOut)
	}
}

// TestBenchQuickCPU builds gpusim and runs gpusim bench --quick on the CPU
// path: each case and the baseline in a process of its own.
func TestBenchQuickCPU(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build gpusim with")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gpusim")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "bench", "--quick", "--backends", "cpu", "--workers", "1,2", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gpusim bench --quick: %v\n%s", err, b)
	}
	data, err := os.ReadFile(filepath.Join(out, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("bench.json: %v", err)
	}
	quick := bench.Matrix(true)
	if len(rep.Results) != 2*len(quick) || !strings.HasPrefix(rep.Command, "gpusim bench --quick") {
		t.Fatalf("bench.json: %d results for %d cases at 2 worker counts, command %q", len(rep.Results), len(quick), rep.Command)
	}
	for i, r := range rep.Results {
		if r.Case != quick[i/2].Name || r.Workers != 1+i%2 || r.Error != "" || r.Steps != 2 || !(r.Step.Median > 0) || !(r.PeakRSS > 0) || !(r.BaselineRSS > 0) {
			t.Errorf("result %d: %+v", i, r)
		}
		// The quick cases start with 1 warm-up step or none: the state
		// then is at most a step of free fall from rest, 9.81 m/s² · 0.01 s.
		if !(r.StartMaxSpeed >= 0 && r.StartMaxSpeed <= 9.81*0.01*float64(r.Warmup)+1e-12) {
			t.Errorf("result %d (%s, warm-up %d): start max speed %g m/s", i, r.Case, r.Warmup, r.StartMaxSpeed)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "bench.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range quick {
		if !strings.Contains(string(md), "| "+c.Name+" | cpu |") {
			t.Errorf("bench.md has no row of %s", c.Name)
		}
		if !strings.Contains(string(md), "| "+c.Name+" | cpu | 2 |") || !strings.Contains(string(md), "(over 1)") {
			t.Errorf("bench.md has no speed-up row of %s on 2 workers", c.Name)
		}
	}
}

// TestBenchCaseCheckpoint: a file:PATH case of a checkpoint starts from the
// checkpoint's state with its warm-start memory: without warm-up, the
// start's largest speed is the checkpointed run's, read from its
// final.csv (written at the same step), and the measured step equals the
// run's next step (the resumed run's contacts and iterations).
func TestBenchCaseCheckpoint(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "run", "settle", "--set", "n=27", "--steps", "30", "--checkpoint", "30", "--out", filepath.Join(dir, "a"), "--quiet")
	ck := filepath.Join(dir, "a", "checkpoints", "step-000030.ckpt")
	out := runOK(t, "bench-case", "--case", "file:"+ck, "--steps", "1", "--warmup", "0")
	var r bench.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bench-case: %v: %s", err, out)
	}
	final, err := os.ReadFile(filepath.Join(dir, "a", "final.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for _, line := range strings.Split(strings.TrimSpace(string(final)), "\n")[1:] {
		f := strings.Split(line, ",")
		var v [3]float64
		for d := range 3 {
			if v[d], err = strconv.ParseFloat(f[8+d], 64); err != nil {
				t.Fatal(err)
			}
		}
		want = math.Max(want, math.Sqrt(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]))
	}
	// final.csv prints every float64 so that it parses back exactly, and
	// both sides take the same square root of the same sum.
	if r.StartMaxSpeed != want || r.Bodies != 27 {
		t.Errorf("bench-case on the checkpoint: %d bodies, start max speed %v m/s; want 27 and the run's %v", r.Bodies, r.StartMaxSpeed, want)
	}
	if !(want > 0) {
		t.Errorf("the run's bodies are all at rest at step 30 (%v m/s): the check above proves nothing", want)
	}
}

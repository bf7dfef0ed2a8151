package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/scene"
)

// pushedScene has two spheres (r = 0.5 m, 1 kg) on the ground plane; body
// 1 is pushed up by a constant force. Its centre then leaves the guard
// domain at a step the test computes (see TestGuardStopsRunawayBody).
func pushedScene(t *testing.T, force float64, steps int, warm bool) *scene.Scene {
	t.Helper()
	doc := fmt.Sprintf(`{
  "name": "pushed",
  "materials": [{"name": "m", "friction": 0.3}],
  "settings": {"dt": 0.01, "tol": 1e-8, "max_iter": 100, "warm_start": %v},
  "run": {"steps": %d, "trace": [1]},
  "bodies": [
    {"shape": {"type": "sphere", "radius": 0.5}, "pos": [0, 0, 0.5], "mass": 1},
    {"shape": {"type": "sphere", "radius": 0.5}, "pos": [3, 0, 0.5], "mass": 1, "force": [0, 0, %g]},
    {"shape": {"type": "plane"}, "fixed": true}
  ]
}`, warm, steps, force)
	sc, err := scene.Parse([]byte(doc), "pushed.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestGuardStopsRunawayBody pushes body 1 out of the guard domain and
// checks, on both backends, that the run stops at the step it leaves, naming the step and the
// body; that stats.csv, trace.csv, final.csv, summary.json and a
// checkpoint hold the last good step (final.csv byte for byte that of a
// run stopped there); and that a run resumed from the checkpoint fails at
// the same step.
func TestGuardStopsRunawayBody(t *testing.T) {
	const (
		h     = 0.01
		steps = 40
		// The guard domain: the box around both spheres is x ∈ [−0.5, 3.5],
		// z ∈ [0, 1] (longest edge 4 m); the free-flight reach is
		// ½·9.81·(40h)² = 0.78 m; so the box grows by 10 × 4 m on each side.
		top = 1 + GuardDomainScale*4.0
		a   = 8000.0 // net upward acceleration of body 1 (m/s²)
	)
	force := a + 9.81 // N on 1 kg against gravity
	// Semi-implicit Euler (eqs. 5 and 8): v_k = k·a·h, z_k = z₀ + a·h²·k(k+1)/2;
	// the first k with z_k > top is the step that fails. It is 10 here, with
	// 36.5 m and 44.5 m at steps 9 and 10 (a margin of metres against a
	// top at 41 m, far beyond rounding).
	fail := 0
	for k := 1; fail == 0; k++ {
		if 0.5+a*h*h*float64(k*(k+1))/2 > top {
			fail = k
		}
	}
	for _, c := range []struct {
		backend string
		warm    bool
	}{{"cpu", false}, {"cpu", true}, {"vulkan", false}, {"vulkan", true}} {
		backend, warm := c.backend, c.warm
		t.Run(fmt.Sprintf("%s/warm=%v", backend, warm), func(t *testing.T) {
			if backend == "vulkan" {
				if testing.Short() {
					t.Skip("Vulkan: about 1 s per run on lavapipe; skipped with -short")
				}
				if _, err := gpu.Devices(); err != nil {
					t.Skipf("no Vulkan: %v", err)
				}
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "run")
			sum, err := Run(context.Background(), pushedScene(t, force, steps, warm), Options{Backend: backend, OutDir: out})
			var ge *GuardError
			if !errors.As(err, &ge) {
				t.Fatalf("run ended with %v, want a guard error", err)
			}
			if ge.Step != fail || len(ge.Bodies) != 1 || ge.Bodies[0] != 1 {
				t.Fatalf("guard error at step %d for bodies %v, want step %d and body 1: %v", ge.Step, ge.Bodies, fail, err)
			}
			for _, s := range []string{fmt.Sprintf("step %d:", fail), "outside the guard domain", "body 1 at (3, 0, ", fmt.Sprintf("the outputs hold step %d", fail-1)} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			good := fail - 1
			ckPath := filepath.Join(out, "checkpoints", checkpoint.FileName(good))
			if sum == nil || sum.Steps != good || sum.Checkpoint != ckPath {
				t.Fatalf("summary %+v: want steps %d and checkpoint %s", sum, good, ckPath)
			}
			if !strings.Contains(err.Error(), ckPath) {
				t.Errorf("error %q does not name the checkpoint", err)
			}
			var js struct {
				Steps int `json:"steps"`
			}
			if err := json.Unmarshal(readFile(t, filepath.Join(out, "summary.json")), &js); err != nil || js.Steps != good {
				t.Errorf("summary.json: steps %d, %v; want %d", js.Steps, err, good)
			}
			rows := statsSteps(t, filepath.Join(out, "stats.csv"))
			if len(rows) != good || rows[len(rows)-1] != good {
				t.Errorf("stats.csv has steps %v, want 1…%d", rows, good)
			}
			if n := len(strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(out, "trace.csv")))), "\n")); n != good+1 {
				t.Errorf("trace.csv has %d lines, want a header and %d rows", n, good)
			}

			// final.csv is the state after step good: that of a run of good steps.
			ref := filepath.Join(dir, "ref")
			if _, err := Run(context.Background(), pushedScene(t, force, good, warm), Options{Backend: backend, OutDir: ref}); err != nil {
				t.Fatal(err)
			}
			if got, want := readFile(t, filepath.Join(out, "final.csv")), readFile(t, filepath.Join(ref, "final.csv")); !bytes.Equal(got, want) {
				t.Errorf("final.csv is not the state after step %d:\n%s\nwant\n%s", good, got, want)
			}

			// Resumed from the checkpoint, the run fails at the same step.
			rsc, ck, err := Resume(ckPath)
			if err != nil {
				t.Fatal(err)
			}
			if ck.Step != good || (ck.Warm != nil) != warm {
				t.Fatalf("checkpoint at step %d with warm data %v, want %d and %v", ck.Step, ck.Warm != nil, good, warm)
			}
			_, err = Run(context.Background(), rsc, Options{Backend: backend, OutDir: filepath.Join(dir, "resumed"), Resume: ck})
			if !errors.As(err, &ge) || ge.Step != fail {
				t.Errorf("resumed run ended with %v, want a guard error at step %d", err, fail)
			}
		})
	}
}

// TestGuardNonFinite steps a sim once, then puts a NaN into one body's
// velocity and an Inf into another's position (as a diverged solve would
// leave them) and checks that the guard names both bodies and keeps the
// state of the step before as the last good one, on the CPU path (the
// host check) and on Vulkan (the device check, and the kept state read
// back). (A force that overflows at once, 1e300 N on 1e-10 kg, is caught
// earlier: the collision envelope of the body is not finite and the run
// fails before step 1.)
func TestGuardNonFinite(t *testing.T) {
	for _, backend := range []string{"cpu", "vulkan"} {
		t.Run(backend, func(t *testing.T) {
			sc := pushedScene(t, 0, 10, false)
			sim, be := newBackendSim(t, sc, backend)
			defer be.Close()
			g, err := newGuard(sc, sim)
			if err != nil {
				t.Fatal(err)
			}
			if (g.dev != nil) != (backend == "vulkan") {
				t.Fatalf("backend %s: device guard %v", backend, g.dev != nil)
			}
			if _, err := sim.Step(); err != nil {
				t.Fatal(err)
			}
			if err := g.check(sim); err != nil {
				t.Fatalf("step 1 of a sphere resting on a plane: %v", err)
			}
			var bad engine.State
			if err := be.ReadState(&bad); err != nil {
				t.Fatal(err)
			}
			want := append([]float64{}, bad.Pos...)
			if _, err := sim.Step(); err != nil {
				t.Fatal(err)
			}
			if err := be.ReadState(&bad); err != nil {
				t.Fatal(err)
			}
			bad.Vel[3*0+2] = math.NaN()
			bad.Pos[3*1] = math.Inf(1)
			if err := be.(engine.StateSetter).SetState(&bad); err != nil {
				t.Fatal(err)
			}
			err = g.check(sim)
			var ge *GuardError
			if !errors.As(err, &ge) || ge.Step != 2 || len(ge.Bodies) != 2 || ge.Bodies[0] != 0 || ge.Bodies[1] != 1 {
				t.Fatalf("guard: %v; want a guard error at step 2 for bodies 0 and 1", err)
			}
			for _, s := range []string{"step 2: the state is not finite (2 bodies)", "body 0 at", "NaN", "body 1 at (+Inf"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			sn, err := g.good(true)
			if err != nil {
				t.Fatal(err)
			}
			if sn.step != 1 || !slices.Equal(sn.state.Pos, want) {
				t.Errorf("last good: step %d, positions %v; want step 1, %v", sn.step, sn.state.Pos, want)
			}
		})
	}
}

// TestGuardDomain checks the domain and speed bound newGuard sets against
// the values worked out by hand.
func TestGuardDomain(t *testing.T) {
	sc := pushedScene(t, 0, 100, false)
	sim, be := newTestSim(t, sc)
	defer be.Close()
	g, err := newGuard(sc, sim)
	if err != nil {
		t.Fatal(err)
	}
	// Box x ∈ [−0.5, 3.5], y ∈ [−0.5, 0.5], z ∈ [0, 1]: edge 4 m. Reach
	// over T = 1 s: ½·9.81 = 4.905 m > 4 m, so it grows by 49.05 m.
	grow := GuardDomainScale * 0.5 * 9.81
	want := [2][3]float64{{-0.5 - grow, -0.5 - grow, -grow}, {3.5 + grow, 0.5 + grow, 1 + grow}}
	for k := 0; k < 3; k++ {
		// 1e-12 m: a few ulps of the sums above.
		if math.Abs(g.lo[k]-want[0][k]) > 1e-12 || math.Abs(g.hi[k]-want[1][k]) > 1e-12 {
			t.Errorf("axis %d: domain [%v, %v], want [%v, %v]", k, g.lo[k], g.hi[k], want[0][k], want[1][k])
		}
	}
	if ms := (4 + 2*grow) / 0.01; math.Abs(g.maxSpeed-ms) > 1e-9*ms {
		t.Errorf("speed bound %v, want %v", g.maxSpeed, ms)
	}
	if !g.skip[2] || g.skip[0] || g.skip[1] {
		t.Errorf("skip %v: only the plane (body 2) has no centre to check", g.skip)
	}
}

func statsSteps(t *testing.T, path string) []int {
	t.Helper()
	var steps []int
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n")[1:] {
		var k int
		if _, err := fmt.Sscanf(line, "%d,", &k); err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
		steps = append(steps, k)
	}
	return steps
}

func newTestSim(t *testing.T, sc *scene.Scene) (*engine.Sim, engine.Backend) {
	t.Helper()
	return newBackendSim(t, sc, "cpu")
}

// newBackendSim loads sc into a new backend of kind "cpu" or "vulkan"
// (skipped with -short or without a Vulkan device).
func newBackendSim(t *testing.T, sc *scene.Scene, kind string) (*engine.Sim, engine.Backend) {
	t.Helper()
	var be engine.Backend = cpuref.New(1)
	if kind == "vulkan" {
		skipVulkan(t)
		var err error
		if be, err = gpu.New(gpu.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	sim, err := engine.NewSim(&sc.Model, sc.Settings, be)
	if err != nil {
		t.Fatal(err)
	}
	return sim, be
}

// TestOpenBackendOutOfMemory caps the Vulkan device at 16 KiB, too little
// for the scene: with "auto" (and a device named, so that auto tries a CPU
// Vulkan device too) the run falls back to the CPU path with a notice
// naming the error; with "vulkan" it fails with gpu.ErrOutOfMemory.
func TestOpenBackendOutOfMemory(t *testing.T) {
	if _, err := gpu.Devices(); err != nil {
		t.Skipf("no Vulkan: %v", err)
	}
	sc := pushedScene(t, 0, 3, false)
	opt := Options{Backend: "auto", Device: "0", VulkanMemoryLimit: 16 << 10, OutDir: t.TempDir()}
	var notices []string
	opt.Notice = func(s string) { notices = append(notices, s) }
	sum, err := Run(context.Background(), sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Backend != "cpu" || len(notices) != 1 || !strings.Contains(notices[0], "out of device memory") || !strings.Contains(notices[0], "running on the CPU path") {
		t.Errorf("backend %s, notices %q; want cpu and one notice of the fallback", sum.Backend, notices)
	}
	opt.Backend = "vulkan"
	_, err = Run(context.Background(), sc, opt)
	if !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), "pushed.json: gpu: load 3 bodies") {
		t.Errorf("vulkan with 16 KiB: %v; want gpu.ErrOutOfMemory naming the scene and the load", err)
	}
}

// TestGuardStopsDivergence makes a step give body 1 a speed that crosses
// the guard domain in one step (what a diverged solve produces: impulses,
// and so velocities, out of scale) and checks that the run stops at that
// step with the speed guard's reason, naming the body, with the outputs
// and a checkpoint of step 0.
func TestGuardStopsDivergence(t *testing.T) {
	// The domain of pushedScene over 10 steps: edge 4 m grown by 10 × 4 m
	// on each side, so maxSpeed = 84 m / 0.01 s = 8400 m/s; 1e7 N on 1 kg
	// gives 1e5 m/s in the first step.
	out := filepath.Join(t.TempDir(), "run")
	sum, err := Run(context.Background(), pushedScene(t, 1e7, 10, false), Options{Backend: "cpu", OutDir: out})
	var ge *GuardError
	if !errors.As(err, &ge) {
		t.Fatalf("run ended with %v, want a guard error", err)
	}
	// Body 0 may be named too: body 1's speculative margin (h²·1e7 m/s² =
	// 1000 m) takes in the pair, and the relaxed cone of the positive-gap
	// contact (u_n + Φ/h ≥ μ‖u_t‖, u_t ≈ 1e5 m/s) pushes the two apart.
	if ge.Step != 1 || !slices.Contains(ge.Bodies, 1) {
		t.Fatalf("guard error at step %d for bodies %v, want step 1 and body 1: %v", ge.Step, ge.Bodies, err)
	}
	for _, s := range []string{"step 1:", "bodies faster than 8.4e+03 m/s", "the solver diverged", "body 1 at", "the outputs hold step 0"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	ck := filepath.Join(out, "checkpoints", checkpoint.FileName(0))
	if sum == nil || sum.Steps != 0 || sum.Checkpoint != ck {
		t.Fatalf("summary %+v: want steps 0 and checkpoint %s", sum, ck)
	}
	if _, err := checkpoint.Read(ck); err != nil {
		t.Errorf("checkpoint of the last good step: %v", err)
	}
	if rows := statsSteps(t, filepath.Join(out, "stats.csv")); len(rows) != 0 {
		t.Errorf("stats.csv has steps %v, want none", rows)
	}
}

// lostDevice is a backend whose device is lost in the update of step
// failAt (1-based; Integrate runs once a step): what the Vulkan backend
// returns then.
type lostDevice struct {
	engine.Backend
	calls, failAt int
}

func (b *lostDevice) Integrate(gamma engine.Vec, h float64) error {
	return loseDeviceAt(&b.calls, b.failAt, func() error { return b.Backend.Integrate(gamma, h) })
}

// loseDeviceAt counts a call of Integrate in calls and returns what the
// Vulkan backend returns when its device is lost at call failAt, else
// integrate's result.
func loseDeviceAt(calls *int, failAt int, integrate func() error) error {
	*calls++
	if *calls == failAt {
		return fmt.Errorf("gpu: integrate: submit: %w", gpu.ErrDeviceLost)
	}
	return integrate()
}

// TestStepErrorEndsRun: an error of the step itself (here a lost device at
// step 6) ends the run as a guard does: the error names the step and
// wraps the cause, and stats.csv, trace.csv, final.csv, summary.json and a
// checkpoint hold step 5, the last good one.
func TestStepErrorEndsRun(t *testing.T) {
	const failAt = 6
	out := filepath.Join(t.TempDir(), "run")
	opt := Options{Backend: "cpu", OutDir: out, wrapBackend: func(b engine.Backend) engine.Backend {
		return &lostDevice{Backend: b, failAt: failAt}
	}}
	sum, err := Run(context.Background(), pushedScene(t, 9.81, 20, false), opt)
	if !errors.Is(err, gpu.ErrDeviceLost) {
		t.Fatalf("run ended with %v, want an error wrapping ErrDeviceLost", err)
	}
	good := failAt - 1
	ck := filepath.Join(out, "checkpoints", checkpoint.FileName(good))
	for _, s := range []string{fmt.Sprintf("step %d:", failAt), "Vulkan device lost", "checkpoint of step " + fmt.Sprint(good), ck} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
	if sum == nil || sum.Steps != good || sum.Checkpoint != ck {
		t.Fatalf("summary %+v: want steps %d and checkpoint %s", sum, good, ck)
	}
	if c, err := checkpoint.Read(ck); err != nil || c.Step != good {
		t.Errorf("checkpoint: %v (step %v), want step %d", err, c, good)
	}
	if rows := statsSteps(t, filepath.Join(out, "stats.csv")); len(rows) != good || rows[len(rows)-1] != good {
		t.Errorf("stats.csv has steps %v, want 1…%d", rows, good)
	}
	if _, err := os.Stat(filepath.Join(out, "final.csv")); err != nil {
		t.Errorf("final.csv: %v", err)
	}
}

// skipVulkan skips a Vulkan test with -short (about 1 s per run on
// lavapipe) or without a Vulkan device, unless GPUSIM_REQUIRE_VULKAN=1
// makes the latter a failure.
func skipVulkan(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("Vulkan: about 1 s per run on lavapipe; skipped with -short")
	}
	if _, err := gpu.Devices(); err != nil {
		if os.Getenv("GPUSIM_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
}

// TestGuardVulkanMatchesCPU runs the scenes of TestGuardStopsRunawayBody
// (a body leaves the guard domain at step 10; warm start on, so the
// checkpoint holds warm-start data) and TestGuardStopsDivergence (a body
// too fast at step 1) on both backends, with a trace, NumPy frames every
// 3 steps and checkpoints every 4, and checks that the Vulkan run, whose
// guard checks and keeps the state on the device, ends as the CPU run
// does: the same guard error (step, reason, bodies, message), the same
// summary steps, the same trace.csv, final.csv, frames and checkpoints
// (states and warm-start data) bit for bit: two spheres and a plane have
// at most a few contacts, fewer than a reduction chunk of 2048, which
// both backends sum in the same order.
func TestGuardVulkanMatchesCPU(t *testing.T) {
	skipVulkan(t)
	for _, c := range []struct {
		name  string
		force float64
		steps int
	}{{"runaway", 8000 + 9.81, 40}, {"divergence", 1e7, 10}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var errs [2]*GuardError
			var sums [2]*Summary
			for i, backend := range []string{"cpu", "vulkan"} {
				out := filepath.Join(dir, backend)
				sum, err := Run(context.Background(), pushedScene(t, c.force, c.steps, true),
					Options{Backend: backend, OutDir: out, NPZEvery: 3, CheckpointEvery: 4})
				if !errors.As(err, &errs[i]) {
					t.Fatalf("%s: run ended with %v, want a guard error", backend, err)
				}
				sums[i] = sum
			}
			ce, ve := errs[0], errs[1]
			if ce.Step != ve.Step || ce.Reason != ve.Reason || !slices.Equal(ce.Bodies, ve.Bodies) || ce.Error() != ve.Error() {
				t.Errorf("guard errors differ:\ncpu    %v\nvulkan %v", ce, ve)
			}
			if sums[0].Steps != sums[1].Steps || filepath.Base(sums[0].Checkpoint) != filepath.Base(sums[1].Checkpoint) {
				t.Errorf("summaries: cpu %d steps, checkpoint %s; vulkan %d steps, checkpoint %s",
					sums[0].Steps, sums[0].Checkpoint, sums[1].Steps, sums[1].Checkpoint)
			}
			files := func(backend string) []string {
				var names []string
				root := filepath.Join(dir, backend)
				for _, pat := range []string{"trace.csv", "final.csv", "npz/*", "checkpoints/*"} {
					m, err := filepath.Glob(filepath.Join(root, pat))
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range m {
						rel, _ := filepath.Rel(root, p)
						names = append(names, rel)
					}
				}
				return names
			}
			cf, vf := files("cpu"), files("vulkan")
			if !slices.Equal(cf, vf) {
				t.Fatalf("outputs differ: cpu %v, vulkan %v", cf, vf)
			}
			for _, f := range cf {
				if filepath.Ext(f) == ".ckpt" {
					cc, err := checkpoint.Read(filepath.Join(dir, "cpu", f))
					if err != nil {
						t.Fatal(err)
					}
					vc, err := checkpoint.Read(filepath.Join(dir, "vulkan", f))
					if err != nil {
						t.Fatal(err)
					}
					if cc.Step != vc.Step || !sameState(&cc.State, &vc.State) || (cc.Warm != nil) != (vc.Warm != nil) ||
						cc.Warm != nil && (!slices.Equal(cc.Warm.A, vc.Warm.A) || !slices.Equal(cc.Warm.Gamma, vc.Warm.Gamma)) {
						t.Errorf("%s differs: cpu step %d, vulkan step %d", f, cc.Step, vc.Step)
					}
					continue
				}
				if !bytes.Equal(readFile(t, filepath.Join(dir, "cpu", f)), readFile(t, filepath.Join(dir, "vulkan", f))) {
					t.Errorf("%s differs", f)
				}
			}
		})
	}
}

func sameState(a, b *engine.State) bool {
	return slices.Equal(a.Pos, b.Pos) && slices.Equal(a.Rot, b.Rot) && slices.Equal(a.Vel, b.Vel) && slices.Equal(a.Omega, b.Omega)
}

// hostGuarded hides a gpu backend's StateGuard, so that the run's guard
// reads the state back and checks it on the host every step, as on the
// CPU path; it keeps ReadBackBytes, StateSetter and WarmStartSaver (which
// checkpoints, resumes and a pour's Grow need).
type hostGuarded struct {
	engine.Backend
	g *gpu.Backend
}

func (b hostGuarded) SetState(s *engine.State) error                 { return b.g.SetState(s) }
func (b hostGuarded) WarmStartData(w *engine.WarmStartData) error    { return b.g.WarmStartData(w) }
func (b hostGuarded) SetWarmStartData(w *engine.WarmStartData) error { return b.g.SetWarmStartData(w) }
func (b hostGuarded) ReadBackBytes() int64                           { return b.g.ReadBackBytes() }

// hostGuard is the Options.wrapBackend of hostGuarded.
func hostGuard(b engine.Backend) engine.Backend { return hostGuarded{b, b.(*gpu.Backend)} }

// TestGuardReadBack: a Vulkan run of 20 steps of settle (205 bodies, a
// state of 21 kB) without per-step outputs reads back a few hundred bytes
// a step, independent of the number of bodies: the guard's 12 bytes of
// counts, FixedForce's 24, the collision counts and APGD's scalars; with
// a trace, or with the host's guard, it reads the whole state every step.
func TestGuardReadBack(t *testing.T) {
	skipVulkan(t)
	const steps = 20
	sc, err := scene.LoadBuiltin("settle", []string{"n=200", fmt.Sprintf("run.steps=%d", steps)})
	if err != nil {
		t.Fatal(err)
	}
	n := len(sc.Model.Bodies)
	state := int64(8 * 13 * n) // pos, rot, vel, omega: 13 float64 a body
	perStep := func(name string, sc *scene.Scene, opt Options) int64 {
		t.Helper()
		opt.Backend, opt.OutDir = "vulkan", filepath.Join(t.TempDir(), "run")
		sum, err := Run(context.Background(), sc, opt)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Steps != steps || sum.StepReadBackBytes == 0 {
			t.Fatalf("%s: %d steps, %d bytes read back", name, sum.Steps, sum.StepReadBackBytes)
		}
		b := sum.StepReadBackBytes / steps
		t.Logf("%s: %d bytes read back per step (the state: %d bytes)", name, b, state)
		return b
	}
	// 1 KiB: the run reads 346 bytes a step on settle n=1000 (measured:
	// 12 of the guard's counts, 24 of FixedForce, the collision counts,
	// and of APGD's solve 16 bytes between its submits and its 144-byte
	// scalar block at the end), the same for any n.
	if b := perStep("no outputs", sc, Options{}); b > 1024 {
		t.Errorf("without outputs: %d bytes read back per step, want at most 1024", b)
	}
	traced := *sc
	traced.Trace = []int{0, 7}
	if b := perStep("trace", &traced, Options{}); b < state {
		t.Errorf("with a trace: %d bytes read back per step, want at least the state's %d", b, state)
	}
	if b := perStep("host guard", sc, Options{wrapBackend: hostGuard}); b < state {
		t.Errorf("with the host's guard: %d bytes read back per step, want at least the state's %d", b, state)
	}
}

// TestGuardPourVulkan runs 40 steps of the pour scene (two spheres enter
// a step; bodies 3 and 105 traced), warm start on, with NumPy frames every 10 steps
// and a checkpoint at step 20, on Vulkan with the device's guard and with
// the host's: the guard changes no output (trace.csv, final.csv, the
// frames and the checkpoint byte for byte).
func TestGuardPourVulkan(t *testing.T) {
	skipVulkan(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		wrap func(engine.Backend) engine.Backend
	}{{"device", nil}, {"host", hostGuard}} {
		sc := loadPour(t, "run.steps=40", "settings.warm_start=true")
		sum, err := Run(context.Background(), sc, Options{Backend: "vulkan", OutDir: filepath.Join(dir, c.name), NPZEvery: 10, CheckpointEvery: 20, wrapBackend: c.wrap})
		if err != nil {
			t.Fatalf("%s guard: %v", c.name, err)
		}
		// 5 walls and the spheres due by step 40's end, 2 a step.
		if sum.Bodies != 5+2*40+1 {
			t.Fatalf("%s guard: %d bodies at the end, want %d", c.name, sum.Bodies, 5+2*40+1)
		}
	}
	for _, f := range []string{"trace.csv", "final.csv", "npz/step-00000000.npz", "npz/step-00000020.npz", "npz/step-00000040.npz", "checkpoints/" + checkpoint.FileName(20)} {
		if !bytes.Equal(readFile(t, filepath.Join(dir, "device", f)), readFile(t, filepath.Join(dir, "host", f))) {
			t.Errorf("%s differs between the device's guard and the host's", f)
		}
	}
}

// failingIntegrate is a gpu backend, all its capabilities kept (the
// device guard among them), whose Integrate fails at call failAt.
type failingIntegrate struct {
	*gpu.Backend
	calls, failAt int
}

func (b *failingIntegrate) Integrate(gamma engine.Vec, h float64) error {
	return loseDeviceAt(&b.calls, b.failAt, func() error { return b.Backend.Integrate(gamma, h) })
}

// TestStepErrorEndsRunVulkan is TestStepErrorEndsRun on Vulkan with the
// device's guard, warm start on: the run ends at step 6 with the
// outputs of step 5 read back from the kept copy (final.csv byte for byte
// that of a run of 5 steps, a checkpoint of step 5 with its warm-start
// data, which a resumed run continues from to the same end as the
// unsplit run).
func TestStepErrorEndsRunVulkan(t *testing.T) {
	skipVulkan(t)
	const failAt, steps = 6, 12
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	var fi *failingIntegrate
	opt := Options{Backend: "vulkan", OutDir: out, wrapBackend: func(b engine.Backend) engine.Backend {
		fi = &failingIntegrate{Backend: b.(*gpu.Backend), failAt: failAt}
		return fi
	}}
	sum, err := Run(context.Background(), pushedScene(t, 9.81, steps, true), opt)
	if !errors.Is(err, gpu.ErrDeviceLost) {
		t.Fatalf("run ended with %v, want an error wrapping ErrDeviceLost", err)
	}
	good := failAt - 1
	ck := filepath.Join(out, "checkpoints", checkpoint.FileName(good))
	if sum == nil || sum.Steps != good || sum.Checkpoint != ck {
		t.Fatalf("summary %+v: want steps %d and checkpoint %s", sum, good, ck)
	}
	ref := filepath.Join(dir, "ref")
	if _, err := Run(context.Background(), pushedScene(t, 9.81, good, true), Options{Backend: "vulkan", OutDir: ref}); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(out, "final.csv")), readFile(t, filepath.Join(ref, "final.csv")); !bytes.Equal(got, want) {
		t.Errorf("final.csv is not the state after step %d:\n%s\nwant\n%s", good, got, want)
	}
	rsc, c, err := Resume(ck)
	if err != nil {
		t.Fatal(err)
	}
	if c.Step != good || c.Warm == nil {
		t.Fatalf("checkpoint of step %d, warm-start data %v; want step %d with", c.Step, c.Warm != nil, good)
	}
	full := filepath.Join(dir, "full")
	if _, err := Run(context.Background(), pushedScene(t, 9.81, steps, true), Options{Backend: "vulkan", OutDir: full}); err != nil {
		t.Fatal(err)
	}
	resumed := filepath.Join(dir, "resumed")
	if _, err := Run(context.Background(), rsc, Options{Backend: "vulkan", OutDir: resumed, Resume: c}); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(resumed, "final.csv")), readFile(t, filepath.Join(full, "final.csv")); !bytes.Equal(got, want) {
		t.Errorf("the run resumed from the checkpoint of step %d ends elsewhere than the unsplit run:\n%s\nwant\n%s", good, got, want)
	}
}

// lostKept is failingIntegrate whose kept state goes with the device, as
// on a truly lost device: ReadKept fails once the device is lost.
type lostKept struct{ failingIntegrate }

func (b *lostKept) ReadKept(s *engine.State, w *engine.WarmStartData) error {
	if b.calls >= b.failAt {
		return fmt.Errorf("gpu: read kept state: %w", gpu.ErrDeviceLost)
	}
	return b.Backend.ReadKept(s, w)
}

// TestLostDeviceNamesCheckpoint: when the device is lost and its kept
// state with it, the run's error names the last periodic checkpoint and
// how to go on from it, and that checkpoint is intact.
func TestLostDeviceNamesCheckpoint(t *testing.T) {
	skipVulkan(t)
	const failAt, steps = 7, 12
	out := filepath.Join(t.TempDir(), "run")
	opt := Options{Backend: "vulkan", OutDir: out, CheckpointEvery: 4, wrapBackend: func(b engine.Backend) engine.Backend {
		return &lostKept{failingIntegrate{Backend: b.(*gpu.Backend), failAt: failAt}}
	}}
	_, err := Run(context.Background(), pushedScene(t, 9.81, steps, true), opt)
	ck := filepath.Join(out, "checkpoints", checkpoint.FileName(4))
	if !errors.Is(err, gpu.ErrDeviceLost) || !strings.Contains(err.Error(), "the last checkpoint written is "+ck) ||
		!strings.Contains(err.Error(), "--resume "+ck) {
		t.Fatalf("run ended with %v, want ErrDeviceLost naming the checkpoint %s and --resume", err, ck)
	}
	if c, err := checkpoint.Read(ck); err != nil || c.Step != 4 {
		t.Fatalf("checkpoint %s: %v", ck, err)
	}
	t.Logf("the run's error: %q", err)
}

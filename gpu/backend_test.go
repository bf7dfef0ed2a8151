//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/internal/testfile"
	"github.com/gpusim/gpusim/scene"
)

// gpuOrder is a cpuref problem whose Dot is kernelDot, the Go model of
// dot.comp and sum.comp (cpuref's own Dot sums in that order too since
// cpuref/order.go: TestCPUDotIsKernelDot), and which hides cpuref's own
// solver loops (it implements none of engine's optional interfaces), so
// that a solve on it runs engine's generic loops. Every other operation of
// the two backends is the same sequence of correctly rounded operations,
// so a solve on it must give the GPU backend's result bit for bit,
// whatever the solver.
type gpuOrder struct{ engine.Problem }

func (p gpuOrder) Dot(x, y engine.Vec) float64 {
	return kernelDot(cpuref.Data(x), cpuref.Data(y))
}

// Joints passes on the wrapped problem's joint rows (engine.JointRows).
func (p gpuOrder) Joints() int {
	return engine.Rows(p.Problem) - 3*p.Contacts() - 3*engine.RollingBlocks(p.Problem)
}

// Sweeps passes on the wrapped problem's carried sweeps (cpuref's
// engine.CarriedSweeps), which the device's Sweeps matches.
func (p gpuOrder) Sweeps(gamma, diag engine.Vec, omega, lambda float64, k int) {
	p.Problem.(engine.CarriedSweeps).Sweeps(gamma, diag, omega, lambda, k)
}

// Rolling and RollingContact pass on the wrapped problem's rolling blocks
// (engine.RollingRows; none without).
func (p gpuOrder) Rolling() int { return engine.RollingBlocks(p.Problem) }

func (p gpuOrder) RollingContact(k int) int { return p.Problem.(engine.RollingRows).RollingContact(k) }

// stepper takes time steps as engine.Sim does, with the problem optionally
// wrapped in gpuOrder.
type stepper struct {
	b      engine.Backend
	solver engine.Solver
	set    engine.Settings
	order  bool // wrap the problem in gpuOrder
	gamma  engine.Vec
	p      engine.Problem
	nc     int
	stats  engine.SolveStats
	force  mgl64.Vec3
}

func newStepper(t *testing.T, b engine.Backend, m *engine.Model, set engine.Settings, order bool) *stepper {
	t.Helper()
	solver, err := engine.NewSolver(set.Solver)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Load(m, &set); err != nil {
		t.Fatal(err)
	}
	return &stepper{b: b, solver: solver, set: set, order: order}
}

// step is engine.Sim.Step.
func (s *stepper) step(t *testing.T) {
	t.Helper()
	nc, err := s.b.Collide()
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.b.Build(s.set.Dt)
	if err != nil {
		t.Fatal(err)
	}
	s.nc, s.p = nc, p
	if rows := engine.Rows(p); s.gamma == nil || s.gamma.Len() != rows {
		s.gamma = p.NewVec(rows)
	}
	if s.set.WarmStart {
		if err := s.b.WarmStart(s.gamma); err != nil {
			t.Fatal(err)
		}
	} else {
		p.Fill(s.gamma, 0)
	}
	solveOn := p
	if s.order {
		solveOn = gpuOrder{p}
	}
	s.stats = engine.SolveStats{}
	if engine.Rows(p) > 0 {
		opt := engine.SolveOptions{Tol: s.set.Tol, MaxIter: s.set.MaxIter, Gd: s.set.Gd}
		if s.stats, err = s.solver.Solve(solveOn, s.gamma, opt); err != nil {
			t.Fatal(err)
		}
	}
	if s.force, err = s.b.FixedForce(s.gamma, s.set.Dt); err != nil {
		t.Fatal(err)
	}
	if err := s.b.Integrate(s.gamma, s.set.Dt); err != nil {
		t.Fatal(err)
	}
}

func (s *stepper) impulses() []float64 { return enginetest.ReadVec(s.p, s.gamma) }

func (s *stepper) state(t *testing.T) engine.State {
	t.Helper()
	var st engine.State
	if err := s.b.ReadState(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

func (s *stepper) contacts(t *testing.T) engine.Contacts {
	t.Helper()
	var c engine.Contacts
	if err := s.b.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	return c
}

// contactKeys returns the contacts as a set of (A, B, index within the
// pair).
func contactKeys(c *engine.Contacts) map[[3]int32]bool {
	keys := map[[3]int32]bool{}
	sub := int32(0)
	for k := range c.A {
		if k > 0 && c.A[k] == c.A[k-1] && c.B[k] == c.B[k-1] {
			sub++
		} else {
			sub = 0
		}
		keys[[3]int32{c.A[k], c.B[k], sub}] = true
	}
	return keys
}

// sceneCases are the built-in scenes of TestSceneStep, with the sizes the
// task names.
// Each first runs `advance` steps on cpuref (at most 100 APGD iterations
// each), so that the compared step has a developed contact network: at
// t = 0 the spheres barely touch and APGD solves the step exactly.
var sceneCases = []struct {
	name    string
	sets    []string
	advance int
}{
	{"rolling-ball", nil, 40},
	{"fill", nil, 60},
	{"pressure", []string{"n=500"}, 20},
	{"settle", []string{"n=1000"}, 30},
}

// advanced returns sc's model with the state reached after steps steps of
// cpuref.
func advanced(t *testing.T, sc *scene.Scene, steps int) *engine.Model {
	t.Helper()
	set := sc.Settings
	set.MaxIter = min(set.MaxIter, 100)
	return enginetest.Advanced(t, &sc.Model, set, cpuref.New(0), steps)
}

// TestSceneStep takes one time step of each built-in scene on both
// backends from the same (advanced) state (APGD, tolerance 0, 50 iterations) and
// checks: the same contacts, as sets of (A, B, index within the pair); γ,
// the solve's statistics, the state and the fixed force equal bit for bit
// to cpuref's step (which sums in the device's order, cpuref/order.go) and
// to cpuref's through engine's generic solver loops (gpuOrder).
func TestSceneStep(t *testing.T) {
	d := requireDevice(t)
	for _, c := range sceneCases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scene.LoadBuiltin(c.name, c.sets)
			if err != nil {
				t.Fatal(err)
			}
			m := advanced(t, sc, c.advance)
			set := sc.Settings
			set.Solver, set.Tol, set.MaxIter = "apgd", 0, 50
			gb, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer gb.Close()
			g := newStepper(t, gb, m, set, false)
			co := newStepper(t, cpuref.New(0), m, set, true)
			cp := newStepper(t, cpuref.New(0), m, set, false)
			s0 := gb.Submits()
			for _, s := range []*stepper{g, co, cp} {
				s.step(t)
			}
			submits := gb.Submits() - s0
			if g.nc == 0 {
				t.Fatal("no contacts: the step tests nothing")
			}
			gc, cc := g.contacts(t), cp.contacts(t)
			gk, ck := contactKeys(&gc), contactKeys(&cc)
			if len(gk) != len(ck) || len(gk) != g.nc {
				t.Fatalf("%d contacts on the GPU, %d on the CPU", len(gk), len(ck))
			}
			for k := range gk {
				if !ck[k] {
					t.Fatalf("contact (A, B, sub) = %v only on the GPU", k)
				}
			}

			t.Logf("%d contacts, residual %.3g; %d submits; the arms as ρ: %v", g.nc, g.stats.Residual, submits, gb.jac.arms)
			if want := m.ArmsAlongNormal(); gb.jac.arms != want || gb.jacBytes() != map[bool]int64{false: 96, true: 64}[want] {
				t.Errorf("the Jacobian holds the arms as ρ: %v, %d B per contact; the model's contact points on the normals: %v", gb.jac.arms, gb.jacBytes(), want)
			}
			if testfile.GoFusesMultiplyAdd {
				t.Log("bit-identity with cpuref not checked: Go may fuse multiply-adds on this target")
				return
			}
			gg, gs := g.impulses(), g.state(t)
			for _, c := range []struct {
				what string
				s    *stepper
			}{{"cpuref", cp}, {"cpuref through engine's generic loops (gpuOrder)", co}} {
				cg, cs := c.s.impulses(), c.s.state(t)
				if i := enginetest.FirstDiff(gg, cg); i >= 0 {
					t.Errorf("γ[%d] = %v on the GPU, %v on %s", i, gg[i], cg[i], c.what)
				}
				if g.force != c.s.force {
					t.Errorf("fixed force %v on the GPU, %v on %s", g.force, c.s.force, c.what)
				}
				if g.stats.Residual != c.s.stats.Residual || g.stats.Iterations != c.s.stats.Iterations {
					t.Errorf("solve stats %+v on the GPU, %+v on %s", g.stats, c.s.stats, c.what)
				}
				for _, f := range []struct {
					name string
					g, o []float64
				}{{"pos", gs.Pos, cs.Pos}, {"rot", gs.Rot, cs.Rot}, {"vel", gs.Vel, cs.Vel}, {"omega", gs.Omega, cs.Omega}} {
					if i := enginetest.FirstDiff(f.g, f.o); i >= 0 {
						t.Errorf("%s[%d] = %v on the GPU, %v on %s", f.name, i, f.g[i], f.o[i], c.what)
					}
				}
			}
		})
	}
}

// TestSceneStepMixed: with settings.precision "mixed" (float32 Jacobian and
// APGD work vectors, shaders/lib/store.glsl) three steps of the settle
// and fill scenes (apgd and apgd-ar, tolerance 0, 50 iterations) give the
// same contacts, impulses, solve statistics, fixed force and state on the
// device as on cpuref, which rounds where the device stores, bit for bit
// on lavapipe (another driver may round float64 → float32 conversions
// otherwise: Vulkan leaves the rounding open; the test then reports the
// largest difference and fails above 1e-6 m or m/s, about ten float32
// roundings of the positions and speeds here). The state differs from
// the float64 run's.
func TestSceneStepMixed(t *testing.T) {
	requireUnfusedGo(t)
	d := requireDevice(t)
	exact := strings.HasPrefix(d.Info.Name, "llvmpipe")
	for _, c := range []struct {
		name   string
		sets   []string
		solver string
	}{{"settle", []string{"n=1000"}, "apgd"}, {"fill", nil, "apgd-ar"}} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scene.LoadBuiltin(c.name, c.sets)
			if err != nil {
				t.Fatal(err)
			}
			m := advanced(t, sc, 30)
			set := sc.Settings
			set.Solver, set.Tol, set.MaxIter, set.Precision = c.solver, 0, 50, engine.PrecisionMixed
			gb, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer gb.Close()
			g := newStepper(t, gb, m, set, false)
			cp := newStepper(t, cpuref.New(0), m, set, false)
			dbl := set
			dbl.Precision = engine.PrecisionDouble
			cd := newStepper(t, cpuref.New(0), m, dbl, false)
			for range 3 {
				for _, s := range []*stepper{g, cp, cd} {
					s.step(t)
				}
			}
			if g.nc == 0 || g.nc != cp.nc {
				t.Fatalf("%d contacts on the GPU, %d on the CPU", g.nc, cp.nc)
			}
			gg, cg := g.impulses(), cp.impulses()
			gs, cs, ds := g.state(t), cp.state(t), cd.state(t)
			worst := 0.0
			for _, f := range []struct {
				name      string
				g, o, dbl []float64
			}{{"pos", gs.Pos, cs.Pos, ds.Pos}, {"rot", gs.Rot, cs.Rot, ds.Rot}, {"vel", gs.Vel, cs.Vel, ds.Vel}, {"omega", gs.Omega, cs.Omega, ds.Omega}} {
				if exact {
					if i := enginetest.FirstDiff(f.g, f.o); i >= 0 {
						t.Errorf("%s[%d] = %v on the GPU, %v on cpuref", f.name, i, f.g[i], f.o[i])
					}
				}
				for i := range f.g {
					worst = max(worst, math.Abs(f.g[i]-f.o[i]))
				}
				if f.name == "vel" && enginetest.FirstDiff(f.g, f.dbl) < 0 {
					t.Error("the mixed run's velocities equal the float64 run's: were the float32 kernels used?")
				}
			}
			if exact {
				if i := enginetest.FirstDiff(gg, cg); i >= 0 {
					t.Errorf("γ[%d] = %v on the GPU, %v on cpuref", i, gg[i], cg[i])
				}
				if g.force != cp.force || g.stats.Residual != cp.stats.Residual || g.stats.Iterations != cp.stats.Iterations {
					t.Errorf("force %v, stats %+v on the GPU; %v, %+v on cpuref", g.force, g.stats, cp.force, cp.stats)
				}
			} else if worst > 1e-6 {
				t.Errorf("state differs by %.3g between the GPU and cpuref", worst)
			}
			t.Logf("%d contacts, residual %.3g (float64: %.3g); largest state difference %.3g", g.nc, g.stats.Residual, cd.stats.Residual, worst)
		})
	}
}

// TestSolversMatchCPU runs every solver for three warm-started steps of
// the settle scene on both backends: with cpuref's dot products in the
// GPU's order the impulses and states agree bit for bit, which covers
// each Problem method as the solvers use it (Sweep for gs, BlockDiag for
// gs, jacobi, spg and pdip, Cones for pdip, AntiRelax for apgd-ar).
func TestSolversMatchCPU(t *testing.T) {
	requireUnfusedGo(t)
	d := requireDevice(t)
	sc, err := scene.LoadBuiltin("settle", []string{"n=300"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range engine.Solvers() {
		name, _, _ = strings.Cut(name, ":")
		t.Run(name, func(t *testing.T) {
			set := sc.Settings
			set.Solver, set.Tol, set.MaxIter, set.WarmStart = name, 0, 20, true
			gb, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer gb.Close()
			g := newStepper(t, gb, &sc.Model, set, false)
			c := newStepper(t, cpuref.New(0), &sc.Model, set, true)
			for step := 1; step <= 3; step++ {
				g.step(t)
				c.step(t)
				if i := enginetest.FirstDiff(g.impulses(), c.impulses()); i >= 0 {
					t.Fatalf("step %d: γ[%d] differs (%d contacts)", step, i, g.nc)
				}
				gs, cs := g.state(t), c.state(t)
				if i := enginetest.FirstDiff(append(gs.Pos, gs.Vel...), append(cs.Pos, cs.Vel...)); i >= 0 {
					t.Fatalf("step %d: state element %d differs", step, i)
				}
			}
			if err := gb.l.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestBackendBatching: a Schur product, a projection and vector updates
// record into the open batch without a submit; a Dot submits once.
func TestBackendBatching(t *testing.T) {
	tw, _, gp := randomTwin(t, 13, 300, 0)
	n := 3 * tw.nc
	x, y := gp.NewVec(n), gp.NewVec(n)
	gp.Fill(x, 0.5)
	if err := tw.gpu.sync(); err != nil {
		t.Fatal(err)
	}
	before := tw.gpu.Submits()
	for range 10 {
		gp.Schur(y, x)
		gp.Project(y, y)
		gp.Axpby(x, 0.5, x, -1e-3, y)
		gp.AntiRelax(y, x)
		gp.BlockDiag(y)
	}
	if got := tw.gpu.Submits() - before; got != 0 {
		t.Errorf("%d submits while recording", got)
	}
	gp.Dot(x, y)
	if got := tw.gpu.Submits() - before; got != 1 {
		t.Errorf("%d submits for the chain and a Dot, want 1", got)
	}
}

// TestBackendErrors: wrong vector lengths are errors (backend methods) or
// panics (Problem methods, as LinAlg's); a second Close is harmless.
func TestBackendErrors(t *testing.T) {
	tw, _, gp := randomTwin(t, 14, 100, 0)
	b := tw.gpu
	short := gp.NewVec(3*tw.nc - 3)
	if err := b.Integrate(short, 0.01); err == nil || !strings.Contains(err.Error(), "gamma has length") {
		t.Errorf("Integrate with a short gamma: %v", err)
	}
	if _, err := b.FixedForce(short, 0.01); err == nil {
		t.Error("FixedForce with a short gamma: no error")
	}
	if err := b.WarmStart(short); err == nil {
		t.Error("WarmStart with a short gamma: no error")
	}
	if _, err := b.Build(0); err == nil {
		t.Error("Build(0): no error")
	}
	wantPanic(t, "Schur with a short vector", "want 3·", func() { gp.Schur(short, short) })
}

// rss returns the process's resident set size in bytes (Linux).
func rss(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestNewCloseNoLeak creates the backend, runs a step and closes it 20
// times. With the validation layer (when installed) each Close fails if
// any Vulkan object made from the device outlives it (the layer's object
// tracker reports them at vkDestroyDevice); and the resident memory must
// not grow with the count. Each round loads 20000 bodies, ~6 MB of
// device buffers (lavapipe's device memory is host memory) and as much
// host state, so a backend that leaked its buffers or itself would grow
// by ≥ 100 MB over the rounds (measured: a round that skips Close adds
// 130 MB of C memory in use).
//
// What the child bounds tightly is the memory in use, not the resident
// memory: the C allocator's bytes in use (glibc's mallinfo2, which holds
// lavapipe's device memory) and the Go heap after a collection. Those
// measured +0.3 MB and flat over 20 rounds. The resident memory moves
// with what free keeps cached and how the arena fragments, and swung
// from -1.3 to +10.8 MB over 20 rounds on a quiet machine and reached
// +16.6 MB in CI beside the other test packages; it keeps only a loose
// bound that catches a leak outside malloc (driver mappings, thread
// stacks) of ≥ 2.4 MB per round.
//
// The child runs twice: with the validation layer, for its object
// tracker, and without it, for the resident memory, since the layer keeps
// bookkeeping of its own per device (measured on lavapipe: +15 to +18 MB
// over 20 rounds with it, flat within 2 MB without it; the test failed
// at random against its 16 MB bound when it measured with the layer on).
//
// The measurement runs in a child process with MALLOC_ARENA_MAX=1: glibc
// gives each thread that allocates its own arena and keeps it, and every
// device starts new driver threads (lavapipe's rasteriser pool), so with
// the default up to 8 arenas per core the resident memory climbs for
// dozens of rounds before it levels off (measured: +60 MB over 60 rounds),
// which looks like a leak and is not one.
func TestNewCloseNoLeak(t *testing.T) {
	if _, err := Devices(); err != nil {
		skipOrFail(t, err)
	}
	if os.Getenv("GPUSIM_LEAK_CHILD") != "1" {
		for _, validation := range []string{"1", "0"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestNewCloseNoLeak$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "GPUSIM_LEAK_CHILD=1", "MALLOC_ARENA_MAX=1", "GPUSIM_VALIDATION="+validation)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child process (GPUSIM_VALIDATION=%s): %v\n%s", validation, err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if _, msg, ok := strings.Cut(line, "backend_test.go:"); ok {
					t.Log("child:", msg)
				}
			}
		}
		return
	}
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.5}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	for i := 0; i < 20000; i++ {
		// A grid 1 m apart, and every fourth row on the next: contacts.
		b := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(),
			Pos: mgl64.Vec3{float64(i % 100), float64(i / 100), 0.1}}
		if i%400 < 100 {
			b.Pos[2] = 0.299
		}
		b.SetMass(1)
		m.Bodies = append(m.Bodies, b)
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	set := engine.DefaultSettings()
	set.MaxIter = 10
	opt := Options{Validation: os.Getenv("GPUSIM_VALIDATION") != "0"}
	if d, err := Open(opt); errors.Is(err, errNoValidation) {
		opt.Validation = false
	} else if err == nil {
		d.Close()
	}
	round := func() {
		b, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := engine.NewSim(m, set, b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
	type usage struct{ c, goHeap, rss int64 }
	settle := func() usage {
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return usage{testfile.MallocInUse(t), int64(ms.HeapAlloc), rss(t)}
	}
	// Warm up: the driver's first device and pipeline compilations
	// allocate caches that live as long as the process.
	for range 3 {
		round()
	}
	before := settle()
	const rounds = 20
	for range rounds {
		round()
	}
	after := settle()
	runtime.KeepAlive(m) // the model counts in both samples
	// Bounds: 4 MB of C memory or Go heap over the rounds is ten times
	// what was measured and a thirtieth of a leak of the backend's
	// buffers; 48 MB of resident memory is three times the largest swing
	// seen (see the test's comment).
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	t.Logf("validation %v over %d rounds: C memory in use %+.1f MB, Go heap %+.1f MB, resident %d → %d MB (%+.1f MB)",
		opt.Validation, rounds, mb(after.c-before.c), mb(after.goHeap-before.goHeap), before.rss>>20, after.rss>>20, mb(after.rss-before.rss))
	if opt.Validation {
		return // the layer's own bookkeeping grows per device
	}
	if g := after.c - before.c; g > 4<<20 {
		t.Errorf("C memory in use grew by %.1f MB over %d New/Close rounds", mb(g), rounds)
	}
	if g := after.goHeap - before.goHeap; g > 4<<20 {
		t.Errorf("Go heap grew by %.1f MB over %d New/Close rounds", mb(g), rounds)
	}
	if g := after.rss - before.rss; g > 48<<20 {
		t.Errorf("resident memory grew by %.1f MB over %d New/Close rounds", mb(g), rounds)
	}
}

// BenchmarkStep times the settle scene (n = 1000 spheres; APGD, tolerance
// 0, 100 iterations: the scene's own settings) over its first 10 steps on
// each backend. One op loads the scene and takes the 10 steps; the
// metrics are per step, with the Vulkan backend's queue submissions.
func BenchmarkStep(b *testing.B) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=1000"})
	if err != nil {
		b.Fatal(err)
	}
	const steps = 10
	run := func(b *testing.B, be engine.Backend, submits func() int) {
		var collide, step float64
		s0 := submits()
		for b.Loop() {
			sim, err := engine.NewSim(&sc.Model, sc.Settings, be)
			if err != nil {
				b.Fatal(err)
			}
			for range steps {
				st, err := sim.Step()
				if err != nil {
					b.Fatal(err)
				}
				collide += st.CollideSeconds
				step += st.StepSeconds
			}
		}
		n := float64(b.N * steps)
		b.ReportMetric(step/n*1e3, "ms/step")
		b.ReportMetric(collide/n*1e3, "collide-ms/step")
		b.ReportMetric(float64(submits()-s0)/n, "submits/step")
	}
	b.Run("cpu", func(b *testing.B) { run(b, cpuref.New(0), func() int { return 0 }) })
	b.Run("vulkan", func(b *testing.B) {
		be, err := newBackendOn(benchDevice(b))
		if err != nil {
			b.Fatal(err)
		}
		defer be.Close()
		run(b, be, be.Submits)
	})
}

// TestStepsReuseCommandBuffers: steps of a bed at rest, whose contacts
// stay the same, record no command buffer once the first steps have: each
// submit runs one recorded before (cmdcache.go), unless the solve's
// step-size halvings take a number of submits no earlier step took. Their
// states stay cpuref's bit for bit.
func TestStepsReuseCommandBuffers(t *testing.T) {
	d := requireDevice(t)
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.5}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	for i := range 16 {
		// Spheres on the plane and a second layer in their hollows.
		b := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0.2 * float64(i%4), 0.2 * float64(i/4), 0.1}}
		b.SetMass(1)
		m.Bodies = append(m.Bodies, b)
	}
	for i := range 9 {
		b := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(),
			Pos: mgl64.Vec3{0.1 + 0.2*float64(i%3), 0.1 + 0.2*float64(i/3), 0.1 + 0.1*math.Sqrt2}}
		b.SetMass(1)
		m.Bodies = append(m.Bodies, b)
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true})
	set := engine.DefaultSettings()
	set.Solver, set.Tol, set.MaxIter = "apgd", 0, 40
	gb, err := newBackendOn(d)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Close()
	gs, err := engine.NewSim(m, set, gb)
	if err != nil {
		t.Fatal(err)
	}
	cb := cpuref.New(0)
	cs, err := engine.NewSim(m, set, cb)
	if err != nil {
		t.Fatal(err)
	}
	// A solve of a bed at rest takes 40 iterations, and about one submit
	// per 16 blocks; a step-size halving takes a block, so a step whose
	// halvings need one submit more than any earlier step's records that
	// submit (its blocks are another number: cmdcache.go). Such a step may
	// record; a step of a number of submits seen before may not, and most
	// steps must record nothing.
	const warm, steps = 3, 6
	nc := -1
	seen := map[int]bool{}
	quiet := 0
	for k := range warm + steps {
		st, err := gs.Step()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.Step(); err != nil {
			t.Fatal(err)
		}
		first := !seen[st.Submits]
		seen[st.Submits] = true
		if k == 0 && st.Recorded == 0 {
			t.Fatalf("step %d: %d submits and no command buffer recorded: the batch keeps none", st.Step, st.Submits)
		}
		if k < warm {
			nc = st.Contacts
			continue
		}
		if st.Contacts != nc || nc == 0 {
			t.Fatalf("step %d: %d contacts after %d: the bed is not at rest", st.Step, st.Contacts, nc)
		}
		switch {
		case st.Submits == 0:
			t.Fatalf("step %d: no submit", st.Step)
		case st.Recorded == 0:
			quiet++
		case !first || st.Recorded > 1:
			t.Errorf("step %d: %d command buffers recorded for %d submits, as many submits as an earlier step's: want 0 (or 1 for a number of submits no earlier step took)", st.Step, st.Recorded, st.Submits)
		}
	}
	if quiet < steps-2 {
		t.Errorf("%d of %d steps recorded no command buffer: want at least %d", quiet, steps, steps-2)
	}
	if testfile.GoFusesMultiplyAdd {
		t.Log("bit-identity with cpuref not checked: Go may fuse multiply-adds on this target")
		return
	}
	var g, c engine.State
	if err := gb.ReadState(&g); err != nil {
		t.Fatal(err)
	}
	if err := cb.ReadState(&c); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		what string
		g, c []float64
	}{{"pos", g.Pos, c.Pos}, {"vel", g.Vel, c.Vel}, {"omega", g.Omega, c.Omega}, {"rot", g.Rot, c.Rot}} {
		if i := enginetest.FirstDiff(v.g, v.c); i >= 0 {
			t.Errorf("%s[%d] = %v on the GPU, %v on cpuref", v.what, i, v.g[i], v.c[i])
		}
	}
}

// TestChangingContactsReuseCommandBuffers: a pile whose contact count
// changes from step to step records no command buffer in most of those
// steps: the contact count reaches the kernels in their arguments and
// workgroup counts, which are written before each submit (args.go), and
// the buffers are bound whole; only the steps where a buffer outgrew its
// room record anew.
func TestChangingContactsReuseCommandBuffers(t *testing.T) {
	d := requireDevice(t)
	sc, err := scene.LoadBuiltin("settle", []string{"n=300", "settings.max_iter=30"})
	if err != nil {
		t.Fatal(err)
	}
	gb, err := newBackendOn(d)
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Close()
	sim, err := engine.NewSim(&sc.Model, sc.Settings, gb)
	if err != nil {
		t.Fatal(err)
	}
	changed, reused, nc := 0, 0, -1
	for k := range 60 {
		st, err := sim.Step()
		if err != nil {
			t.Fatal(err)
		}
		if k >= 30 && st.Contacts != nc {
			changed++
			if st.Recorded == 0 {
				reused++
			}
		}
		nc = st.Contacts
	}
	t.Logf("%d of the %d steps whose contact count changed recorded no command buffer", reused, changed)
	// The run is deterministic (23 of 29 when written); half is the bar
	// so that a change of the rooms' growth, which decides the steps that
	// record anew, does not fail it, while contact counts recorded into
	// the command buffers (none reused) do. Fewer than 10 changing steps
	// would test too little.
	if changed < 10 || 2*reused < changed {
		t.Errorf("%d of the %d steps whose contact count changed recorded no command buffer; want at least half of at least 10", reused, changed)
	}
}

// BenchmarkStepRecording: steps 11 to 40 of settle (n = 1000, apgd 100)
// on two backends of one device, one keeping its command buffers
// (cmdcache.go) and one recording every submit (GPUSIM_COMMAND_CACHE=off),
// their steps interleaved (each goes first every other step) so that the
// machine's drift falls on both alike: per backend, the dispatches
// recorded into command buffers per step, the host time spent recording
// them, and the step's wall time.
func BenchmarkStepRecording(b *testing.B) {
	d := benchDevice(b)
	sc, err := scene.LoadBuiltin("settle", []string{"n=1000"})
	if err != nil {
		b.Fatal(err)
	}
	names := [2]string{"kept", "recorded"}
	var n [2]int
	var rec [2]int
	var host, wall [2]time.Duration
	for b.Loop() {
		var sims [2]*engine.Sim
		for i, env := range []string{"1", "off"} {
			b.Setenv(commandCacheEnv, env)
			be, err := newBackendOn(d)
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			if sims[i], err = engine.NewSim(&sc.Model, sc.Settings, be); err != nil {
				b.Fatal(err)
			}
		}
		for k := range 40 {
			for i := range 2 {
				j := (i + k) % 2
				r0, h0 := d.RecordedDispatches()
				st, err := sims[j].Step()
				if err != nil {
					b.Fatal(err)
				}
				if k >= 10 {
					r1, h1 := d.RecordedDispatches()
					n[j]++
					rec[j] += r1 - r0
					host[j] += h1 - h0
					wall[j] += time.Duration(st.StepSeconds * 1e9)
				}
			}
		}
	}
	for j, name := range names {
		b.ReportMetric(float64(rec[j])/float64(n[j]), name+"-dispatches-recorded/step")
		b.ReportMetric(host[j].Seconds()*1e3/float64(n[j]), name+"-record-ms/step")
		b.ReportMetric(wall[j].Seconds()*1e3/float64(n[j]), name+"-ms/step")
	}
}

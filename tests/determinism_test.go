package tests

import (
	"fmt"
	"math"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/testfile"
)

// fingerprint runs steps of sc's model on b and returns the final body state
// and the per-step contact counts and iteration counts, the quantities that
// must agree bit for bit between deterministic runs.
type fingerprint struct {
	state    engine.State
	contacts []int
	iters    []int
	residual []uint64
	force    []uint64 // each step's FixedForce, x, y, z
}

func runFingerprint(t *testing.T, m *engine.Model, s engine.Settings, b engine.Backend, steps int) fingerprint {
	t.Helper()
	sim := newSim(t, m, s, b)
	var f fingerprint
	for k := 0; k < steps; k++ {
		st := step(t, sim)
		f.contacts = append(f.contacts, st.Contacts)
		f.iters = append(f.iters, st.Solve.Iterations)
		f.residual = append(f.residual, math.Float64bits(st.Solve.Residual))
		for _, c := range st.FixedForce {
			f.force = append(f.force, math.Float64bits(c))
		}
	}
	readState(t, sim, &f.state)
	return f
}

// sameBits reports the first difference between two fingerprints, or "".
func sameBits(a, b fingerprint) string {
	for k := range a.contacts {
		if a.contacts[k] != b.contacts[k] || a.iters[k] != b.iters[k] || a.residual[k] != b.residual[k] {
			return fmt.Sprintf("step %d: contacts %d/%d, iterations %d/%d, residual %v/%v", k+1,
				a.contacts[k], b.contacts[k], a.iters[k], b.iters[k],
				math.Float64frombits(a.residual[k]), math.Float64frombits(b.residual[k]))
		}
	}
	for i := range a.force {
		if a.force[i] != b.force[i] {
			return fmt.Sprintf("step %d: force on fixed bodies[%d] %v/%v", i/3+1, i%3,
				math.Float64frombits(a.force[i]), math.Float64frombits(b.force[i]))
		}
	}
	for _, f := range []struct {
		name string
		x, y []float64
	}{{"pos", a.state.Pos, b.state.Pos}, {"rot", a.state.Rot, b.state.Rot},
		{"vel", a.state.Vel, b.state.Vel}, {"omega", a.state.Omega, b.state.Omega}} {
		for i := range f.x {
			if math.Float64bits(f.x[i]) != math.Float64bits(f.y[i]) {
				return fmt.Sprintf("final %s[%d]: %v vs %v", f.name, i, f.x[i], f.y[i])
			}
		}
	}
	return ""
}

// TestDeterminismCPUWorkers checks that the CPU path gives bit-identical
// results whatever the number of goroutines, and from run to run: its
// parallel loops work on fixed partitions and every sum runs in a fixed
// order (cpuref/parallel.go). The loops only go parallel from two grains
// of work (8192 contacts, 32768 vector elements, 4096 bodies), so the
// scene is settle with 4200 spheres (4205 bodies with the walls): about
// 12 000 contacts once the pile forms. Warm start is on (the default) so the persistent-contact matching
// is covered too.
func TestDeterminismCPUWorkers(t *testing.T) {
	steps := 120 // 1.2 s at h = 0.01 s: the spheres have landed and piled up
	if testing.Short() {
		steps = 40
	}
	sc := loadScene(t, "settle", "n=4200", "settings.warm_start=true")
	if n := len(sc.Model.Bodies); n < 2*2048 {
		t.Fatalf("%d bodies: the test needs the body loops past two grains of 2048", n)
	}
	var ref fingerprint
	for i, workers := range []int{1, 2, 3, 1} {
		f := runFingerprint(t, &sc.Model, sc.Settings, cpuref.New(workers), steps)
		if i == 0 {
			ref = f
			if last := f.contacts[len(f.contacts)-1]; !testing.Short() && 3*last < 2*16384 {
				t.Fatalf("only %d contacts at the end: the test needs the vector loops (3·nc elements) past two grains of 16384", last)
			}
			continue
		}
		if d := sameBits(ref, f); d != "" {
			t.Errorf("workers = %d differs from workers = 1: %s", workers, d)
		}
	}
}

// TestDeterminismVulkan checks that the Vulkan path is bit-identical from
// run to run on the same device and driver: its kernels sum per body in
// contact order and reduce in a fixed tree, with no float atomics.
func TestDeterminismVulkan(t *testing.T) {
	steps := 60
	if testing.Short() {
		steps = 20
	}
	sc := loadScene(t, "settle", "n=250", "settings.warm_start=true")
	var ref fingerprint
	for i := 0; i < 2; i++ {
		b := backends[1].new(t)
		f := runFingerprint(t, &sc.Model, sc.Settings, b, steps)
		if i == 0 {
			ref = f
			if f.contacts[len(f.contacts)-1] == 0 {
				t.Fatal("no contacts at the end: the test would compare free fall only")
			}
			continue
		}
		if d := sameBits(ref, f); d != "" {
			t.Errorf("second run differs from the first: %s", d)
		}
	}
}

// TestCPUMatchesVulkan checks that the CPU path and the Vulkan path reach
// the same bits over a whole run, not only kernel by kernel: the same
// contacts, iterations, residual and force on fixed bodies at every step
// and the same final state, for every solver (pdip over 10 steps only:
// its Newton iterations each take a few submits and read-backs, 23 s on
// lavapipe, where its PCG loops run on the device, gpu/pcg.go). The CPU path sums its dot products and the force on
// fixed bodies in the device's order (cpuref/order.go), and its gs sweeps
// colour by colour in the device's order. The NVIDIA H100 gave lavapipe's
// bits over such runs (docs/bench-gpu.md).
func TestCPUMatchesVulkan(t *testing.T) {
	if testfile.GoFusesMultiplyAdd {
		t.Skip("bit-identity with the kernels needs Go code without fused multiply-adds: GOARCH=amd64 below GOAMD64=v3")
	}
	steps := 30
	if testing.Short() {
		steps = 10
	}
	for _, solver := range []string{"apgd", "apgd-ar", "jacobi", "spg", "gs", "pdip"} {
		t.Run(solver, func(t *testing.T) {
			steps := steps
			if solver == "pdip" {
				steps = 10
			}
			sc := loadScene(t, "settle", "n=250", "settings.warm_start=true", "settings.solver="+solver)
			cpu := runFingerprint(t, &sc.Model, sc.Settings, cpuref.New(0), steps)
			if cpu.contacts[len(cpu.contacts)-1] == 0 {
				t.Fatal("no contacts at the end: the test would compare free fall only")
			}
			vk := runFingerprint(t, &sc.Model, sc.Settings, backends[1].new(t), steps)
			if d := sameBits(cpu, vk); d != "" {
				t.Errorf("the Vulkan path differs from the CPU path: %s", d)
			}
		})
	}
}

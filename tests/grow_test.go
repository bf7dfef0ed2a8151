package tests

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// growBall is a ball of radius 0.1 m and 1 kg at p.
func growBall(p mgl64.Vec3) engine.Body {
	b := engine.Body{Shape: engine.SphereShape(0.1), Pos: p, Rot: mgl64.QuatIdent()}
	b.SetMass(1)
	return b
}

// bodyBits returns body i's state as bits (position, orientation,
// velocity, spin).
func bodyBits(s *engine.State, i int) [13]uint64 {
	var out [13]uint64
	for k := range 3 {
		out[k] = math.Float64bits(s.Pos[3*i+k])
		out[7+k] = math.Float64bits(s.Vel[3*i+k])
		out[10+k] = math.Float64bits(s.Omega[3*i+k])
	}
	for k := range 4 {
		out[3+k] = math.Float64bits(s.Rot[4*i+k])
	}
	return out
}

// TestGrow: ball A falls onto the ground and comes to rest (warm start
// on); at step 30 Sim.Grow adds ball B, 5 m up and 2 m aside, which falls
// freely for the remaining 70 steps and never touches A or the ground.
// On each backend, A's state and the step's contacts and iterations are
// bit-identical at every step to a run without B (state, step counter and
// warm-start memory survive the reload), and B's to a run of B alone from
// its start; the two backends agree on the end state.
func TestGrow(t *testing.T) {
	const before, after, dt = 30, 70, 0.01
	a, bb := growBall(mgl64.Vec3{0, 0, 0.3}), growBall(mgl64.Vec3{2, 0, 5})
	s := engine.DefaultSettings()
	s.Dt = dt
	s.WarmStart = true
	ends := map[string]engine.State{}
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		// The run without B: A's states and stats at every step.
		ref := newSim(t, groundModel(a), s, newBackend())
		var refA [][13]uint64
		var refStats []engine.StepStats
		var st engine.State
		for range before + after {
			refStats = append(refStats, step(t, ref))
			readState(t, ref, &st)
			refA = append(refA, bodyBits(&st, 1))
		}
		// B alone from its start.
		alone := newSim(t, groundModel(bb), s, newBackend())
		var refB [][13]uint64
		for range after {
			step(t, alone)
			readState(t, alone, &st)
			refB = append(refB, bodyBits(&st, 1))
		}

		sim := newSim(t, groundModel(a), s, newBackend())
		for k := range before + after {
			if k == before {
				if err := sim.Grow(groundModel(a, bb)); err != nil {
					t.Fatal(err)
				}
				if sim.Steps() != before {
					t.Fatalf("after Grow: step %d, want %d", sim.Steps(), before)
				}
			}
			got := step(t, sim)
			readState(t, sim, &st)
			if want := refStats[k]; got.Step != want.Step || got.Time != want.Time || got.Contacts != want.Contacts || got.Solve.Iterations != want.Solve.Iterations {
				t.Fatalf("step %d: step %d, time %v, %d contacts, %d iterations; without growing %d, %v, %d, %d",
					k+1, got.Step, got.Time, got.Contacts, got.Solve.Iterations, want.Step, want.Time, want.Contacts, want.Solve.Iterations)
			}
			if bodyBits(&st, 1) != refA[k] {
				t.Fatalf("step %d: ball A at %v differs from the run without growing", k+1, st.Pos[3:6])
			}
			if k >= before && bodyBits(&st, 2) != refB[k-before] {
				t.Fatalf("step %d: ball B at %v differs from B alone after %d steps", k+1, st.Pos[6:9], k-before+1)
			}
		}
		if refStats[before-1].Contacts == 0 {
			t.Fatal("ball A did not touch the ground before the grow: the test would not cover the warm start")
		}
		ends[t.Name()] = st
	})
	cpu, vk := ends["TestGrow/cpu"], ends["TestGrow/vulkan"]
	if cpu.Len() == 0 || vk.Len() == 0 {
		return
	}
	for i, x := range cpu.Pos {
		// 1e-9 m: both converge A's resting contact to the default
		// tolerance from the same start and B falls freely; the backends'
		// sums differ in order only (measured: equal bits on lavapipe).
		if math.Abs(x-vk.Pos[i]) > 1e-9 {
			t.Errorf("position component %d: cpu %v, vulkan %v", i, x, vk.Pos[i])
		}
	}
}

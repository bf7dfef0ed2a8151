package cpuref

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestStepAllocs: once a pile has settled (its contact count no longer
// grows past the capacity its buffers already have), a whole Sim.Step on
// the CPU path (collide, build, warm start, APGD, integrate) allocates
// nothing, also when its contact count differs from the last step's:
// solver vectors, γ (a reusedVec, which takes a new length in place),
// contact lists and the loops' operands are kept from step to step, and
// the worker pool runs without closures.
func TestStepAllocs(t *testing.T) {
	for _, warm := range []bool{false, true} {
		t.Run(fmt.Sprintf("warm=%v", warm), func(t *testing.T) {
			steps := 150 // 1.5 s: the settle pile of 300 is at rest
			if testing.Short() {
				steps = 60
			}
			sim := settledSim(t, 300, steps, warm)
			// Mallocs counts the whole process, so the runtime's own rare
			// allocations (a goroutine for a GC cycle, the cleanup of an
			// earlier test's worker pool) can land in a step; a round of
			// 20 steps is retried up to 3 times, while the engine's
			// allocations, being deterministic, fail every round.
			var errs []string
			for round := 0; round < 3; round++ {
				if errs = stepAllocs(t, sim); len(errs) == 0 {
					return
				}
			}
			for _, e := range errs {
				t.Error(e)
			}
		})
	}
}

// stepAllocs takes 20 steps and describes those that allocate, and fails
// if the contact count never changed (the steps with a new count are
// those that allocated before γ became a reusedVec).
func stepAllocs(t *testing.T, sim *engine.Sim) []string {
	runtime.GC()
	var m0, m1 runtime.MemStats
	var errs []string
	prev, changed := -1, 0
	for range 20 {
		runtime.ReadMemStats(&m0)
		st, err := sim.Step()
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		allocs := m1.Mallocs - m0.Mallocs
		if prev >= 0 && st.Contacts != prev {
			changed++
		}
		if prev >= 0 && allocs != 0 {
			errs = append(errs, fmt.Sprintf("step %d (%d contacts, %d before): %d allocations, want 0", st.Step, st.Contacts, prev, allocs))
		}
		prev = st.Contacts
	}
	if changed == 0 {
		t.Fatalf("the contact count stayed %d for 20 steps: no step tests a new count", prev)
	}
	return errs
}

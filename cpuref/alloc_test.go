package cpuref

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// reboxed is the number of allocations of a step whose contact count
// differs from the previous step's: Sim's γ keeps its storage but takes a
// new length, and a cpuref.Vec is a slice, so the new length boxes a new
// 24-byte slice header into an engine.Vec (APGD runs SolveAPGD on slices,
// never boxed). A step with the previous step's contact count allocates
// nothing.
const reboxed = 1

// TestStepAllocs: once a pile has settled (its contact count no longer
// grows past the capacity its buffers already have), a whole Sim.Step on
// the CPU path (collide, build, warm start, APGD, integrate) allocates
// nothing but the reboxed slice headers: solver vectors, γ, contact lists
// and the loops' operands are kept from step to step, and the worker pool
// runs without closures.
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

// stepAllocs takes 20 steps and describes those whose allocations differ
// from none (the previous step's contact count) or reboxed (another).
func stepAllocs(t *testing.T, sim *engine.Sim) []string {
	runtime.GC()
	var m0, m1 runtime.MemStats
	var errs []string
	prev := -1
	for range 20 {
		runtime.ReadMemStats(&m0)
		st, err := sim.Step()
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		allocs, want := m1.Mallocs-m0.Mallocs, uint64(0)
		if st.Contacts != prev {
			want = reboxed
		}
		if prev >= 0 && allocs != want {
			errs = append(errs, fmt.Sprintf("step %d (%d contacts, %d before): %d allocations, want %d", st.Step, st.Contacts, prev, allocs, want))
		}
		prev = st.Contacts
	}
	return errs
}

package cpuref

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestStepAllocs: once a pile has settled (its contact count no longer
// grows past the capacity its buffers already have), a whole Sim.Step on
// the CPU path (collide, build, warm start, APGD, integrate) allocates
// nothing, also when its contact count differs from the last step's:
// solver vectors, γ (a reusedVec, which takes a new length in place),
// contact lists and the loops' operands are kept from step to step, and
// the worker pool runs without closures. The pile of 2 500 runs the
// collision's pair search and narrowphase in parts on the workers (on a
// machine with more than one core): a part that allocated is seen there.
func TestStepAllocs(t *testing.T) {
	// Every allocation is recorded with its stack, so that one the runtime
	// makes for itself in a step is told from the engine's (see
	// stepAllocs). The rate applies to allocations from here on.
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	for _, c := range []struct {
		n, steps int
		warm     bool
	}{
		{300, 150, false}, // 1.5 s: the settle pile of 300 is at rest
		{300, 150, true},
		// Enough bodies and pairs for the collision's loops to run in
		// parts on the workers (collide: bodyGrain, pairGrain).
		{2500, 200, false},
	} {
		t.Run(fmt.Sprintf("n=%d/warm=%v", c.n, c.warm), func(t *testing.T) {
			// Short: the first pile only. Fewer steps would not do: the
			// pile of 300 is still forming at 60, and its buffers grow.
			if testing.Short() && (c.n > 300 || c.warm) {
				t.Skip("the first pile in the short run only")
			}
			sim := settledSim(t, c.n, c.steps, c.warm)
			for _, e := range stepAllocs(t, sim) {
				t.Error(e)
			}
		})
	}
}

// stepAllocs takes 20 steps and describes those that allocate, and fails
// if the contact count never changed (the steps with a new count are
// those that allocated before γ became a reusedVec).
//
// Mallocs counts the whole process, so the allocations of a step are
// looked up in the memory profile (every allocation is in it at
// MemProfileRate 1; runtime.GC publishes it, and is run only after a step
// that allocated), and those the runtime makes for itself are not the
// engine's:
//   - a type assertion to an interface or a type switch fills its call
//     site's cache at random, about once in 1024 executions, until the
//     site has seen every type (runtime.buildTypeAssertCache and
//     buildInterfaceSwitchCache: 48 B), so a step may allocate once
//     where the engine does not;
//   - a goroutine that blocks takes a sudog from the runtime's cache, which
//     every GC empties (runtime.acquireSudog: the worker pool's wait in
//     the step after a GC);
//   - a stack with no frame in this module (a GC worker, the cleanup of an
//     earlier test's worker pool).
func stepAllocs(t *testing.T, sim *engine.Sim) []string {
	var m0, m1 runtime.MemStats
	var errs []string
	prev, changed := -1, 0
	runtime.GC()
	before := allocStacks()
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
			runtime.GC()
			after := allocStacks()
			for stack, n := range after {
				if n -= before[stack]; n > 0 && !runtimeOwn(stack) {
					errs = append(errs, fmt.Sprintf("step %d (%d contacts, %d before): %d allocations at\n%s", st.Step, st.Contacts, prev, n, stack))
				}
			}
			before = after
		}
		prev = st.Contacts
	}
	if changed == 0 {
		t.Fatalf("the contact count stayed %d for 20 steps: no step tests a new count", prev)
	}
	return errs
}

// allocStacks returns the memory profile's allocation counts by stack,
// each stack as its functions, one per line.
func allocStacks() map[string]int64 {
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+64)
	n, ok := runtime.MemProfile(recs, true)
	if !ok {
		panic("the memory profile grew by more than 64 records")
	}
	out := make(map[string]int64, n)
	for _, r := range recs[:n] {
		var b strings.Builder
		frames := runtime.CallersFrames(r.Stack())
		for {
			f, more := frames.Next()
			b.WriteString("\t" + f.Function + "\n")
			if !more {
				break
			}
		}
		out[b.String()] += r.AllocObjects
	}
	return out
}

// runtimeOwn reports whether an allocation's stack (allocStacks) is the
// runtime's own (a call site's type cache, a sudog, or no frame of this module) or
// allocStacks' own.
func runtimeOwn(stack string) bool {
	if strings.Contains(stack, "\truntime.buildTypeAssertCache\n") ||
		strings.Contains(stack, "\truntime.buildInterfaceSwitchCache\n") ||
		strings.Contains(stack, "\truntime.acquireSudog\n") {
		return true
	}
	return !strings.Contains(stack, "\tgithub.com/gpusim/gpusim/") ||
		strings.Contains(stack, "\tgithub.com/gpusim/gpusim/cpuref.allocStacks\n")
}

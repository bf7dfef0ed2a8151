//go:build soak

package tests

import (
	"math"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/testfile"
)

// The soak test runs outside the default tests (make soak): settle for
// GPUSIM_SOAK_STEPS steps (default 10 000, 100 s of simulated time) on
// each backend, checking that every step's residual and the state stay
// finite and that memory stays flat once the pile has formed.

func soakSteps(t *testing.T) int {
	if s := os.Getenv("GPUSIM_SOAK_STEPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2000 {
			t.Fatalf("GPUSIM_SOAK_STEPS=%q: want an integer ≥ 2000", s)
		}
		return n
	}
	return 10000
}

func TestSoak(t *testing.T) {
	steps := soakSteps(t)
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		sc := loadScene(t, "settle")
		sim := newSim(t, &sc.Model, sc.Settings, newBackend())
		var state engine.State
		// Memory is sampled from step 1000 on (10 s: the pile has formed
		// and the contact count has stopped growing, so every buffer has
		// reached its size).
		const from = 1000
		var rss0, heap0 int64
		var ms runtime.MemStats
		for k := 1; k <= steps; k++ {
			st := step(t, sim)
			if math.IsNaN(st.Solve.Residual) || math.IsInf(st.Solve.Residual, 0) {
				t.Fatalf("step %d: residual %v", k, st.Solve.Residual)
			}
			if k%500 != 0 && k != from {
				continue
			}
			readState(t, sim, &state)
			for i, v := range state.Pos {
				if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 100 {
					t.Fatalf("step %d: body %d position component %v", k, i/3, v)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&ms)
			rss := testfile.ResidentBytes(t)
			if k == from {
				rss0, heap0 = rss, int64(ms.HeapInuse)
			}
			t.Logf("step %d: %d contacts, RSS %.1f MiB, Go heap in use %.1f MiB", k, st.Contacts,
				float64(rss)/(1<<20), float64(ms.HeapInuse)/(1<<20))
		}
		// Flat: within 10 % (and at most 16 MiB) of the figures at step
		// 1000. Contacts still fluctuate by a few per cent as the pile
		// creeps, and buffers grow by 25 % steps, so a single growth of a
		// contact buffer is allowed; a leak per step (even 1 KiB over
		// 9000 steps = 9 MiB) is not.
		readRSS := testfile.ResidentBytes(t)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		limit := func(base int64) int64 { return base + min(base/10, 16<<20) }
		if readRSS > limit(rss0) {
			t.Errorf("resident memory grew from %d MiB at step %d to %d MiB at step %d", rss0>>20, from, readRSS>>20, steps)
		}
		if h := int64(ms.HeapInuse); h > limit(heap0) {
			t.Errorf("Go heap in use grew from %d KiB at step %d to %d KiB at step %d", heap0>>10, from, h>>10, steps)
		}
	})
}

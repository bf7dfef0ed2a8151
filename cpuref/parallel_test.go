package cpuref

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// visitTask counts, per element, how often a loop's parts visited it.
type visitTask struct{ seen []int32 }

func (v *visitTask) run(_, lo, hi int) {
	for i := lo; i < hi; i++ {
		v.seen[i]++ // parts are disjoint: no two goroutines write one element
	}
}

// meetTask's parts wait for each other: each counts itself in and waits
// until all np have, so the loop ends only if as many goroutines run its
// parts at once (or fails after a timeout).
type meetTask struct {
	in     atomic.Int32
	np     int32
	failed atomic.Bool
}

func (m *meetTask) run(_, _, _ int) {
	m.in.Add(1)
	for end := time.Now().Add(10 * time.Second); m.in.Load() < m.np; {
		if time.Now().After(end) {
			m.failed.Store(true)
			return
		}
		runtime.Gosched()
	}
}

// TestPoolCrew runs many loops of random sizes on pools of 2, 3 and 5
// workers, some right after each other (the helpers spinning) and some
// after a pause longer than the spin (asleep): every element is visited
// once per loop; a loop of as many parts as workers whose parts wait for
// each other ends (every helper woke and joined); and a pool no longer
// referenced stops its helpers.
func TestPoolCrew(t *testing.T) {
	// At least two processors: with one the pool runs every loop on the
	// caller, and the parts that wait for each other would never meet.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	before := runtime.NumGoroutine()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, workers := range []int{2, 3, 5} {
		p := newPool(workers)
		for i := range 600 {
			if i%50 == 49 {
				time.Sleep(2 * time.Millisecond) // a Gosched is 0.1 µs: the helpers sleep
			}
			if i%10 == 0 {
				m := &meetTask{np: int32(workers)}
				p.run(workers, 1, m)
				if m.failed.Load() {
					t.Fatalf("%d workers, loop %d: the %d parts did not run at once: a helper did not join", workers, i, workers)
				}
				continue
			}
			n, grain := rng.IntN(5000), 1+rng.IntN(700)
			v := &visitTask{seen: make([]int32, n)}
			p.runOrdered(n, grain, v, rng.IntN(2) == 0)
			for k, c := range v.seen {
				if c != 1 {
					t.Fatalf("%d workers, loop %d (n %d, grain %d): element %d visited %d times", workers, i, n, grain, k, c)
				}
			}
		}
	}
	// The pools are garbage now: their cleanups stop the helpers.
	helpersStop(t, before, "pools were")
}

// TestBackendStopsHelpers: a backend whose pool ran parallel loops (tasks
// that point back into the backend) stops its helpers once dropped.
func TestBackendStopsHelpers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))) // as TestPoolCrew
	before := runtime.NumGoroutine()
	func() {
		b, p := latticeBackendOn(t, 8000, 2)
		x := p.NewVec(3 * b.con.Len())
		y := p.NewVec(3 * b.con.Len())
		p.Fill(x, 1)
		p.Schur(y, x) // parallel loops: 25 000 contacts, 8000 bodies
		if b.pool.crew == nil {
			t.Fatal("the Schur product ran no parallel loop")
		}
	}()
	helpersStop(t, before, "backend was")
}

// helpersStop waits (up to 10 s, collecting garbage) until no more
// goroutines run than before, and fails if they do not: what was dropped
// (a pool, a backend) has stopped its helpers.
func helpersStop(t *testing.T, before int, what string) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; {
		runtime.GC()
		if runtime.NumGoroutine() <= before {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%d goroutines after the %s dropped, %d before", runtime.NumGoroutine(), what, before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

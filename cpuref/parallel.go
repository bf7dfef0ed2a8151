package cpuref

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// chunk is the fixed partition of reductions (Dot sums each chunk of
// 2048 elements, then the chunk sums, in the device's order: order.go).
// It never depends on the number of workers, which keeps reductions
// bit-identical.
const chunk = 2048

// Grains of the loops without reductions: each element's result depends
// on nothing but the element, so the partition changes no value; it only
// sets how much work one worker takes at a time. A loop with fewer
// elements than two grains runs on the calling goroutine. Measured on the
// shared 2-core machine (BenchmarkStep, settle n = 1000, 2 workers): with
// grains of 512 contacts and 256 bodies the ~700 parallel loops of a step
// cost 30–45 % more CPU time and 40 % more wall time than one goroutine;
// with these grains n = 1000 runs its loops on one goroutine, while
// n = 64 000 (BenchmarkLatticeStep) runs in 1.4–1.5 s on 2 workers against
// 2.0–2.2 s on one.
const (
	vecGrain     = 16384
	contactGrain = 4096
	bodyGrain    = 2048
)

// task is the body of a parallel loop: run handles the part [lo, hi) of
// the loop, part c of the partition. Tasks are pointers to structs that
// live as long as their owner, so that handing one to the pool does not
// allocate.
type task interface {
	run(c, lo, hi int)
}

// pool runs loops over fixed partitions on up to workers goroutines: the
// caller and workers−1 helpers started at the first parallel loop, which
// claim parts in any order (a part's result does not depend on who
// computes it). It is not safe for concurrent use: one loop at a time.
type pool struct {
	workers int
	partial []float64 // per-chunk partial sums of Dot
	jobs    chan *job // to the helpers; nil until the first parallel loop
	job     job

	// The vector operations' loop bodies, reused from call to call.
	axpby   axpbyTask
	mulElem mulElemTask
	dot     dotTask

	// Scratch arrays of the parts that are running, one per worker at
	// most, kept from loop to loop (scratch, release).
	free chan []float64
}

// job is one parallel loop.
type job struct {
	t            task
	n, grain, np int
	back         bool         // parts are claimed from the last one down (forChunksBack)
	next         atomic.Int64 // the next part to claim
	wg           sync.WaitGroup
}

func newPool(workers int) *pool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &pool{workers: workers, free: make(chan []float64, workers)}
}

// scratch returns an array of n float64 of unspecified contents for one
// part of a loop: one that an earlier part released, or a new one. A part
// releases it when it ends, so a loop's parts hold at most one per worker.
func (p *pool) scratch(n int) []float64 {
	var s []float64
	select {
	case s = <-p.free:
	default:
	}
	if cap(s) < n {
		s = make([]float64, n)
	}
	return s[:n]
}

// release hands back an array that scratch returned.
func (p *pool) release(s []float64) {
	select {
	case p.free <- s:
	default:
	}
}

// work claims and runs parts until none is left.
func (j *job) work() {
	for {
		c := int(j.next.Add(1)) - 1
		if c >= j.np {
			return
		}
		if j.back {
			c = j.np - 1 - c
		}
		lo := c * j.grain
		j.t.run(c, lo, min(lo+j.grain, j.n))
	}
}

// helper runs the jobs it receives until jobs is closed (when its pool is
// garbage collected).
func helper(jobs <-chan *job) {
	for j := range jobs {
		j.work()
		j.wg.Done()
	}
}

// run calls t.run(c, lo, hi) for the parts [c·grain, min((c+1)·grain, n))
// and returns when all are done.
func (p *pool) run(n, grain int, t task) { p.runOrdered(n, grain, t, false) }

// runOrdered is run, with the parts from the last one down when back.
func (p *pool) runOrdered(n, grain int, t task, back bool) {
	np := (n + grain - 1) / grain
	if np <= 1 || p.workers == 1 {
		for i := 0; i < np; i++ {
			c := i
			if back {
				c = np - 1 - i
			}
			lo := c * grain
			t.run(c, lo, min(lo+grain, n))
		}
		return
	}
	if p.jobs == nil {
		p.jobs = make(chan *job, p.workers)
		for range p.workers - 1 {
			go helper(p.jobs)
		}
		runtime.AddCleanup(p, func(jobs chan *job) { close(jobs) }, p.jobs)
	}
	j := &p.job
	j.t, j.n, j.grain, j.np, j.back = t, n, grain, np, back
	j.next.Store(0)
	h := min(p.workers, np) - 1
	j.wg.Add(h)
	for range h {
		p.jobs <- j
	}
	j.work()
	j.wg.Wait()
	j.t = nil
}

// forChunks runs t over the parts of grain elements of [0, n) when there
// are at least two, else on the calling goroutine in one call.
func (p *pool) forChunks(n, grain int, t task) { p.forChunksOrdered(n, grain, t, false) }

// forChunksBack is forChunks with the parts taken from the last one down
// (and a loop of one call running its elements from the last one down
// where it can: contactRows): for a loop whose parts are independent, run
// after one that went up the same arrays, so that it starts on what that
// one left in the cache (the contact velocities after the body impulses'
// scatter, which reads their Jacobians in order: 8 % of a step at
// N = 8000 and 12 % at 64 000, one worker, BenchmarkStep and
// BenchmarkLatticeStep).
func (p *pool) forChunksBack(n, grain int, t task) { p.forChunksOrdered(n, grain, t, true) }

// forChunksOrdered is forChunks in runOrdered's order.
func (p *pool) forChunksOrdered(n, grain int, t task, back bool) {
	if n < 2*grain {
		if n > 0 {
			t.run(0, 0, n)
		}
		return
	}
	p.runOrdered(n, grain, t, back)
}

// sum returns Σ t over the fixed chunks of [0, n), adding the chunk sums
// (which t.run stores in p.partial[c]) in the device's order (sumChunks).
func (p *pool) sum(n int, t task) float64 {
	nc := (n + chunk - 1) / chunk
	if cap(p.partial) < nc {
		p.partial = make([]float64, nc)
	}
	p.partial = p.partial[:nc]
	if n >= vecGrain {
		p.run(n, chunk, t)
	} else {
		for c := 0; c < nc; c++ {
			lo := c * chunk
			t.run(c, lo, min(lo+chunk, n))
		}
	}
	return sumChunks(p.partial)
}

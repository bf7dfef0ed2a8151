package cpuref

import (
	"runtime"
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

// sweepGrain is a Gauss–Seidel colour's part (sweepContacts): a colour is
// a few hundred to a few thousand contacts, each about 30 ns of work. (A
// variable for TestSweepWorkersBits.)
var sweepGrain = 1024

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
	crew    *crew     // the helpers; nil until the first parallel loop

	// The vector operations' loop bodies, reused from call to call.
	axpby   axpbyTask
	mulElem mulElemTask
	dot     dotTask

	// Scratch arrays of the parts that are running, one per worker at
	// most, kept from loop to loop (scratch, release).
	free chan []float64
}

// crew is what the helpers share with the pool's loops (not the pool
// itself, so that a pool no longer used is collected and its cleanup
// stops them).
//
// A loop is handed to the helpers as a seqlock's writer hands over its
// data: gen becomes odd, the job's fields are written once no helper is
// active, and gen becomes even again (publish). A helper that sees a new
// even gen joins the job (active), checks that gen has not moved on, and
// claims parts until none is left. The caller returns once every part is
// done; a helper that joins late finds the parts all claimed and touches
// nothing else, and one that joins while the next job is written sees
// gen odd and leaves without reading it.
//
// Between loops a helper spins (spinRounds calls of runtime.Gosched,
// which leave the processor to any other goroutine), then sleeps on its
// wake channel until the next loop wakes it. Sleeping between every
// loop, as helpers blocked on a channel did, made each loop wait for the
// helper's wake-up: 139 µs on average at N = 64 000 on 2 workers
// (BenchmarkLatticeStep's step, 336 loops per step), while the caller
// ran the parts alone; the solve's loops follow each other within a few
// µs.
type crew struct {
	job    job
	gen    atomic.Uint64 // even: the published job's number; odd while a job is written
	active atomic.Int32  // helpers in the published job
	done   atomic.Int32  // its parts done
	stop   atomic.Bool
	sleep  []helperSleep
}

// helperSleep is one helper's sleep: asleep is 1 while it sleeps or is
// about to, and whoever sets it back to 0 (the helper on seeing a job, or
// a loop that wakes it) decides whether a wake token is sent (the loop)
// or not (the helper).
type helperSleep struct {
	asleep atomic.Int32
	wake   chan struct{}
}

// spinRounds is how many times a helper yields while it waits for the
// next loop before it sleeps: about 80 µs (a Gosched with nothing else to
// run took 75–83 ns on the 2-core machine), longer than the gaps between
// the solve's loops and shorter than collision's serial parts.
const spinRounds = 1000

// job is one parallel loop.
type job struct {
	t            task
	n, grain, np int
	back         bool         // parts are claimed from the last one down (forChunksBack)
	next         atomic.Int64 // the next part to claim
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

// work claims and runs parts until none is left, counting them done.
func (c *crew) work() {
	j := &c.job
	for {
		k := int(j.next.Add(1)) - 1
		if k >= j.np {
			return
		}
		if j.back {
			k = j.np - 1 - k
		}
		lo := k * j.grain
		j.t.run(k, lo, min(lo+j.grain, j.n))
		c.done.Add(1)
	}
}

// helper runs the crew's jobs until the crew stops.
func (c *crew) helper(h *helperSleep) {
	var seen uint64
	for {
		g := c.wait(h, seen)
		if c.stop.Load() {
			return
		}
		seen = g
		c.active.Add(1)
		if c.gen.Load() == g {
			c.work()
		}
		c.active.Add(-1)
	}
}

// wait returns the first even gen after seen: spinning, then asleep.
func (c *crew) wait(h *helperSleep, seen uint64) uint64 {
	for i := 0; ; i++ {
		if g := c.gen.Load(); g != seen && g%2 == 0 {
			return g
		}
		if i < spinRounds {
			runtime.Gosched()
			continue
		}
		h.asleep.Store(1)
		if g := c.gen.Load(); g != seen {
			// A job is published or being written: no sleep.
			if !h.asleep.CompareAndSwap(1, 0) {
				<-h.wake // a publish set it back and sent a token
			}
			i = 0
			continue
		}
		<-h.wake
		i = 0
	}
}

// publish hands the job written in c.job (gen odd) to the helpers,
// waking those asleep.
func (c *crew) publish() {
	c.gen.Add(1)
	c.wakeAll()
}

// wakeAll wakes the helpers asleep.
func (c *crew) wakeAll() {
	for i := range c.sleep {
		if h := &c.sleep[i]; h.asleep.CompareAndSwap(1, 0) {
			h.wake <- struct{}{}
		}
	}
}

// halt stops the helpers (the pool's cleanup).
func (c *crew) halt() {
	c.stop.Store(true)
	c.gen.Add(2)
	c.wakeAll()
}

// run calls t.run(c, lo, hi) for the parts [c·grain, min((c+1)·grain, n))
// and returns when all are done.
func (p *pool) run(n, grain int, t task) { p.runOrdered(n, grain, t, false) }

// runOrdered is run, with the parts from the last one down when back.
func (p *pool) runOrdered(n, grain int, t task, back bool) {
	np := (n + grain - 1) / grain
	// With one processor the helpers could only take turns with the
	// caller (and their spinning would cost it: 5 % of an 8000-sphere run
	// with two workers at GOMAXPROCS=1).
	if np <= 1 || p.workers == 1 || runtime.GOMAXPROCS(0) == 1 {
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
	c := p.crew
	if c == nil {
		c = &crew{sleep: make([]helperSleep, p.workers-1)}
		for i := range c.sleep {
			c.sleep[i].wake = make(chan struct{}, 1)
			go c.helper(&c.sleep[i])
		}
		runtime.AddCleanup(p, func(c *crew) { c.halt() }, c)
		p.crew = c
	}
	// The last loop's late helpers leave before its job is rewritten.
	c.gen.Add(1)
	for c.active.Load() != 0 {
		runtime.Gosched()
	}
	j := &c.job
	j.t, j.n, j.grain, j.np, j.back = t, n, grain, np, back
	j.next.Store(0)
	c.done.Store(0)
	c.publish()
	c.work()
	for int(c.done.Load()) != np {
		runtime.Gosched()
	}
	// Every part is claimed: a helper that joins late reads no task. The
	// crew, which the helpers keep alive, must not keep the task either:
	// tasks point into the pool's owner, and through it to the pool, which
	// would then never be collected nor its helpers stopped
	// (TestBackendStopsHelpers).
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

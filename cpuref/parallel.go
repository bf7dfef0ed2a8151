package cpuref

import (
	"runtime"
	"sync"
)

// chunk is the fixed partition size of parallel loops. Partitions never
// depend on the number of workers, which keeps reductions bit-identical.
const chunk = 2048

// pool runs loops over fixed partitions on up to workers goroutines.
type pool struct {
	workers int
	partial []float64 // per-chunk partial sums of Dot
}

func newPool(workers int) *pool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &pool{workers: workers}
}

// forChunks calls fn(lo, hi) for the chunks [k·chunk, min((k+1)·chunk, n)).
func (p *pool) forChunks(n int, fn func(c, lo, hi int)) {
	nc := (n + chunk - 1) / chunk
	if nc <= 1 || p.workers == 1 {
		for c := 0; c < nc; c++ {
			lo := c * chunk
			fn(c, lo, min(lo+chunk, n))
		}
		return
	}
	w := min(p.workers, nc)
	var wg sync.WaitGroup
	wg.Add(w)
	for g := 0; g < w; g++ {
		go func(g int) {
			defer wg.Done()
			for c := g; c < nc; c += w {
				lo := c * chunk
				fn(c, lo, min(lo+chunk, n))
			}
		}(g)
	}
	wg.Wait()
}

// sum returns Σ f over fixed chunks of [0, n), adding the chunk sums in
// chunk order.
func (p *pool) sum(n int, f func(lo, hi int) float64) float64 {
	nc := (n + chunk - 1) / chunk
	if cap(p.partial) < nc {
		p.partial = make([]float64, nc)
	}
	part := p.partial[:nc]
	p.forChunks(n, func(c, lo, hi int) { part[c] = f(lo, hi) })
	s := 0.0
	for _, v := range part {
		s += v
	}
	return s
}

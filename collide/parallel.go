package collide

import "github.com/gpusim/gpusim/engine"

// Runner runs f(part, lo, hi) over the parts [part·grain, min((part+1)·grain,
// n)) of a loop of n elements, on as many goroutines as it has, in any
// order, and returns when every part is done (cpuref's worker pool).
// Collide's narrowphase writes only its own part's buffers in such a loop,
// so the contacts do not depend on the runner: they are the serial loop's,
// bit for bit and in the same order, for any number of workers.
type Runner func(n, grain int, f func(part, lo, hi int))

// SetRunner makes Collide run the broadphase's pair search (Grid.SetRunner)
// and the narrowphase with r; nil (the default) runs them on the calling
// goroutine.
func (c *Collider) SetRunner(r Runner) {
	c.runner = r
	c.grid.SetRunner(r)
}

// The parallel narrowphase cuts the candidate pairs into parts of
// pairGrain pairs and runs them a wave of waveParts parts at a time, each
// part into its own buffers, which are appended to the contacts in order
// after the wave. The buffers are those of one wave, reused, with room for
// one contact per pair (spheres' most; 124 B in engine.Contacts and sub):
// 254 KB per part, 4.1 MB for the wave, whatever the model's size,
// not a second copy of every contact (an earlier version kept every
// part's buffers: 350 B more per body at N = 64 000, and no faster).
// Parts of 2048 pairs rather than 512 make a quarter of the waves, each a
// wake-up of the workers: BenchmarkCollide n=64000 on 2 workers took
// 63–65 ms against 67–72 (apart leaves most pairs a few ns of work).
// Compound bodies (collideParts) collide on the calling goroutine.
const (
	pairGrain = 2048
	waveParts = 16
)

// narrowPart is the narrowphase's output for one part of a wave: its
// contacts and their numbers within their pairs, in pair order, or the
// first error.
type narrowPart struct {
	con engine.Contacts
	sub []int32
	cps []ContactPoint
	err error
	// Parts are claimed in order, so two workers fill neighbouring parts
	// at once, writing their slices' headers contact by contact: without
	// the pad the end of one part and the start of the next shared a
	// cache line, which moved between the cores on every contact.
	_ [64]byte
}

// narrowArgs are the operands of a wave (no closure is made per step).
type narrowArgs struct {
	pos, rot []float64
	env      float64
	first    int // the wave's first pair
}

// narrowParallel sets c.con and c.sub to the contacts of the candidate
// pairs c.pairs (bodies, not parts) as the serial loop does, the parts of
// each wave on c.runner. It returns the first error in pair order.
func (c *Collider) narrowParallel(pos, rot []float64, env float64) error {
	if c.narrowFn == nil {
		c.narrowFn = c.narrowPart
	}
	if len(c.wave) < waveParts {
		c.wave = make([]narrowPart, waveParts)
	}
	defer func() { c.nargs = narrowArgs{} }()
	con := &c.con
	for first := 0; first < len(c.pairs); first += waveParts * pairGrain {
		n := min(waveParts*pairGrain, len(c.pairs)-first)
		c.nargs = narrowArgs{pos: pos, rot: rot, env: env, first: first}
		c.runner(n, pairGrain, c.narrowFn)
		for p := range (n + pairGrain - 1) / pairGrain {
			part := &c.wave[p]
			if part.err != nil {
				return part.err
			}
			con.Append(&part.con)
			c.sub = append(c.sub, part.sub...)
		}
	}
	return nil
}

// narrowPart computes the contacts of the wave's pairs [lo, hi) into part
// p's buffers.
func (c *Collider) narrowPart(p, lo, hi int) {
	a, part := &c.nargs, &c.wave[p]
	// Room for one contact per pair, so that a part of spheres never grows
	// in a later step (a part's count can pass its earlier ones while the
	// whole count does not); pairs with more contacts grow it as needed.
	part.con.Empty(hi-lo, c.rolling)
	if cap(part.sub) < hi-lo {
		part.sub = make([]int32, 0, hi-lo)
	}
	// sub and cps as locals, stored once (not per pair: the same cache
	// line reason as the pad above).
	sub, cps := part.sub[:0], part.cps
	var err error
	for _, pr := range c.pairs[a.first+lo : a.first+hi] {
		i, j := int(pr[0]), int(pr[1])
		var n int
		n, cps, err = c.PairContacts(i, j, a.pos, a.rot, a.env+c.margin[i]+c.margin[j], &part.con, cps)
		if err != nil {
			break
		}
		for k := range n {
			sub = append(sub, int32(k))
		}
	}
	part.sub, part.cps, part.err = sub, cps, err
}

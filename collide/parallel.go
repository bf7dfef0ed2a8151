package collide

import "github.com/gpusim/gpusim/engine"

// Runner runs f(part, lo, hi) over the parts [part·grain, min((part+1)·grain,
// n)) of a loop of n elements, on as many goroutines as it has, in any
// order, and returns when every part is done. Collide's parallel loops
// write only their own elements or their own part's buffers, so the
// contacts do not depend on the runner: they are those of the serial
// loops, bit for bit and in the same order, for any number of workers.
type Runner func(n, grain int, f func(part, lo, hi int))

// SetRunner makes Collide run its per-body loop and the narrowphase with
// r; nil (the default) runs them on the calling goroutine.
func (c *Collider) SetRunner(r Runner) { c.runner = r }

// serial is the Runner of a Collider without one: the parts in order on
// the calling goroutine.
func serial(n, grain int, f func(part, lo, hi int)) {
	for p, lo := 0, 0; lo < n; p, lo = p+1, lo+grain {
		f(p, lo, min(lo+grain, n))
	}
}

// run is c's runner, or serial.
func (c *Collider) run(n, grain int, f func(part, lo, hi int)) {
	if c.runner == nil {
		serial(n, grain, f)
		return
	}
	c.runner(n, grain, f)
}

// Grains of Collide's parallel loops: fixed, so that the partition (and
// with it the concatenation order of the narrowphase's parts) never
// depends on the number of workers. A part of 512 pairs is about 0.1 ms of
// sphere narrowphase; settle N = 64 000 has about 400 parts.
const (
	bodyGrain = 2048
	pairGrain = 512
)

// narrowPart is the narrowphase's output for one part of the candidate
// pairs: its contacts and their numbers within their pairs, in pair order,
// or the first error.
type narrowPart struct {
	con engine.Contacts
	sub []int32
	cps []ContactPoint
	err error
	off int // the part's first contact in the concatenation
}

// narrow computes the contacts of the candidate pairs c.pairs (bodies, not
// parts) into c.con and c.sub: each part of pairGrain pairs into its own
// buffers, possibly in parallel, then the parts concatenated in order —
// the list a serial loop over the pairs makes. The first error in pair
// order is returned.
func (c *Collider) narrow() error {
	defer func() { c.args = collideArgs{} }()
	np := (len(c.pairs) + pairGrain - 1) / pairGrain
	for len(c.narrowParts) < np {
		c.narrowParts = append(c.narrowParts, narrowPart{})
	}
	c.run(len(c.pairs), pairGrain, c.narrowFn)
	parts := c.narrowParts[:np]
	total := 0
	for p := range parts {
		if parts[p].err != nil {
			return parts[p].err
		}
		parts[p].off = total
		total += parts[p].con.Len()
	}
	c.con.Resize(total)
	c.sub = resizeBuf(c.sub, total)
	c.run(np, 1, c.concatFn)
	return nil
}

// narrowPart computes the contacts of the candidate pairs [lo, hi), part
// p, into the part's buffers.
func (c *Collider) narrowPart(p, lo, hi int) {
	a, part := &c.args, &c.narrowParts[p]
	part.con.Resize(0)
	part.sub, part.err = part.sub[:0], nil
	for _, pr := range c.pairs[lo:hi] {
		i, j := int(pr[0]), int(pr[1])
		var n int
		n, part.cps, part.err = c.PairContacts(i, j, a.pos, a.rot, a.env+c.margin[i]+c.margin[j], &part.con, part.cps)
		if part.err != nil {
			return
		}
		for k := range n {
			part.sub = append(part.sub, int32(k))
		}
	}
}

// concatPart copies part p's contacts to their place in c.con and c.sub.
func (c *Collider) concatPart(p, _, _ int) {
	con, part := &c.con, &c.narrowParts[p]
	src, o := &part.con, part.off
	copy(con.A[o:], src.A)
	copy(con.B[o:], src.B)
	copy(con.Normal[3*o:], src.Normal)
	copy(con.PA[3*o:], src.PA)
	copy(con.PB[3*o:], src.PB)
	copy(con.Phi[o:], src.Phi)
	copy(con.Mu[o:], src.Mu)
	copy(con.Cohesion[o:], src.Cohesion)
	copy(con.Rolling[o:], src.Rolling)
	copy(con.Spinning[o:], src.Spinning)
	copy(c.sub[o:], part.sub)
}

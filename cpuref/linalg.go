package cpuref

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// Vec is the cpuref vector: host memory.
type Vec []float64

// Len returns the length.
func (v Vec) Len() int { return len(v) }

// linalg implements engine.LinAlg on Vec with a pool.
type linalg struct{ pool *pool }

func vec(v engine.Vec) Vec {
	x, ok := v.(Vec)
	if !ok {
		panic(fmt.Sprintf("cpuref: vector of type %T is not a cpuref.Vec", v))
	}
	return x
}

// NewVec returns a zeroed vector of length n.
func (l linalg) NewVec(n int) engine.Vec { return make(Vec, n) }

// Copy sets dst = src.
func (l linalg) Copy(dst, src engine.Vec) { copy(vec(dst), vec(src)) }

// Fill sets dst_i = v.
func (l linalg) Fill(dst engine.Vec, v float64) {
	d := vec(dst)
	for i := range d {
		d[i] = v
	}
}

// Axpby sets dst_i = a·x_i + b·y_i.
func (l linalg) Axpby(dst engine.Vec, a float64, x engine.Vec, b float64, y engine.Vec) {
	t := &l.pool.axpby
	t.d, t.x, t.y, t.a, t.b = vec(dst), vec(x), vec(y), a, b
	l.pool.forChunks(len(t.d), vecGrain, t)
	*t = axpbyTask{}
}

type axpbyTask struct {
	d, x, y Vec
	a, b    float64
}

func (t *axpbyTask) run(_, lo, hi int) {
	d, xv, yv, a, b := t.d[lo:hi], t.x[lo:hi], t.y[lo:hi], t.a, t.b
	for i := range d {
		d[i] = a*xv[i] + b*yv[i]
	}
}

// MulElem sets dst_i = x_i·y_i.
func (l linalg) MulElem(dst, x, y engine.Vec) {
	t := &l.pool.mulElem
	t.d, t.x, t.y = vec(dst), vec(x), vec(y)
	l.pool.forChunks(len(t.d), vecGrain, t)
	*t = mulElemTask{}
}

type mulElemTask struct{ d, x, y Vec }

func (t *mulElemTask) run(_, lo, hi int) {
	d, xv, yv := t.d[lo:hi], t.x[lo:hi], t.y[lo:hi]
	for i := range d {
		d[i] = xv[i] * yv[i]
	}
}

// Dot returns Σ x_i·y_i, summed per fixed chunk in the device's order
// (order.go).
func (l linalg) Dot(x, y engine.Vec) float64 {
	t := &l.pool.dot
	t.x, t.y, t.part = vec(x), vec(y), l.pool
	s := l.pool.sum(len(t.x), t)
	*t = dotTask{}
	return s
}

type dotTask struct {
	x, y Vec
	part *pool
}

func (t *dotTask) run(c, lo, hi int) {
	x, y := t.x[lo:hi], t.y[lo:hi]
	y = y[:len(x)]
	// Lane l's terms are l, l+256, …: row j adds term 256j+l to lane l,
	// rows in order (apgdDot6 does the same).
	var s [lanes]float64
	for j := 0; j < len(x); j += lanes {
		m := min(lanes, len(x)-j)
		xs, ys, ss := x[j:j+m], y[j:j+m], s[:m]
		for i := range xs {
			ss[i] += xs[i] * ys[i]
		}
	}
	t.part.partial[c] = laneTree(&s)
}

// Write copies src into dst.
func (l linalg) Write(dst engine.Vec, src []float64) { copy(vec(dst), src) }

// Read copies src into dst.
func (l linalg) Read(dst []float64, src engine.Vec) { copy(dst, vec(src)) }

// ReuseVec returns v when it is a Vec of length n, v resliced to length n
// when it is a Vec with room for n elements, else a new Vec of length n
// with room to grow (roomy); the contents are unspecified
// (engine.VecReuser). Reslicing boxes a new slice header into the
// interface, one small allocation; keeping v allocates nothing.
func (l linalg) ReuseVec(v engine.Vec, n int) engine.Vec {
	x, ok := v.(Vec)
	switch {
	case ok && len(x) == n:
		return v
	case ok && cap(x) >= n:
		return x[:n]
	}
	return make(Vec, n, roomy(n))
}

// taskFunc adapts a loop body made once (a method value kept in a field)
// to task without an allocation per loop.
type taskFunc func(c, lo, hi int)

func (f taskFunc) run(c, lo, hi int) { f(c, lo, hi) }

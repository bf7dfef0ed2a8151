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

// reusedVec is the engine.Vec that ReuseVec returns: a Vec behind a
// pointer, so that a new length changes the slice in place. A Vec stored
// in an engine.Vec is a new 24-byte slice header on the heap each time;
// Sim's γ takes a new length whenever the number of contacts changes.
type reusedVec struct{ v Vec }

// Len returns the length.
func (r *reusedVec) Len() int { return len(r.v) }

func vec(v engine.Vec) Vec {
	switch x := v.(type) {
	case Vec:
		return x
	case *reusedVec:
		return x.v
	}
	panic(fmt.Sprintf("cpuref: vector of type %T is not a cpuref vector", v))
}

// Data returns the elements of a vector made by the CPU path's LinAlg
// (NewVec, ReuseVec, or a Vec), not a copy; it panics on another kind of
// vector.
func Data(v engine.Vec) Vec { return vec(v) }

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

// ReuseVec returns v with length n when it has room for n elements, else
// a new vector of length n with room to grow (roomy); the contents are
// unspecified (engine.VecReuser). A vector it returned takes the new
// length in place (reusedVec), so reusing it allocates nothing; a Vec
// with room is wrapped once.
func (l linalg) ReuseVec(v engine.Vec, n int) engine.Vec {
	switch x := v.(type) {
	case *reusedVec:
		if cap(x.v) >= n {
			x.v = x.v[:n]
			return x
		}
	case Vec:
		if cap(x) >= n {
			return &reusedVec{x[:n]}
		}
	}
	return &reusedVec{make(Vec, n, roomy(n))}
}

// taskFunc adapts a loop body made once (a method value kept in a field)
// to task without an allocation per loop.
type taskFunc func(c, lo, hi int)

func (f taskFunc) run(c, lo, hi int) { f(c, lo, hi) }

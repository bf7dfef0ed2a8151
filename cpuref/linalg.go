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
	d, xv, yv := vec(dst), vec(x), vec(y)
	l.pool.forChunks(len(d), func(_, lo, hi int) {
		d, xv, yv := d[lo:hi], xv[lo:hi], yv[lo:hi]
		for i := range d {
			d[i] = a*xv[i] + b*yv[i]
		}
	})
}

// MulElem sets dst_i = x_i·y_i.
func (l linalg) MulElem(dst, x, y engine.Vec) {
	d, xv, yv := vec(dst), vec(x), vec(y)
	l.pool.forChunks(len(d), func(_, lo, hi int) {
		d, xv, yv := d[lo:hi], xv[lo:hi], yv[lo:hi]
		for i := range d {
			d[i] = xv[i] * yv[i]
		}
	})
}

// Dot returns Σ x_i·y_i, summed per fixed chunk and then in chunk order.
func (l linalg) Dot(x, y engine.Vec) float64 {
	xv, yv := vec(x), vec(y)
	return l.pool.sum(len(xv), func(lo, hi int) float64 {
		s := 0.0
		for i, a := range xv[lo:hi] {
			s += a * yv[lo+i]
		}
		return s
	})
}

// Write copies src into dst.
func (l linalg) Write(dst engine.Vec, src []float64) { copy(vec(dst), src) }

// Read copies src into dst.
func (l linalg) Read(dst []float64, src engine.Vec) { copy(dst, vec(src)) }

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// dotChunk is the number of elements one workgroup of dot.comp sums, the
// same partition as cpuref's chunk.
const dotChunk = 2048

// Vec is a vector of float64 in a device buffer.
type Vec struct {
	l   *LinAlg
	buf *Buffer
	n   int
}

// Len returns the length.
func (v *Vec) Len() int { return v.n }

// Buffer returns the buffer that holds the vector (its first Len float64).
func (v *Vec) Buffer() *Buffer { return v.buf }

// LinAlg implements engine.LinAlg with the kernels axpby, mul_elem, fill,
// copy, dot and sum. Operations are recorded into one open batch, which is
// submitted when a result must reach the host: Dot (one submit, one scalar
// read back), Read, Write, Flush. It is not safe for concurrent use.
//
// engine.LinAlg has no error results: the first error (device lost, out of
// memory, a validation error) is kept, every later operation does nothing,
// Dot returns NaN, and Err reports it. Vectors whose Vec is no longer
// reachable are released at the next submit.
type LinAlg struct {
	d *Device
	b *Batch

	axpby, mulElem, fill, copy, dot, sum *Kernel

	partial *Buffer // dot.comp's per-chunk sums
	scalar  *Buffer // sum.comp's result, host-visible
	err     error

	deadMu sync.Mutex
	dead   []*Buffer // buffers of unreachable or freed vectors
}

// NewLinAlg builds the vector-algebra kernels on d.
func NewLinAlg(d *Device) (*LinAlg, error) {
	l := &LinAlg{d: d}
	for _, k := range []struct {
		k **Kernel
		m shaders.Module
	}{
		{&l.axpby, shaders.Axpby}, {&l.mulElem, shaders.MulElem}, {&l.fill, shaders.Fill},
		{&l.copy, shaders.Copy}, {&l.dot, shaders.Dot}, {&l.sum, shaders.Sum},
	} {
		var err error
		if *k.k, err = d.Kernel(k.m); err != nil {
			return nil, err
		}
	}
	var err error
	newBatch := d.newCachedBatch
	switch v := os.Getenv(commandCacheEnv); {
	case v == "0" || strings.EqualFold(v, "off"):
		newBatch = d.NewBatch
	case v != "" && v != "1" && !strings.EqualFold(v, "on"):
		return nil, fmt.Errorf("gpu: %s=%q: want 1 or on (the default), 0 or off", commandCacheEnv, v)
	}
	if l.b, err = newBatch(); err != nil {
		return nil, err
	}
	// Room for the partials of 2²¹ elements; Dot grows it when needed.
	if l.partial, err = d.NewFloat64(1 << 10); err != nil {
		l.b.Release()
		return nil, err
	}
	if l.scalar, err = d.NewHostBuffer(8); err != nil {
		l.b.Release()
		l.partial.Release()
		return nil, err
	}
	return l, nil
}

// Err returns the first error of any operation.
func (l *LinAlg) Err() error { return l.err }

// Submits returns the device's submission count (see Device.Submits).
func (l *LinAlg) Submits() int { return l.d.submits }

// Close submits pending work and releases the LinAlg's batch and buffers
// (not its vectors, which go with the device).
func (l *LinAlg) Close() error {
	err := l.Flush()
	l.b.Release()
	l.partial.Release()
	l.scalar.Release()
	l.drain()
	return err
}

func (l *LinAlg) fail(err error) {
	if l.err == nil && err != nil {
		l.err = err
	}
}

// vec returns v as this LinAlg's vector; anything else is a programmer
// error.
func (l *LinAlg) vec(v engine.Vec) *Vec {
	x, ok := v.(*Vec)
	if !ok {
		panic(fmt.Sprintf("gpu: vector of type %T is not a *gpu.Vec", v))
	}
	if x.l != l {
		panic("gpu: vector of another LinAlg")
	}
	return x
}

// sameLen panics unless the vectors have the same length: kernels do not
// check bounds.
func sameLen(op string, vs ...*Vec) int {
	for _, v := range vs[1:] {
		if v.n != vs[0].n {
			lens := make([]int, len(vs))
			for i, v := range vs {
				lens[i] = v.n
			}
			panic(fmt.Sprintf("gpu: %s: vector lengths %v differ", op, lens))
		}
	}
	return vs[0].n
}

// groups returns the workgroup count of a grid-stride kernel over n
// elements.
func (l *LinAlg) groups(k *Kernel, n int) [3]uint32 {
	per := int(k.m.LocalSize[0])
	return [3]uint32{uint32(min((n+per-1)/per, int(l.d.Info.MaxWorkgroupCount[0]))), 1, 1}
}

// open reports whether the batch is open for recording, beginning it if
// needed; false after an error (recorded in l.err).
func (l *LinAlg) open() bool {
	if l.err != nil {
		return false
	}
	if !l.b.Recording() {
		if err := l.b.Begin(); err != nil {
			l.fail(err)
			return false
		}
	}
	return true
}

// record adds a dispatch to the open batch, beginning it if needed.
func (l *LinAlg) record(k *Kernel, groups [3]uint32, args shaders.Args, bufs ...*Buffer) {
	if l.open() {
		l.fail(l.b.Dispatch(k, groups, args, bufs...))
	}
}

// update records Batch.Update of data into buf at byte offset off in the
// open batch (beginning one if none is), in order with the recorded
// kernels.
func (l *LinAlg) update(buf *Buffer, off int64, data []byte) {
	if l.open() {
		l.b.Update(buf, off, data)
	}
}

// beginReusable flushes what is recorded and begins a batch that
// resubmit may run again (Batch.BeginReusable); it returns the batch's
// generation, which resubmit checks.
func (l *LinAlg) beginReusable() uint64 {
	if l.Flush() != nil {
		return 0
	}
	if err := l.b.BeginReusable(); err != nil {
		l.fail(err)
		return 0
	}
	return l.b.Generation()
}

// resubmit runs the reusable batch of generation gen again and waits for
// it (Batch.Resubmit). It reports false, doing nothing, when that
// recording is gone (something was recorded since) or an error is kept.
func (l *LinAlg) resubmit(gen uint64) bool {
	if l.err != nil || gen == 0 || l.b.Generation() != gen || !l.b.Resubmittable() {
		return false
	}
	l.fail(l.b.Resubmit())
	if l.err == nil {
		l.drain()
	}
	return true
}

// Flush submits the recorded operations and waits for them.
func (l *LinAlg) Flush() error {
	if l.b.Recording() {
		l.fail(l.b.Submit())
	}
	if l.err == nil {
		l.drain()
	}
	return l.err
}

// drain releases the buffers of dead vectors; nothing may be recording.
func (l *LinAlg) drain() {
	l.deadMu.Lock()
	dead := l.dead
	l.dead = nil
	l.deadMu.Unlock()
	for _, b := range dead {
		b.Release()
	}
}

// NewVec returns a zeroed vector of length n.
func (l *LinAlg) NewVec(n int) engine.Vec { return l.newVec(n, n) }

// newVec returns a zeroed vector of length n whose buffer holds room
// elements (room ≥ n).
func (l *LinAlg) newVec(n, room int) engine.Vec {
	if n < 0 {
		panic(fmt.Sprintf("gpu: NewVec(%d)", n))
	}
	if !l.b.Recording() {
		l.drain()
	}
	v := &Vec{l: l, n: n}
	if l.err != nil {
		return v
	}
	buf, err := l.d.NewFloat64(room)
	if err != nil {
		l.fail(err)
		return v
	}
	v.buf = buf
	runtime.AddCleanup(v, l.bury, buf)
	return v
}

// ReuseVec implements engine.VecReuser: v itself at length n when it is
// a vector of l whose buffer holds n elements, else a new vector with an
// eighth more room than n (cpuref's roomy), so that a length that grows
// step by step (the contacts of a settling pile) takes a new buffer now
// and then (at most six times per doubling), not every step, while a
// settled pile's vectors carry 12.5 % of unused room (a quarter until
// 2026-11-29: device APGD's eight vectors held 24 B per contact more in
// float64). v's own buffer, when v is replaced, is released at the next
// submit (v must not be used afterwards), not when the garbage collector
// finds v: the Go heap of a run barely grows, so until then every
// replaced vector's device memory stayed held (settle n = 2000 on
// lavapipe held 41 MB after 60 steps, of which about 28 MB were such
// vectors, the estimate being 17 MB).
func (l *LinAlg) ReuseVec(v engine.Vec, n int) engine.Vec {
	x, ok := v.(*Vec)
	if ok && x != nil && x.l == l && x.buf != nil && x.buf.Len() >= n && n >= 0 {
		x.n = n
		return x
	}
	if ok && x != nil && x.l == l && x.buf != nil {
		l.bury(x.buf)
		x.buf = nil
	}
	return l.newVec(n, n+n/8)
}

// bury queues the buffer of a vector that is gone; it runs on the
// cleanup goroutine.
func (l *LinAlg) bury(b *Buffer) {
	l.deadMu.Lock()
	l.dead = append(l.dead, b)
	l.deadMu.Unlock()
}

// Free releases v's buffer at the next submit; v must not be used again.
func (l *LinAlg) Free(v engine.Vec) {
	x := l.vec(v)
	if x.buf != nil {
		l.bury(x.buf)
		x.buf = nil
	}
}

// Copy sets dst = src (bit for bit).
func (l *LinAlg) Copy(dst, src engine.Vec) {
	d, s := l.vec(dst), l.vec(src)
	n := sameLen("Copy", d, s)
	if n == 0 || d == s {
		return
	}
	l.record(l.copy, l.groups(l.copy, n), shaders.CopyArgs{N: uint32(n)}, d.buf, s.buf)
}

// Fill sets dst_i = v.
func (l *LinAlg) Fill(dst engine.Vec, v float64) {
	d := l.vec(dst)
	if d.n == 0 {
		return
	}
	l.record(l.fill, l.groups(l.fill, d.n), shaders.FillArgs{V: v, N: uint32(d.n)}, d.buf)
}

// Axpby sets dst_i = a·x_i + b·y_i, each product rounded (no fused
// multiply-add); dst may alias x or y.
func (l *LinAlg) Axpby(dst engine.Vec, a float64, x engine.Vec, b float64, y engine.Vec) {
	d, xv, yv := l.vec(dst), l.vec(x), l.vec(y)
	n := sameLen("Axpby", d, xv, yv)
	if n == 0 {
		return
	}
	l.record(l.axpby, l.groups(l.axpby, n), shaders.AxpbyArgs{A: a, B: b, N: uint32(n)}, d.buf, xv.buf, yv.buf)
}

// MulElem sets dst_i = x_i·y_i; dst may alias x or y.
func (l *LinAlg) MulElem(dst, x, y engine.Vec) {
	d, xv, yv := l.vec(dst), l.vec(x), l.vec(y)
	n := sameLen("MulElem", d, xv, yv)
	if n == 0 {
		return
	}
	l.record(l.mulElem, l.groups(l.mulElem, n), shaders.MulElemArgs{N: uint32(n)}, d.buf, xv.buf, yv.buf)
}

// Dot returns Σ x_i·y_i: dot.comp sums chunks of 2048 elements in a fixed
// order and sum.comp adds the chunk sums in a fixed order, so the result
// is the same bit for bit on every run. It submits the pending work and
// reads back one scalar.
func (l *LinAlg) Dot(x, y engine.Vec) float64 {
	xv, yv := l.vec(x), l.vec(y)
	n := sameLen("Dot", xv, yv)
	if l.err != nil {
		return math.NaN()
	}
	if n == 0 {
		return 0
	}
	nc := (n + dotChunk - 1) / dotChunk
	if need := 8 * int64(nc); need > l.partial.Size() {
		// Only Dot binds the partials, and it always submits; but a Grow
		// that reallocates must not meet a pending batch.
		if need > l.partial.capacity && l.Flush() != nil {
			return math.NaN()
		}
		if err := l.partial.Grow(need); err != nil {
			l.fail(err)
			return math.NaN()
		}
	}
	groups := [3]uint32{uint32(min(nc, int(l.d.Info.MaxWorkgroupCount[0]))), 1, 1}
	l.record(l.dot, groups, shaders.DotArgs{N: uint32(n)}, l.partial, xv.buf, yv.buf)
	l.record(l.sum, [3]uint32{1, 1, 1}, shaders.SumArgs{N: uint32(nc), Index: 0}, l.scalar, l.partial)
	if l.Flush() != nil {
		return math.NaN()
	}
	var s [1]float64
	if err := l.scalar.ReadFloat64(s[:], 0); err != nil {
		l.fail(err)
		return math.NaN()
	}
	return s[0]
}

// Write copies src into dst (min(len(src), dst.Len()) elements, as the
// built-in copy does).
func (l *LinAlg) Write(dst engine.Vec, src []float64) {
	d := l.vec(dst)
	if l.Flush() != nil {
		return
	}
	l.fail(d.buf.WriteFloat64(0, src[:min(len(src), d.n)]))
}

// Read copies src into dst (min(len(dst), src.Len()) elements).
func (l *LinAlg) Read(dst []float64, src engine.Vec) {
	s := l.vec(src)
	if l.Flush() != nil {
		return
	}
	l.fail(s.buf.ReadFloat64(dst[:min(len(dst), s.n)], 0))
}

var _ engine.LinAlg = (*LinAlg)(nil)

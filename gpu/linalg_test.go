//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/shaders"
)

// sizes of the differential tests: one element, less than a workgroup, one
// dot chunk exactly, one element into the next chunk, and many chunks with
// a ragged end (100003 = 48·2048 + 1699).
var sizes = []int{1, 7, 2048, 2049, 100003}

// eps is the unit roundoff of float64, 2⁻⁵³.
const eps = 0x1p-53

// gamma is Higham's γ_n = nu/(1 − nu): |fl(xᵀy) − xᵀy| ≤ γ_n |x|ᵀ|y| for
// any order of summation (Accuracy and Stability of Numerical Algorithms,
// 2nd ed., eq. 3.5).
func gamma(n int) float64 { return float64(n) * eps / (1 - float64(n)*eps) }

// randVec returns n values ±m·2^e, m uniform in [1, 2), e uniform in
// [-20, 20]: wide enough in magnitude that rounding matters everywhere.
func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Ldexp(1+r.Float64(), r.IntN(41)-20)
		if r.IntN(2) == 0 {
			v[i] = -v[i]
		}
	}
	return v
}

// linAlgs runs f as a subtest per implementation of engine.LinAlg: the
// pure-Go cpuref (always) and the Vulkan one on mapped and on staged
// buffers (skipped without a device, as requireDevice says).
func linAlgs(t *testing.T, f func(t *testing.T, la engine.LinAlg, vulkan bool)) {
	t.Run("cpu", func(t *testing.T) { f(t, cpuref.New(0), false) })
	t.Run("vulkan", func(t *testing.T) {
		l := newLinAlg(t, requireDevice(t))
		f(t, l, true)
		if err := l.Flush(); err != nil {
			t.Error(err)
		}
	})
	t.Run("vulkan-staging", func(t *testing.T) {
		l := newLinAlg(t, requireStagingDevice(t))
		f(t, l, true)
		if err := l.Flush(); err != nil {
			t.Error(err)
		}
	})
}

// axpbyExact reports whether the implementation must round each product
// of Axpby before the sum: the kernel does (precise); Go code does on amd64,
// where the compiler never fuses a*x+b*y, but may use a fused multiply-add
// on arm64, ppc64le, s390x and riscv64.
func axpbyExact(vulkan bool) bool { return vulkan || runtime.GOARCH == "amd64" }

// TestLinAlg is the conformance suite of engine.LinAlg, run on every
// implementation.
func TestLinAlg(t *testing.T) {
	linAlgs(t, func(t *testing.T, la engine.LinAlg, vulkan bool) {
		t.Run("zeroed", func(t *testing.T) {
			v := la.NewVec(3000)
			if got := enginetest.ReadVec(la, v); slices.ContainsFunc(got, func(x float64) bool { return x != 0 }) {
				t.Error("NewVec is not zeroed")
			}
		})
		t.Run("axpby", func(t *testing.T) {
			for _, n := range sizes {
				r := rand.New(rand.NewPCG(uint64(n), 1))
				xs, ys := randVec(r, n), randVec(r, n)
				a, b := r.NormFloat64(), r.NormFloat64()
				x, y, dst := enginetest.VecOf(la, xs), enginetest.VecOf(la, ys), la.NewVec(n)
				la.Axpby(dst, a, x, b, y)
				got := enginetest.ReadVec(la, dst)
				for i := range got {
					// float64(·) rounds each product: no fusion (Go spec,
					// Arithmetic operators).
					want := float64(a*xs[i]) + float64(b*ys[i])
					// With a fused multiply-add only the rounding of a·x
					// is skipped, and the sum is rounded once: the two
					// differ by at most 2⁻⁵³|a·x| + 2⁻⁵²|result|, below
					// 2⁻⁵¹(|a·x| + |b·y|).
					tol := 0.0
					if !axpbyExact(vulkan) {
						tol = 0x1p-51 * (math.Abs(a*xs[i]) + math.Abs(b*ys[i]))
					}
					if math.Abs(got[i]-want) > tol {
						t.Fatalf("n=%d: dst[%d] = %v, want %v (tolerance %g)", n, i, got[i], want, tol)
					}
				}
			}
		})
		t.Run("mul_elem", func(t *testing.T) {
			for _, n := range sizes {
				r := rand.New(rand.NewPCG(uint64(n), 2))
				xs, ys := randVec(r, n), randVec(r, n)
				x, y, dst := enginetest.VecOf(la, xs), enginetest.VecOf(la, ys), la.NewVec(n)
				la.MulElem(dst, x, y)
				want := make([]float64, n)
				for i := range want {
					want[i] = xs[i] * ys[i] // one correctly rounded product: exact match
				}
				if i := enginetest.FirstDiff(enginetest.ReadVec(la, dst), want); i >= 0 {
					t.Fatalf("n=%d: MulElem differs at %d", n, i)
				}
			}
		})
		t.Run("fill_copy", func(t *testing.T) {
			special := []float64{math.Copysign(0, -1), math.Inf(1), math.Float64frombits(0x7ff8_dead_beef_0001), math.SmallestNonzeroFloat64, -math.MaxFloat64}
			for _, n := range sizes {
				r := rand.New(rand.NewPCG(uint64(n), 3))
				xs := randVec(r, n)
				copy(xs, special)
				x, dst := enginetest.VecOf(la, xs), la.NewVec(n)
				la.Copy(dst, x)
				if i := enginetest.FirstDiff(enginetest.ReadVec(la, dst), xs); i >= 0 {
					t.Fatalf("n=%d: Copy differs at %d (bit for bit)", n, i)
				}
				v := r.NormFloat64()
				la.Fill(dst, v)
				if got := enginetest.ReadVec(la, dst); slices.ContainsFunc(got, func(x float64) bool { return x != v }) {
					t.Fatalf("n=%d: Fill(%v) left other values", n, v)
				}
			}
		})
		t.Run("dot", func(t *testing.T) {
			for _, n := range sizes {
				r := rand.New(rand.NewPCG(uint64(n), 4))
				xs, ys := randVec(r, n), randVec(r, n)
				x, y := enginetest.VecOf(la, xs), enginetest.VecOf(la, ys)
				got := la.Dot(x, y)
				exact, abs := exactDot(xs, ys)
				// Any summation order is within γ_n Σ|x_i y_i| of the
				// exact value (Higham, eq. 3.5).
				if err := math.Abs(got - exact); err > gamma(n)*abs {
					t.Errorf("n=%d: Dot = %v, exact %v: error %g over the bound %g", n, got, exact, err, gamma(n)*abs)
				}
				if again := la.Dot(x, y); math.Float64bits(again) != math.Float64bits(got) {
					t.Errorf("n=%d: Dot not deterministic: %v then %v", n, got, again)
				}
			}
			// Small integers: every partial sum is an integer below 2⁵³, so
			// any order gives the exact result.
			n := 100003
			xs, ys := make([]float64, n), make([]float64, n)
			want := 0.0
			for i := range xs {
				xs[i], ys[i] = float64(i%1000-500), float64(i%7-3)
				want += xs[i] * ys[i]
			}
			if got := la.Dot(enginetest.VecOf(la, xs), enginetest.VecOf(la, ys)); got != want {
				t.Errorf("integer Dot = %v, want %v", got, want)
			}
		})
		t.Run("aliasing", func(t *testing.T) {
			n := 5000
			r := rand.New(rand.NewPCG(5, 5))
			xs, ys := randVec(r, n), randVec(r, n)
			x, y := enginetest.VecOf(la, xs), enginetest.VecOf(la, ys)
			la.Axpby(x, 2, x, -3, y) // x = 2x − 3y
			la.MulElem(y, x, y)      // y = x·y
			la.Axpby(x, 1, x, 1, x)  // x = 2x
			gx, gy := enginetest.ReadVec(la, x), enginetest.ReadVec(la, y)
			for i := range xs {
				x1 := float64(2*xs[i]) + float64(-3*ys[i])
				if !axpbyExact(vulkan) {
					continue
				}
				if gy[i] != x1*ys[i] || gx[i] != x1+x1 {
					t.Fatalf("element %d: x = %v, y = %v; want %v, %v", i, gx[i], gy[i], x1+x1, x1*ys[i])
				}
			}
		})
		t.Run("empty", func(t *testing.T) {
			x, y := la.NewVec(0), la.NewVec(0)
			la.Fill(x, 1)
			la.Copy(x, y)
			la.Axpby(x, 1, x, 1, y)
			la.MulElem(x, x, y)
			la.Write(x, nil)
			la.Read(nil, x)
			if got := la.Dot(x, y); got != 0 {
				t.Errorf("Dot of empty vectors = %v", got)
			}
		})
		t.Run("write_read_lengths", func(t *testing.T) {
			x := la.NewVec(4)
			la.Write(x, []float64{1, 2, 3, 4, 5, 6}) // copies 4
			la.Write(x, []float64{9})                // copies 1
			out := []float64{-1, -1, -1, -1, -1, -1}
			la.Read(out, x)
			if !slices.Equal(out, []float64{9, 2, 3, 4, -1, -1}) {
				t.Errorf("Write/Read copy min(len) elements: got %v", out)
			}
		})
	})
}

// exactDot returns xᵀy rounded once from an exact sum (math/big, 2200
// bits: enough for any sum of float64 products of these magnitudes), and
// Σ|x_i y_i|.
func exactDot(x, y []float64) (float64, float64) {
	sum := new(big.Float).SetPrec(2200)
	p := new(big.Float).SetPrec(2200)
	abs := 0.0
	for i := range x {
		p.SetFloat64(x[i])
		p.Mul(p, new(big.Float).SetFloat64(y[i]))
		sum.Add(sum, p)
		abs += math.Abs(x[i] * y[i])
	}
	f, _ := sum.Float64()
	return f, abs
}

// kernelDot is dot.comp and sum.comp in Go, in the kernels' order
// (kernelSum's) over the rounded products x_i y_i.
// TestCPUDotIsKernelDot: cpuref's Dot sums in the kernels' order
// (cpuref/order.go), so it equals kernelDot bit for bit: within a chunk, in
// the second pass (more than 256 chunks, so that lanes take several chunk
// sums), at sizes around the lanes' and the chunks', on values whose sums
// depend on the order, and with negative zeros (0 + −0 is +0 in both).
func TestCPUDotIsKernelDot(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	la := cpuref.New(1)
	for _, n := range []int{0, 1, 255, 256, 257, 2047, 2048, 2049, 3*2048 + 5, 300*2048 + 77} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = math.Ldexp(r.NormFloat64(), r.IntN(40)-20)
			y[i] = r.NormFloat64()
		}
		xv, yv := la.NewVec(n), la.NewVec(n)
		la.Write(xv, x)
		la.Write(yv, y)
		if got, want := la.Dot(xv, yv), kernelDot(x, y); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("n = %d: cpuref's Dot %v, the kernels' order %v", n, got, want)
		}
	}
	neg := []float64{math.Copysign(0, -1)}
	one := []float64{1}
	xv, yv := la.NewVec(1), la.NewVec(1)
	la.Write(xv, neg)
	la.Write(yv, one)
	if got, want := la.Dot(xv, yv), kernelDot(neg, one); math.Float64bits(got) != math.Float64bits(want) {
		t.Errorf("−0·1: cpuref's Dot %v (sign %v), the kernels' order %v (sign %v)", got, math.Signbit(got), want, math.Signbit(want))
	}
}

func kernelDot(x, y []float64) float64 {
	return kernelSum(len(x), func(i int) float64 { return float64(x[i] * y[i]) })
}

// kernelSum adds term(0), …, term(n−1) in the order of dot.comp and
// sum.comp (and fixed_force.comp): within chunk c thread t sums terms lo+t,
// lo+t+256, …; a tree adds the 256 thread sums; then sum.comp's 256
// threads sum the chunk sums with stride 256 and a tree adds those.
func kernelSum(n int, term func(i int) float64) float64 {
	const wg = 256
	tree := func(s []float64) float64 {
		for h := wg / 2; h > 0; h /= 2 {
			for t := 0; t < h; t++ {
				s[t] = s[t] + s[t+h]
			}
		}
		return s[0]
	}
	var partial []float64
	for lo := 0; lo < n; lo += dotChunk {
		hi := min(lo+dotChunk, n)
		var s [wg]float64
		for t := range s {
			for i := lo + t; i < hi; i += wg {
				s[t] += term(i)
			}
		}
		partial = append(partial, tree(s[:]))
	}
	var s [wg]float64
	for t := range s {
		for i := t; i < len(partial); i += wg {
			s[t] += partial[i]
		}
	}
	return tree(s[:])
}

// The kernels compute in a fixed order with every operation correctly
// rounded (precise: no fused multiply-add), so Dot equals the Go model of
// that order bit for bit; and it is within 2γ_n Σ|x_i y_i| of cpuref's
// chunked sum, as both are within γ_n of the exact value (Higham eq. 3.5).
// Bit-identity with cpuref is not expected: the orders differ.
func TestKernelsMatchCPU(t *testing.T) {
	d := requireDevice(t)
	l := newLinAlg(t, d)
	cpu := cpuref.New(0)
	for _, n := range sizes {
		r := rand.New(rand.NewPCG(uint64(n), 6))
		xs, ys := randVec(r, n), randVec(r, n)
		a, b := r.NormFloat64(), r.NormFloat64()
		gx, gy, cx, cy := enginetest.VecOf(l, xs), enginetest.VecOf(l, ys), enginetest.VecOf(cpu, xs), enginetest.VecOf(cpu, ys)

		got, want := l.Dot(gx, gy), cpu.Dot(cx, cy)
		_, abs := exactDot(xs, ys)
		if model := kernelDot(xs, ys); math.Float64bits(got) != math.Float64bits(model) {
			t.Errorf("n=%d: Dot = %v, the Go model of the kernels' order gives %v", n, got, model)
		}
		if math.Abs(got-want) > 2*gamma(n)*abs {
			t.Errorf("n=%d: Dot = %v, cpuref %v: beyond 2γ_n Σ|x_i y_i| = %g", n, got, want, 2*gamma(n)*abs)
		}

		type op struct {
			name  string
			exact bool // bit-identical to cpuref; else within 2⁻⁵¹(|a·x|+|b·y|), see TestLinAlg
			run   func(la engine.LinAlg, dst, x, y engine.Vec)
		}
		for _, o := range []op{
			{"axpby", runtime.GOARCH == "amd64", func(la engine.LinAlg, dst, x, y engine.Vec) { la.Axpby(dst, a, x, b, y) }},
			{"mul_elem", true, func(la engine.LinAlg, dst, x, y engine.Vec) { la.MulElem(dst, x, y) }},
			{"fill", true, func(la engine.LinAlg, dst, x, y engine.Vec) { la.Fill(dst, a) }},
			{"copy", true, func(la engine.LinAlg, dst, x, y engine.Vec) { la.Copy(dst, y) }},
		} {
			gd, cd := l.NewVec(n), cpu.NewVec(n)
			o.run(l, gd, gx, gy)
			o.run(cpu, cd, cx, cy)
			g, c := enginetest.ReadVec(l, gd), enginetest.ReadVec(cpu, cd)
			for i := range g {
				tol := 0.0
				if !o.exact {
					tol = 0x1p-51 * (math.Abs(a*xs[i]) + math.Abs(b*ys[i]))
				}
				if math.Abs(g[i]-c[i]) > tol || (tol == 0 && math.Float64bits(g[i]) != math.Float64bits(c[i])) {
					t.Fatalf("n=%d: %s: element %d is %v on the GPU, %v on the CPU", n, o.name, i, g[i], c[i])
				}
			}
		}
	}
	if err := l.Err(); err != nil {
		t.Fatal(err)
	}
}

// Operations are recorded into one batch; only results going to the host
// submit it.
func TestLinAlgBatching(t *testing.T) {
	d := requireDevice(t)
	l := newLinAlg(t, d)
	n := 10000
	x, y := l.NewVec(n), l.NewVec(n)
	l.Fill(x, 1)
	l.Fill(y, 2)
	before := d.Submits()
	for range 50 {
		l.Axpby(y, 0.5, y, 1, x) // y = y/2 + 1 → 2 stays 2
		l.MulElem(x, x, x)
	}
	if d.Submits() != before {
		t.Errorf("%d submits before any result was needed", d.Submits()-before)
	}
	if got := l.Dot(x, y); got != 2*float64(n) {
		t.Errorf("Dot = %v, want %v", got, 2*float64(n))
	}
	if got := d.Submits() - before; got != 1 {
		t.Errorf("%d submits for 100 operations and a Dot, want 1", got)
	}
}

// The kernels' loops do not depend on the dispatch shape: fewer workgroups
// than chunks (dot.comp's chunk loop) or than elements (the grid-stride
// loops) give the same bits.
func TestKernelsFewGroups(t *testing.T) {
	d := requireDevice(t)
	n := 20*dotChunk + 77
	r := rand.New(rand.NewPCG(7, 7))
	xs, ys := randVec(r, n), randVec(r, n)
	x, y := floats(t, d, xs), floats(t, d, ys)
	nc := (n + dotChunk - 1) / dotChunk
	dot, axpby := kernel(t, d, shaders.Dot), kernel(t, d, shaders.Axpby)
	b := newBatch(t, d)
	var results [][]float64
	for _, groups := range []uint32{uint32(nc), 3, 1} {
		part, dst := floats(t, d, make([]float64, nc)), floats(t, d, make([]float64, n))
		if err := b.Begin(); err != nil {
			t.Fatal(err)
		}
		if err := b.Dispatch(dot, [3]uint32{groups, 1, 1}, shaders.DotArgs{N: uint32(n)}, part, x, y); err != nil {
			t.Fatal(err)
		}
		if err := b.Dispatch(axpby, [3]uint32{groups, 1, 1}, shaders.AxpbyArgs{A: 0.25, B: -3, N: uint32(n)}, dst, x, y); err != nil {
			t.Fatal(err)
		}
		if err := b.Submit(); err != nil {
			t.Fatal(err)
		}
		results = append(results, append(readAll(t, part), readAll(t, dst)...))
	}
	for i := 1; i < len(results); i++ {
		if j := enginetest.FirstDiff(results[i], results[0]); j >= 0 {
			t.Errorf("dispatch shape %d changes element %d", i, j)
		}
	}
}

// GPUSIM_COMMAND_CACHE takes 1, on, 0 or off; another value is an error
// that names it, not a silent default.
func TestCommandCacheEnv(t *testing.T) {
	d := requireDevice(t)
	for _, v := range []string{"0", "OFF", "1", "on"} {
		t.Setenv(commandCacheEnv, v)
		l, err := NewLinAlg(d)
		if err != nil {
			t.Fatalf("%s=%s: %v", commandCacheEnv, v, err)
		}
		if cached := l.b.cache != nil; cached != (v == "1" || v == "on") {
			t.Errorf("%s=%s: command buffers kept %v", commandCacheEnv, v, cached)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(commandCacheEnv, "maybe")
	if _, err := NewLinAlg(d); err == nil || !strings.Contains(err.Error(), `GPUSIM_COMMAND_CACHE="maybe"`) {
		t.Fatalf("a bad value: %v, want an error naming it", err)
	}
}

func TestLinAlgMisuse(t *testing.T) {
	d := requireDevice(t)
	l := newLinAlg(t, d)
	x, y := l.NewVec(3), l.NewVec(4)
	wantPanic(t, "lengths", "lengths [3 4] differ", func() { l.Dot(x, y) })
	wantPanic(t, "foreign vector", "not a *gpu.Vec", func() { l.Copy(x, cpuref.Vec{1, 2, 3}) })
	other := newLinAlg(t, d)
	wantPanic(t, "other LinAlg", "another LinAlg", func() { l.Copy(x, other.NewVec(3)) })
}

// Vectors that are no longer reachable give their buffers back.
func TestLinAlgReleasesVectors(t *testing.T) {
	d := requireDevice(t)
	l := newLinAlg(t, d)
	live := func() int { return liveBuffers(d) }
	base := live()
	for range 20 {
		v := l.NewVec(1000)
		l.Fill(v, 1)
	}
	l.Free(l.NewVec(10))
	// Cleanups run on their own goroutine some time after a collection.
	for range 200 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		if live() == base {
			return
		}
	}
	t.Errorf("%d buffers live after the vectors went away, want %d", live(), base)
}

// ReuseVec, growing a vector step by step as a settling pile's contacts
// grow, takes a new buffer only when the length passes the room it made
// (an eighth more than asked), and gives the replaced buffer back at the
// next submit without a garbage collection: the device holds one buffer
// for the vector throughout.
func TestReuseVecReleasesReplaced(t *testing.T) {
	d := requireDevice(t)
	l := newLinAlg(t, d)
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no collection may release anything here
	base := liveBuffers(d)
	var v engine.Vec
	news := 0
	for n := 1000; n < 2000; n += 10 {
		w := l.ReuseVec(v, n)
		if w != v {
			news++
		}
		v = w
		l.Fill(v, 1)
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		if live := liveBuffers(d) - base; live != 1 {
			t.Fatalf("length %d: %d buffers live for one vector", n, live)
		}
	}
	// 1000 → 1990 by 10, each new buffer an eighth larger than asked:
	// lengths 1000, 1130, 1280, 1450, 1640 and 1850 take buffers of 1125,
	// 1271, 1440, 1631, 1845 and 2081 elements.
	if news != 6 {
		t.Errorf("%d new buffers for a length growing from 1000 to 1990, want 6", news)
	}
}

package enginetest

import (
	"math"
	"slices"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// Impl is a backend under test.
type Impl struct {
	// Name names the subtests.
	Name string
	// New returns a new backend, or skips or fails the test when none can
	// be made on this machine (see the package doc). The suite closes it.
	New func(t *testing.T) engine.Backend
	// Fused lists the solvers whose iterations the backend's Problem runs
	// itself: "apgd" and "apgd-ar" (engine.DeviceAPGD), "jacobi"
	// (engine.DeviceJacobi), "gs" (engine.DeviceGS), "spg"
	// (engine.DeviceSPG). The suite fails when a Problem lacks the
	// interface of a listed solver (a fast path that fell away unnoticed,
	// for example by a changed signature) or has one that is not listed (a
	// fast path no test claims).
	Fused []string
	// Twin, when set, makes a second backend and a wrapper of its problems
	// that this backend matches bit for bit: every kernel's output, and
	// every solve's γ, statistics and history whichever path runs it. The
	// Vulkan backend's twin is cpuref with its dot products summed in the
	// GPU's order. nil where there is none (cpuref itself).
	Twin func(t *testing.T) (engine.Backend, func(engine.Problem) engine.Problem)
	// Submits, when set, returns the round trips the backend has made to
	// its device so far, after finishing any recorded work; the suite then
	// bounds those of each fused solve (see submitBound).
	Submits func(t *testing.T, b engine.Backend) int
}

// Run runs every part of the suite on impl as subtests: Kernels, Solvers
// and Mixed.
func Run(t *testing.T, impl Impl) {
	t.Run("Kernels", func(t *testing.T) { Kernels(t, impl) })
	t.Run("Solvers", func(t *testing.T) { Solvers(t, impl) })
	t.Run("Mixed", func(t *testing.T) { Mixed(t, impl) })
}

// newBackend returns impl.New(t), closed at cleanup.
func newBackend(t *testing.T, newB func(t *testing.T) engine.Backend) engine.Backend {
	t.Helper()
	b := newB(t)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return b
}

// twinOf loads l's model into impl's twin, if any, and returns its wrapped
// problem (nil without a twin). The contacts must be the same.
func twinOf(t *testing.T, impl Impl, l *loaded) engine.Problem {
	t.Helper()
	if impl.Twin == nil {
		return nil
	}
	newTwin, wrap := impl.Twin(t)
	tb := newBackend(t, func(*testing.T) engine.Backend { return newTwin })
	tl := load(t, tb, l.m, l.set, l.nc)
	if tl.nc != l.nc {
		t.Fatalf("%d contacts on the twin, %d on %s", tl.nc, l.nc, impl.Name)
	}
	return wrap(tl.p)
}

// hostPath hides every method of a Problem but engine.Problem's (and
// engine.JointRows' and engine.RollingRows', which say what the problem
// is rather than how it is solved), so that engine's solvers drive their own iterations through
// the Problem's methods: the reference the fused paths must match.
func hostPath(p engine.Problem) engine.Problem {
	j, jok := p.(engine.JointRows)
	if r, ok := p.(engine.RollingRows); ok && r.Rolling() > 0 {
		// engine.RollingRows too: it says what the problem is. Joints()
		// is 0 when p has no joint rows.
		if !jok {
			j = noJoints{}
		}
		return hostRolling{p, j, r}
	}
	if jok {
		return hostJoints{p, j}
	}
	return hostOnly{p}
}

type hostOnly struct{ engine.Problem }

type hostJoints struct {
	engine.Problem
	engine.JointRows
}

type hostRolling struct {
	engine.Problem
	engine.JointRows
	engine.RollingRows
}

type noJoints struct{}

func (noJoints) Joints() int { return 0 }

// VecOf returns a new vector of la holding v.
func VecOf(la engine.LinAlg, v []float64) engine.Vec {
	x := la.NewVec(len(v))
	la.Write(x, v)
	return x
}

// ReadVec returns v's elements, read back from la.
func ReadVec(la engine.LinAlg, v engine.Vec) []float64 {
	out := make([]float64, v.Len())
	la.Read(out, v)
	return out
}

// FirstDiff returns the first index where a and b differ in their bits
// (so −0 ≠ +0 and NaNs compare by payload), or −1; a length mismatch is
// index 0.
func FirstDiff(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// hasFused reports whether impl claims the fused path of solver.
func (impl Impl) hasFused(solver string) bool { return slices.Contains(impl.Fused, solver) }

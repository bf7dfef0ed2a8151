package run

import (
	"math"
	"testing"
)

// TestStepTimer: the median is exact while the times are kept, and within
// a bin's width (0.1 %) once they go to the histogram; the mean is exact
// up to rounding either way.
func TestStepTimer(t *testing.T) {
	var e stepTimer
	if e.median() != 0 || e.mean() != 0 {
		t.Errorf("no steps: median %v, mean %v; want 0", e.median(), e.mean())
	}
	var s stepTimer
	for _, v := range []float64{3, 1, 2, 10} {
		s.add(v)
	}
	if s.median() != 2.5 || s.mean() != 4 {
		t.Errorf("median %v, mean %v; want 2.5 and 4", s.median(), s.mean())
	}
	// Past exactSteps: times 1 ms … 2 ms in a sawtooth, true median 1.5 ms.
	var l stepTimer
	n := exactSteps + 4097
	for i := range n {
		l.add(1e-3 + 1e-3*float64(i%1001)/1000)
	}
	if l.exact != nil || l.bins == nil {
		t.Fatal("the histogram did not take over past exactSteps")
	}
	// The run is not a whole number of 1001-step periods, so its true
	// median and mean sit off 1.5 ms by at most half a period's weight,
	// 1001/n · 0.5 ms ≈ 5e-7 s (3.3e-4 of it, bounded here by 5e-4); the
	// histogram adds at most one bin width.
	if m := l.median(); math.Abs(m-1.5e-3)/1.5e-3 > binWidth+5e-4 {
		t.Errorf("median %v, want 1.5e-3 within %g", m, binWidth+5e-4)
	}
	if m := l.mean(); math.Abs(m-1.5e-3) > 1e-6 {
		t.Errorf("mean %v, want about 1.5e-3", m)
	}
}

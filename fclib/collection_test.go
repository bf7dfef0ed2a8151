package fclib

import (
	"errors"
	"math"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestReached: the first iterate of the history within the target (its
// residual times n), with the mean time per iteration; the final γ when
// no iterate got there but it did; not reached otherwise or on failure.
func TestReached(t *testing.T) {
	h := []engine.IterRecord{{Iter: 1, Residual: 1e-3}, {Iter: 2, Residual: 1e-7}, {Iter: 3, Residual: 1e-9}, {Iter: 4, Residual: 2e-9}}
	r := &Result{Gamma: make([]float64, 6), Wall: 8, Stats: engine.SolveStats{Iterations: 4, History: h, ProjGrad: 6e-11}}
	cases := []struct {
		target float64
		iter   int
		wall   float64
		ok     bool
	}{
		{1e-2, 1, 2, true},   // 6·1e-3 = 6e-3
		{1e-6, 2, 4, true},   // 6·1e-7 = 6e-7
		{1e-8, 3, 6, true},   // 6·1e-9
		{1e-10, 4, 8, true},  // only the returned γ: 6e-11
		{1e-11, 0, 0, false}, // nothing
	}
	for _, c := range cases {
		it, w, ok := r.Reached(c.target)
		if it != c.iter || ok != c.ok || (ok && w != c.wall) || (!ok && !math.IsNaN(w)) {
			t.Errorf("Reached(%g) = %d, %g, %v; want %d, %g, %v", c.target, it, w, ok, c.iter, c.wall, c.ok)
		}
	}
	r.Err = errors.New("failed")
	if _, _, ok := r.Reached(1e-2); ok {
		t.Error("a failed solve reached a target")
	}
}

func TestCollectionOptionsCheck(t *testing.T) {
	for _, o := range []CollectionOptions{
		{},
		{Targets: []float64{1e-6, 1e-6}},
		{Targets: []float64{math.NaN()}},
		{Targets: []float64{math.Inf(1)}},
		{Targets: []float64{-1}},
		{Targets: []float64{1e-6}, MaxIterOf: map[string]int{"apgd": 0}},
	} {
		if err := o.checkTargets(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if err := (CollectionOptions{Targets: []float64{1e-6, 1e-8}, MaxIterOf: map[string]int{"spg": 5}}).checkTargets(); err != nil {
		t.Error(err)
	}
}

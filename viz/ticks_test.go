package viz

import (
	"strings"
	"testing"
)

// TestNumber: plain decimals in [1e-4, 1e6), short exponents outside, no
// float noise.
func TestNumber(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{3000, "3000"}, {0.001, "0.001"}, {3 * 0.1, "0.3"}, {1e-7, "1e-7"}, {2.5e8, "2.5e8"}, {-1e-12, "-1e-12"},
		{1e6, "1e6"}, {123456.7, "123457"}, {0, "0"}, {1e-4, "0.0001"}} {
		if got := Number(c.v); got != c.want {
			t.Errorf("Number(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestDecadeTicks: labels only on powers of ten, thinned over many
// decades so that labels never crowd; minor ticks unlabelled.
func TestDecadeTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		labels []string
	}{
		{1e-3, 1e2, []string{"0.001", "0.01", "0.1", "1", "10", "100"}},
		{1e-12, 1, []string{"1e-12", "1e-10", "1e-8", "1e-6", "0.0001", "0.01", "1"}},
		{2, 5, []string{"2", "5"}}, // no power of ten inside: the ends
	} {
		var labels []string
		for _, tk := range (DecadeTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) != len(c.labels) {
			t.Fatalf("[%g, %g]: labels %q, want %q", c.lo, c.hi, labels, c.labels)
		}
		for i := range labels {
			if labels[i] != c.labels[i] {
				t.Errorf("[%g, %g]: labels %q, want %q", c.lo, c.hi, labels, c.labels)
				break
			}
		}
	}
}

// TestLinearTicks: round steps (1, 2 or 5 × 10ᵏ), 4 to 10 labels, minor
// ticks unlabelled, and the ends of an empty range.
func TestLinearTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 4, []string{"0", "1", "2", "3", "4"}},
		{0, 1.05, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{-3, 7, []string{"-2", "0", "2", "4", "6"}},
		{0.0012, 0.0049, []string{"0.0015", "0.002", "0.0025", "0.003", "0.0035", "0.004", "0.0045"}},
		{0, 9999, []string{"0", "2000", "4000", "6000", "8000"}},
		{2, 2, []string{"2", "2"}},
	} {
		var got []string
		for _, tk := range (LinearTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
			// 1e-12: a tick is i·step, a rounding from an exact multiple;
			// these ranges end on a multiple of the step or well between
			// two, so no tick lies in LinearTicks' allowance of 1e-9 of a
			// step past an end.
			if tk.Value < c.lo-1e-12 || tk.Value > c.hi+1e-12 {
				t.Errorf("[%g, %g]: tick %g outside", c.lo, c.hi, tk.Value)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("[%g, %g]: labels %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

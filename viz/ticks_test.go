package viz

import (
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

package gpu

import "testing"

// TestEstimateBytes checks EstimateBytes against device memory measured
// on lavapipe (see its doc comment): within −10 % and +25 %, the estimate
// being meant to err on the large side by Buffer.Grow's headroom at most.
func TestEstimateBytes(t *testing.T) {
	for _, c := range []struct {
		bodies, contacts int
		measured         float64 // bytes
	}{
		{2000, 4212, 11622400}, {2000, 778, 8876544}, {64000, 74572, 299 << 20},
	} {
		got := float64(EstimateBytes(c.bodies, c.contacts))
		if r := got / c.measured; r < 0.9 || r > 1.25 {
			t.Errorf("EstimateBytes(%d, %d) = %.3g, measured %.3g (ratio %.2f)", c.bodies, c.contacts, got, c.measured, r)
		}
	}
	if EstimateBytes(1<<24, 4<<24) < 100<<30 {
		t.Errorf("EstimateBytes(2²⁴ bodies) = %d: want over 100 GiB", EstimateBytes(1<<24, 4<<24))
	}
}

package sweep

import "testing"

// TestLabel: collect's axis labels are words with the unit the key's
// ending names.
func TestLabel(t *testing.T) {
	for key, want := range map[string]string{
		"final.max_penetration_m": "max penetration (m)",
		"wall_s":                  "wall (s)",
		"solve_s_total":           "solve (s, total)",
		"final.fixed_force_N":     "fixed force (N)",
		"mu":                      "mu",
		"generators.0.seed":       "seed",
		"merit.value":             "value",
		"_s":                      " s",
	} {
		if got := Label(key); got != want {
			t.Errorf("Label(%q) = %q, want %q", key, got, want)
		}
	}
}

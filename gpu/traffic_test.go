package gpu

import (
	"math"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/shaders"
)

// TestTrafficModel checks the traffic model against the kernels' reflected
// bindings: every kernel exists, every access names one of its bindings,
// a write is never to a binding the kernel declares readonly and a read
// never from a writeonly one, and every binding the kernel may write is
// counted as written (a write the model forgot).
func TestTrafficModel(t *testing.T) {
	for _, k := range append(APGDTraffic{Materials: true}.Passes(), APGDTraffic{F32: true, Materials: true}.Passes()...) {
		m, ok := shaders.Lookup(k.Name)
		if !ok {
			t.Errorf("%s: no such kernel", k.Name)
			continue
		}
		written := map[uint32]bool{}
		for _, a := range k.Accesses {
			var found *shaders.Binding
			for i := range m.Bindings {
				if m.Bindings[i].Binding == a.Binding {
					found = &m.Bindings[i]
				}
			}
			switch {
			case found == nil:
				t.Errorf("%s: binding %d (%s) does not exist", k.Name, a.Binding, a.Name)
			case a.Write && found.ReadOnly:
				t.Errorf("%s: binding %d (%s) is readonly but counted as written", k.Name, a.Binding, a.Name)
			case !a.Write && found.WriteOnly:
				t.Errorf("%s: binding %d (%s) is writeonly but counted as read", k.Name, a.Binding, a.Name)
			}
			if a.Write {
				written[a.Binding] = true
			}
		}
		for _, b := range m.Bindings {
			// apgd_contact_velocity writes g only with withG, which the
			// iteration's product does not set; the scalar buffer's
			// writes are a few bytes (apgd_sum's dots).
			src := strings.TrimSuffix(k.Name, "_f32")
			if b.ReadOnly || written[b.Binding] || (src == "apgd_contact_velocity" && b.Binding == 1) ||
				(src == "apgd_dot" && b.Binding == 0) {
				continue
			}
			t.Errorf("%s: binding %d may be written but the model counts no write", k.Name, b.Binding)
		}
	}
	// The sum at 1/3 body per contact (a settled bed: 3 contacts per body)
	// for a model of several materials. Each term is the model's: 88
	// (step: 3 vectors, μ, coh) + 200 + 100/3 (body impulse: each side 24
	// of γ', 4 of adj, 72 of jac) + 224 (contact velocity: 24 + 96 of dv
	// + 8 + 96 of jac) + 120 + 112 + 96 + 264 (next: 11 vectors of 3, best
	// included).
	want := 88 + 200 + 100.0/3 + 224 + 120 + 112 + 96 + 264
	// The model sums its terms in another order: 1e-12 relative covers
	// the rounding of a dozen float64 additions.
	if got := (APGDTraffic{Materials: true}).BytesPerContactIteration(1.0 / 3); math.Abs(got-want) > 1e-12*want {
		t.Errorf("bytes per contact-iteration %g, want %g", got, want)
	}
	// One material: μ and coh are one cached value each, not counted in
	// the step and the residual (8 + 8 each).
	if got := (APGDTraffic{}).BytesPerContactIteration(1.0 / 3); math.Abs(got-(want-32)) > 1e-12*want {
		t.Errorf("one material: bytes per contact-iteration %g, want %g", got, want-32)
	}
	// Spheres of one material (the arms as ρ): each body-impulse side
	// reads 8 B of ρ instead of 24 of s, the contact velocity 64 B of
	// Jacobian instead of 96: 64 B less.
	if got := APGDBytesPerContactIteration(1.0 / 3); math.Abs(got-(want-32-64)) > 1e-12*want {
		t.Errorf("spheres, one material: bytes per contact-iteration %g, want %g", got, want-32-64)
	}
	var b strings.Builder
	if err := WriteTrafficModel(&b, 1.0/3, 2_980_000, DatasheetBandwidths, APGDTraffic{Materials: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| **total** | one iteration | **1137** |") {
		t.Errorf("table:\n%s", b.String())
	}
	// Mixed precision: each work vector 12 bytes instead of 24 and the
	// Jacobian 48 instead of 96 (r, μ, the cohesion and dv as before): 52
	// (step: 3 vectors, μ, coh) + 104 + 100/3 (body impulse: each side 12
	// of γ', 4 of adj, 36 of jac) + 164 (contact velocity: 12 + 96 of dv
	// + 8 + 48 of jac) + 72 (4 vectors and r) + 76 (residual: 3 vectors,
	// r, μ, coh) + 48 (4 vectors) + 144 (next: 10 vectors and r).
	want = 52 + 104 + 100.0/3 + 164 + 72 + 76 + 48 + 144
	if got := (APGDTraffic{F32: true, Materials: true}).BytesPerContactIteration(1.0 / 3); math.Abs(got-want) > 1e-12*want {
		t.Errorf("mixed: bytes per contact-iteration %g, want %g", got, want)
	}
	if got := (APGDTraffic{F32: true}).BytesPerContactIteration(1.0 / 3); math.Abs(got-(want-32)) > 1e-12*want {
		t.Errorf("mixed, one material: bytes per contact-iteration %g, want %g", got, want-32)
	}
	// And of spheres: 4 B of ρ a side instead of 12 of s, 32 B of
	// Jacobian instead of 48.
	if got := (APGDTraffic{F32: true, Arms: true}).BytesPerContactIteration(1.0 / 3); math.Abs(got-(want-32-32)) > 1e-12*want {
		t.Errorf("mixed, spheres of one material: bytes per contact-iteration %g, want %g", got, want-32-32)
	}
}

package fclib

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestFromEngine copies a problem through the engine interface and back,
// with and without cohesion, and refuses one that cannot be assembled.
func TestFromEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, coh := range []bool{true, false} {
		p := randomProblem(rng, 7, coh)
		mp, err := p.CCP(2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromEngine(mp, "copy")
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "copy" || got.NC != p.NC || !slices.Equal(got.Entries, mp.Entries()) ||
			!slices.Equal(got.Q, p.Q) || !slices.Equal(got.Mu, p.Mu) || !slices.Equal(got.Cohesion, p.Cohesion) {
			t.Errorf("cohesion %v: the copy differs from the problem", coh)
		}
	}
	mp, err := randomProblem(rng, 2, false).CCP(1)
	if err != nil {
		t.Fatal(err)
	}
	hidden := struct{ engine.Problem }{mp} // no Entries method
	if _, err := FromEngine(hidden, "x"); err == nil || !strings.Contains(err.Error(), "cannot be assembled") {
		t.Errorf("problem without Entries: error %v", err)
	}
}

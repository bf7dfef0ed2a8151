package collide

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// shuffledRunner runs the parts of a loop on several goroutines in a
// seeded random order, as a worker pool may.
func shuffledRunner(seed uint64) Runner {
	rng := rand.New(rand.NewPCG(seed, 1))
	return func(n, grain int, f func(part, lo, hi int)) {
		np := (n + grain - 1) / grain
		var wg sync.WaitGroup
		for _, p := range rng.Perm(np) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lo := p * grain
				f(p, lo, min(lo+grain, n))
			}()
		}
		wg.Wait()
	}
}

// TestCollideRunner: Collide with a runner that takes the parts of its
// loops in parallel and in random order gives the serial Collide's
// contacts, sub-numbers and adjacency exactly, on the capacity model's
// spread and packed states (more than one part of pairs when packed) and
// again after Load (which keeps the runner).
func TestCollideRunner(t *testing.T) {
	m, spread, packed, rot := capacityModel()
	s := engine.DefaultSettings()
	var serial, par Collider
	serial.Load(m, &s)
	par.SetRunner(shuffledRunner(7))
	par.Load(m, &s)
	n := len(m.Bodies)
	zero := make([]float64, 3*n)
	invMass := make([]float64, n)
	for i, b := range m.Bodies {
		if !b.Fixed {
			invMass[i] = 1 / b.Mass
		}
	}
	for _, pos := range [][]float64{spread, packed, spread, packed} {
		ns, err := serial.Collide(pos, rot, zero, zero, invMass, zero)
		if err != nil {
			t.Fatal(err)
		}
		np, err := par.Collide(pos, rot, zero, zero, invMass, zero)
		if err != nil {
			t.Fatal(err)
		}
		if ns != np || !reflect.DeepEqual(*serial.Contacts(), *par.Contacts()) || !reflect.DeepEqual(serial.Sub(), par.Sub()) {
			t.Fatalf("parallel Collide: %d contacts, serial %d, or different contacts", np, ns)
		}
		so, sa := serial.Adjacency()
		po, pa := par.Adjacency()
		if !reflect.DeepEqual(so, po) || !reflect.DeepEqual(sa, pa) {
			t.Fatal("parallel Collide: different adjacency")
		}
		if len(serial.pairs) > pairGrain {
			t.Logf("%d pairs in %d parts, %d contacts", len(serial.pairs), (len(serial.pairs)+pairGrain-1)/pairGrain, ns)
		}
	}
}

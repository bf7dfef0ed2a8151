package collide

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// shuffledRunner runs the parts of a loop on several goroutines in a
// seeded random order, as a worker pool may.
func shuffledRunner(seed uint64) Runner {
	rng := rand.New(rand.NewPCG(seed, 1))
	var mu sync.Mutex
	return func(n, grain int, f func(part, lo, hi int)) {
		np := (n + grain - 1) / grain
		mu.Lock()
		perm := rng.Perm(np)
		mu.Unlock()
		var wg sync.WaitGroup
		for _, p := range perm {
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

// TestCollideRunner: Collide with a runner that takes the narrowphase's
// parts in parallel and in random order gives the serial Collide's
// contacts, sub-numbers and adjacency exactly: on the capacity model's
// spread and packed states (8³ bodies: one part of pairs spread, several
// packed) and on 20³ bodies (several waves when packed), each state twice
// (the wave's buffers reused).
func TestCollideRunner(t *testing.T) {
	for _, side := range []int{8, 20} {
		m, spread, packed, rot := capacityModelSide(side)
		s := engine.DefaultSettings()
		var serial, par Collider
		serial.Load(m, &s)
		par.Load(m, &s)
		par.SetRunner(shuffledRunner(7))
		zero, invMass := restArrays(m)
		waves := 0
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
				t.Fatalf("side %d: parallel Collide: %d contacts, serial %d, or different contacts", side, np, ns)
			}
			so, sa := serial.Adjacency()
			po, pa := par.Adjacency()
			if !reflect.DeepEqual(so, po) || !reflect.DeepEqual(sa, pa) {
				t.Fatalf("side %d: parallel Collide: different adjacency", side)
			}
			waves = max(waves, (len(serial.pairs)+waveParts*pairGrain-1)/(waveParts*pairGrain))
		}
		if side == 20 && waves < 2 {
			t.Fatalf("side %d: %d wave(s) of the narrowphase; the test wants several", side, waves)
		}
		if side == 8 && len(serial.pairs) <= pairGrain {
			t.Fatalf("side %d: %d pairs, one part; the test wants several", side, len(serial.pairs))
		}
	}
}

// TestCollideRunnerError: a narrowphase error in two parts of the pairs
// (a convex shape without its hull, at body 300 and at body 1000, two parts of one wave) fails
// the parallel Collide with the error the serial one gives, the first in
// pair order, whatever part finishes first.
func TestCollideRunnerError(t *testing.T) {
	m, _, packed, rot := capacityModelSide(20)
	s := engine.DefaultSettings()
	var serial, par Collider
	serial.Load(m, &s)
	par.Load(m, &s)
	for _, c := range []*Collider{&serial, &par} {
		for _, i := range []int{1000, 300} {
			c.shapeTab = append(c.shapeTab, engine.Shape{Kind: engine.Convex, Size: c.Shape(i).Size})
			c.shapeOf[i] = uint32(len(c.shapeTab) - 1)
		}
	}
	zero, invMass := restArrays(m)
	// The two bodies' first pairs lie in different parts of one wave.
	if _, err := serial.Collide(packed, rot, zero, zero, invMass, zero); err == nil {
		t.Fatal("serial Collide: no error")
	}
	part := func(body int32) int {
		k, _ := slices.BinarySearchFunc(serial.pairs, body, func(p [2]int32, b int32) int { return int(p[0] - b) })
		return k / pairGrain
	}
	if p300, p1000 := part(300), part(1000); p300 == p1000 || p1000 >= waveParts {
		t.Fatalf("bodies 300 and 1000 start in parts %d and %d; the test wants two parts of the first wave", p300, p1000)
	}
	_, errS := serial.Collide(packed, rot, zero, zero, invMass, zero)
	if errS == nil || !strings.Contains(errS.Error(), "300") {
		t.Fatalf("serial Collide: error %v, want one naming body 300", errS)
	}
	for seed := range uint64(5) {
		par.SetRunner(shuffledRunner(seed))
		_, errP := par.Collide(packed, rot, zero, zero, invMass, zero)
		if errP == nil || errS.Error() != errP.Error() {
			t.Fatalf("parallel Collide (seed %d): error %v, serial %v", seed, errP, errS)
		}
	}
}

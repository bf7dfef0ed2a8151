package cpuref

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/scene"
)

// colourStats returns the colours used (tail excluded) and the tail's
// length.
func colourStats(colour []uint32) (colours, tail int) {
	var used uint64
	for _, c := range colour {
		if c == ColourTail {
			tail++
		} else {
			used |= 1 << c
		}
	}
	for ; used != 0; used &= used - 1 {
		colours++
	}
	return colours, tail
}

// advancedModel returns the model of the built-in scene name after steps
// steps of cpuref (APGD, at most 100 iterations).
func advancedModel(t *testing.T, name string, sets []string, steps int) *engine.Model {
	t.Helper()
	sc, err := scene.LoadBuiltin(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	set := sc.Settings
	set.Solver, set.MaxIter = "apgd", min(set.MaxIter, 100)
	return enginetest.Advanced(t, &sc.Model, set, New(0), steps)
}

// TestColours: the gs colouring is valid (no two contacts of one colour
// on a movable body; the tail only where the colours ran out) on a
// settled pile, a heavy slab on a bed (its contacts with the top layer,
// more than MaxColours, a clique), the random cube and no contacts, and
// the sweep's order lists each colour's contacts in index order, the tail
// last.
func TestColours(t *testing.T) {
	cases := []struct {
		name string
		m    func(t *testing.T) *engine.Model
		tail bool // the case must have a tail
	}{
		{"settle", func(t *testing.T) *engine.Model { return advancedModel(t, "settle", []string{"n=300"}, 60) }, false},
		{"pressure", func(t *testing.T) *engine.Model { return advancedModel(t, "pressure", []string{"n=300"}, 40) }, true},
		{"random", func(*testing.T) *engine.Model { return enginetest.RandomModel(3, 1000) }, false},
		{"empty", func(t *testing.T) *engine.Model {
			m := advancedModel(t, "settle", []string{"n=8"}, 0)
			var free []engine.Body // the spheres, 5 m apart, without the box
			for _, bd := range m.Bodies {
				if !bd.Fixed && bd.Shape.Kind != engine.Plane {
					bd.Pos = mgl64.Vec3{5 * float64(len(free)), 0, 1}
					free = append(free, bd)
				}
			}
			m.Bodies = free
			return m
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := c.m(t)
			set := engine.DefaultSettings()
			b := New(0)
			if err := b.Load(m, &set); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Collide(); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Build(set.Dt); err != nil {
				t.Fatal(err)
			}
			colour, rounds := b.Colours()
			if c.name == "empty" && len(colour) != 0 {
				t.Fatalf("%d contacts, want none", len(colour))
			}
			if err := enginetest.CheckColouring(b.Contacts(), b.Fixed(), colour, MaxColours, rounds == ColourRounds); err != nil {
				t.Fatal(err)
			}
			colours, tail := colourStats(colour)
			t.Logf("%d contacts: %d colours, %d in the tail, %d rounds", len(colour), colours, tail, rounds)
			if c.tail && tail == 0 {
				t.Errorf("no tail: the case should have a body with more than %d contacts", MaxColours)
			}
			cl := b.colour()
			prev := -1
			for i, k := range cl.perm {
				c := colour[k]
				if i < int(cl.start[c]) || i >= int(cl.start[c+1]) || (i > int(cl.start[c]) && int(k) <= prev) {
					t.Fatalf("perm[%d] = %d (colour %d) is out of order", i, k, c)
				}
				prev = int(k)
			}
		})
	}
}

// TestGSConvergesColoured: the coloured gs sweep converges on the settled
// pile of settle (n = 300, after 60 steps): five steps each reach the
// tolerance, warm-started, within MaxIter sweeps. Measured: 385, 385,
// 351, 467 and 653 sweeps to r = 1e-6; the sweep in index order took
// 387, 381, 354, 465 and 653.
func TestGSConvergesColoured(t *testing.T) {
	m := advancedModel(t, "settle", []string{"n=300"}, 60)
	set := engine.DefaultSettings()
	set.Solver, set.Tol, set.MaxIter, set.WarmStart = "gs", 1e-6, 2000, true
	sim, err := engine.NewSim(m, set, New(0))
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		st, err := sim.Step()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("step %d: %d contacts, %d sweeps, r = %.3g", st.Step, st.Contacts, st.Solve.Iterations, st.Solve.Residual)
		if !st.Solve.Converged {
			t.Errorf("step %d: r = %g after %d sweeps, want below %g", st.Step, st.Solve.Residual, st.Solve.Iterations, set.Tol)
		}
	}
}

// TestColourByPriority: colourByPriority gives colourRounds's colours and
// rounds where no neighbourhood may fill every colour: on random contact
// graphs (repeated body pairs, fixed bodies, bodies of up to 15 contacts)
// with round caps of 1, 2, 3 and ColourRounds (the small caps leave
// contacts uncoloured), and on a settled pile of 1 000 spheres
// (latticeBackend's, 2 800 contacts, 22 rounds).
func TestColourByPriority(t *testing.T) {
	same := func(t *testing.T, name string, a, b []int32, adjOff, adj []int32, maxRounds int) {
		t.Helper()
		if mayFill(a, b, adjOff) {
			t.Fatalf("%s: a neighbourhood may fill every colour", name)
		}
		nc := len(a)
		want, todo, dec := make([]uint32, nc), make([]int32, nc), make([]uint32, nc)
		wantRounds := colourRounds(want, todo, dec, a, b, adjOff, adj, maxRounds)
		got, rnd, keys := make([]uint32, nc), make([]uint32, nc), make([]uint64, 2*nc)
		gotRounds := colourByPriority(got, rnd, keys[:nc], keys[nc:], a, b, adjOff, adj, maxRounds)
		left := 0
		for k := range want {
			if got[k] != want[k] {
				t.Fatalf("%s, cap %d: contact %d has colour %d, the rounds' %d", name, maxRounds, k, got[k], want[k])
			}
			if want[k] == colourNone {
				left++
			}
		}
		if gotRounds != wantRounds {
			t.Fatalf("%s, cap %d: %d rounds, the rounds' %d", name, maxRounds, gotRounds, wantRounds)
		}
		t.Logf("%s, cap %d: %d contacts, %d rounds, %d left uncoloured", name, maxRounds, nc, wantRounds, left)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		nb := 20 + rng.IntN(200)
		fixed := make([]bool, nb)
		for i := range fixed {
			fixed[i] = rng.IntN(10) == 0
		}
		var a, b []int32
		deg := make([]int, nb)
		for range 3 * nb {
			i, j := rng.IntN(nb), rng.IntN(nb)
			if i == j || fixed[i] && fixed[j] || deg[i] >= 15 || deg[j] >= 15 {
				continue
			}
			i, j = min(i, j), max(i, j)
			for range 1 + rng.IntN(2) { // some pairs touch twice
				a, b = append(a, int32(i)), append(b, int32(j))
				deg[i]++
				deg[j]++
			}
		}
		// Body → contact lists of the movable bodies, in contact order.
		adjOff := make([]int32, nb+1)
		for k := range a {
			for _, i := range [2]int32{a[k], b[k]} {
				if !fixed[i] {
					adjOff[i+1]++
				}
			}
		}
		for i := range nb {
			adjOff[i+1] += adjOff[i]
		}
		adj, next := make([]int32, adjOff[nb]), append([]int32(nil), adjOff[:nb]...)
		for k := range a {
			for s, i := range [2]int32{a[k], b[k]} {
				if !fixed[i] {
					adj[next[i]] = int32(2*k + s)
					next[i]++
				}
			}
		}
		for _, c := range []int{1, 2, 3, ColourRounds} {
			same(t, fmt.Sprintf("random graph %d", trial), a, b, adjOff, adj, c)
		}
	}
	be, _ := latticeBackend(&testing.B{}, 1000)
	same(t, "lattice of 1000", be.con.A, be.con.B, be.adjOff, be.adj, ColourRounds)
}

// TestSweepWorkersBits: Gauss–Seidel's colours swept on three workers, in
// parts of 8 contacts (so that every colour of a 400-sphere pile runs in
// parts on the helpers), give the bits of the sweep on one worker: the
// state and the impulses after 40 steps, with and without rolling
// friction (whose blocks follow the contacts on the caller), and after 30
// steps of the shaker (its plate a kinematic body that contacts of one
// colour share, as they share the fixed floor of the pile).
func TestSweepWorkersBits(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))) // as TestPoolCrew
	old := sweepGrain
	sweepGrain = 8
	defer func() { sweepGrain = old }()
	for _, rolling := range []bool{false, true} {
		t.Run(fmt.Sprintf("rolling=%v", rolling), func(t *testing.T) {
			var states [2]engine.State
			var imps [2][]float64
			parted := 0 // steps with a colour of at least two parts
			for i, workers := range []int{1, 3} {
				r := settleRun{solver: "gs", workers: workers, steps: 40}
				if rolling {
					r.edit = func(sc *scene.Scene) {
						for k := range sc.Model.Materials {
							sc.Model.Materials[k].RollingFriction = 1e-3
							sc.Model.Materials[k].SpinningFriction = 1e-4
						}
					}
				}
				r.each = func(b *Backend) {
					for c := range MaxColours {
						if b.col.valid && b.col.start[c+1]-b.col.start[c] >= int32(2*sweepGrain) {
							parted++
							return
						}
					}
				}
				states[i], imps[i] = r.run(t)
			}
			if parted == 0 {
				t.Fatal("no colour of any step had two parts")
			}
			sameRuns(t, [2]string{"on one worker", "on three"}, &states, &imps)
		})
	}
	t.Run("shaker", func(t *testing.T) {
		var states [2]engine.State
		var imps [2][]float64
		for i, workers := range []int{1, 3} {
			r := settleRun{scene: "shaker", params: []string{"n=300"}, solver: "gs", workers: workers, steps: 30}
			var b *Backend
			r.prep = func(be *Backend) { b = be }
			states[i], imps[i] = r.run(t)
			if c := b.col.start; c[1]-c[0] < int32(2*sweepGrain) {
				t.Fatalf("the first colour of the last step has %d contacts: no parts", c[1]-c[0])
			}
		}
		sameRuns(t, [2]string{"on one worker", "on three"}, &states, &imps)
	})
}

package gpu

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/scene"
)

// TestRodsSceneStep: a model with capsules and cylinders (the rods
// example: their pairs with each other, spheres, the walls and the floor)
// collides on the host, says so in its notes, and steps bit for bit as
// cpuref with the GPU's dot order, over six steps of a settling pile.
func TestRodsSceneStep(t *testing.T) {
	requireUnfusedGo(t)
	sc, err := scene.Load("../examples/rods.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := advanced(t, sc, 150)
	set := sc.Settings
	gb := newTestBackend(t)
	g := newStepper(t, gb, m, set, false)
	if gb.dc.on || !strings.Contains(strings.Join(gb.Notes(), " "), "capsule") {
		t.Fatalf("device collider on %v, notes %q: want the host's collision, said", gb.dc.on, gb.Notes())
	}
	co := newStepper(t, cpuref.New(0), m, set, true)
	contacts := 0
	for s := range 6 {
		g.step(t)
		co.step(t)
		gc, cc := g.contacts(t), co.contacts(t)
		if gc.Len() != cc.Len() {
			t.Fatalf("step %d: %d contacts on the GPU, %d on cpuref", s+1, gc.Len(), cc.Len())
		}
		contacts += gc.Len()
		sameState(t, s+1, g, co)
	}
	if contacts < 6*30 {
		t.Fatalf("%d contacts over 6 steps: want the pile in contact", contacts)
	}
	t.Logf("6 steps, %d contacts over them", contacts)
}

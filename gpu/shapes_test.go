package gpu

import (
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/scene"
)

// TestRodsSceneStep: a model with capsules and cylinders (the rods
// example: their pairs with each other, spheres, the walls and the floor)
// collides on the device, its GJK/EPA pairs (capsule–cylinder,
// cylinder–cylinder, with the box walls) listed for the host, which its
// notes say, and steps bit for bit as cpuref with the GPU's dot order, over
// six steps of a settling pile.
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
	notes := strings.Join(gb.Notes(), " ")
	if !gb.dc.on || !strings.Contains(notes, "cylinder–cylinder pairs go through the host") {
		t.Fatalf("device collider on %v, notes %q: want the device's collision, the host's pairs said", gb.dc.on, gb.Notes())
	}
	if gb.dc.narrow.host&(1<<pairHostRound) == 0 {
		t.Fatalf("host rows %b: want the capsule and cylinder GJK row listed", gb.dc.narrow.host)
	}
	co := newStepper(t, cpuref.New(0), m, set, true)
	contacts, hosted := 0, 0
	for s := range 6 {
		g.step(t)
		co.step(t)
		hosted += int(gb.dc.counts[metaFallback])
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
	if hosted == 0 {
		t.Fatal("no pair listed for the host: want the cylinders' GJK pairs there")
	}
	t.Logf("6 steps, %d contacts over them, %d pairs computed on the host; notes: %q", contacts, hosted, gb.Notes())
}

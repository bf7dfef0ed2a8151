package run

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// TestRedundantJoints: a chain of three spheres on spherical joints is
// not over-constrained; the same chain with its middle joint given twice,
// or with a fixed joint added between its top link and the world, is —
// by 3 and 3 rows (the fixed joint's point rows repeat the spherical
// joint's) — and the log line says how many; a scene of many bodies
// checks only its jointed ones (the line counts their 9 rows).
func TestRedundantJoints(t *testing.T) {
	chain := func() *engine.Model { return enginetest.HangingChain(3, 9.81) }
	s := engine.DefaultSettings()
	if line := redundantJoints(chain(), s); line != "" {
		t.Errorf("a plain chain: %q, want no line", line)
	}
	twice := chain()
	twice.Joints = append(twice.Joints, twice.Joints[1])
	if line := redundantJoints(twice, s); !strings.Contains(line, "3 of the 12 joint rows are redundant") {
		t.Errorf("a joint given twice: %q", line)
	}
	welded := chain()
	welded.Joints = append(welded.Joints, engine.Joint{Kind: engine.JointFixed, Body1: 0, Body2: engine.World, Point: mgl64.Vec3{}})
	if line := redundantJoints(welded, s); !strings.Contains(line, "3 of the 15 joint rows are redundant") {
		t.Errorf("a fixed joint over a spherical one: %q", line)
	}
	big := chain()
	big.Joints = big.Joints[:2]
	big.Joints = append(big.Joints, big.Joints[1])
	for i := range 500 {
		b := engine.Body{Shape: engine.SphereShape(0.05), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{float64(i), 5, 0}}
		b.SetMass(1)
		big.Bodies = append(big.Bodies, b)
	}
	if sub := jointSubModel(big); len(sub.Bodies) != 2 {
		t.Errorf("the jointed bodies of the big scene: %d, want 2", len(sub.Bodies))
	}
	if line := redundantJoints(big, s); !strings.Contains(line, "3 of the 9 joint rows are redundant") {
		t.Errorf("a big scene with a joint given twice: %q", line)
	}
}

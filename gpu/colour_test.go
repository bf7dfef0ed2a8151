//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"github.com/gpusim/gpusim/internal/testfile"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/scene"
)

// colourCases are the scenes of TestKernelColours: a settled pile, a heavy
// slab on a bed (its contacts with the top layer, more than 32, make a
// tail), the random cube (a tail of thousands), joints with a kinematic
// body, rolling friction, and no contacts at all.
func colourCases(t *testing.T) []struct {
	name string
	m    *engine.Model
} {
	builtin := func(name string, sets []string, steps int) *engine.Model {
		sc, err := scene.LoadBuiltin(name, sets)
		if err != nil {
			t.Fatal(err)
		}
		return advanced(t, sc, steps)
	}
	empty := enginetest.RandomModel(1, 6)
	var free []engine.Body // the movable bodies, 5 m apart: no contacts
	for _, bd := range empty.Bodies {
		if !bd.Fixed && bd.Shape.Kind != engine.Plane {
			bd.Pos = mgl64.Vec3{5 * float64(len(free)), 0, 1}
			free = append(free, bd)
		}
	}
	empty.Bodies = free
	return []struct {
		name string
		m    *engine.Model
	}{
		{"settle", builtin("settle", []string{"n=300"}, 60)},
		{"pressure", builtin("pressure", []string{"n=300"}, 40)},
		{"random", randomModel(8, kernelScene)},
		{"joints", enginetest.JointedModel(1)},
		{"rolling", jointedRolling()},
		{"empty", empty},
	}
}

// TestKernelColours: gs_colour's colours and order are cpuref's (Colours,
// SweepOrder) on each of colourCases, valid (no two contacts of one
// colour on a movable body), and three coloured sweeps (gs_colour_sweep
// per colour, then gs_sweep's tail, joint rows and rolling blocks) equal
// cpuref's bit for bit.
func TestKernelColours(t *testing.T) {
	if maxColours != cpuref.MaxColours || colourRounds != cpuref.ColourRounds {
		t.Fatalf("maxColours %d and colourRounds %d, cpuref's %d and %d", maxColours, colourRounds, cpuref.MaxColours, cpuref.ColourRounds)
	}
	for _, c := range colourCases(t) {
		t.Run(c.name, func(t *testing.T) {
			set := engine.DefaultSettings()
			tw := newTwin(t, c.m, set)
			cp, gp := tw.build(t, set.Dt)
			want, rounds := tw.cpu.Colours()
			got, err := tw.gpu.colours()
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "empty" && tw.nc != 0 {
				t.Fatalf("%d contacts, want none", tw.nc)
			}
			if len(got) != len(want) || len(got) != tw.nc {
				t.Fatalf("%d colours on the GPU, %d on cpuref, %d contacts", len(got), len(want), tw.nc)
			}
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("contact %d: colour %d on the GPU, %d on cpuref", k, got[k], want[k])
				}
			}
			if err := enginetest.CheckColouring(tw.cpu.Contacts(), tw.cpu.Fixed(), got, maxColours, rounds == colourRounds); err != nil {
				t.Fatal(err)
			}
			if g, c := gp.(engine.SweepOrder).SweepOrder(), cp.(engine.SweepOrder).SweepOrder(); !slices.Equal(g, c) {
				t.Fatalf("the sweep orders differ: %v… on the GPU, %v… on cpuref", g[:min(len(g), 8)], c[:min(len(c), 8)])
			}
			used, tail := 0, 0
			for k, n := range tw.gpu.col.starts[:maxColours] {
				if tw.gpu.col.starts[k+1] > n {
					used++
				}
			}
			if tw.nc > 0 {
				tail = int(tw.gpu.col.starts[maxColours+1] - tw.gpu.col.starts[maxColours])
			}
			t.Logf("%d contacts: %d colours, %d in the tail, %d rounds on cpuref", tw.nc, used, tail, rounds)
			if testfile.GoFusesMultiplyAdd {
				return // bit-identity of the sweeps needs unfused Go (requireUnfusedGo)
			}
			rows := engine.Rows(cp)
			r := rand.New(rand.NewPCG(9, 1))
			cg, gg := pair(cp, gp, randVec(r, rows))
			cd, gd := cp.NewVec(rows), gp.NewVec(rows)
			cp.BlockDiag(cd)
			gp.BlockDiag(gd)
			for i, lambda := range []float64{1, 0.7, 0.7} {
				cp.Sweep(cg, cd, 0.3, lambda)
				gp.Sweep(gg, gd, 0.3, lambda)
				checkSame(t, "Sweep "+string(rune('1'+i)), cp, gp, cg, gg)
			}
		})
	}
}

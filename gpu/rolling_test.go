//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// rollingScene is a few spheres with rolling and spinning friction on a
// plane and on each other: three rolling, spinning and sliding on the
// plane (turned, so that the rows' body frames are not the world's), a
// fourth resting on the third, and a fifth of a material without rolling
// or spinning friction (its contacts have no rolling rows: the blocks are
// not every contact), leaning against the second. The combined
// coefficients are the smaller of the two materials' (engine.CombineRolling).
func rollingScene() *engine.Model {
	const R = 0.1
	m := &engine.Model{
		Materials: []engine.Material{
			{Name: "floor", Friction: 0.6, RollingFriction: 0.02, SpinningFriction: 0.01},
			{Name: "ball", Friction: 0.5, RollingFriction: 0.01, SpinningFriction: 0.004},
			{Name: "smooth", Friction: 0.4},
		},
		Gravity: mgl64.Vec3{0, 0, -9.81},
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true, Material: 0})
	add := func(pos, v, w mgl64.Vec3, rot mgl64.Quat, mat int) {
		b := engine.Body{Shape: engine.SphereShape(R), Pos: pos, Rot: rot, Vel: v, Omega: w, Material: mat}
		b.SetMass(1)
		m.Bodies = append(m.Bodies, b)
	}
	turn := func(angle float64, axis mgl64.Vec3) mgl64.Quat { return mgl64.QuatRotate(angle, axis.Normalize()) }
	const z = R - 1e-4 // slightly into the plane: contacts from the first step
	add(mgl64.Vec3{0, 0, z}, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 8, 0}, turn(0.3, mgl64.Vec3{1, 2, 3}), 1)
	add(mgl64.Vec3{0.5, 0, z}, mgl64.Vec3{}, mgl64.Vec3{0.5, -1, 12}, turn(1.1, mgl64.Vec3{-2, 1, 0.5}), 1)
	add(mgl64.Vec3{1, 0, z}, mgl64.Vec3{0, 0.3, 0}, mgl64.Vec3{-1, 0, 2}, mgl64.QuatIdent(), 1)
	add(mgl64.Vec3{1.002, 0.001, 3*R - 3e-4}, mgl64.Vec3{}, mgl64.Vec3{0, 0, 5}, turn(2, mgl64.Vec3{0, 1, 1}), 1)
	add(mgl64.Vec3{0.5, 2*R - 2e-4, z}, mgl64.Vec3{0, -0.1, 0}, mgl64.Vec3{3, 0, 0}, turn(0.7, mgl64.Vec3{1, 0, 0}), 2)
	return m
}

// jointedRolling is enginetest.JointedModel(1) (joints of every kind, a
// motor, a kinematic body, contacts) with rolling and spinning friction on
// its materials: γ = [contacts | joint rows | rolling rows].
func jointedRolling() *engine.Model {
	m := enginetest.JointedModel(1)
	for i := range m.Materials {
		m.Materials[i].RollingFriction, m.Materials[i].SpinningFriction = 0.01*float64(i+1), 0.005
	}
	return m
}

// withDumbbell adds to m a compound body (two spheres of radius 0.05 m,
// 0.2 m apart) lying on the plane, spinning: the host's collider then
// finds every contact (compounds), whose combined coefficients come per
// contact from it.
func withDumbbell(t *testing.T, m *engine.Model) *engine.Model {
	const r = 0.05
	sh, c, _, err := engine.NewCompound([]engine.Part{
		{Shape: engine.SphereShape(r), Pos: mgl64.Vec3{-0.1, 0, 0}, Rot: mgl64.QuatIdent()},
		{Shape: engine.SphereShape(r), Pos: mgl64.Vec3{0.1, 0, 0}, Rot: mgl64.QuatIdent()},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := engine.Body{Shape: sh, Pos: mgl64.Vec3{-0.5, 0, r - 1e-4}.Add(c), Rot: mgl64.QuatIdent(), Omega: mgl64.Vec3{0, 0, 4}, Vel: mgl64.Vec3{0.2, 0, 0}, Material: 1}
	b.SetMass(1)
	m.Bodies = append(m.Bodies, b)
	return m
}

// TestRollingModelLoads: a model with rolling or spinning friction loads on
// the Vulkan backend (it was refused before the device took the rows), and
// its problem has a rolling block per contact with a nonzero combined
// coefficient, in contact order (engine.RollingRows).
func TestRollingModelLoads(t *testing.T) {
	d := requireDevice(t)
	for _, mt := range []engine.Material{{Friction: 0.3, RollingFriction: 0.01}, {Friction: 0.3, SpinningFriction: 0.01}} {
		gb, err := newBackendOn(d)
		if err != nil {
			t.Fatal(err)
		}
		m := rollingScene()
		m.Materials[0], m.Materials[1] = mt, mt
		set := engine.DefaultSettings()
		set.Solver, set.MaxIter = "apgd", 10
		s := newStepper(t, gb, m, set, false)
		s.step(t)
		var con engine.Contacts
		if err := gb.ReadContacts(&con); err != nil {
			t.Fatal(err)
		}
		rr := s.p.(engine.RollingRows)
		k := 0
		for c := range con.Len() {
			if !con.HasRollingRows(c) {
				continue
			}
			if k >= rr.Rolling() || rr.RollingContact(k) != c {
				t.Fatalf("%+v: rolling block %d is not contact %d", mt, k, c)
			}
			k++
		}
		if k != rr.Rolling() || k == 0 || k == con.Len() {
			t.Fatalf("%+v: %d rolling blocks for %d contacts, %d with rolling rows (want some, not all)", mt, rr.Rolling(), con.Len(), k)
		}
		if !slices.Contains(gb.Notes(), rollingNote) {
			t.Errorf("notes %q: want the rolling note", gb.Notes())
		}
		gb.Close()
	}
}

// TestRollingMatchCPU: the rolling scene (and the scene with a compound,
// which the host collides, and a jointed model with rolling friction) on the Vulkan backend and on cpuref with the
// GPU's dot order, for every solver that takes rolling
// rows (pdip refuses them: engine.ErrRollingPDIP), with warm start, over
// several steps: the impulses (contact, rolling rows) and the states
// equal bit for bit, and so the contact forces with their rolling and
// spinning torques (engine.ContactForcesRolling), and the warm-start data
// (checkpoints) and a step after restoring it. The device runs the
// rows in its LinAlg (Schur, Project, BlockDiag, AntiRelax, Sweep); the
// solvers' iterations are the engine's host-driven ones (engine.RollingRows).
func TestRollingMatchCPU(t *testing.T) {
	requireUnfusedGo(t)
	d := requireDevice(t)
	for _, sc := range []struct {
		name   string
		m      *engine.Model
		device bool
	}{{"device-collider", rollingScene(), true}, {"host-collider", withDumbbell(t, rollingScene()), false}, {"joints", jointedRolling(), true}} {
		t.Run(sc.name, func(t *testing.T) { testRollingMatchCPU(t, d, sc.m, sc.device) })
	}
}

func testRollingMatchCPU(t *testing.T, d *Device, m *engine.Model, device bool) {
	for _, name := range engine.Solvers() {
		name, _, _ = strings.Cut(name, ":")
		if name == "pdip" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			set := engine.DefaultSettings()
			set.Solver, set.Tol, set.MaxIter, set.WarmStart = name, 0, 12, true
			gb, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer gb.Close()
			g := newStepper(t, gb, m, set, false)
			cb := cpuref.New(0)
			c := newStepper(t, cb, m, set, true)
			if gb.dc.on != device {
				t.Fatalf("the device collider is on: %v, want %v", gb.dc.on, device)
			}
			blocks, contacts, big := 0, 0, 0.0
			var gc, cc engine.Contacts
			for step := 1; step <= 6; step++ {
				g.step(t)
				c.step(t)
				nr := engine.RollingBlocks(g.p)
				if cn := engine.RollingBlocks(c.p); nr != cn || g.nc != c.nc {
					t.Fatalf("step %d: %d contacts and %d rolling blocks on the GPU, %d and %d on cpuref", step, g.nc, nr, c.nc, cn)
				}
				blocks += nr
				contacts += g.nc
				gi, ci := g.impulses(), c.impulses()
				for _, v := range gi[len(gi)-3*nr:] {
					big = max(big, abs(v))
				}
				if i := enginetest.FirstDiff(gi, ci); i >= 0 {
					t.Fatalf("step %d: γ[%d] of %d differs (%d contacts, %d rolling blocks): %v on the GPU, %v on cpuref",
						step, i, len(gi), g.nc, nr, gi[i], ci[i])
				}
				sameState(t, step, g, c)
				if err := gb.ReadContacts(&gc); err != nil {
					t.Fatal(err)
				}
				if err := cb.ReadContacts(&cc); err != nil {
					t.Fatal(err)
				}
				gf, err := engine.ContactForcesRolling(nil, &gc, gi, set.Dt)
				if err != nil {
					t.Fatal(err)
				}
				cf, err := engine.ContactForcesRolling(nil, &cc, ci, set.Dt)
				if err != nil {
					t.Fatal(err)
				}
				for k := range cf {
					if gf[k] != cf[k] {
						t.Fatalf("step %d: contact %d's force %+v on the GPU, %+v on cpuref", step, k, gf[k], cf[k])
					}
				}
			}
			t.Logf("%d contacts, %d rolling blocks over 6 steps; largest rolling impulse %.3g N·m·s", contacts, blocks, big)
			if blocks == 0 || big == 0 {
				t.Fatal("the rolling rows were not exercised: want rolling blocks with nonzero impulses")
			}
			// The warm-start memory (checkpoints): the kept rolling
			// impulses, 3 per contact key, equal; restored into a fresh
			// backend beside cpuref's, the next step is the same again.
			var gw, cw engine.WarmStartData
			if err := gb.WarmStartData(&gw); err != nil {
				t.Fatal(err)
			}
			if err := cb.WarmStartData(&cw); err != nil {
				t.Fatal(err)
			}
			if len(cw.Rolling) == 0 || len(gw.Rolling) != len(cw.Rolling) || enginetest.FirstDiff(gw.Rolling, cw.Rolling) >= 0 || enginetest.FirstDiff(gw.Gamma, cw.Gamma) >= 0 {
				t.Fatalf("warm-start data: rolling %v on the GPU, %v on cpuref", gw.Rolling, cw.Rolling)
			}
			// (A kinematic body's motion is a function of the time,
			// which a fresh backend starts at 0: restore models without.)
			if slices.ContainsFunc(m.Bodies, func(b engine.Body) bool { return b.Kinematic() }) {
				return
			}
			st := c.state(t)
			gb2, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer gb2.Close()
			g2 := newStepper(t, gb2, m, set, false)
			if err := gb2.SetState(&st); err != nil {
				t.Fatal(err)
			}
			if err := gb2.SetWarmStartData(&cw); err != nil {
				t.Fatal(err)
			}
			g2.step(t)
			c.step(t)
			if i := enginetest.FirstDiff(g2.impulses(), c.impulses()); i >= 0 {
				t.Fatalf("after restoring: γ[%d] differs: %v on the GPU, %v on cpuref", i, g2.impulses()[i], c.impulses()[i])
			}
			sameState(t, 7, g2, c)
			if err := gb.l.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func abs(x float64) float64 { return max(x, -x) }

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/scene"
)

// TestCollideDeviceKinematic: collide_aabb gives a kinematic body the
// margin h(|v| + |ω|R) of its prescribed velocity, as collide does (bit
// for bit), and a fixed body none: a sphere whose gap to a moving
// kinematic plate is beyond the envelope but within the plate's margin is
// a contact on both backends, a sphere farther away is none, and the
// contacts, keys and adjacency are cpuref's.
func TestCollideDeviceKinematic(t *testing.T) {
	requireUnfusedGo(t)
	const r, env, dt = 0.1, 0.001, 0.01
	plate := engine.Body{Shape: engine.BoxShape(1, 1, 0.1), Rot: mgl64.QuatIdent(),
		Motion: &engine.Motion{Vel: mgl64.Vec3{0, 0, 1}, Omega: mgl64.Vec3{0, 0, 0.5}}}
	wall := engine.Body{Shape: engine.BoxShape(0.1, 1, 1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{3, 0, 0}, Fixed: true}
	sphere := func(x, gap float64) engine.Body {
		b := engine.Body{Shape: engine.SphereShape(r), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{x, 0, 0.1 + r + gap}}
		b.SetMass(1)
		return b
	}
	// The plate's margin is dt·(1 + 0.5·√2.01) ≈ 0.0171 m; the spheres,
	// at rest without gravity, have none. Gaps: 0.005 m (beyond the
	// envelope, within the margin), 0.05 m (beyond both), and a sphere
	// 0.005 m from the fixed wall (beyond the envelope: no margin there).
	near, far := sphere(0, 0.005), sphere(0.5, 0.05)
	byWall := engine.Body{Shape: engine.SphereShape(r), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{3 - 0.1 - r - 0.005, 0, 2}}
	byWall.SetMass(1)
	m := &engine.Model{Bodies: []engine.Body{plate, wall, near, far, byWall},
		Materials: []engine.Material{{Name: "m", Friction: 0.5}}}
	set := engine.DefaultSettings()
	set.Dt, set.Envelope = dt, env
	tw := deviceTwin(t, m, set)
	checkContacts(t, tw)

	gb := tw.gpu
	h := &gb.host
	box := make([]float64, 8*gb.n)
	if err := gb.dc.box.ReadFloat64(box, 0); err != nil {
		t.Fatal(err)
	}
	// collide.Collide's margin of a kinematic body, from the velocity
	// Load gave it (its velocity at t = 0).
	v := mgl64.Vec3{h.vel[0], h.vel[1], h.vel[2]}.Len()
	w := mgl64.Vec3{h.omega[0], h.omega[1], h.omega[2]}.Len()
	want := dt * (v + w*plate.Shape.BoundingRadius())
	if !(want > 0.005+env) || box[6] != want {
		t.Fatalf("kinematic plate's margin %v, want %v (> the near sphere's gap 0.005 + envelope)", box[6], want)
	}
	if box[8+6] != 0 {
		t.Fatalf("fixed wall's margin %v, want 0", box[8+6])
	}
	var c engine.Contacts
	if err := gb.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	pairs := map[[2]int32]bool{}
	for k := range c.A {
		pairs[[2]int32{c.A[k], c.B[k]}] = true
	}
	if !pairs[[2]int32{0, 2}] || pairs[[2]int32{0, 3}] || pairs[[2]int32{1, 4}] {
		t.Fatalf("contact pairs %v, want (0, 2) (within the plate's margin) and neither (0, 3) nor (1, 4)", pairs)
	}
}

// TestKinematicSceneStep runs the built-in scenes with kinematic bodies,
// shaker and mixer at small sizes, for a few steps on the GPU backend and
// on cpuref with the GPU's dot order, from a state that cpuref advanced to
// where the bodies touch the kinematic ones (the advanced state keeps the
// prescribed motion: each kinematic body starts its path again from its
// advanced pose). After every step the states are equal bit for bit, the
// kinematic bodies included, and the contacts with kinematic bodies are
// the same and present.
func TestKinematicSceneStep(t *testing.T) {
	requireUnfusedGo(t)
	d := requireDevice(t)
	for _, c := range []struct {
		name           string
		sets           []string
		advance, steps int
	}{
		{"shaker", []string{"n=12"}, 15, 4},
		{"mixer", []string{"n=4"}, 260, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc, err := scene.LoadBuiltin(c.name, c.sets)
			if err != nil {
				t.Fatal(err)
			}
			m := advanced(t, sc, c.advance)
			if !m.HasKinematic() {
				t.Fatal("the scene has no kinematic body")
			}
			set := sc.Settings
			set.MaxIter = 40
			gb, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer gb.Close()
			g := newStepper(t, gb, m, set, false)
			co := newStepper(t, cpuref.New(0), m, set, true)
			// The shaker's walls translate: its contacts' arms are one
			// number each (engine.Model.ArmsAlongNormal) until a wall is
			// given a motion that turns it; the mixer's blade turns.
			if want := c.name == "shaker"; gb.jac.arms != want {
				t.Fatalf("the Jacobian holds the arms as ρ: %v, want %v", gb.jac.arms, want)
			}
			kinContacts := 0
			for s := range c.steps {
				if c.name == "shaker" && s == c.steps/2 {
					wall := slices.IndexFunc(m.Bodies, func(b engine.Body) bool { return b.Kinematic() })
					turn := engine.Motion{Omega: mgl64.Vec3{0, 0, 0.5}}
					for _, b := range []engine.Backend{gb, co.b} {
						if err := b.(engine.Driver).SetMotion(wall, turn, float64(s)*set.Dt); err != nil {
							t.Fatal(err)
						}
					}
					if gb.jac.arms {
						t.Fatal("a wall that turns: the Jacobian still holds the arms as ρ")
					}
				}
				g.step(t)
				co.step(t)
				gc, cc := g.contacts(t), co.contacts(t)
				if i := enginetest.FirstDiff(gc.Normal, cc.Normal); i >= 0 || gc.Len() != cc.Len() {
					t.Fatalf("step %d: %d contacts on the GPU, %d on cpuref (or their normals differ at %d)", s+1, gc.Len(), cc.Len(), i)
				}
				for k := range gc.A {
					if m.Bodies[gc.A[k]].Kinematic() || m.Bodies[gc.B[k]].Kinematic() {
						kinContacts++
					}
				}
				sameState(t, s+1, g, co)
			}
			if kinContacts == 0 {
				t.Fatal("no contact with a kinematic body: the test compares nothing kinematic")
			}
			t.Logf("%d steps, %d contacts with kinematic bodies over them", c.steps, kinContacts)
		})
	}
}

// TestCompoundSceneStep: examples/dumbbells.json (compound bodies of two
// spheres and a bar, on a floor) on the GPU backend, whose collision then
// runs on the host (hasCompound), and on cpuref with the GPU's dot order,
// from a state cpuref advanced to just after the first contacts: after
// every step the states are equal bit for bit.
func TestCompoundSceneStep(t *testing.T) {
	requireUnfusedGo(t)
	sc, err := scene.Load("../examples/dumbbells.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := advanced(t, sc, 44)
	set := sc.Settings
	gb := newTestBackend(t)
	g := newStepper(t, gb, m, set, false)
	if gb.dc.on || len(gb.Notes()) == 0 {
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
	if contacts == 0 {
		t.Fatal("no contacts: the test compares free flight only")
	}
	t.Logf("6 steps, %d contacts over them", contacts)
}

// sameState fails the test unless the two steppers' positions,
// orientations and velocities are equal bit for bit after step step.
func sameState(t *testing.T, step int, g, co *stepper) {
	t.Helper()
	gs, os := g.state(t), co.state(t)
	for _, f := range []struct {
		name string
		g, o []float64
	}{{"pos", gs.Pos, os.Pos}, {"rot", gs.Rot, os.Rot}, {"vel", gs.Vel, os.Vel}, {"omega", gs.Omega, os.Omega}} {
		if i := enginetest.FirstDiff(f.g, f.o); i >= 0 {
			t.Fatalf("step %d: %s[%d] = %v on the GPU, %v on cpuref with the GPU's dot order", step, f.name, i, f.g[i], f.o[i])
		}
	}
}

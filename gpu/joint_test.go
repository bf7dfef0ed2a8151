//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// TestJointsMatchCPU: enginetest.JointedModel (every joint kind, motors
// with and without limits, joints to the world and to a kinematic body,
// contacts on jointed bodies, jointed pairs that must not collide within
// the envelope) on the GPU backend and on cpuref with the GPU's dot
// order, every solver, warm-started: after every step the impulses
// (contact and joint rows), the states and the joint reactions are equal
// bit for bit, and apgd, apgd-ar, jacobi and spg ran on the device (fewer
// submits than iterations). Before step 3 a motor and a kinematic motion
// change (engine.Driver) on both. This covers joint_rows.comp (Build), joint_ops
// (Schur, Project, AntiRelax, BlockDiag, the warm-start copies), the joint
// lists of body_impulse and the joint loop of gs_sweep.
func TestJointsMatchCPU(t *testing.T) {
	requireUnfusedGo(t)
	d := requireDevice(t)
	m := enginetest.JointedModel(1)
	kinematic := -1
	for i := range m.Bodies {
		if m.Bodies[i].Kinematic() {
			kinematic = i
		}
	}
	for _, name := range engine.Solvers() {
		name, _, _ = strings.Cut(name, ":")
		t.Run(name, func(t *testing.T) {
			set := engine.DefaultSettings()
			set.Solver, set.Tol, set.MaxIter, set.WarmStart = name, 0, 15, true
			gb, err := newBackendOn(d)
			if err != nil {
				t.Fatal(err)
			}
			defer gb.Close()
			g := newStepper(t, gb, m, set, false)
			cb := cpuref.New(0)
			c := newStepper(t, cb, m, set, true)
			if !gb.dc.on {
				t.Fatal("the device collider is off: the test would not check its excluded pairs")
			}
			contacts := 0
			var gr, cr []engine.Reaction
			for step := 1; step <= 4; step++ {
				if step == 3 {
					// Between steps a motor and a kinematic motion change
					// (engine.Driver), on both backends alike.
					for _, d := range []engine.Driver{gb, cb} {
						if err := d.SetMotor(0, engine.Motor{Speed: -1, MaxForce: 0.2}); err != nil {
							t.Fatal(err)
						}
						if err := d.SetMotion(kinematic, engine.Motion{Vel: mgl64.Vec3{0, 0.1, 0}, Omega: mgl64.Vec3{0.3, 0, 0}}, 2*set.Dt); err != nil {
							t.Fatal(err)
						}
					}
				}
				submits := gb.Submits()
				g.step(t)
				if device := name != "gs" && name != "pdip"; device && gb.Submits()-submits >= set.MaxIter {
					t.Fatalf("step %d: %d submits for %d iterations: the solver did not run on the device", step, gb.Submits()-submits, set.MaxIter)
				}
				c.step(t)
				if rows := engine.Rows(g.p); rows-3*g.nc != m.JointRows() {
					t.Fatalf("step %d: %d rows for %d contacts, want %d joint rows", step, rows, g.nc, m.JointRows())
				}
				contacts += g.nc
				if i := enginetest.FirstDiff(g.impulses(), c.impulses()); i >= 0 {
					t.Fatalf("step %d: γ[%d] differs (%d contacts): %v on the GPU, %v on cpuref", step, i, g.nc, g.impulses()[i], c.impulses()[i])
				}
				sameState(t, step, g, c)
				if gr, err = gb.JointReactions(g.gamma, set.Dt, gr); err != nil {
					t.Fatal(err)
				}
				if cr, err = cb.JointReactions(c.gamma, set.Dt, cr); err != nil {
					t.Fatal(err)
				}
				for k := range cr {
					if gr[k] != cr[k] {
						t.Fatalf("step %d: joint %d's reaction %v on the GPU, %v on cpuref", step, k, gr[k], cr[k])
					}
				}
			}
			if contacts == 0 {
				t.Fatal("no contacts: joint rows never shared a problem with contact rows")
			}
			if err := gb.l.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCollideDeviceExcluded: two overlapping spheres joined without
// "collide" make no contact on the device (collide_pairs drops the pair),
// the same pair joined with "collide" does, and an overlapping pair
// without a joint always does: the device's contacts are collide's.
func TestCollideDeviceExcluded(t *testing.T) {
	for _, collide := range []bool{false, true} {
		m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
		for i := range 4 {
			bd := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0.19 * float64(i%2), float64(i / 2), 0}}
			bd.SetMass(1)
			m.Bodies = append(m.Bodies, bd)
		}
		m.Joints = []engine.Joint{{Kind: engine.JointDistance, Body1: 1, Body2: 0, Point: mgl64.Vec3{0.19, 0, 0}, Point2: mgl64.Vec3{}, Collide: collide}}
		set := engine.DefaultSettings()
		gb := newTestBackend(t)
		if err := gb.Load(m, &set); err != nil {
			t.Fatal(err)
		}
		if !gb.dc.on {
			t.Fatal("the device collider is off")
		}
		nc, err := gb.Collide()
		if err != nil {
			t.Fatal(err)
		}
		var c engine.Contacts
		if err := gb.ReadContacts(&c); err != nil {
			t.Fatal(err)
		}
		want := [][2]int32{{2, 3}}
		if collide {
			want = [][2]int32{{0, 1}, {2, 3}}
		}
		var got [][2]int32
		for k := range nc {
			got = append(got, [2]int32{c.A[k], c.B[k]})
		}
		if len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
			t.Errorf("collide %v: contacts between %v, want %v", collide, got, want)
		}
	}
}

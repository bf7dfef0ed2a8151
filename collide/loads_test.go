package collide

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TestBodyArraysLoads: a model without loads holds one body's +0s, which
// LoadAt gives every body; one load component anywhere, a −0 among them
// (−0 + −0 is −0 where +0 + −0 is +0), makes them per body.
func TestBodyArraysLoads(t *testing.T) {
	model := func(f, tq mgl64.Vec3) *engine.Model {
		m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
		for i := range 4 {
			b := engine.Body{Shape: engine.SphereShape(0.1), Pos: mgl64.Vec3{float64(i), 0, 0}, Rot: mgl64.QuatIdent()}
			b.SetMass(1)
			if i == 2 {
				b.Force, b.Torque = f, tq
			}
			m.Bodies = append(m.Bodies, b)
		}
		return m
	}
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name    string
		f, tq   mgl64.Vec3
		perBody bool
	}{
		{"none", mgl64.Vec3{}, mgl64.Vec3{}, false},
		{"force", mgl64.Vec3{0, 0, -3}, mgl64.Vec3{}, true},
		{"torque", mgl64.Vec3{}, mgl64.Vec3{1, 0, 0}, true},
		{"negative zero", mgl64.Vec3{0, negZero, 0}, mgl64.Vec3{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := model(c.f, c.tq)
			s := engine.DefaultSettings()
			var col Collider
			col.Load(m, &s)
			a := col.BodyArrays(m)
			if want := map[bool]int{false: 3, true: 12}[c.perBody]; len(a.Force) != want || len(a.Torque) != want {
				t.Fatalf("%d force and %d torque values, want %d", len(a.Force), len(a.Torque), want)
			}
			for i := range m.Bodies {
				f, tq := LoadAt(a.Force, i), LoadAt(a.Torque, i)
				wf, wt := mgl64.Vec3{}, mgl64.Vec3{}
				if i == 2 {
					wf, wt = c.f, c.tq
				}
				for k := range 3 {
					if math.Float64bits(f[k]) != math.Float64bits(wf[k]) || math.Float64bits(tq[k]) != math.Float64bits(wt[k]) {
						t.Fatalf("body %d: force %v, torque %v; want %v, %v", i, f, tq, wf, wt)
					}
				}
			}
		})
	}
}

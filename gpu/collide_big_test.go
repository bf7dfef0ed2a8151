//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TestCollideDeviceBigLists: big bodies and planes listed before the
// bodies they touch own long partner lists (a floor box under 700
// spheres, a wall beside a row of them, a plane under all, a moving big
// box over some): collide_big's workgroups find them 256 at a time, and
// the contacts come out as collide's, in its order, bit for bit.
func TestCollideDeviceBigLists(t *testing.T) {
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
	id := mgl64.QuatIdent()
	m.Bodies = append(m.Bodies,
		engine.Body{Shape: engine.BoxShape(3, 3, 0.1), Rot: id, Pos: mgl64.Vec3{0, 0, -0.1}, Fixed: true},
		engine.Body{Shape: engine.BoxShape(0.1, 3, 1), Rot: id, Pos: mgl64.Vec3{-2.699, 0, 1}, Fixed: true},
		engine.Body{Shape: engine.PlaneShape(), Rot: id, Pos: mgl64.Vec3{0, 0, 0.049}, Fixed: true},
	)
	big := engine.Body{Shape: engine.BoxShape(1, 1, 0.1), Rot: mgl64.QuatRotate(0.1, mgl64.Vec3{1, 1, 0}.Normalize()), Pos: mgl64.Vec3{1, 1, 0.2}}
	big.SetMass(5)
	m.Bodies = append(m.Bodies, big)
	for k := range 700 {
		x, y := k%26, k/26
		bd := engine.Body{Shape: engine.SphereShape(0.1), Rot: id, Pos: mgl64.Vec3{-2.5 + 0.2*float64(x), -2.6 + 0.2*float64(y), 0.0995}}
		bd.SetMass(1)
		m.Bodies = append(m.Bodies, bd)
	}
	tw := newTwin(t, m, engine.DefaultSettings())
	var c, g engine.Contacts
	if err := tw.cpu.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.ReadContacts(&g); err != nil {
		t.Fatal(err)
	}
	owned := map[int32]int{}
	for k := range c.A {
		owned[c.A[k]]++
	}
	if owned[0] < 600 || owned[1] < 20 || owned[2] < 600 || owned[3] < 40 {
		t.Fatalf("partners of the floor, wall, plane and moving box: %d, %d, %d, %d: the scene does not test long lists", owned[0], owned[1], owned[2], owned[3])
	}
	if c.Len() != g.Len() {
		t.Fatalf("%d contacts on the CPU, %d on the GPU", c.Len(), g.Len())
	}
	for k := range c.A {
		if c.A[k] != g.A[k] || c.B[k] != g.B[k] {
			t.Fatalf("contact %d: bodies (%d, %d) on the CPU, (%d, %d) on the GPU", k, c.A[k], c.B[k], g.A[k], g.B[k])
		}
	}
	for _, f := range []struct {
		name string
		c, g []float64
	}{{"normal", c.Normal, g.Normal}, {"pa", c.PA, g.PA}, {"pb", c.PB, g.PB}, {"phi", c.Phi, g.Phi}} {
		for i := range f.c {
			if f.c[i] != f.g[i] {
				t.Fatalf("%s differs at %d", f.name, i)
			}
		}
	}
	t.Logf("%d contacts; the floor, wall, plane and moving box own %d, %d, %d, %d", c.Len(), owned[0], owned[1], owned[2], owned[3])
}

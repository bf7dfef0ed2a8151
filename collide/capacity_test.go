package collide

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// capacityModel is an 8 × 8 × 8 block of bodies (spheres, r = 0.1 m, and
// every fifth body a box of half-extent 0.09 m, turned 0.3 rad about z)
// over the ground plane z = 0, and two states of it: spread out on a
// lattice of 0.5 m (no two bodies touch; the bottom layer rests on the
// plane) and packed at 0.199 m (each body overlaps its lattice
// neighbours by 2 mm).
func capacityModel() (m *engine.Model, spread, packed []float64, rot []float64) {
	return capacityModelSide(8)
}

// restArrays returns zeros of 3 per body (velocities, forces) and the
// inverse masses of m's bodies (0 for fixed ones), for Collide.
func restArrays(m *engine.Model) (zero, invMass []float64) {
	n := len(m.Bodies)
	zero, invMass = make([]float64, 3*n), make([]float64, n)
	for i, b := range m.Bodies {
		if !b.Fixed {
			invMass[i] = 1 / b.Mass
		}
	}
	return zero, invMass
}

// capacityModelSide is capacityModel with side³ bodies.
func capacityModelSide(side int) (m *engine.Model, spread, packed []float64, rot []float64) {
	m = &engine.Model{Gravity: mgl64.Vec3{0, 0, -9.81}, Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
	q := mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1})
	for i := 0; i < side*side*side; i++ {
		b := engine.Body{Shape: engine.Shape{Kind: engine.Sphere, Size: mgl64.Vec3{0.1}}, Mass: 1, Rot: mgl64.QuatIdent()}
		if i%5 == 0 {
			b.Shape = engine.Shape{Kind: engine.Box, Size: mgl64.Vec3{0.09, 0.09, 0.09}}
			b.Rot = q
		}
		b.Inertia = b.Shape.UnitInertia().Mul(b.Mass)
		m.Bodies = append(m.Bodies, b)
		x, y, z := float64(i%side), float64(i/side%side), float64(i/(side*side))
		spread = append(spread, 0.5*x, 0.5*y, 0.0995+0.5*z)
		packed = append(packed, 0.199*x, 0.199*y, 0.0995+0.199*z)
		rot = append(rot, b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2])
	}
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.Shape{Kind: engine.Plane}, Fixed: true, Rot: mgl64.QuatIdent()})
	spread = append(spread, 0, 0, 0)
	packed = append(packed, 0, 0, 0)
	rot = append(rot, 1, 0, 0, 0)
	return m, spread, packed, rot
}

// TestCollideGrowsWithoutDropping collides the spread state and then the
// packed one, whose contacts are many times more (the contact arrays
// grow from the first call's size), and checks each contact list equals
// the brute-force one: PairContacts on every pair i < j in order, with the
// envelope and margins Collide used.
func TestCollideGrowsWithoutDropping(t *testing.T) {
	m, spread, packed, rot := capacityModel()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	s := engine.DefaultSettings()
	var c Collider
	c.Load(m, &s)
	n := len(m.Bodies)
	zero, invMass := restArrays(m)
	var counts []int
	for _, pos := range [][]float64{spread, packed, spread} {
		nc, err := c.Collide(pos, rot, zero, zero, invMass, zero)
		if err != nil {
			t.Fatal(err)
		}
		var brute engine.Contacts
		var cps []ContactPoint
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if c.fixed[i] && c.fixed[j] {
					continue
				}
				if _, cps, err = c.PairContacts(i, j, pos, rot, c.envelope+c.margin[i]+c.margin[j], &brute, cps); err != nil {
					t.Fatal(err)
				}
			}
		}
		got := c.Contacts()
		if nc != brute.Len() || got.Len() != nc {
			t.Fatalf("Collide found %d contacts (list of %d), brute force %d", nc, got.Len(), brute.Len())
		}
		for k := 0; k < nc; k++ {
			if got.A[k] != brute.A[k] || got.B[k] != brute.B[k] || got.Phi[k] != brute.Phi[k] {
				t.Fatalf("contact %d: bodies %d, %d, Φ %v; brute force %d, %d, %v", k, got.A[k], got.B[k], got.Phi[k], brute.A[k], brute.B[k], brute.Phi[k])
			}
		}
		counts = append(counts, nc)
	}
	// Spread: only the spheres of the bottom layer touch anything, the
	// plane, 0.5 mm deep, one point each (the boxes there float 9.5 mm
	// above it, beyond the 5 mm envelope); 64 bodies less every fifth.
	// Packed: more than 10× that (lattice neighbours overlap by 2 mm).
	spheres := 0
	for i := 0; i < 64; i++ {
		if i%5 != 0 {
			spheres++
		}
	}
	if counts[0] != spheres || counts[1] < 10*counts[0] || counts[2] != counts[0] {
		t.Errorf("contacts spread, packed, spread again: %v; want %d, ≥ 10× that, %d", counts, spheres, spheres)
	}

}

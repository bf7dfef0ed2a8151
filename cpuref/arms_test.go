package cpuref

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// armsSystem loads spheres of random radii, masses and velocities (linear
// and angular), packed so that they touch each other, a fixed box under
// them and a plane beside them, and finds their contacts with the
// collider: a model whose contact points lie on the normals, so that the
// Jacobian holds the arms as ρ (b.arms).
func armsSystem(t *testing.T, rng *rand.Rand) *Backend {
	t.Helper()
	m := engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	for i := range 4 {
		for j := range 4 {
			for l := range 3 {
				bd := engine.Body{Shape: engine.SphereShape(0.1 + 0.01*rng.Float64()), Rot: mgl64.QuatIdent()}
				bd.Pos = mgl64.Vec3{0.2*float64(i) + 0.01*rng.NormFloat64(), 0.2*float64(j) + 0.01*rng.NormFloat64(), 0.1 + 0.2*float64(l)}
				bd.Rot = mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}.Normalize()
				bd.Vel = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				bd.Omega = mgl64.Vec3{10 * rng.NormFloat64(), 10 * rng.NormFloat64(), 10 * rng.NormFloat64()}
				bd.SetDensity(500 + 1000*rng.Float64())
				m.Bodies = append(m.Bodies, bd)
			}
		}
	}
	m.Bodies = append(m.Bodies,
		engine.Body{Shape: engine.BoxShape(1, 1, 0.1), Pos: mgl64.Vec3{0.3, 0.3, -0.095}, Rot: mgl64.QuatRotate(0.1, mgl64.Vec3{1, 1, 0}.Normalize()), Fixed: true},
		engine.Body{Shape: engine.PlaneShape(), Pos: mgl64.Vec3{-0.095, 0, 0}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}), Fixed: true})
	s := engine.DefaultSettings()
	b := New(2)
	if err := b.Load(&m, &s); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Collide(); err != nil {
		t.Fatal(err)
	}
	if !b.arms {
		t.Fatal("a model of spheres, a fixed box and a plane holds its contacts' arms whole")
	}
	return b
}

// TestArmsAgainstAssembled: with the arms held as ρ (s = ρ n), the
// matrix-free Schur product, r and the block diagonal of spheres' contacts
// with each other, a tilted fixed box and a plane, found by the collider,
// agree with those of the N = DᵀM⁻¹D assembled from the contacts' own
// points (assembleD, eq. 4); and the same contacts set with SetContacts
// (points from anywhere) hold their arms whole.
func TestArmsAgainstAssembled(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	const h = 0.01
	b := armsSystem(t, rng)
	nc := b.con.Len()
	var fixedSides, sphereSides int
	for k := range nc {
		for _, i := range []int32{b.con.A[k], b.con.B[k]} {
			if b.fixed[i] {
				fixedSides++
			} else {
				sphereSides++
			}
		}
	}
	if nc < 40 || fixedSides < 10 {
		t.Fatalf("%d contacts, %d of them with the box or the plane: want more", nc, fixedSides)
	}
	pr, err := b.Build(h)
	if err != nil {
		t.Fatal(err)
	}
	x := make(Vec, 3*nc)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	got := make(Vec, 3*nc)
	pr.Schur(got, x)
	diag := make(Vec, 3*nc)
	pr.BlockDiag(diag)
	want := assembled(b, x, h)
	for row := 0; row < 3*nc; row++ {
		nx, r, g := want.nx[row], want.r[row], want.g[row]
		// Sums of O(100) products of O(10) numbers in another order, and
		// arms ρ n that differ from the contacts' points by a rounding
		// (the points lie on the normals up to one): agreement to 1e-12
		// relative.
		if math.Abs(got[row]-nx) > 1e-12*(1+math.Abs(nx)) {
			t.Fatalf("row %d: matrix-free %v, assembled %v", row, got[row], nx)
		}
		if rr := b.r[row]; math.Abs(rr-r) > 1e-12*(1+math.Abs(r)) {
			t.Fatalf("row %d: r %v, assembled %v", row, rr, r)
		}
		if math.Abs(diag[row]-g) > 1e-12*(1+math.Abs(g)) {
			t.Fatalf("row %d: block diagonal %v, assembled %v", row, diag[row], g)
		}
	}
	t.Logf("%d contacts: %d sides on spheres, %d on the box or the plane", nc, sphereSides, fixedSides)

	// The same contacts from outside: their points may lie anywhere.
	var con engine.Contacts
	if err := b.ReadContacts(&con); err != nil {
		t.Fatal(err)
	}
	b.SetContacts(&con)
	if _, err := b.Build(h); err != nil {
		t.Fatal(err)
	}
	if b.arms {
		t.Error("contacts set with SetContacts: their arms taken as ρ n")
	}
	if _, err := b.Collide(); err != nil {
		t.Fatal(err)
	}
	if !b.arms {
		t.Error("after SetContacts, the collider's contacts hold their arms whole")
	}
}

package collide

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// partsTol bounds the error of a contact point or gap computed through a
// part's pose: a quaternion rotation and a few sums on values of order
// 1 m, each a few ulps; 1e-12 m leaves a wide margin.
const partsTol = 1e-12

// dumbbellModel is the ground plane z = 0 (body 0), a dumbbell (body 1:
// two spheres of radius r at ±d along its x axis, one body) resting on it
// at height r and turned by yaw about z, and a sphere of radius r (body 2)
// resting beside the dumbbell's +x ball, touching it along x.
func dumbbellModel(t *testing.T, yaw float64) (m *engine.Model, pos, rot []float64) {
	t.Helper()
	const r, d = 0.1, 0.3
	parts := []engine.Part{
		{Shape: engine.SphereShape(r), Pos: mgl64.Vec3{-d, 0, 0}, Rot: mgl64.QuatIdent()},
		{Shape: engine.SphereShape(r), Pos: mgl64.Vec3{d, 0, 0}, Rot: mgl64.QuatIdent()},
	}
	shape, c, q, err := engine.NewCompound(parts)
	if err != nil || c != (mgl64.Vec3{}) || q != mgl64.QuatIdent() {
		t.Fatalf("NewCompound: %v, %v, %v", c, q, err)
	}
	m = &engine.Model{Gravity: mgl64.Vec3{0, 0, -9.81}, Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
	qd := mgl64.QuatRotate(yaw, mgl64.Vec3{0, 0, 1})
	m.Bodies = append(m.Bodies, engine.Body{Shape: engine.PlaneShape(), Fixed: true, Rot: mgl64.QuatIdent()})
	db := engine.Body{Shape: shape, Pos: mgl64.Vec3{0, 0, r}, Rot: qd}
	db.SetDensity(1000)
	ball := engine.Body{Shape: engine.SphereShape(r), Pos: qd.Rotate(mgl64.Vec3{d + 2*r, 0, 0}).Add(mgl64.Vec3{0, 0, r}), Rot: mgl64.QuatIdent()}
	ball.SetDensity(1000)
	m.Bodies = append(m.Bodies, db, ball)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Bodies {
		pos = append(pos, b.Pos[0], b.Pos[1], b.Pos[2])
		rot = append(rot, b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2])
	}
	return m, pos, rot
}

func collideAt(t *testing.T, c *Collider, m *engine.Model, pos, rot []float64) *engine.Contacts {
	t.Helper()
	n := len(m.Bodies)
	invMass := make([]float64, n)
	for i, b := range m.Bodies {
		if !b.Static() {
			invMass[i] = 1 / b.Mass
		}
	}
	zero := make([]float64, 3*n)
	if _, err := c.Collide(pos, rot, zero, zero, invMass, zero); err != nil {
		t.Fatal(err)
	}
	return c.Contacts()
}

// The dumbbell's two balls each touch the plane at the point (±d, 0, −r)
// of its frame, whatever its yaw; the ball touches its +x ball at
// (d + r, 0, 0). Its two balls never touch each other (they are apart, but
// their boxes overlap once the envelope grows: see
// TestCompoundNoSelfContact). Keys: (0, 1) has parts (0, 0) and (0, 1),
// Sub 0 and 1<<partShiftB; (1, 2) has (1, 0): Sub 1<<partShiftA.
func TestCompoundContacts(t *testing.T) {
	for _, yaw := range []float64{0, 0.7, math.Pi / 2} {
		m, pos, rot := dumbbellModel(t, yaw)
		s := engine.DefaultSettings()
		var c Collider
		c.Load(m, &s)
		con := collideAt(t, &c, m, pos, rot)
		type want struct {
			a, b   int32
			sub    int32
			pa, pb mgl64.Vec3
			phi    float64
		}
		wants := []want{
			{0, 1, 0, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{-0.3, 0, -0.1}, 0},
			{0, 1, 1 << partShiftB, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0, -0.1}, 0},
			// The ball is not turned: its point is the yawed −x direction.
			{1, 2, 1 << partShiftA, mgl64.Vec3{0.4, 0, 0}, mgl64.QuatRotate(yaw, mgl64.Vec3{0, 0, 1}).Rotate(mgl64.Vec3{-0.1, 0, 0}), 0},
			{0, 2, 0, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0, 0, -0.1}, 0},
		}
		// Contacts come sorted by (A, B): (0, 1), (0, 2), (1, 2).
		wants[2], wants[3] = wants[3], wants[2]
		if con.Len() != len(wants) {
			t.Fatalf("yaw %v: %d contacts (A %v, B %v), want %d", yaw, con.Len(), con.A, con.B, len(wants))
		}
		for k, w := range wants {
			pa := mgl64.Vec3{con.PA[3*k], con.PA[3*k+1], con.PA[3*k+2]}
			pb := mgl64.Vec3{con.PB[3*k], con.PB[3*k+1], con.PB[3*k+2]}
			if w.a == 0 { // the plane's point is wherever the ball's is, projected
				w.pa = pa
			}
			if con.A[k] != w.a || con.B[k] != w.b || c.Sub()[k] != w.sub ||
				pa.Sub(w.pa).Len() > partsTol || pb.Sub(w.pb).Len() > partsTol || math.Abs(con.Phi[k]-w.phi) > partsTol {
				t.Errorf("yaw %v: contact %d: (%d, %d, sub %d) PA %v PB %v Φ %v; want (%d, %d, sub %d) PA %v PB %v Φ %v",
					yaw, k, con.A[k], con.B[k], c.Sub()[k], pa, pb, con.Phi[k], w.a, w.b, w.sub, w.pa, w.pb, w.phi)
			}
		}
		// PairContacts on the body pairs gives the same contacts.
		var pc engine.Contacts
		var cps []ContactPoint
		for _, pr := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
			var err error
			if _, cps, err = c.PairContacts(pr[0], pr[1], pos, rot, c.Envelope(), &pc, cps); err != nil {
				t.Fatal(err)
			}
		}
		if pc.Len() != con.Len() {
			t.Fatalf("yaw %v: PairContacts gave %d contacts, Collide %d", yaw, pc.Len(), con.Len())
		}
		for k := range pc.Phi {
			if pc.A[k] != con.A[k] || pc.B[k] != con.B[k] || pc.Phi[k] != con.Phi[k] || pc.PB[3*k] != con.PB[3*k] {
				t.Errorf("yaw %v: PairContacts' contact %d differs from Collide's", yaw, k)
			}
		}
	}
}

// Parts of one body never pair, even overlapping: a compound of two
// spheres overlapping by half a radius, alone in the world with a huge
// envelope, has no contact.
func TestCompoundNoSelfContact(t *testing.T) {
	shape, _, _, err := engine.NewCompound([]engine.Part{
		{Shape: engine.SphereShape(1), Pos: mgl64.Vec3{-0.75, 0, 0}, Rot: mgl64.QuatIdent()},
		{Shape: engine.BoxShape(1, 1, 1), Pos: mgl64.Vec3{0.75, 0, 0}, Rot: mgl64.QuatIdent()},
	})
	if err != nil {
		t.Fatal(err)
	}
	b := engine.Body{Shape: shape, Rot: mgl64.QuatIdent()}
	b.SetMass(1)
	m := &engine.Model{Materials: []engine.Material{{Name: "m"}}, Bodies: []engine.Body{b}}
	s := engine.DefaultSettings()
	s.Envelope = 10
	var c Collider
	c.Load(m, &s)
	if con := collideAt(t, &c, m, []float64{0, 0, 0}, []float64{1, 0, 0, 0}); con.Len() != 0 {
		t.Errorf("%d contacts of a body with itself (A %v, B %v)", con.Len(), con.A, con.B)
	}
}

// Warm-start keys follow pairs of parts: with both balls on the plane
// and impulses kept for them, lifting the −x ball leaves one contact,
// that of the +x ball, which must get the +x ball's impulse (a key by
// running index within the body pair would give it the −x ball's).
func TestCompoundWarmStartKeys(t *testing.T) {
	m, pos, rot := dumbbellModel(t, 0)
	s := engine.DefaultSettings()
	var c Collider
	c.Load(m, &s)
	con := collideAt(t, &c, m, pos, rot)
	nc := con.Len()
	prev := make([]float64, 3*nc)
	for k := range nc {
		prev[3*k] = float64(k + 1)
	}
	c.KeepKeys()
	// Tilt the dumbbell about the +x ball's contact line: the −x ball
	// rises 0.2 m clear of the plane, the +x ball stays on it.
	tilt := mgl64.QuatRotate(math.Asin(0.2/0.6), mgl64.Vec3{0, 1, 0})
	p := tilt.Rotate(mgl64.Vec3{-0.3, 0, 0}).Add(mgl64.Vec3{0.3, 0, 0.1})
	pos[3], pos[5] = p[0], p[2]
	rot[4], rot[5], rot[6], rot[7] = tilt.W, tilt.V[0], tilt.V[1], tilt.V[2]
	con = collideAt(t, &c, m, pos, rot)
	g := make([]float64, 3*con.Len())
	c.WarmStart(g, prev)
	found := false
	for k := range con.Len() {
		if con.A[k] == 0 && con.B[k] == 1 {
			found = true
			if c.Sub()[k] != 1<<partShiftB || g[3*k] != 2 {
				t.Errorf("plane–dumbbell contact: sub %d, warm impulse %v; want sub %d and the +x ball's impulse 2", c.Sub()[k], g[3*k], 1<<partShiftB)
			}
		}
	}
	if !found {
		t.Fatalf("no plane–dumbbell contact after the tilt (A %v, B %v)", con.A, con.B)
	}
}

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/collide"
	"github.com/gpusim/gpusim/engine"
)

// epaDeviceVerts is collide_narrow's EPA_VERTS, the bound of the device's
// EPA polytope (collide's is 48), for the log.
const epaDeviceVerts = 32

// narrowEnvelope is the envelope (m) of the narrowphase twin scenes: gaps
// below it give contacts.
const narrowEnvelope = 0.005

// narrowPair is one pair of a narrowphase scene: shapes, orientations, the
// direction from a's centre towards b's and the gap (m) b is placed at
// (placePair); same puts b's centre on a's.
type narrowPair struct {
	sa, sb engine.Shape
	ra, rb mgl64.Quat
	dir    mgl64.Vec3
	gap    float64
	same   bool
}

// placePair returns b's centre relative to a's: along dir, moved along
// collide.Narrow's normal until its least Φ is the pair's gap (four
// corrections; Φ moves one for one with b along the normal, so this lands
// within rounding for smooth pairs and close for boxes).
func placePair(p narrowPair) mgl64.Vec3 {
	if p.same {
		return mgl64.Vec3{}
	}
	c := p.dir.Normalize().Mul(p.sa.BoundingRadius() + p.sb.BoundingRadius())
	var cps []collide.ContactPoint
	for range 4 {
		var err error
		cps, err = collide.Narrow(p.sa, collide.Pose{Rot: p.ra}, p.sb, collide.Pose{Pos: c, Rot: p.rb}, 10, cps[:0])
		if err != nil || len(cps) == 0 {
			return c
		}
		least := cps[0]
		for _, cp := range cps[1:] {
			if cp.Phi < least.Phi {
				least = cp
			}
		}
		c = c.Add(least.Normal.Mul(p.gap - least.Phi))
	}
	return c
}

// narrowModel puts each pair in its own cell of a grid 1 m apart (far
// beyond every shape and envelope: only the pairs themselves touch), a's
// centre at the cell's centre, both bodies movable; swap lists b before a.
func narrowModel(pairs []narrowPair, swap bool) *engine.Model {
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.4}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	side := int(math.Ceil(math.Sqrt(float64(len(pairs)))))
	for k, p := range pairs {
		o := mgl64.Vec3{float64(k % side), float64(k / side), 0}
		a := engine.Body{Shape: p.sa, Pos: o, Rot: p.ra}
		b := engine.Body{Shape: p.sb, Pos: o.Add(placePair(p)), Rot: p.rb}
		a.SetMass(1)
		b.SetMass(1)
		if swap {
			a, b = b, a
		}
		m.Bodies = append(m.Bodies, a, b)
	}
	return m
}

// randomRot is a uniformly random orientation.
func randomRot(r *rand.Rand) mgl64.Quat {
	return mgl64.Quat{W: r.NormFloat64(), V: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}}.Normalize()
}

func randomDir(r *rand.Rand) mgl64.Vec3 {
	return mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Normalize()
}

// randomGap draws a gap: overlapping (up to 2 cm), touching (0) or apart
// within the envelope, a third each.
func randomGap(r *rand.Rand) float64 {
	switch r.IntN(3) {
	case 0:
		return -0.02 * r.Float64()
	case 1:
		return 0
	}
	return 0.9 * narrowEnvelope * r.Float64()
}

// narrowTwin collides the pairs on both backends and checks the device's
// contacts against cpuref's (checkContacts: keys equal, values within
// collideTol) with no pair sent to the host but, where epa is set, those
// whose EPA outgrew the device's polytope (checkHostPairs); then the
// mirror property:
// with every pair's bodies listed the other way round, the device gives
// the same contacts mirrored (normal negated, points exchanged), exactly,
// since the kernel orders a pair by kind and pose before computing, as
// cpuref does (a pair of identical shapes in identical poses has no
// mirror: both orders are the same pair). It returns the contacts and
// the number of pairs computed on the host.
func narrowTwin(t *testing.T, pairs []narrowPair, epa bool) (c *engine.Contacts, hosted int) {
	t.Helper()
	set := engine.DefaultSettings()
	set.Envelope = narrowEnvelope
	var cons [2]engine.Contacts
	for s, swap := range []bool{false, true} {
		m := narrowModel(pairs, swap)
		tw := deviceTwin(t, m, set)
		hosted = checkHostPairs(t, tw, m, epa)
		checkContacts(t, tw)
		if err := tw.gpu.ReadContacts(&cons[s]); err != nil {
			t.Fatal(err)
		}
	}
	c, w := &cons[0], &cons[1]
	for k := 0; k < c.Len(); k++ {
		if p := pairs[c.A[k]/2]; p.same && p.sa == p.sb && p.ra == p.rb {
			continue
		}
		for i := 3 * k; i < 3*k+3; i++ {
			if w.Normal[i] != -c.Normal[i] || w.PA[i] != c.PB[i] || w.PB[i] != c.PA[i] || w.Phi[k] != c.Phi[k] {
				t.Fatalf("contact %d swapped: normal %v, pa %v, pb %v, phi %v; unswapped: normal %v, pa %v, pb %v, phi %v",
					k, w.Normal[3*k:3*k+3], w.PA[3*k:3*k+3], w.PB[3*k:3*k+3], w.Phi[k],
					c.Normal[3*k:3*k+3], c.PA[3*k:3*k+3], c.PB[3*k:3*k+3], c.Phi[k])
			}
		}
	}
	return c, hosted
}

// checkHostPairs fails when the device sent a pair to the host, unless epa
// is set and the pair is one whose EPA may have outgrown the device's
// polytope: an ellipsoid with an ellipsoid or a box whose cores overlap.
// EPA runs only then, so cpuref's Φ is at most −(m_a + m_b) (the margins,
// 0.9 min(s)²/max(s) for an ellipsoid, 0 for a box) plus GJK's touching
// tolerance 10⁻⁹·scale (gjkTouchTol, scale the sum of bounding radii); a
// pair apart or barely overlapping on the host fails. It returns the
// number of pairs on the host.
func checkHostPairs(t *testing.T, tw *twin, m *engine.Model, epa bool) int {
	t.Helper()
	dc := &tw.gpu.dc
	n := int(dc.counts[metaFallback])
	if n == 0 {
		return 0
	}
	if !epa {
		t.Fatalf("%d of %d pairs went to the host", n, dc.counts[metaPairs])
	}
	margin := func(s engine.Shape) float64 {
		if s.Kind != engine.Ellipsoid {
			return 0
		}
		lo, hi := min(s.Size[0], s.Size[1], s.Size[2]), max(s.Size[0], s.Size[1], s.Size[2])
		return 0.9 * lo * lo / hi
	}
	var c engine.Contacts
	if err := tw.cpu.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	for f := range n {
		i, j := int32(dc.list[3*f+1]), int32(dc.list[3*f+2])
		si, sj := m.Bodies[i].Shape, m.Bodies[j].Shape
		if si.Kind == engine.Box {
			si, sj = sj, si
		}
		if si.Kind != engine.Ellipsoid || sj.Kind == engine.Sphere || sj.Kind == engine.Plane {
			t.Fatalf("pair (%d, %d), a %v and a %v, went to the host", i, j, si.Kind, sj.Kind)
		}
		lim := -margin(si) - margin(sj) + 1e-9*(si.BoundingRadius()+sj.BoundingRadius())
		for k := 0; k < c.Len(); k++ {
			if (c.A[k] == i && c.B[k] == j || c.A[k] == j && c.B[k] == i) && !(c.Phi[k] <= lim) {
				t.Fatalf("pair (%d, %d) went to the host with Φ = %v above %v: EPA does not run there", i, j, c.Phi[k], lim)
			}
		}
	}
	return n
}

// contactStats counts the pairs with contacts, the contacts apart (Φ > 0)
// and overlapping (Φ < 0), and the most contacts of one pair.
func contactStats(c *engine.Contacts) (pairs, apart, overlap, most int) {
	run := 0
	for k := 0; k < c.Len(); k++ {
		if k == 0 || c.A[k] != c.A[k-1] || c.B[k] != c.B[k-1] {
			pairs++
			run = 0
		}
		run++
		most = max(most, run)
		if c.Phi[k] > 0 {
			apart++
		} else if c.Phi[k] < 0 {
			overlap++
		}
	}
	return pairs, apart, overlap, most
}

// TestCollideNarrowBoxBox: box–box pairs run on the device (no pair on
// the host) and give cpuref's contacts — the same axis, reference and
// incident faces, clipped corners and GJK contact, so the same keys — on
// seeded random poses (touching, overlapping, apart within the envelope)
// and degenerate ones: parallel faces (stacked, offset, identical poses),
// crossed edges, coincident centres; swapping the boxes mirrors them.
func TestCollideNarrowBoxBox(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 1))
	box := func() engine.Shape {
		return engine.BoxShape(0.03+0.07*r.Float64(), 0.03+0.07*r.Float64(), 0.03+0.07*r.Float64())
	}
	id := mgl64.QuatIdent()
	var pairs []narrowPair
	for range 60 {
		pairs = append(pairs, narrowPair{sa: box(), sb: box(), ra: randomRot(r), rb: randomRot(r), dir: randomDir(r), gap: randomGap(r)})
	}
	for _, gap := range []float64{-0.01, 0, 0.002} {
		q := randomRot(r)
		// Parallel faces: stacked, offset sideways, rotated together.
		pairs = append(pairs,
			narrowPair{sa: box(), sb: box(), ra: id, rb: id, dir: mgl64.Vec3{0, 0, 1}, gap: gap},
			narrowPair{sa: box(), sb: box(), ra: id, rb: id, dir: mgl64.Vec3{0.3, 0.2, 1}, gap: gap},
			narrowPair{sa: box(), sb: box(), ra: q, rb: q, dir: q.Rotate(mgl64.Vec3{0.1, 0, 1}), gap: gap},
			// Crossed edges: a's top edge along x under b's bottom edge along y.
			narrowPair{sa: box(), sb: box(), ra: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0}),
				rb: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 1, 0}), dir: mgl64.Vec3{0, 0, 1}, gap: gap},
			// Edge on face.
			narrowPair{sa: box(), sb: box(), ra: id, rb: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0}),
				dir: mgl64.Vec3{0, 0, 1}, gap: gap})
	}
	b := engine.BoxShape(0.05, 0.04, 0.03)
	pairs = append(pairs,
		narrowPair{sa: box(), sb: box(), ra: randomRot(r), rb: randomRot(r), same: true},
		narrowPair{sa: b, sb: b, ra: id, rb: id, same: true}, // identical boxes, identical poses
		narrowPair{sa: b, sb: b, ra: id, rb: id, dir: mgl64.Vec3{1, 0, 0}, gap: 0})
	c, _ := narrowTwin(t, pairs, false)
	np, apart, overlap, most := contactStats(c)
	t.Logf("%d pairs in contact, %d contacts: %d apart, %d overlapping, at most %d in a pair", np, c.Len(), apart, overlap, most)
	if np < len(pairs)/2 || apart == 0 || overlap == 0 || most < 4 {
		t.Fatal("the scene should have pairs apart, overlapping and face to face")
	}
}

// TestCollideNarrowSphereEllipsoid: sphere–ellipsoid pairs run on the
// device and give cpuref's contacts (Eberly's closest point, the same
// Newton iterations on the secular equation) on seeded random poses and
// on the special cases of the closest-point search: the sphere's centre
// on the ellipsoid's centre, on its axes and coordinate planes, inside
// and outside; swapping the bodies mirrors them.
func TestCollideNarrowSphereEllipsoid(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	ell := func() engine.Shape {
		return engine.EllipsoidShape(0.03+0.09*r.Float64(), 0.03+0.09*r.Float64(), 0.03+0.09*r.Float64())
	}
	sph := func() engine.Shape { return engine.SphereShape(0.02 + 0.06*r.Float64()) }
	id := mgl64.QuatIdent()
	var pairs []narrowPair
	for range 60 {
		s, e := sph(), ell()
		p := narrowPair{sa: e, sb: s, ra: randomRot(r), rb: randomRot(r), dir: randomDir(r), gap: randomGap(r)}
		if r.IntN(2) == 0 {
			p.sa, p.sb = s, e
		}
		pairs = append(pairs, p)
	}
	e := engine.EllipsoidShape(0.1, 0.06, 0.04)
	s := engine.SphereShape(0.03)
	for _, gap := range []float64{-0.05, -0.01, 0, 0.003} {
		for _, d := range []mgl64.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, 0, 1}, {0, 1, 1}, {-1, 2, 0}} {
			pairs = append(pairs, narrowPair{sa: e, sb: s, ra: id, rb: id, dir: d, gap: gap})
		}
	}
	pairs = append(pairs,
		narrowPair{sa: e, sb: s, ra: id, rb: id, same: true},
		narrowPair{sa: ell(), sb: sph(), ra: randomRot(r), rb: id, same: true},
		// Equal semi-axes: a spheroid and a ball-shaped ellipsoid.
		narrowPair{sa: engine.EllipsoidShape(0.06, 0.06, 0.03), sb: s, ra: id, rb: id, dir: mgl64.Vec3{1, 1, 1}, gap: -0.01},
		narrowPair{sa: engine.EllipsoidShape(0.05, 0.05, 0.05), sb: s, ra: randomRot(r), rb: id, dir: mgl64.Vec3{1, 2, 3}, gap: 0.001})
	c, _ := narrowTwin(t, pairs, false)
	np, apart, overlap, _ := contactStats(c)
	t.Logf("%d pairs in contact, %d contacts: %d apart, %d overlapping", np, c.Len(), apart, overlap)
	if np < len(pairs)/2 || apart == 0 || overlap == 0 {
		t.Fatal("the scene should have pairs apart and overlapping")
	}
}

// TestCollideNarrowEllipsoids: ellipsoid–ellipsoid and ellipsoid–box
// pairs run on the device (GJK on the cores, EPA, Newton on the sphere and
// over the box's normal fan, as cpuref) and give cpuref's contacts on
// seeded random poses (touching, overlapping, apart within the envelope)
// and degenerate ones: coincident centres, parallel and crossed axes,
// spheroids, an ellipsoid on a box's face, edge and corner; only pairs
// whose EPA outgrew the device's polytope go to the host; swapping the
// bodies mirrors the contacts.
func TestCollideNarrowEllipsoids(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	ell := func() engine.Shape {
		return engine.EllipsoidShape(0.03+0.09*r.Float64(), 0.03+0.09*r.Float64(), 0.03+0.09*r.Float64())
	}
	box := func() engine.Shape {
		return engine.BoxShape(0.03+0.07*r.Float64(), 0.03+0.07*r.Float64(), 0.03+0.07*r.Float64())
	}
	id := mgl64.QuatIdent()
	var pairs []narrowPair
	for range 50 {
		pairs = append(pairs,
			narrowPair{sa: ell(), sb: ell(), ra: randomRot(r), rb: randomRot(r), dir: randomDir(r), gap: randomGap(r)},
			narrowPair{sa: ell(), sb: box(), ra: randomRot(r), rb: randomRot(r), dir: randomDir(r), gap: randomGap(r)})
	}
	e := engine.EllipsoidShape(0.1, 0.06, 0.04)
	b := engine.BoxShape(0.08, 0.05, 0.03)
	for _, gap := range []float64{-0.02, 0, 0.002} {
		for _, d := range []mgl64.Vec3{{0, 0, 1}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}} {
			pairs = append(pairs,
				narrowPair{sa: e, sb: e, ra: id, rb: id, dir: d, gap: gap},
				narrowPair{sa: e, sb: ell(), ra: id, rb: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1}), dir: d, gap: gap},
				narrowPair{sa: e, sb: b, ra: id, rb: id, dir: d, gap: gap}, // face, edge, corner
				narrowPair{sa: engine.EllipsoidShape(0.06, 0.06, 0.03), sb: b, ra: randomRot(r), rb: id, dir: d, gap: gap})
		}
	}
	pairs = append(pairs,
		narrowPair{sa: e, sb: e, ra: id, rb: id, same: true},
		narrowPair{sa: ell(), sb: ell(), ra: randomRot(r), rb: randomRot(r), same: true},
		narrowPair{sa: e, sb: b, ra: id, rb: id, same: true},
		narrowPair{sa: ell(), sb: box(), ra: randomRot(r), rb: randomRot(r), same: true})
	c, hosted := narrowTwin(t, pairs, true)
	np, apart, overlap, _ := contactStats(c)
	t.Logf("%d pairs in contact, %d contacts: %d apart, %d overlapping; %d pairs on the host (EPA beyond %d vertices)",
		np, c.Len(), apart, overlap, hosted, epaDeviceVerts)
	if np < len(pairs)/2 || apart == 0 || overlap == 0 {
		t.Fatal("the scene should have pairs apart and overlapping")
	}
}

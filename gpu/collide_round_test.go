//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/collide"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// The capsule and cylinder rows of collide_narrow (sphere–capsule,
// plane–capsule, capsule–capsule, sphere–cylinder, plane–cylinder) and
// collide_aabb's capsule and cylinder boxes against collide's, bit for bit,
// and the pairs that go through collide's GJK/EPA listed for the host.

// exactTwin collides m on both backends, requires the device collider,
// and fails unless the device's contacts are cpuref's (collide.Narrow's)
// bit for bit but for the sign of a zero (sameValues: the kernels' min,
// max and the driver's folding of ±0 may differ from Go's there; the
// count is logged), with cpuref's keys and adjacency. It returns the twin.
func exactTwin(t *testing.T, m *engine.Model, set engine.Settings) *twin {
	t.Helper()
	return exactTwinOn(t, newTestBackend(t), m, set)
}

// exactTwinOn is exactTwin with the GPU backend gb.
func exactTwinOn(t *testing.T, gb *Backend, m *engine.Model, set engine.Settings) *twin {
	t.Helper()
	tw := deviceTwinOn(t, gb, m, set)
	checkContacts(t, tw)
	var c, g engine.Contacts
	if err := tw.cpu.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.ReadContacts(&g); err != nil {
		t.Fatal(err)
	}
	zeros := 0
	for _, f := range []struct {
		name string
		c, g []float64
	}{{"normal", c.Normal, g.Normal}, {"pa", c.PA, g.PA}, {"pb", c.PB, g.PB}, {"phi", c.Phi, g.Phi}} {
		if i := sameValues(f.c, f.g); i >= 0 {
			t.Fatalf("%s[%d] (contact %d of bodies %d, %d): %v on the CPU, %v on the GPU", f.name, i, i*c.Len()/len(f.c),
				c.A[i*c.Len()/len(f.c)], c.B[i*c.Len()/len(f.c)], f.c[i], f.g[i])
		}
		for i := range f.c {
			if math.Float64bits(f.c[i]) != math.Float64bits(f.g[i]) {
				zeros++
			}
		}
	}
	if zeros > 0 {
		t.Logf("%d values equal but for the sign of a zero", zeros)
	}
	return tw
}

// roundNarrow collides the pairs (narrowModel) in both orders, each
// computed on the device (no pair listed for the host) and bit for bit
// collide.Narrow's, and returns the contacts of the first order.
func roundNarrow(t *testing.T, pairs []narrowPair) *engine.Contacts {
	t.Helper()
	requireUnfusedGo(t)
	set := engine.DefaultSettings()
	set.Envelope = narrowEnvelope
	var c engine.Contacts
	for _, swap := range []bool{false, true} {
		tw := exactTwin(t, narrowModel(pairs, swap), set)
		if n := tw.gpu.dc.counts[metaFallback]; n != 0 {
			t.Fatalf("swap %v: %d pairs went to the host", swap, n)
		}
		if !swap {
			if err := tw.gpu.ReadContacts(&c); err != nil {
				t.Fatal(err)
			}
		}
	}
	return &c
}

// TestCollideNarrowCapsules: sphere–capsule and capsule–capsule pairs run
// on the device, bit for bit collide's closed forms, on seeded random
// poses (touching, overlapping, apart within the envelope) and the
// special cases: parallel axes side by side (the two-point branch),
// nearly parallel (within capsuleParallel), coincident axes, collinear end
// to end, crossed, a capsule of half-length 0, a sphere on the axis, at
// an end, coincident with the centre.
func TestCollideNarrowCapsules(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 1))
	capsule := func() engine.Shape { return engine.CapsuleShape(0.02+0.04*r.Float64(), 0.02+0.08*r.Float64()) }
	sphere := func() engine.Shape { return engine.SphereShape(0.02 + 0.05*r.Float64()) }
	id := mgl64.QuatIdent()
	var pairs []narrowPair
	for range 50 {
		sc := narrowPair{sa: sphere(), sb: capsule(), ra: randomRot(r), rb: randomRot(r), dir: randomDir(r), gap: randomGap(r)}
		if r.IntN(2) == 0 {
			sc.sa, sc.sb, sc.ra, sc.rb = sc.sb, sc.sa, sc.rb, sc.ra
		}
		pairs = append(pairs, sc,
			narrowPair{sa: capsule(), sb: capsule(), ra: randomRot(r), rb: randomRot(r), dir: randomDir(r), gap: randomGap(r)})
	}
	c0 := engine.CapsuleShape(0.03, 0.08)
	c1 := engine.CapsuleShape(0.025, 0.05)
	dot := engine.CapsuleShape(0.04, 0) // half-length 0: a ball
	s := engine.SphereShape(0.03)
	near := mgl64.QuatRotate(3e-4, mgl64.Vec3{1, 0, 0}) // sine² 9e-8: parallel
	for _, gap := range []float64{-0.01, 0, 0.003} {
		q := randomRot(r)
		pairs = append(pairs,
			// Parallel, side by side, then offset along the axis.
			narrowPair{sa: c0, sb: c1, ra: q, rb: q, dir: q.Rotate(mgl64.Vec3{1, 0, 0}), gap: gap},
			narrowPair{sa: c0, sb: c1, ra: id, rb: id, dir: mgl64.Vec3{1, 0, 1.2}, gap: gap},
			narrowPair{sa: c0, sb: c0, ra: id, rb: near, dir: mgl64.Vec3{0, 1, 0.3}, gap: gap},
			// Collinear end to end: parallel without overlap.
			narrowPair{sa: c0, sb: c1, ra: q, rb: q, dir: q.Rotate(mgl64.Vec3{0, 0, 1}), gap: gap},
			// Crossed at right angles.
			narrowPair{sa: c0, sb: c1, ra: id, rb: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}), dir: mgl64.Vec3{0, 0, 1}, gap: gap},
			narrowPair{sa: dot, sb: c0, ra: id, rb: q, dir: randomDir(r), gap: gap},
			narrowPair{sa: dot, sb: dot, ra: id, rb: q, dir: randomDir(r), gap: gap},
			// A sphere beside the side, beyond an end, and across the
			// cap's rim.
			narrowPair{sa: s, sb: c0, ra: id, rb: q, dir: q.Rotate(mgl64.Vec3{0, 1, 0}), gap: gap},
			narrowPair{sa: s, sb: c0, ra: id, rb: q, dir: q.Rotate(mgl64.Vec3{0, 0, -1}), gap: gap},
			narrowPair{sa: c0, sb: s, ra: q, rb: id, dir: q.Rotate(mgl64.Vec3{1, 1, 2}), gap: gap})
	}
	pairs = append(pairs,
		narrowPair{sa: s, sb: c0, ra: id, rb: randomRot(r), same: true}, // the centre on the axis
		narrowPair{sa: c0, sb: c1, ra: id, rb: id, same: true},          // coincident axes
		narrowPair{sa: c0, sb: c1, ra: randomRot(r), rb: randomRot(r), same: true},
		narrowPair{sa: dot, sb: s, ra: id, rb: id, same: true})
	c := roundNarrow(t, pairs)
	np, apart, overlap, most := contactStats(c)
	t.Logf("%d pairs in contact, %d contacts: %d apart, %d overlapping, at most %d in a pair", np, c.Len(), apart, overlap, most)
	if np < len(pairs)/2 || apart == 0 || overlap == 0 || most < 2 {
		t.Fatal("the scene should have pairs apart, overlapping and side by side")
	}
}

// TestCollideNarrowSphereCylinder: sphere–cylinder pairs run on the
// device, bit for bit collide's closed form, on seeded random poses and
// the special cases: the centre outside beside the side, above a cap,
// beyond the rim; inside nearer the side, nearer a cap, on the axis, at
// the cylinder's centre (a slender and a flat cylinder).
func TestCollideNarrowSphereCylinder(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	cylinder := func() engine.Shape { return engine.CylinderShape(0.02+0.06*r.Float64(), 0.02+0.06*r.Float64()) }
	sphere := func() engine.Shape { return engine.SphereShape(0.02 + 0.05*r.Float64()) }
	id := mgl64.QuatIdent()
	var pairs []narrowPair
	for range 80 {
		p := narrowPair{sa: sphere(), sb: cylinder(), ra: randomRot(r), rb: randomRot(r), dir: randomDir(r), gap: randomGap(r)}
		if r.IntN(2) == 0 {
			p.sa, p.sb, p.ra, p.rb = p.sb, p.sa, p.rb, p.ra
		}
		pairs = append(pairs, p)
	}
	slender := engine.CylinderShape(0.03, 0.08)
	flat := engine.CylinderShape(0.08, 0.02)
	s := engine.SphereShape(0.03)
	big := engine.SphereShape(0.1)
	for _, cy := range []engine.Shape{slender, flat} {
		q := randomRot(r)
		for _, gap := range []float64{-0.05, -0.01, 0, 0.003} {
			for _, d := range []mgl64.Vec3{{1, 0, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 1}, {1, 0, -3}, {-2, 1, 0.5}} {
				pairs = append(pairs, narrowPair{sa: s, sb: cy, ra: id, rb: q, dir: q.Rotate(d), gap: gap})
			}
			pairs = append(pairs, narrowPair{sa: cy, sb: big, ra: q, rb: id, dir: q.Rotate(mgl64.Vec3{0, 1, 0}), gap: gap})
		}
		pairs = append(pairs,
			narrowPair{sa: s, sb: cy, ra: id, rb: q, same: true},
			narrowPair{sa: cy, sb: big, ra: id, rb: id, same: true})
	}
	c := roundNarrow(t, pairs)
	np, apart, overlap, _ := contactStats(c)
	t.Logf("%d pairs in contact, %d contacts: %d apart, %d overlapping", np, c.Len(), apart, overlap)
	if np < len(pairs)/2 || apart == 0 || overlap == 0 {
		t.Fatal("the scene should have pairs apart and overlapping")
	}
}

// TestCollideDeviceRoundPlanes: capsules and cylinders against a floor and
// a tilted plane on the device, bit for bit collide's capsulePlane and
// cylinderPlane mirrored (the plane comes first in kind order), with the
// planes listed before the bodies and after them: random orientations,
// and upright (a capsule's axis along the normal: its upper end gives no
// point; a cylinder flat on its face, and within cylinderFlat of it: four
// rim points), lying (two points each), tilted; gaps from overlapping to
// apart within the envelope.
func TestCollideDeviceRoundPlanes(t *testing.T) {
	requireUnfusedGo(t)
	r := rand.New(rand.NewPCG(33, 1))
	id := mgl64.QuatIdent()
	rots := []mgl64.Quat{id, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}), mgl64.QuatRotate(0.005, mgl64.Vec3{0, 1, 0}),
		mgl64.QuatRotate(math.Pi, mgl64.Vec3{1, 0, 0}), mgl64.QuatRotate(0.3, mgl64.Vec3{1, 1, 0}.Normalize())}
	for range 12 {
		rots = append(rots, randomRot(r))
	}
	var bodies []engine.Body
	k := 0
	for _, shape := range []engine.Shape{engine.CapsuleShape(0.03, 0.06), engine.CapsuleShape(0.04, 0), engine.CylinderShape(0.04, 0.04),
		engine.CylinderShape(0.05, 0.015)} {
		for _, q := range rots {
			for _, gap := range []float64{-0.01, 0, 0.002} {
				// The lowest point along z: h|a_z| + r (capsule),
				// h|a_z| + r√(1 − a_z²) (cylinder).
				a := q.Rotate(mgl64.Vec3{0, 0, 1})
				rad, h := shape.Size[0], shape.Size[1]
				low := h*math.Abs(a[2]) + rad
				if shape.Kind == engine.Cylinder {
					low = h*math.Abs(a[2]) + rad*math.Sqrt(max(0, 1-a[2]*a[2]))
				}
				b := engine.Body{Shape: shape, Pos: mgl64.Vec3{0.5 * float64(k%12), 0.5 * float64(k/12), low + gap}, Rot: q}
				b.SetMass(1)
				bodies = append(bodies, b)
				k++
			}
		}
	}
	floor := engine.Body{Shape: engine.PlaneShape(), Rot: id, Fixed: true}
	// Tilted about x: z = −0.3 + y·tan(0.15) passes the rows near
	// y = 2.3; beyond, the bodies are inside it.
	tilted := engine.Body{Shape: engine.PlaneShape(), Pos: mgl64.Vec3{0, 0, -0.3}, Rot: mgl64.QuatRotate(0.15, mgl64.Vec3{1, 0, 0}), Fixed: true}
	set := engine.DefaultSettings()
	set.Envelope = narrowEnvelope
	for _, first := range []bool{true, false} {
		var all []engine.Body
		if first {
			all = append([]engine.Body{floor, tilted}, bodies...)
		} else {
			all = append(append([]engine.Body{}, bodies...), floor, tilted)
		}
		m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.4}}, Gravity: mgl64.Vec3{0, 0, -9.81}, Bodies: all}
		tw := exactTwin(t, m, set)
		if n := tw.gpu.dc.counts[metaFallback]; n != 0 {
			t.Fatalf("%d pairs went to the host", n)
		}
		c := tw.gpu.dc.counts[metaContacts]
		if c < uint32(len(bodies)) {
			t.Fatalf("%d contacts for %d bodies on the floor", c, len(bodies))
		}
		t.Logf("planes first %v: %d contacts, %d pairs", first, c, tw.gpu.dc.counts[metaPairs])
	}
}

// roundModel is a dense random pile of n capsules, cylinders, spheres,
// ellipsoids and boxes (some upright or lying, so that axes are along the
// world's), with random velocities, on a floor beside a tilted plane: every
// pair of those kinds.
func roundModel(seed uint64, n int) *engine.Model {
	r := rand.New(rand.NewPCG(seed, 3))
	m := &engine.Model{
		Materials: []engine.Material{{Name: "a", Friction: 0.3}, {Name: "b", Friction: 0.6, Cohesion: 0.5}},
		Gravity:   mgl64.Vec3{0.1, -0.2, -9.81},
	}
	side := 0.1 * math.Cbrt(float64(n))
	vec := func(s float64) mgl64.Vec3 {
		return mgl64.Vec3{s * r.NormFloat64(), s * r.NormFloat64(), s * r.NormFloat64()}
	}
	for range n {
		var s engine.Shape
		a, b := 0.015+0.03*r.Float64(), 0.015+0.04*r.Float64()
		switch r.IntN(6) {
		case 0, 1:
			s = engine.CapsuleShape(a, b)
		case 2, 3:
			s = engine.CylinderShape(a, b)
		case 4:
			s = engine.SphereShape(a)
		default:
			if r.IntN(2) == 0 {
				s = engine.EllipsoidShape(a, b, 0.5*(a+b))
			} else {
				s = engine.BoxShape(a, b, 0.5*(a+b))
			}
		}
		rot := randomRot(r)
		switch r.IntN(4) {
		case 0:
			rot = mgl64.QuatIdent()
		case 1:
			rot = mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})
		}
		bd := engine.Body{Shape: s, Rot: rot, Vel: vec(0.3), Omega: vec(2), Material: r.IntN(2),
			Pos: mgl64.Vec3{side * (r.Float64() - 0.5), side * (r.Float64() - 0.5), side * r.Float64()}}
		bd.SetMass(0.05 + r.Float64())
		m.Bodies = append(m.Bodies, bd)
	}
	m.Bodies = append(m.Bodies,
		engine.Body{Shape: engine.PlaneShape(), Pos: mgl64.Vec3{0, 0, 0.02}, Rot: mgl64.QuatIdent(), Fixed: true},
		engine.Body{Shape: engine.PlaneShape(), Pos: mgl64.Vec3{0.4 * side, 0, 0}, Fixed: true, Material: 1,
			Rot: mgl64.QuatRotate(-0.4, mgl64.Vec3{0, 1, 0})})
	return m
}

// TestCollideDeviceRound: a dense pile of every bounded kind but
// compounds collides on the device, bit for bit cpuref: the capsule and
// cylinder closed forms there, and only their GJK/EPA pairs (a capsule or
// a cylinder with an ellipsoid or a box, capsule–cylinder,
// cylinder–cylinder) and the ellipsoid pairs whose EPA outgrew the
// device's polytope listed for the host; Notes names the host's pairs.
func TestCollideDeviceRound(t *testing.T) {
	requireUnfusedGo(t)
	m := roundModel(34, 400)
	tw := exactTwin(t, m, engine.DefaultSettings())
	dc := &tw.gpu.dc
	nf := int(dc.counts[metaFallback])
	round := 0
	for f := range nf {
		i, j := dc.list[3*f+1], dc.list[3*f+2]
		ka, kb := m.Bodies[i].Shape.Kind, m.Bodies[j].Shape.Kind
		row := pairRow(min(ka, kb), max(ka, kb))
		switch row {
		case pairHostRound:
			round++
		case pairEllipsoidConvex: // EPA overflow
		default:
			t.Fatalf("pair (%d, %d), a %v and a %v (row %s), went to the host", i, j, ka, kb, pairRowNames[row])
		}
	}
	if round == 0 {
		t.Fatal("no capsule or cylinder GJK pair listed for the host")
	}
	// Every listed row's pairs on the host, every device row's on the device:
	// the closed-form rows are in the scene.
	var c engine.Contacts
	if err := tw.cpu.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	var seen [pairRows]int
	for k := 0; k < c.Len(); k++ {
		ka, kb := m.Bodies[c.A[k]].Shape.Kind, m.Bodies[c.B[k]].Shape.Kind
		seen[pairRow(min(ka, kb), max(ka, kb))]++
	}
	for _, row := range []int{pairSphereCapsule, pairPlaneCapsule, pairCapsuleCapsule, pairSphereCylinder, pairPlaneCylinder, pairHostRound} {
		if seen[row] == 0 {
			t.Errorf("no %s contact in the scene", pairRowNames[row])
		}
	}
	notes := strings.Join(tw.gpu.Notes(), " ")
	for _, p := range []string{"ellipsoid–capsule", "ellipsoid–cylinder", "box–capsule", "box–cylinder", "capsule–cylinder", "cylinder–cylinder"} {
		if !strings.Contains(notes, p) {
			t.Errorf("notes %q do not name the %s pairs", notes, p)
		}
	}
	t.Logf("%d contacts of %d pairs, %d pairs on the host (%d capsule or cylinder GJK pairs); contacts per row %v", tw.nc,
		dc.counts[metaPairs], nf, round, seen)
}

// TestKernelCollideAabbRound: collide_aabb's boxes and margins of
// capsules (of half-length 0 too) and cylinders are collide.ShapeAABB's
// and Collider.Collide's, bit for bit, in random and axis-aligned
// orientations.
func TestKernelCollideAabbRound(t *testing.T) {
	requireUnfusedGo(t)
	m := roundModel(35, 600)
	r := rand.New(rand.NewPCG(35, 9))
	for i := range m.Bodies {
		if m.Bodies[i].Shape.Kind == engine.Capsule && r.IntN(8) == 0 {
			m.Bodies[i].Shape.Size[1] = 0
		}
	}
	tw := newTwin(t, m, engine.DefaultSettings())
	if !tw.gpu.dc.on {
		t.Fatal("the model should collide on the device")
	}
	gb := tw.gpu
	h := &gb.host
	box := make([]float64, 8*gb.n)
	if err := gb.dc.box.ReadFloat64(box, 0); err != nil {
		t.Fatal(err)
	}
	var counts [engine.NumShapeKinds]int
	for i := range h.col.Bodies() {
		s := *h.col.Shape(i)
		if s.Kind != engine.Capsule && s.Kind != engine.Cylinder {
			continue
		}
		p := mgl64.Vec3{h.pos[3*i], h.pos[3*i+1], h.pos[3*i+2]}
		q := mgl64.Quat{W: h.rot[4*i], V: mgl64.Vec3{h.rot[4*i+1], h.rot[4*i+2], h.rot[4*i+3]}}
		v := mgl64.Vec3{h.vel[3*i], h.vel[3*i+1], h.vel[3*i+2]}.Len()
		w := mgl64.Vec3{h.omega[3*i], h.omega[3*i+1], h.omega[3*i+2]}.Len()
		f := collide.LoadAt(h.force, i).Mul(h.invMass[i])
		dt := tw.set.Dt
		mg := dt*(v+w*s.BoundingRadius()) + dt*dt*h.gravity.Add(f).Len()
		want, ok := collide.ShapeAABB(s, p, q, h.envelope+mg)
		if !ok {
			t.Fatalf("body %d (%v): no box", i, s.Kind)
		}
		wb := []float64{want.Min[0], want.Min[1], want.Min[2], want.Max[0], want.Max[1], want.Max[2], mg}
		if j := enginetest.FirstDiff(wb, box[8*i:8*i+7]); j >= 0 {
			t.Fatalf("body %d (%v, size %v, rot %v): box and margin %v, want %v", i, s.Kind, s.Size, q, box[8*i:8*i+7], wb)
		}
		counts[s.Kind]++
	}
	if counts[engine.Capsule] == 0 || counts[engine.Cylinder] == 0 {
		t.Fatalf("boxes checked per kind %v: want capsules and cylinders", counts)
	}
	t.Logf("%d capsule and %d cylinder boxes bit for bit", counts[engine.Capsule], counts[engine.Cylinder])
}

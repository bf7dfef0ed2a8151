//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/collide"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// collideTol is the relative tolerance of the device contacts against
// cpuref's: the kernels repeat cpuref's operations in cpuref's order with
// every operation `precise`, so they agree bit for bit where float64
// division and square root are correctly rounded (lavapipe: measured 0);
// Vulkan lets a driver's double sqrt and division be off by a few ulp,
// which moves a contact's values by a few ulp of their scale, far below
// 10⁻¹².
const collideTol = 1e-12

// sphereModel is a random packing of n spheres (radii 0.02–0.06 m, a
// tenth fixed) above a plane floor, in a container of fixed boxes, with a
// tilted plane on one side, random velocities (so speculative margins
// vary) and three materials; extra adds bodies of other kinds.
func sphereModel(seed uint64, n int, extra ...engine.Body) *engine.Model {
	r := rand.New(rand.NewPCG(seed, 7))
	m := &engine.Model{
		Materials: []engine.Material{
			{Name: "a", Friction: 0.3},
			{Name: "b", Friction: 0.6, Cohesion: 0.5},
			{Name: "c", Friction: 0.1, Cohesion: 2},
		},
		Gravity: mgl64.Vec3{0.1, -0.2, -9.81},
	}
	side := 0.09 * math.Cbrt(float64(n)) // dense enough that spheres overlap
	vec := func(s float64) mgl64.Vec3 {
		return mgl64.Vec3{s * r.NormFloat64(), s * r.NormFloat64(), s * r.NormFloat64()}
	}
	for i := 0; i < n; i++ {
		bd := engine.Body{
			Shape:    engine.SphereShape(0.02 + 0.04*r.Float64()),
			Pos:      mgl64.Vec3{side * (r.Float64() - 0.5), side * (r.Float64() - 0.5), side * r.Float64()},
			Rot:      mgl64.Quat{W: r.NormFloat64(), V: vec(1)}.Normalize(),
			Vel:      vec(0.5),
			Omega:    vec(3),
			Material: r.IntN(3),
			Force:    vec(float64(r.IntN(2))),
			Fixed:    r.IntN(10) == 0,
		}
		bd.SetMass(0.01 + r.Float64())
		m.Bodies = append(m.Bodies, bd)
	}
	t := 0.05
	h := side / 2
	for _, w := range []struct {
		pos, half mgl64.Vec3
	}{
		{mgl64.Vec3{-h - t, 0, h}, mgl64.Vec3{t, h, h}}, {mgl64.Vec3{h + t, 0, h}, mgl64.Vec3{t, h, h}},
		{mgl64.Vec3{0, -h - t, h}, mgl64.Vec3{h, t, h}}, {mgl64.Vec3{0, h + t, h}, mgl64.Vec3{h, t, h}},
	} {
		m.Bodies = append(m.Bodies, engine.Body{Shape: engine.BoxShape(w.half[0], w.half[1], w.half[2]),
			Pos: w.pos, Rot: mgl64.QuatIdent(), Fixed: true, Material: 1})
	}
	m.Bodies = append(m.Bodies,
		engine.Body{Shape: engine.PlaneShape(), Pos: mgl64.Vec3{0, 0, 0.02}, Rot: mgl64.QuatIdent(), Fixed: true},
		engine.Body{Shape: engine.PlaneShape(), Pos: mgl64.Vec3{0.8 * h, 0, 0}, Fixed: true, Material: 2,
			Rot: mgl64.QuatRotate(-0.4, mgl64.Vec3{0, 1, 0})})
	// A plane in the middle of the list: pairs with lower and higher
	// indices.
	mid := len(m.Bodies) / 2
	m.Bodies = append(m.Bodies[:mid], append([]engine.Body{{Shape: engine.PlaneShape(), Pos: mgl64.Vec3{0, 0.8 * h, 0},
		Fixed: true, Rot: mgl64.QuatRotate(0.5, mgl64.Vec3{1, 0, 0})}}, m.Bodies[mid:]...)...)
	m.Bodies = append(m.Bodies, extra...)
	return m
}

// mixedExtra is one movable box resting tilted on the floor, an
// ellipsoid partly below the floor (far from the spheres: ellipsoid–plane
// only) and a big movable sphere whose box spans more than 64 bins.
func mixedExtra() []engine.Body {
	box := engine.Body{Shape: engine.BoxShape(0.05, 0.03, 0.02), Pos: mgl64.Vec3{0.05, 0.02, 0.03},
		Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 1, 0}.Normalize()), Vel: mgl64.Vec3{0.1, 0, -0.2}}
	box.SetMass(0.2)
	big := engine.Body{Shape: engine.SphereShape(0.5), Pos: mgl64.Vec3{0, 0, 0.45}, Rot: mgl64.QuatIdent()}
	big.SetMass(5)
	return []engine.Body{box, big}
}

// deviceTwin loads m into both backends with the given settings and
// collides them, requiring the GPU backend to collide on the device.
func deviceTwin(t *testing.T, m *engine.Model, set engine.Settings) *twin {
	t.Helper()
	return deviceTwinOn(t, newTestBackend(t), m, set)
}

// deviceTwinOn is deviceTwin with the GPU backend gb.
func deviceTwinOn(t *testing.T, gb *Backend, m *engine.Model, set engine.Settings) *twin {
	t.Helper()
	tw := newTwinOn(t, gb, m, set)
	if !tw.gpu.dc.on {
		t.Fatal("the model should collide on the device")
	}
	return tw
}

// checkContacts compares the GPU backend's contacts, their keys and the
// adjacency with cpuref's.
func checkContacts(t *testing.T, tw *twin) {
	t.Helper()
	var c, g engine.Contacts
	if err := tw.cpu.ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.ReadContacts(&g); err != nil {
		t.Fatal(err)
	}
	if c.Len() != g.Len() {
		t.Fatalf("%d contacts on the CPU, %d on the GPU", c.Len(), g.Len())
	}
	nc := c.Len()
	sub := make([]uint32, nc)
	if err := tw.gpu.dc.sub.ReadUint32(sub, 0); err != nil {
		t.Fatal(err)
	}
	csub := tw.cpu.Collider.Sub()
	for k := 0; k < nc; k++ {
		if c.A[k] != g.A[k] || c.B[k] != g.B[k] || csub[k] != int32(sub[k]) {
			t.Fatalf("contact %d: key (%d, %d, %d) on the CPU, (%d, %d, %d) on the GPU",
				k, c.A[k], c.B[k], csub[k], g.A[k], g.B[k], sub[k])
		}
	}
	var worst float64
	for _, f := range []struct {
		name  string
		c, g  []float64
		scale float64 // m or 1
	}{{"normal", c.Normal, g.Normal, 1}, {"pa", c.PA, g.PA, 1}, {"pb", c.PB, g.PB, 1}, {"phi", c.Phi, g.Phi, 1},
		{"mu", c.Mu, g.Mu, 1}, {"cohesion", c.Cohesion, g.Cohesion, 1}} {
		for i := range f.c {
			d := math.Abs(f.c[i]-f.g[i]) / (math.Abs(f.c[i]) + f.scale)
			if !(d <= collideTol) {
				t.Fatalf("%s[%d] (contact %d): %v on the CPU, %v on the GPU", f.name, i, i/len(f.c)*nc, f.c[i], f.g[i])
			}
			worst = max(worst, d)
		}
	}
	entries := tw.sameAdjacency(t)
	t.Logf("%d contacts, %d adjacency entries, largest relative difference %.3g", nc, entries, worst)
}

// sameAdjacency fails the test unless the GPU's body → contact adjacency
// equals cpuref's exactly, and returns its number of entries.
func (tw *twin) sameAdjacency(t *testing.T) int {
	t.Helper()
	coff, cadj := tw.cpu.Collider.Adjacency()
	n := len(coff) - 1
	off := make([]uint32, n+1)
	if err := tw.gpu.adjOff.ReadUint32(off, 0); err != nil {
		t.Fatal(err)
	}
	adj := make([]uint32, off[n])
	if err := tw.gpu.adj.ReadUint32(adj, 0); err != nil {
		t.Fatal(err)
	}
	for i := range off {
		if int32(off[i]) != coff[i] {
			t.Fatalf("adjOff[%d] = %d on the GPU, %d on the CPU", i, off[i], coff[i])
		}
	}
	for j := range adj {
		if int32(adj[j]) != cadj[j] {
			t.Fatalf("adj[%d] = %d on the GPU, %d on the CPU", j, adj[j], cadj[j])
		}
	}
	return len(adj)
}

// TestCollideDevice: the device collision finds cpuref's contacts, in
// cpuref's order with the same (A, B, index within the pair) keys, their
// values within collideTol, and cpuref's adjacency exactly, on random
// sphere packings and on a scene with a box, a big sphere and planes.
func TestCollideDevice(t *testing.T) {
	for _, c := range []struct {
		name string
		m    *engine.Model
	}{
		{"spheres-1", sphereModel(1, 1500)},
		{"spheres-2", sphereModel(2, 400)},
		{"sphere-box-plane", sphereModel(3, 800, mixedExtra()...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tw := deviceTwin(t, c.m, engine.DefaultSettings())
			if tw.nc < 100 {
				t.Fatalf("only %d contacts: the scene should be dense", tw.nc)
			}
			checkContacts(t, tw)
		})
	}
}

// TestCollideDeviceKinds: the pairs of every kind with a closed form on
// the device (sphere–sphere, sphere–box, sphere–plane, box–plane,
// ellipsoid–plane) in chosen poses: apart within the envelope, touching,
// overlapping, a sphere centre inside a box, coincident sphere centres.
func TestCollideDeviceKinds(t *testing.T) {
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	body := func(s engine.Shape, pos mgl64.Vec3, rot mgl64.Quat, fixed bool) engine.Body {
		b := engine.Body{Shape: s, Pos: pos, Rot: rot, Fixed: fixed}
		if !fixed {
			b.SetMass(1)
		}
		return b
	}
	floor := body(engine.PlaneShape(), mgl64.Vec3{}, mgl64.QuatIdent(), true)
	tilted := body(engine.PlaneShape(), mgl64.Vec3{0, 0, -0.5}, mgl64.QuatRotate(0.2, mgl64.Vec3{0, 1, 0}), true)
	for _, c := range []struct {
		name   string
		bodies []engine.Body
	}{
		{"sphere-sphere", []engine.Body{
			body(engine.SphereShape(0.1), mgl64.Vec3{0, 0, 1}, q, false),
			body(engine.SphereShape(0.1), mgl64.Vec3{0.15, 0.05, 1}, mgl64.QuatIdent(), false),
			body(engine.SphereShape(0.05), mgl64.Vec3{0.15, 0.05, 1}, mgl64.QuatIdent(), false), // coincident centres
			body(engine.SphereShape(0.1), mgl64.Vec3{0, 0.2, 1}, mgl64.QuatIdent(), false),      // touching
			floor}},
		{"sphere-box", []engine.Body{
			body(engine.BoxShape(0.2, 0.1, 0.05), mgl64.Vec3{0, 0, 1}, q, true),
			body(engine.SphereShape(0.05), mgl64.Vec3{0.02, 0.01, 1}, mgl64.QuatIdent(), false), // centre inside
			body(engine.SphereShape(0.05), mgl64.Vec3{0.2, 0.1, 1.05}, mgl64.QuatIdent(), false),
			body(engine.SphereShape(0.05), mgl64.Vec3{-0.1, -0.15, 0.95}, mgl64.QuatIdent(), false),
			floor}},
		{"box-plane", []engine.Body{
			body(engine.BoxShape(0.2, 0.1, 0.05), mgl64.Vec3{0, 0, 0.04}, q, false),
			floor, tilted}},
		{"ellipsoid-plane", []engine.Body{
			body(engine.EllipsoidShape(0.2, 0.1, 0.05), mgl64.Vec3{0, 0, 0.06}, q, false),
			floor, tilted}},
		{"box-flat", []engine.Body{
			body(engine.BoxShape(0.2, 0.1, 0.05), mgl64.Vec3{0, 0, 0.0499}, mgl64.QuatIdent(), false),
			floor}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.4}}, Gravity: mgl64.Vec3{0, 0, -9.81},
				Bodies: c.bodies}
			tw := deviceTwin(t, m, engine.DefaultSettings())
			if tw.nc == 0 {
				t.Fatal("no contacts")
			}
			checkContacts(t, tw)
		})
	}
}

// TestCollideDeviceGrows: capacities far too small for the scene make the
// first submit overflow every count; the buffers grow, the kernels run
// again, and the contacts are cpuref's.
func TestCollideDeviceGrows(t *testing.T) {
	m := sphereModel(4, 600)
	set := engine.DefaultSettings()
	tw := &twin{cpu: cpuref.New(0), gpu: newTestBackend(t), set: set}
	for _, b := range []engine.Backend{tw.cpu, tw.gpu} {
		if err := b.Load(m, &set); err != nil {
			t.Fatal(err)
		}
	}
	dc := &tw.gpu.dc
	dc.ecap, dc.pcap, dc.ccap = 1, 1, 1 // the kernels see these bounds, not the buffers' sizes
	before := tw.gpu.Submits()
	tw.collide(t)
	submits := tw.gpu.Submits() - before
	if submits < 2 {
		t.Fatalf("%d submits: the capacities should have overflowed", submits)
	}
	if dc.ecap < int(dc.counts[metaEntries]) || dc.pcap < int(dc.counts[metaPairs]) || dc.ccap < tw.nc {
		t.Fatalf("capacities %d, %d, %d below the counts %v", dc.ecap, dc.pcap, dc.ccap, dc.counts)
	}
	checkContacts(t, tw)
	t.Logf("%d submits with growth; capacities now %d entries, %d pairs, %d contacts", submits, dc.ecap, dc.pcap, dc.ccap)
}

// TestCollideDeviceSubmits: on a sphere scene, once the buffers have
// grown to the scene (the first step), collision adds one submit to a
// step: the batch that runs the last step's integration and the collision
// kernels, after which the counts are read from host-visible memory.
func TestCollideDeviceSubmits(t *testing.T) {
	tw := deviceTwin(t, sphereModel(5, 500), engine.DefaultSettings())
	gb := tw.gpu
	checked := 0
	for step := 0; step < 4; step++ {
		p, err := gb.Build(tw.set.Dt)
		if err != nil {
			t.Fatal(err)
		}
		g := p.NewVec(3 * tw.nc)
		if err := gb.WarmStart(g); err != nil {
			t.Fatal(err)
		}
		if err := gb.Integrate(g, tw.set.Dt); err != nil {
			t.Fatal(err)
		}
		caps := func() [3]int { return [3]int{gb.dc.ecap, gb.dc.pcap, gb.dc.ccap} }
		before, cap0 := gb.Submits(), caps()
		nc, err := gb.Collide()
		if err != nil {
			t.Fatal(err)
		}
		if caps() == cap0 {
			if d := gb.Submits() - before; d != 1 {
				t.Fatalf("step %d: Collide made %d submits, want 1", step, d)
			}
			checked++
		}
		tw.nc = nc
	}
	if checked < 2 {
		t.Fatalf("the capacities grew in %d of 4 steps: the test should see steady steps", 4-checked)
	}
}

// TestCollideDeviceHostPairs: in a scene of spheres, boxes and
// ellipsoids, every pair kind runs on the device but the pairs whose EPA
// outgrew the device's polytope (checkHostPairs), which go to cpuref's
// narrowphase on the host, and their contacts merge in pair order: the
// whole list and the adjacency are cpuref's.
func TestCollideDeviceHostPairs(t *testing.T) {
	m := randomModel(6, 600)
	tw := newTwin(t, m, engine.DefaultSettings())
	n := checkHostPairs(t, tw, m, true)
	t.Logf("%d of %d pairs on the host", n, tw.gpu.dc.counts[metaPairs])
	checkContacts(t, tw)
}

// TestCollideDeviceWarmStart: after a step on the device path, WarmStart
// (collide_keys) carries the impulses of persisting contacts over exactly
// as cpuref does.
func TestCollideDeviceWarmStart(t *testing.T) {
	tw := deviceTwin(t, sphereModel(7, 600), engine.DefaultSettings())
	cp, gp := tw.build(t, tw.set.Dt)
	kept, n := checkWarmStart(t, tw, cp, gp, 7, 1e-5)
	if kept == 0 || kept == n {
		t.Fatalf("%d of %d components carried over: the test should see kept and new contacts", kept, n)
	}
	t.Logf("%d of %d impulse components carried over", kept, n)
}

// BenchmarkCollide times one collision of a settled-density sphere scene
// on the device and, for comparison, through the host path (download,
// collide.Collider, upload), with no step pending.
func BenchmarkCollide(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		for _, onDev := range []bool{true, false} {
			name := fmt.Sprintf("n=%d/host", n)
			if onDev {
				name = fmt.Sprintf("n=%d/device", n)
			}
			b.Run(name, func(b *testing.B) {
				gb := newTestBackend(b)
				set := engine.DefaultSettings()
				if err := gb.Load(sphereModel(1, n), &set); err != nil {
					b.Fatal(err)
				}
				gb.dc.on = onDev
				if _, err := gb.Collide(); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for b.Loop() {
					if _, err := gb.Collide(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(gb.nc), "contacts")
			})
		}
	}
}

// TestKernelCollideAabb: collide_aabb's margins and boxes are collide's
// (Collider.Collide's margin, ShapeAABB) and its plane normals (in the
// plane's box slot) mgl64's Rotate of +z, bit for bit, on the random
// scene of every shape.
func TestKernelCollideAabb(t *testing.T) {
	requireUnfusedGo(t)
	tw := newTwin(t, randomModel(21, 800), engine.DefaultSettings())
	gb := tw.gpu
	h := &gb.host
	box := make([]float64, 8*gb.n)
	if err := gb.dc.box.ReadFloat64(box, 0); err != nil {
		t.Fatal(err)
	}
	dt := tw.set.Dt
	planes := 0
	for i := range h.col.Bodies() {
		s := *h.col.Shape(i)
		p := mgl64.Vec3{h.pos[3*i], h.pos[3*i+1], h.pos[3*i+2]}
		q := mgl64.Quat{W: h.rot[4*i], V: mgl64.Vec3{h.rot[4*i+1], h.rot[4*i+2], h.rot[4*i+3]}}
		m := 0.0
		if !h.fixed[i] {
			v := mgl64.Vec3{h.vel[3*i], h.vel[3*i+1], h.vel[3*i+2]}.Len()
			w := mgl64.Vec3{h.omega[3*i], h.omega[3*i+1], h.omega[3*i+2]}.Len()
			f := collide.LoadAt(h.force, i).Mul(h.invMass[i])
			m = dt*(v+w*s.BoundingRadius()) + dt*dt*h.gravity.Add(f).Len()
		}
		want, ok := collide.ShapeAABB(s, p, q, h.envelope+m)
		if !ok {
			// A plane's slot: its normal, then zeros (margin 0).
			n := q.Rotate(mgl64.Vec3{0, 0, 1})
			w := []float64{n[0], n[1], n[2], 0, 0, 0, 0, 0}
			if i := enginetest.FirstDiff(w, box[8*i:8*i+8]); i >= 0 {
				t.Fatalf("body %d: plane's box slot %v, want its normal and zeros %v", i, box[8*i:8*i+8], w)
			}
			planes++
			continue
		}
		w := []float64{want.Min[0], want.Min[1], want.Min[2], want.Max[0], want.Max[1], want.Max[2], m}
		if j := enginetest.FirstDiff(w, box[8*i:8*i+7]); j >= 0 {
			t.Fatalf("body %d (%v): box and margin %v, want %v", i, s.Kind, box[8*i:8*i+7], w)
		}
	}
	if planes == 0 {
		t.Fatal("no plane in the scene")
	}
}

// TestKernelCollidePairs: collide_bin and collide_pairs give collide's
// Grid.Pairs list with the Collider's filter (collide.Apart), in its
// order, on the random scene of every shape (big bodies, planes, fixed
// bodies, bodies far away) and a sphere packing; and that the collider
// holds pairN and fbList for the first (ellipsoids) and not the second.
func TestKernelCollidePairs(t *testing.T) {
	bigs, dropped := 0, 0
	seenExtras := map[bool]bool{}
	for _, m := range []*engine.Model{randomModel(22, 800), sphereModel(23, 1200, mixedExtra()...)} {
		tw := newTwin(t, m, engine.DefaultSettings())
		gb := tw.gpu
		h := &gb.host
		n := gb.n
		boxes := make([]collide.AABB, n)
		bounded := make([]bool, n)
		box := make([]float64, 8*n)
		if err := gb.dc.box.ReadFloat64(box, 0); err != nil {
			t.Fatal(err)
		}
		big := 0
		for i := range h.col.Bodies() {
			s := *h.col.Shape(i)
			p := mgl64.Vec3{h.pos[3*i], h.pos[3*i+1], h.pos[3*i+2]}
			q := mgl64.Quat{W: h.rot[4*i], V: mgl64.Vec3{h.rot[4*i+1], h.rot[4*i+2], h.rot[4*i+3]}}
			bounded[i] = s.Kind != engine.Plane
			if !bounded[i] {
				boxes[i] = collide.PlaneBox(p, q)
				continue
			}
			// The device's boxes (checked against collide's by
			// TestKernelCollideAabb): this test is about the pairs.
			boxes[i] = collide.AABB{Min: mgl64.Vec3{box[8*i], box[8*i+1], box[8*i+2]}, Max: mgl64.Vec3{box[8*i+3], box[8*i+4], box[8*i+5]}}
			d := boxes[i].Max.Sub(boxes[i].Min).Mul(1 / h.col.BinSize())
			if math.Floor(d[0])*math.Floor(d[1])*math.Floor(d[2]) > collide.BigBins { // at least this many bins
				big++
			}
		}
		var g collide.Grid
		all, err := g.Pairs(boxes, bounded, h.fixed, h.col.BinSize(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// The Collider's filter: spheres certainly out of reach at the
		// envelope and the device's margins are not pairs.
		env := h.col.Envelope()
		g.SetFilter(func(a, b int32) bool {
			return !collide.Apart(h.col.Shape(int(a)), h.col.Shape(int(b)), h.pos, int(a), int(b), env+box[8*a+6]+box[8*b+6])
		})
		want, err := g.Pairs(boxes, bounded, h.fixed, h.col.BinSize(), nil)
		if err != nil {
			t.Fatal(err)
		}
		dropped += len(all) - len(want)
		np := int(gb.dc.counts[metaPairs])
		a, b := make([]uint32, np), make([]uint32, np)
		if err := gb.dc.pairA.ReadUint32(a, 0); err != nil {
			t.Fatal(err)
		}
		if err := gb.dc.pairB.ReadUint32(b, 0); err != nil {
			t.Fatal(err)
		}
		if np != len(want) {
			t.Fatalf("%d pairs on the device, %d from Grid.Pairs", np, len(want))
		}
		for k := range want {
			if int32(a[k]) != want[k][0] || int32(b[k]) != want[k][1] {
				t.Fatalf("pair %d: (%d, %d) on the device, %v from Grid.Pairs", k, a[k], b[k], want[k])
			}
		}
		// pairN and fbList are held by a model whose rows use them only.
		extras := modelPairExtras(m)
		seenExtras[extras] = true
		for _, bf := range []struct {
			name string
			buf  *Buffer
			per  int64
		}{{"pairN", gb.dc.pairN, pairNormalBytes}, {"fbList", gb.dc.fbList, 12}} {
			if full := bf.buf.Size() >= bf.per*int64(gb.dc.pcap); full != extras {
				t.Errorf("%s holds %d B for %d pair slots; the model's rows use it: %v", bf.name, bf.buf.Size(), gb.dc.pcap, extras)
			}
		}
		bigs += big
		t.Logf("%d pairs (%d out of reach dropped), %d bodies of more than %d bins", np, len(all)-len(want), big, collide.BigBins)
	}
	if bigs == 0 {
		t.Fatal("no big body in the scenes")
	}
	if dropped == 0 {
		t.Fatal("no pair of spheres out of reach in the scenes: the filter went untested")
	}
	if !seenExtras[false] || !seenExtras[true] {
		t.Fatalf("models with and without pair normals: %v, want both", seenExtras)
	}
}

// TestKernelCollideScan: collide_scan is the exclusive prefix sum, with
// the total after the data and in meta, for lengths around the
// workgroup's partition, given by the push constant or read from meta.
func TestKernelCollideScan(t *testing.T) {
	gb := newTestBackend(t)
	set := engine.DefaultSettings()
	if err := gb.Load(sphereModel(24, 50), &set); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(24, 1))
	l := gb.l
	// Past scanOneGroup the scan runs over the device in chunks of
	// scanChunk: lengths ending mid-chunk and on a chunk's end.
	for _, n := range []int{0, 1, 255, 256, 257, 1000, 65536, 65537, 3*scanChunk + 17 + scanOneGroup, 24 * scanChunk} {
		for _, fromMeta := range []bool{false, true} {
			data := make([]uint32, n+1)
			for i := range n {
				data[i] = uint32(r.IntN(20))
			}
			buf, err := gb.d.NewBuffer(4 * int64(n+2))
			if err != nil {
				t.Fatal(err)
			}
			defer buf.Release()
			if err := buf.WriteUint32(0, data); err != nil {
				t.Fatal(err)
			}
			meta := []uint32{0, 0, 0, 0, 0, 0, 0, 0}
			length, nIdx := n, uint32(0xffffffff)
			if fromMeta {
				meta[metaPairs], length, nIdx = uint32(n), n+1000, metaPairs // the count bounds the length
			}
			if err := gb.dc.meta.WriteUint32(0, meta); err != nil {
				t.Fatal(err)
			}
			if fromMeta && n > 0 {
				// A length past the data: min(meta, length) must win.
				length = n
				meta[metaPairs] = uint32(n + 5)
				if err := gb.dc.meta.WriteUint32(0, meta); err != nil {
					t.Fatal(err)
				}
			}
			if err := gb.dc.scanParts.Grow(scanPartsBytes(int64(length))); err != nil {
				t.Fatal(err)
			}
			gb.recordScan(buf, length, nIdx, metaContacts)
			if err := l.Flush(); err != nil {
				t.Fatal(err)
			}
			got := make([]uint32, n+1)
			if err := buf.ReadUint32(got, 0); err != nil {
				t.Fatal(err)
			}
			if err := gb.dc.meta.ReadUint32(meta, 0); err != nil {
				t.Fatal(err)
			}
			var s uint32
			for i := 0; i <= n; i++ {
				if got[i] != s {
					t.Fatalf("n=%d (from meta %v): element %d is %d, want %d", n, fromMeta, i, got[i], s)
				}
				if i < n {
					s += data[i]
				}
			}
			if meta[metaContacts] != s {
				t.Fatalf("n=%d: total %d in meta, want %d", n, meta[metaContacts], s)
			}
			if meta[metaFlags] != 0 {
				t.Fatalf("n=%d: flags %#x, want none", n, meta[metaFlags])
			}
		}
	}
	// A total beyond 2³²−1, within a block and across blocks: flagged.
	// One workgroup (blocks of 4: within one, across) and over the device
	// (within a chunk, across chunks).
	for _, c := range []struct{ n, i, j int }{{1000, 0, 1}, {1000, 3, 900}, {200000, 10, 20}, {200000, 5, 150000}} {
		at := [2]int{c.i, c.j}
		data := make([]uint32, c.n+1)
		data[at[0]], data[at[1]] = 3<<30, 3<<30
		buf, err := gb.d.NewBuffer(4 * int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		defer buf.Release()
		if err := buf.WriteUint32(0, data); err != nil {
			t.Fatal(err)
		}
		if err := gb.dc.meta.WriteUint32(0, make([]uint32, metaWords)); err != nil {
			t.Fatal(err)
		}
		if err := gb.dc.scanParts.Grow(scanPartsBytes(int64(c.n))); err != nil {
			t.Fatal(err)
		}
		gb.recordScan(buf, c.n, 0xffffffff, metaPairs)
		if err := l.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := gb.dc.meta.ReadUint32(gb.dc.counts[:], 0); err != nil {
			t.Fatal(err)
		}
		if err := gb.dc.wrapped(); err == nil || !strings.Contains(err.Error(), "candidate pairs") {
			t.Fatalf("counts at %v: error %v, want one about candidate pairs", at, err)
		}
	}
}

// TestCollideDeviceBadInput: a state that collide rejects (a
// non-finite position, a body more than 2³¹ bins from the origin) is
// flagged by the device kernels and gives collide's error, not contacts.
func TestCollideDeviceBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		x    float64
		want string
	}{{"nan", math.NaN(), "not finite"}, {"far", 1e300, "2³¹ bins"}} {
		t.Run(c.name, func(t *testing.T) {
			gb := newTestBackend(t)
			set := engine.DefaultSettings()
			if err := gb.Load(sphereModel(8, 100), &set); err != nil {
				t.Fatal(err)
			}
			if err := gb.pos.WriteFloat64(3*5, []float64{c.x}); err != nil {
				t.Fatal(err)
			}
			_, err := gb.Collide()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Collide: error %v, want one saying %q", err, c.want)
			}
			if gb.dc.counts[metaFlags]&flagBadInput == 0 {
				t.Fatal("the device kernels did not flag the input")
			}
			t.Log(err)
		})
	}
}

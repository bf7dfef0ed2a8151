//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
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
	big := engine.Body{Shape: engine.SphereShape(0.3), Pos: mgl64.Vec3{0, 0, 0.25}, Rot: mgl64.QuatIdent()}
	big.SetMass(5)
	return []engine.Body{box, big}
}

// deviceTwin loads m into both backends and collides them, requiring the
// GPU backend to collide on the device.
func deviceTwin(t *testing.T, m *engine.Model) *twin {
	t.Helper()
	set := engine.DefaultSettings()
	tw := &twin{cpu: cpuref.New(0), gpu: newTestBackend(t), set: set}
	for _, b := range []engine.Backend{tw.cpu, tw.gpu} {
		if err := b.Load(m, &set); err != nil {
			t.Fatal(err)
		}
	}
	if !tw.gpu.dc.on {
		t.Fatal("the model should collide on the device")
	}
	tw.collide(t)
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
	t.Logf("%d contacts, %d adjacency entries, largest relative difference %.3g", nc, len(adj), worst)
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
			tw := deviceTwin(t, c.m)
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
			tw := deviceTwin(t, m)
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
	tw := deviceTwin(t, sphereModel(5, 500))
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
		before, cap0 := gb.Submits(), gb.dc.ccap
		nc, err := gb.Collide()
		if err != nil {
			t.Fatal(err)
		}
		if gb.dc.ccap == cap0 {
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
// ellipsoids, the pairs without a closed form on the device (box–box,
// ellipsoid–sphere, ellipsoid–box, ellipsoid–ellipsoid) go to cpuref's
// narrowphase on the host and their contacts merge in pair order: the
// whole list and the adjacency are cpuref's.
func TestCollideDeviceHostPairs(t *testing.T) {
	tw := newTwin(t, randomModel(6, 600), engine.DefaultSettings())
	if n := tw.gpu.dc.counts[metaFallback]; n == 0 {
		t.Fatal("no pair went to the host")
	} else {
		t.Logf("%d of %d pairs on the host", n, tw.gpu.dc.counts[metaPairs])
	}
	checkContacts(t, tw)
}

// TestCollideDeviceWarmStart: after a step on the device path, WarmStart
// (collide_keys) carries the impulses of persisting contacts over exactly
// as cpuref does.
func TestCollideDeviceWarmStart(t *testing.T) {
	tw := deviceTwin(t, sphereModel(7, 600))
	r := rand.New(rand.NewPCG(7, 1))
	cp, gp := tw.build(t, tw.set.Dt)
	gs := make([]float64, 3*tw.nc)
	for i := range gs {
		gs[i] = 1e-5 * r.NormFloat64() // small: most contacts persist
	}
	cg, gg := pair(cp, gp, gs)
	if err := tw.cpu.Integrate(cg, tw.set.Dt); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.Integrate(gg, tw.set.Dt); err != nil {
		t.Fatal(err)
	}
	tw.collide(t)
	cp, gp = tw.build(t, tw.set.Dt)
	cw, gw := cp.NewVec(3*tw.nc), gp.NewVec(3*tw.nc)
	gp.Fill(gw, 7) // overwritten everywhere
	if err := tw.cpu.WarmStart(cw); err != nil {
		t.Fatal(err)
	}
	if err := tw.gpu.WarmStart(gw); err != nil {
		t.Fatal(err)
	}
	c, g := readVec(cp, cw), readVec(gp, gw)
	kept := 0
	for i := range c {
		if c[i] != g[i] {
			t.Fatalf("γ[%d]: %v on the CPU, %v on the GPU", i, c[i], g[i])
		}
		if g[i] != 0 {
			kept++
		}
	}
	if kept == 0 || kept == len(g) {
		t.Fatalf("%d of %d components carried over: the test should see kept and new contacts", kept, len(g))
	}
	t.Logf("%d of %d impulse components carried over", kept, len(g))
}

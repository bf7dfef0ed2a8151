//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// TestCollideDeviceBigLists: big bodies and planes listed before the
// bodies they touch own long partner lists (a floor box under 700
// spheres, a wall beside a row of them, a plane under all, a moving big
// box over some): collide_big's workgroups find them 256 at a time, and
// the contacts come out as collide's, in its order, bit for bit; the
// moving box's adjacency list, longer than 64, is sorted by a workgroup
// (collide_adj mode 3) into collide's.
func TestCollideDeviceBigLists(t *testing.T) {
	m := &engine.Model{Materials: []engine.Material{{Name: "m", Friction: 0.3}}}
	id := mgl64.QuatIdent()
	m.Bodies = append(m.Bodies,
		engine.Body{Shape: engine.BoxShape(3, 3, 0.1), Rot: id, Pos: mgl64.Vec3{0, 0, -0.1}, Fixed: true},
		engine.Body{Shape: engine.BoxShape(0.1, 3, 1), Rot: id, Pos: mgl64.Vec3{-2.699, 0, 1}, Fixed: true},
		engine.Body{Shape: engine.PlaneShape(), Rot: id, Pos: mgl64.Vec3{0, 0, 0.049}, Fixed: true},
	)
	big := engine.Body{Shape: engine.BoxShape(1.7, 1.7, 0.1), Rot: mgl64.QuatRotate(0.002, mgl64.Vec3{1, 1, 0}.Normalize()), Pos: mgl64.Vec3{0, 0, 0.2985}}
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
	sameContacts(t, &c, &g)
	// The adjacency: the moving box's list (over 64 entries) is sorted by
	// collide_adj's workgroup (mode 3), the spheres' by their invocations.
	wantOff, _ := tw.cpu.Adjacency()
	if l := wantOff[4] - wantOff[3]; l <= 64 {
		t.Fatalf("the moving box has %d adjacency entries: the test does not reach the long-list sort", l)
	}
	tw.sameAdjacency(t)
	t.Logf("%d contacts; the floor, wall, plane and moving box own %d, %d, %d, %d; the moving box has %d adjacency entries",
		c.Len(), owned[0], owned[1], owned[2], owned[3], wantOff[4]-wantOff[3])
}

// TestCollideAdjSortLong: collide_adj's mode 3 sorts every list longer
// than 64 entries with a workgroup — lengths around and between powers of
// two, written reversed and shuffled — and leaves the short lists alone
// (mode 2 sorts those); each sorted list is a permutation of its input.
// (On lavapipe the atomics of mode 1 happen to place entries in order,
// so the scene tests cannot tell whether mode 3 sorted anything.)
func TestCollideAdjSortLong(t *testing.T) {
	lengths := []int{0, 65, 3, 128, 129, 255, 300, 64, 1000, 1}
	n := len(lengths)
	m := &engine.Model{Materials: []engine.Material{{Name: "m"}}}
	for i := range n {
		bd := engine.Body{Shape: engine.SphereShape(0.1), Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{float64(i), 0, 0}}
		bd.SetMass(1)
		m.Bodies = append(m.Bodies, bd)
	}
	set := engine.DefaultSettings()
	gb := newTestBackend(t)
	if err := gb.Load(m, &set); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	off := []uint32{0}
	var adj []uint32
	for i, l := range lengths {
		vals := make([]uint32, l)
		for k := range vals {
			vals[k] = uint32(10*(l-k) + i) // distinct, reversed
		}
		if i%2 == 1 {
			r.Shuffle(l, func(a, b int) { vals[a], vals[b] = vals[b], vals[a] })
		}
		adj = append(adj, vals...)
		off = append(off, uint32(len(adj)))
	}
	c := &gb.dc
	if err := gb.adj.Grow(4 * int64(len(adj))); err != nil {
		t.Fatal(err)
	}
	if err := gb.adjOff.WriteUint32(0, off); err != nil {
		t.Fatal(err)
	}
	if err := gb.adj.WriteUint32(0, adj); err != nil {
		t.Fatal(err)
	}
	l := gb.l
	l.record(c.k.adj, [3]uint32{4, 1, 1}, shaders.CollideAdjArgs{N: uint32(n), Mode: 3, Cap: uint32(c.ccap), Acap: uint32(len(adj))},
		gb.a, gb.b, gb.fixedBody, gb.adjOff, c.adjCursor, gb.adj, c.meta, c.out)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, len(adj))
	if err := gb.adj.ReadUint32(got, 0); err != nil {
		t.Fatal(err)
	}
	for i, ln := range lengths {
		in, out := adj[off[i]:off[i+1]], got[off[i]:off[i+1]]
		if ln <= 64 {
			if !slices.Equal(in, out) {
				t.Errorf("list %d (%d entries, short): changed by mode 3", i, ln)
			}
			continue
		}
		want := slices.Sorted(slices.Values(in))
		if !slices.Equal(out, want) {
			t.Errorf("list %d (%d entries): not sorted into a permutation of its input", i, ln)
		}
	}
}

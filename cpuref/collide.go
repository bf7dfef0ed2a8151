package cpuref

import (
	"slices"

	"github.com/gpusim/gpusim/engine"
)

// Collide finds the contacts at the current positions with the backend's
// Collider (see collide.Collider.Collide).
func (b *Backend) Collide() (int, error) {
	nc, err := b.Collider.Collide(b.pos, b.rot, b.vel, b.omega, b.invMass, b.force)
	b.external = false
	b.collided()
	return nc, err
}

// SetContacts replaces the contacts with a copy of con (see
// collide.Collider.SetContacts). Their points may lie anywhere, so the
// Jacobian takes them as they are (not as ρ n: Build) until the next
// Collide.
func (b *Backend) SetContacts(con *engine.Contacts) {
	b.Collider.SetContacts(con)
	b.external = true
	b.collided()
}

// collided points the backend's views of the Collider (n, fixed, gravity,
// con, adjOff, adj) at its current data, which Load and Collide may have
// reallocated, marks the gs colouring stale and sets arms.
func (b *Backend) collided() {
	c := &b.Collider
	b.col.valid = false
	b.arms = b.layout.Along && !b.external
	b.n, b.fixed, b.gravity, b.con = c.Bodies(), c.Fixed(), c.Gravity(), c.Contacts()
	b.adjOff, b.adj = c.Adjacency()
	b.byA = runByA(b.con.A, b.con.B)
}

// runByA reports whether every contact has A < B and A never decreases
// from one contact to the next (the collider's order: pairs by A, then
// B), so that the contacts of bodies [lo, hi) as A are one range
// (firstA; bodyImpulses4 scatters them).
func runByA(a, b []int32) bool {
	for k := range a {
		if a[k] >= b[k] || k > 0 && a[k] < a[k-1] {
			return false
		}
	}
	return true
}

// firstA returns the first contact whose body A is i or above (b.byA).
func (b *Backend) firstA(i int) int {
	k, _ := slices.BinarySearch(b.con.A, int32(i))
	return k
}

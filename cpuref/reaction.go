package cpuref

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// BodyReactions sets dst[slot[i]] to the contact force and torque on each
// body i with slot[i] ≥ 0 for the impulses gamma of a step of length h
// (engine.BodyReactor): engine.ContactReactions on the backend's own
// contacts and state, without copying them.
func (b *Backend) BodyReactions(gamma engine.Vec, h float64, slot []int32, dst []engine.Reaction) error {
	g := vec(gamma)
	if len(g) != b.rows() {
		return fmt.Errorf("cpuref: body reactions: gamma has length %d, want %d", len(g), b.rows())
	}
	st := engine.State{Pos: b.pos, Rot: b.rot, Vel: b.vel, Omega: b.omega}
	if err := engine.ContactReactions(&st, b.con, g, h, slot, dst); err != nil {
		return fmt.Errorf("cpuref: %w", err)
	}
	return nil
}

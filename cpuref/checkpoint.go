package cpuref

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// SetState overwrites the body state loaded by Load with s, bit for bit:
// no renormalisation, and fixed bodies get s's velocities as given (a
// state read back by ReadState has them zero).
func (b *Backend) SetState(s *engine.State) error {
	if s.Len() != b.n || len(s.Rot) != 4*b.n || len(s.Vel) != 3*b.n || len(s.Omega) != 3*b.n {
		return fmt.Errorf("cpuref: set state: %d positions, %d rotations, %d velocities, %d angular velocities for %d bodies",
			len(s.Pos), len(s.Rot), len(s.Vel), len(s.Omega), b.n)
	}
	st := b.state() // s has b.n bodies: CopyFrom keeps b's arrays
	st.CopyFrom(s)
	return nil
}

// WarmStartData copies the last step's contact keys and impulses, which
// WarmStart matches the next step's contacts against, its joint rows'
// impulses and its rolling rows' (3 per key, empty for a model without
// rolling friction) into w.
func (b *Backend) WarmStartData(w *engine.WarmStartData) error {
	b.Collider.KeptKeys(w)
	w.Gamma = append(w.Gamma[:0], b.prevGamma...)
	w.Joints = append(w.Joints[:0], b.jt.prev...)
	w.Rolling = append(w.Rolling[:0], b.rl.prev...)
	return nil
}

// SetWarmStartData replaces the warm-start memory with w, which must be
// sorted by key as Integrate leaves it (see engine.WarmStartData.Check),
// and whose joint impulses are none (the joint rows then start from zero)
// or one per joint row of the model.
func (b *Backend) SetWarmStartData(w *engine.WarmStartData) error {
	if n := len(w.Joints); n != 0 && n != b.jt.Rows {
		return fmt.Errorf("cpuref: set warm-start data: %d joint impulses for a model of %d joint rows", n, b.jt.Rows)
	}
	if err := b.Collider.SetKeptKeys(w); err != nil {
		return err
	}
	b.prevGamma = append(b.prevGamma[:0], w.Gamma...)
	if b.mixed {
		roundF32(b.prevGamma) // as Integrate keeps them
	}
	b.jt.prev = append(b.jt.prev[:0], w.Joints...)
	b.rl.prev = b.rl.prev[:0]
	if b.rl.on {
		// Without rolling data (an older checkpoint) the rolling rows
		// start from zero.
		b.rl.prev = append(b.rl.prev, w.Rolling...)
	}
	return nil
}

var (
	_ engine.StateSetter    = (*Backend)(nil)
	_ engine.WarmStartSaver = (*Backend)(nil)
)

//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// SetState overwrites the body state loaded by Load with s, bit for bit
// (no renormalisation), in the pos, rot, vel and omega buffers. It submits
// pending work first.
func (b *Backend) SetState(s *engine.State) error {
	b.mustLoad("SetState")
	if s.Len() != b.n || len(s.Rot) != 4*b.n || len(s.Vel) != 3*b.n || len(s.Omega) != 3*b.n {
		return fmt.Errorf("gpu: set state: %d positions, %d rotations, %d velocities, %d angular velocities for %d bodies",
			len(s.Pos), len(s.Rot), len(s.Vel), len(s.Omega), b.n)
	}
	if err := b.sync(); err != nil {
		return err
	}
	for _, w := range []struct {
		dst *Buffer
		src []float64
	}{{b.pos, s.Pos}, {b.rot, s.Rot}, {b.vel, s.Vel}, {b.omega, s.Omega}} {
		if err := w.dst.WriteFloat64(0, w.src); err != nil {
			return fmt.Errorf("gpu: set state: %w", err)
		}
	}
	return nil
}

// WarmStartData copies the last step's contact keys (the prevA, prevB,
// prevSub buffers of the device collider) and impulses (the prevGamma
// buffer), and its joint rows' impulses (none before the first step, as
// cpuref's), into w.
func (b *Backend) WarmStartData(w *engine.WarmStartData) error {
	b.mustLoad("WarmStartData")
	if err := b.sync(); err != nil {
		return err
	}
	if err := b.keptKeys(w); err != nil {
		return err
	}
	w.Joints = w.Joints[:0]
	if j := &b.jt; j.warm {
		w.Joints = append(w.Joints, make([]float64, j.Rows)...)
		if err := j.prev.ReadFloat64(w.Joints, 0); err != nil {
			return fmt.Errorf("gpu: warm-start data: %w", err)
		}
	}
	m := w.Len()
	// The rolling rows' impulses, 3 per key (none without rolling
	// friction or before a step has kept them), as cpuref's.
	w.Rolling = w.Rolling[:0]
	if rl := &b.rl; rl.on && rl.kept && m > 0 {
		w.Rolling = append(w.Rolling, make([]float64, 3*m)...)
		if err := rl.prev.ReadFloat64(w.Rolling, 0); err != nil {
			return fmt.Errorf("gpu: warm-start data: %w", err)
		}
	}
	if cap(w.Gamma) < 3*m {
		w.Gamma = make([]float64, 3*m)
	}
	w.Gamma = w.Gamma[:3*m]
	if m == 0 {
		return nil
	}
	if err := b.readKept(w.Gamma); err != nil {
		return fmt.Errorf("gpu: warm-start data: %w", err)
	}
	return nil
}

// readKept reads the kept impulses (prevGamma) into dst, widened from
// float32 with settings.precision "mixed".
func (b *Backend) readKept(dst []float64) error {
	if !b.mixed {
		return b.prevGamma.ReadFloat64(dst, 0)
	}
	v := make([]float32, len(dst))
	if err := b.prevGamma.ReadFloat32(v, 0); err != nil {
		return err
	}
	for i, x := range v {
		dst[i] = float64(x)
	}
	return nil
}

// writeKept writes src as the kept impulses (prevGamma), rounded to
// float32 (to nearest) with settings.precision "mixed", as collide_keys_f32
// keeps them.
func (b *Backend) writeKept(src []float64) error {
	if err := b.prevGamma.Grow(b.keptBytes() / 3 * int64(len(src))); err != nil {
		return err
	}
	if !b.mixed {
		return b.prevGamma.WriteFloat64(0, src)
	}
	v := make([]float32, len(src))
	for i, x := range src {
		v[i] = float32(x)
	}
	return b.prevGamma.WriteFloat32(0, v)
}

// SetWarmStartData replaces the warm-start memory with w: the keys in the
// device collider's buffers, the impulses in the prevGamma buffer, the
// joint rows' impulses (none or one per joint row; none: zero) in the
// joints' prev buffer.
func (b *Backend) SetWarmStartData(w *engine.WarmStartData) error {
	b.mustLoad("SetWarmStartData")
	j := &b.jt
	if n := len(w.Joints); n != 0 && n != j.Rows {
		return fmt.Errorf("gpu: set warm-start data: %d joint impulses for a model of %d joint rows", n, j.Rows)
	}
	if err := b.sync(); err != nil {
		return err
	}
	if j.Rows > 0 {
		prev := w.Joints
		if len(prev) == 0 {
			prev = make([]float64, j.Rows)
		}
		if err := j.prev.WriteFloat64(0, prev); err != nil {
			return fmt.Errorf("gpu: warm-start data: %w", err)
		}
		j.warm = len(w.Joints) > 0
	}
	if err := b.setKeptKeys(w); err != nil {
		return err
	}
	// The rolling rows' impulses: w's (none: zero, as cpuref's, which
	// then warm-starts the rolling rows from zero).
	if rl := &b.rl; rl.on {
		rl.kept = len(w.Rolling) > 0
		if rl.kept {
			if err := rl.prev.Grow(8 * int64(len(w.Rolling))); err != nil {
				return fmt.Errorf("gpu: warm-start data: %w", err)
			}
			if err := rl.prev.WriteFloat64(0, w.Rolling); err != nil {
				return fmt.Errorf("gpu: warm-start data: %w", err)
			}
		}
	}
	if len(w.Gamma) == 0 {
		return nil
	}
	if err := b.writeKept(w.Gamma); err != nil {
		return fmt.Errorf("gpu: warm-start data: %w", err)
	}
	return nil
}

var (
	_ engine.StateSetter    = (*Backend)(nil)
	_ engine.WarmStartSaver = (*Backend)(nil)
)

package engine

import (
	"errors"
	"fmt"
	"math"
)

// WarmStartData is what a backend remembers between steps for WarmStart:
// the last step's contacts, each keyed by its body pair (A < B) and its
// index Sub among that pair's contacts (narrowphase order), sorted by the
// key (A, B, Sub), and their impulses Gamma (N·s, 3 per contact in the
// contact frame n, u, w); and the impulses of the model's joint rows
// (Joints, one per row in the order of the problem's joint rows, N·s or
// N·m·s; empty for a model without joints, or when the step before had
// none), and the rolling rows' impulses (Rolling: 3 per contact key,
// (γ_ru, γ_rw, γ_s) in N·m·s, zero for a contact without rolling rows;
// empty for a model without rolling friction, or from a checkpoint
// written before it existed, when the rolling rows start from zero).
type WarmStartData struct {
	A, B, Sub []int32
	Gamma     []float64
	Joints    []float64
	Rolling   []float64
}

// Len returns the number of contacts.
func (w *WarmStartData) Len() int { return len(w.A) }

// Check reports the first inconsistency of w for a model of n bodies:
// lengths that differ, keys out of range or out of order, non-finite
// impulses.
func (w *WarmStartData) Check(n int) error {
	m := len(w.A)
	if len(w.B) != m || len(w.Sub) != m || len(w.Gamma) != 3*m {
		return fmt.Errorf("warm-start data: %d, %d and %d keys and %d impulse components (want 3 per key)", len(w.A), len(w.B), len(w.Sub), len(w.Gamma))
	}
	for k := 0; k < m; k++ {
		a, b, s := w.A[k], w.B[k], w.Sub[k]
		if a < 0 || a >= b || int(b) >= n || s < 0 {
			return fmt.Errorf("warm-start data: contact %d: key (%d, %d, %d) is not a body pair A < B < %d with an index ≥ 0", k, a, b, s, n)
		}
		if k > 0 {
			pa, pb, ps := w.A[k-1], w.B[k-1], w.Sub[k-1]
			if a < pa || (a == pa && (b < pb || (b == pb && s <= ps))) {
				return fmt.Errorf("warm-start data: contact %d: key (%d, %d, %d) does not follow (%d, %d, %d) in order", k, a, b, s, pa, pb, ps)
			}
		}
	}
	for i, g := range w.Gamma {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Errorf("warm-start data: impulse component %d is %v", i, g)
		}
	}
	if len(w.Rolling) != 0 && len(w.Rolling) != 3*m {
		return fmt.Errorf("warm-start data: %d rolling impulse components for %d keys (want none or 3 per key)", len(w.Rolling), m)
	}
	for i, g := range w.Rolling {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Errorf("warm-start data: rolling impulse component %d is %v", i, g)
		}
	}
	for i, g := range w.Joints {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return fmt.Errorf("warm-start data: joint row %d's impulse is %v", i, g)
		}
	}
	return nil
}

// ErrNoWarmStartData is returned (wrapped) by Snapshot and Restore when
// warm start is on and the backend cannot save or restore its warm-start
// memory: the state is saved or restored, and the first step after the
// restore starts its solve from zero impulses.
var ErrNoWarmStartData = errors.New("the backend cannot save or restore warm-start data")

// Snapshot copies the body state after the last step into st and, when
// warm start is on, the backend's warm-start memory into ws (which is then
// returned; nil when warm start is off). With warm start on and a backend
// that is not a WarmStartSaver, it returns st filled, a nil ws and an
// error wrapping ErrNoWarmStartData.
func (s *Sim) Snapshot(st *State, ws *WarmStartData) (*WarmStartData, error) {
	if err := s.backend.ReadState(st); err != nil {
		return nil, err
	}
	if !s.settings.WarmStart {
		return nil, nil
	}
	wb, ok := s.backend.(WarmStartSaver)
	if !ok {
		return nil, fmt.Errorf("%s: %w", s.backend.Name(), ErrNoWarmStartData)
	}
	if err := wb.WarmStartData(ws); err != nil {
		return nil, err
	}
	return ws, nil
}

// Restore puts a freshly made Sim where a saved run was after step steps:
// it overwrites the body state with st (which must hold as many bodies as
// the model) and, if ws is not nil, the backend's warm-start memory, and
// sets the step counter (and so Time) to steps. It must come before the
// first Step. A non-nil ws with warm start off is ignored; with warm start
// on and a backend that is not a WarmStartSaver, Restore restores the rest
// and returns an error wrapping ErrNoWarmStartData, which callers may
// announce and carry on from.
func (s *Sim) Restore(steps int, st *State, ws *WarmStartData) error {
	if s.step != 0 || s.problem != nil {
		return errors.New("restore: the simulation has already stepped")
	}
	if steps < 0 {
		return fmt.Errorf("restore: step %d is negative", steps)
	}
	ss, ok := s.backend.(StateSetter)
	if !ok {
		return fmt.Errorf("restore: backend %s cannot set the body state", s.backend.Name())
	}
	if err := ss.SetState(st); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	s.step = steps
	if ws == nil || !s.settings.WarmStart {
		return nil
	}
	wb, ok := s.backend.(WarmStartSaver)
	if !ok {
		return fmt.Errorf("restore: %s: %w", s.backend.Name(), ErrNoWarmStartData)
	}
	if err := ws.Check(st.Len()); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := wb.SetWarmStartData(ws); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

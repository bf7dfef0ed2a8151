package run

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// WaitNotice is how long (s) the next body of a pour may wait for its
// spot before the run says so (once).
const WaitNotice = 1.0

// pourer adds a scene's entering bodies (scene.Scene.Entering, a pour) to
// a run as they fall due. After each step, the bodies due by its end time
// (to within a millionth of a step, so that an entry time k/rate equal to
// a step's time up to rounding counts as due at that step) enter in entry
// order through Sim.Grow, first in, first out: a body whose bounding
// sphere overlaps that of a movable body present (at the state after the
// step) or of one entering before it in the same step waits, and every
// body after it with it, for a later step. Fixed, plane and kinematic
// bodies are not checked (their bounding spheres, a container's walls,
// would hold the region): the scene keeps the region clear of them.
type pourer struct {
	sc     *scene.Scene
	model  *engine.Model // the run's model: the scene's first n bodies
	n0     int           // len(sc.Model.Bodies)
	notice func(string)
	warned bool
}

func newPourer(sc *scene.Scene, model *engine.Model, notice func(string)) *pourer {
	return &pourer{sc: sc, model: model, n0: len(sc.Model.Bodies), notice: notice}
}

// enter lets in the bodies due after the sim's last step, state giving
// the state after it (called only when a body is due), and returns
// whether any entered; p.model then holds them.
func (p *pourer) enter(sim *engine.Sim, state func() (*engine.State, error)) (bool, error) {
	n := len(p.model.Bodies)
	t := sim.Time()
	due := p.sc.EntersAt(t + 1e-6*sim.Settings().Dt)
	if due <= n {
		return false, nil
	}
	st, err := state()
	if err != nil {
		return false, err
	}
	k := n
	for ; k < due; k++ {
		if p.blocked(k, n, st) {
			break
		}
	}
	if k < due && !p.warned {
		if wait := t - p.sc.EntryTimes[k-p.n0]; wait > WaitNotice {
			p.warned = true
			if p.notice != nil {
				p.notice(fmt.Sprintf("pour: body %d has waited %.3g s past its entry time for its spot to clear (a body overlaps it); the bodies after it wait too", k, wait))
			}
		}
	}
	if k == n {
		return false, nil
	}
	m := p.sc.ModelWith(k)
	if err := sim.Grow(m); err != nil && !errors.Is(err, engine.ErrNoWarmStartData) {
		return false, fmt.Errorf("run: step %d: pour bodies %d to %d: %w", sim.Steps(), n, k-1, err)
	}
	p.model.Bodies = m.Bodies
	return true, nil
}

// blocked says whether body k's spot overlaps a movable body of the first
// n (at state st) or one of bodies n to k−1 (at their spots).
func (p *pourer) blocked(k, n int, st *engine.State) bool {
	b := &p.sc.Entering[k-p.n0]
	r := b.Shape.BoundingRadius()
	clear := func(q mgl64.Vec3, rq float64) bool {
		d := b.Pos.Sub(q)
		return d.Dot(d) >= (r+rq)*(r+rq)
	}
	for i := 0; i < n; i++ {
		q := &p.model.Bodies[i]
		if q.Static() {
			continue
		}
		if !clear(mgl64.Vec3{st.Pos[3*i], st.Pos[3*i+1], st.Pos[3*i+2]}, q.Shape.BoundingRadius()) {
			return true
		}
	}
	for j := n; j < k; j++ {
		q := &p.sc.Entering[j-p.n0]
		if !clear(q.Pos, q.Shape.BoundingRadius()) {
			return true
		}
	}
	return false
}

// present returns the ids of ids that are below n, the bodies present.
func present(ids []int, n int, dst []int) []int {
	dst = dst[:0]
	for _, id := range ids {
		if id < n {
			dst = append(dst, id)
		}
	}
	return dst
}

package run

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/scene"
)

// InputError marks an error of Run that lies in its input (the scene), not
// in the run: bodies that overlap at the start. gpusim reports it as bad
// input (exit code 2).
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// GuardDomainScale sets the guard domain: the bounding box of the run's
// non-plane bodies at its start (centres ± bounding radius), grown on
// every side by GuardDomainScale times the larger of the box's longest
// edge and the free-flight reach max|v₀|·T + ½|g|T² over the run's length
// T. A body whose centre leaves it has left anything the scene can mean.
const GuardDomainScale = 10

// GuardError is the error of a run stopped by the guards (see guard): the
// state after step Step was not finite, a body moved faster than the
// guard's speed bound, or a body left the guard domain. The run's outputs
// and its last checkpoint hold step Step−1, the last good one.
type GuardError struct {
	Step   int
	Reason string
	// Bodies lists the ids of the offending bodies, ascending.
	Bodies []int
	detail string
}

func (e *GuardError) Error() string {
	return fmt.Sprintf("step %d: %s (%d bodies): %s; the outputs hold step %d, the last good one", e.Step, e.Reason, len(e.Bodies), e.detail, e.Step-1)
}

// guard checks the state after every step of a run and keeps the last
// state that passed, with its warm-start data, so that a run that fails a
// check can end with the outputs and a checkpoint of its last good step.
//
// The checks (engine.GuardOffenders), every step, on every backend:
//   - every position, quaternion, velocity and angular velocity is finite
//     (non-finite impulses γ show up here: v = M⁻¹(k + Dγ));
//   - no body moves faster than maxSpeed = (guard domain's longest edge)/h,
//     a speed that crosses the whole domain in one step: the solver has
//     diverged (APGD's restart keeps its residual from growing, so a
//     diverged solve shows as impulses, and so velocities, out of scale);
//   - every non-plane body's centre lies in the guard domain
//     (GuardDomainScale).
//
// On a backend that is an engine.StateGuard (gpu) the state stays on the
// device: the backend checks it there and reads back the counts of
// offending bodies (12 bytes a step), and keeps the last good state (and
// warm-start memory) in device buffers by a device-side copy made in the
// same submit when the check passes; good reads that copy back only when
// an output needs it (trace rows, NumPy frames, a pour's entries, the end
// of a failed run), and can after an error of a later step unless the
// device is lost. A failed check reads the
// failed state back once and checks it on the host, so that the error is
// the host check's. On other backends (cpuref, a wrapped backend) it
// takes a Sim.Snapshot per step (ReadState, and the warm-start data when
// warm start is on) and checks it on the host: on settle n=1000, 0.014 ms
// of a 50 ms step on the CPU path. The last good snapshot is kept by
// swapping two buffers, not by copying.
type guard struct {
	lo, hi   mgl64.Vec3
	maxSpeed float64
	skip     []bool // planes: no centre to check
	// snaps[next] receives the state after a step; snaps[1-next] holds the
	// last good one. With a device guard, snaps[1-next] holds what good
	// read back of the kept state, snaps[next] the failed state.
	snaps [2]snapshot
	next  int

	dev  engine.StateGuard // nil: the host check
	warm bool              // with dev: keep the warm-start memory
	// With dev: the step of the kept state, and whether snaps[1-next]
	// holds it (and its warm-start data).
	kept               int
	haveState, haveWSD bool
}

// snapshot is the state of a run after a step and, with warm start on and
// a backend that can save it, its warm-start data.
type snapshot struct {
	step  int
	state engine.State
	warm  engine.WarmStartData
	ws    *engine.WarmStartData // &warm or nil
}

// newGuard sets the guard domain from the scene's model (with the bodies
// of a pour, at their spots) and length and takes the sim's current state
// as the last good one.
func newGuard(sc *scene.Scene, sim *engine.Sim) (*guard, error) {
	m := sc.ModelWith(sc.TotalBodies())
	g := &guard{skip: make([]bool, len(m.Bodies))}
	inf := math.Inf(1)
	g.lo, g.hi = mgl64.Vec3{inf, inf, inf}, mgl64.Vec3{-inf, -inf, -inf}
	vmax := 0.0
	for i, b := range m.Bodies {
		if b.Shape.Kind == engine.Plane {
			g.skip[i] = true
			continue
		}
		r := b.Shape.BoundingRadius()
		for k := 0; k < 3; k++ {
			g.lo[k] = math.Min(g.lo[k], b.Pos[k]-r)
			g.hi[k] = math.Max(g.hi[k], b.Pos[k]+r)
		}
		vmax = math.Max(vmax, b.Vel.Len())
	}
	edge := 0.0
	for k := 0; k < 3; k++ {
		edge = math.Max(edge, g.hi[k]-g.lo[k])
	}
	h := sim.Settings().Dt
	t := float64(Steps(sc)) * h
	reach := vmax*t + 0.5*m.Gravity.Len()*t*t
	grow := GuardDomainScale * math.Max(edge, reach)
	for k := 0; k < 3; k++ {
		g.lo[k] -= grow
		g.hi[k] += grow
	}
	g.maxSpeed = (edge + 2*grow) / h
	if dev, ok := sim.Backend().(engine.StateGuard); ok {
		lim := g.limits()
		if err := dev.SetGuardLimits(&lim); err != nil {
			return nil, err
		}
		g.dev, g.warm = dev, sim.Settings().WarmStart
	}
	g.next = 1
	if err := g.retake(sim); err != nil {
		return nil, err
	}
	return g, nil
}

// limits returns the guard's limits.
func (g *guard) limits() engine.GuardLimits {
	return engine.GuardLimits{Lo: g.lo, Hi: g.hi, MaxSpeed: g.maxSpeed, Skip: g.skip}
}

// take reads the sim's state (and warm-start data, where there is some)
// into snaps[next].
func (g *guard) take(sim *engine.Sim) error {
	sn := &g.snaps[g.next]
	sn.step = sim.Steps()
	ws, err := sim.Snapshot(&sn.state, &sn.warm)
	if errors.Is(err, engine.ErrNoWarmStartData) {
		ws, err = nil, nil
	}
	sn.ws = ws
	return err
}

// keptNow notes that the device's kept state is the sim's current one.
func (g *guard) keptNow(sim *engine.Sim) {
	g.kept, g.haveState, g.haveWSD = sim.Steps(), false, false
}

// retake makes the sim's current state the last good one (at the start;
// after bodies entered: the state of the step just checked, with them).
func (g *guard) retake(sim *engine.Sim) error {
	if g.dev != nil {
		if err := g.dev.KeepState(g.warm); err != nil {
			return err
		}
		g.keptNow(sim)
		return nil
	}
	g.next = 1 - g.next
	err := g.take(sim)
	g.next = 1 - g.next
	return err
}

// good returns the last state that passed the checks, and its warm-start
// data when withWarm is set (sn.ws is nil when there are none). With a
// device guard it reads the kept copy back the first time it is asked
// for after a check.
func (g *guard) good(withWarm bool) (*snapshot, error) {
	sn := &g.snaps[1-g.next]
	if g.dev == nil {
		return sn, nil
	}
	sn.step = g.kept
	switch {
	case withWarm && g.warm && !g.haveWSD:
		if err := g.dev.ReadKept(&sn.state, &sn.warm); err != nil {
			return nil, err
		}
		sn.ws = &sn.warm
		g.haveState, g.haveWSD = true, true
	case !g.haveState:
		if err := g.dev.ReadKept(&sn.state, nil); err != nil {
			return nil, err
		}
		sn.ws = nil
		g.haveState = true
	}
	if !g.warm {
		sn.ws = nil
	}
	return sn, nil
}

// state returns the last good state (good without warm-start data).
func (g *guard) state() (*engine.State, error) {
	sn, err := g.good(false)
	if err != nil {
		return nil, err
	}
	return &sn.state, nil
}

// check checks the state after the sim's last step. On success that
// state becomes the last good one; on failure it returns a *GuardError
// and the last good state stays.
func (g *guard) check(sim *engine.Sim) error {
	if g.dev != nil {
		return g.checkDevice(sim)
	}
	if err := g.take(sim); err != nil {
		return err
	}
	if err := g.verdict(sim.Steps(), &g.snaps[g.next].state); err != nil {
		return err
	}
	g.next = 1 - g.next
	return nil
}

// checkDevice is check with a device guard: the backend checks the
// state and keeps it when it passes; a failed state is read back and
// checked on the host for the error, the same as the host check's.
func (g *guard) checkDevice(sim *engine.Sim) error {
	var r engine.GuardReport
	if err := g.dev.CheckState(&r, g.warm); err != nil {
		return err
	}
	if !r.Failed() {
		g.keptNow(sim)
		return nil
	}
	s := &g.snaps[g.next].state
	if err := sim.Backend().ReadState(s); err != nil {
		return err
	}
	if err := g.verdict(sim.Steps(), s); err != nil {
		return err
	}
	return fmt.Errorf("run: step %d: the device's guard check found %d non-finite, %d too fast and %d out-of-domain bodies (%v, %v, %v), the host's none in the same state",
		sim.Steps(), r.NonFinite, r.Fast, r.Out, r.NonFiniteIDs, r.FastIDs, r.OutIDs)
}

// verdict checks s, the state after step step: a *GuardError naming the
// offending bodies of the first kind that has any, or nil.
func (g *guard) verdict(step int, s *engine.State) error {
	lim := g.limits()
	nonFinite, fast, out := engine.GuardOffenders(s, &lim)
	switch {
	case len(nonFinite) > 0:
		return &GuardError{Step: step, Reason: "the state is not finite", Bodies: nonFinite, detail: list(s, nonFinite)}
	case len(fast) > 0:
		return &GuardError{Step: step, Reason: fmt.Sprintf("bodies faster than %.3g m/s, the guard domain's size per step: the solver diverged", g.maxSpeed),
			Bodies: fast, detail: list(s, fast)}
	case len(out) > 0:
		return &GuardError{Step: step, Reason: fmt.Sprintf("bodies outside the guard domain %.4g…%.4g m", g.lo, g.hi), Bodies: out, detail: list(s, out)}
	}
	return nil
}

// list names the first few bodies of ids with their positions and
// velocities in the failed state s.
func list(s *engine.State, ids []int) string {
	const shown = 5
	var b strings.Builder
	for j, i := range ids {
		if j == shown {
			fmt.Fprintf(&b, "; … %d more", len(ids)-shown)
			break
		}
		if j > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "body %d at (%.4g, %.4g, %.4g) m moving (%.4g, %.4g, %.4g) m/s", i,
			s.Pos[3*i], s.Pos[3*i+1], s.Pos[3*i+2], s.Vel[3*i], s.Vel[3*i+1], s.Vel[3*i+2])
	}
	return b.String()
}

// writeGood writes a checkpoint of the guard's last good state.
func (c *checkpointer) writeGood(sim *engine.Sim, sn *snapshot) (string, error) {
	if err := c.header(); err != nil {
		return "", err
	}
	c.ck.Step = sn.step
	c.ck.Settings = sim.Settings()
	c.ck.State.CopyFrom(&sn.state)
	c.ck.Trace = present(c.sc.Trace, c.ck.State.Len(), nil)
	c.ck.Warm = sn.ws // not changed after the run stops
	return c.save()
}

// stop ends a run whose last step failed (an error of Sim.Step or of the
// guard): it writes a checkpoint of the last good step, makes the summary
// count the steps up to it and returns runErr naming the checkpoint.
func (g *guard) stop(sim *engine.Sim, ckp *checkpointer, sum *Summary, runErr error) error {
	sn, err := g.good(true)
	if err != nil {
		// The kept state went with the device (a lost device): the run's
		// last periodic checkpoint, if any, is where to go on from.
		err = fmt.Errorf("run: the last good state: %w", err)
		if sum.Checkpoint != "" {
			err = fmt.Errorf("%w; the last checkpoint written is %s: go on from it with gpusim run --resume %s (--backend cpu if the device is gone)",
				err, sum.Checkpoint, sum.Checkpoint)
		}
		return errors.Join(runErr, err)
	}
	sum.Steps, sum.SimTime = sn.step, float64(sn.step)*sim.Settings().Dt
	path, err := ckp.writeGood(sim, sn)
	if err != nil {
		return errors.Join(runErr, err)
	}
	sum.Checkpoint = path
	return fmt.Errorf("%w; checkpoint of step %d: %s", runErr, sn.step, path)
}

// OpenBackend makes the backend named by kind (see NewBackend; the device,
// validation and memory limit from opt) and loads the model and settings
// into it (engine.NewSim): the Sim is ready to step. With "auto", a Vulkan
// device that runs out of memory while loading (gpu.ErrOutOfMemory) or
// cannot run the model (engine.ErrUnsupported: joints, compound bodies)
// is closed and the CPU path loads the model instead; notice says so in one
// line (or why auto chose the CPU path in the first place; "" when it did
// not). With "vulkan" the error is returned. The caller closes the backend.
func OpenBackend(kind string, opt Options, m *engine.Model, s engine.Settings) (sim *engine.Sim, be engine.Backend, notice string, err error) {
	be, notice, err = newBackend(kind, gpu.Options{Device: opt.Device, Validation: opt.Validation, MemoryLimit: opt.VulkanMemoryLimit}, s.Workers)
	if err != nil {
		return nil, nil, "", err
	}
	if opt.wrapBackend != nil {
		be = opt.wrapBackend(be)
	}
	sim, err = engine.NewSim(m, s, be)
	if err == nil {
		return sim, be, notice, nil
	}
	name := be.Name()
	be.Close()
	unsupported := errors.Is(err, engine.ErrUnsupported)
	if kind != "auto" || !errors.Is(err, gpu.ErrOutOfMemory) && !unsupported {
		return nil, nil, "", err
	}
	loadErr := err
	be = cpuref.New(s.Workers)
	if sim, err = engine.NewSim(m, s, be); err != nil {
		be.Close()
		return nil, nil, "", err
	}
	if unsupported {
		return sim, be, fmt.Sprintf("%s: %v; running on the CPU path", name, loadErr), nil
	}
	return sim, be, fmt.Sprintf("%s: the model does not fit (%v); running on the CPU path", name, loadErr), nil
}

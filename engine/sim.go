package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl64"
)

// StepStats report one time step.
type StepStats struct {
	Step     int     // 1-based index of the step just taken
	Time     float64 // simulated time at the end of the step (s)
	Contacts int
	Solve    SolveStats
	// FixedForce is the total contact force on fixed bodies (N).
	FixedForce mgl64.Vec3
	// Submits counts the backend's submit-and-wait round trips in the step
	// (0 for the CPU path).
	Submits int
	// Recorded counts the command buffers the backend recorded in the
	// step (Recorder; 0 for the CPU path): the rest of its submits ran
	// command buffers recorded in earlier steps or earlier in the step.
	Recorded int
	// Wall-clock seconds spent in collision detection (Collide), in solving
	// the problem (warm start and solver) and in the whole step.
	CollideSeconds, SolveSeconds, StepSeconds float64
	// Wall-clock seconds spent in building the problem (Build: Jacobian
	// and r) and in the update (FixedForce and Integrate). A device
	// backend that only records work in a phase is charged its recording
	// time there; the device time falls in the next phase that submits.
	BuildSeconds, IntegrateSeconds float64
}

// Sim advances a model in time on a backend.
type Sim struct {
	settings Settings
	backend  Backend
	solver   Solver
	step     int
	h        float64
	gamma    Vec
	problem  Problem
	// reactions is BodyReactions' scratch (reaction.go).
	reactions bodyReactions
	// from is what Grow checks a new model against (grow.go).
	from grownFrom
}

// NewSim validates the model and settings and loads them into the backend.
func NewSim(m *Model, s Settings, b Backend) (*Sim, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	solver, err := NewSolver(s.Solver)
	if err != nil {
		return nil, err
	}
	if err := b.Load(m, &s); err != nil {
		return nil, err
	}
	return &Sim{settings: s, backend: b, solver: solver, h: s.Dt, from: newGrownFrom(m)}, nil
}

// Settings returns the settings in use.
func (s *Sim) Settings() Settings { return s.settings }

// Backend returns the backend.
func (s *Sim) Backend() Backend { return s.backend }

// Steps returns the number of steps taken.
func (s *Sim) Steps() int { return s.step }

// Time returns the simulated time (s).
func (s *Sim) Time() float64 { return float64(s.step) * s.h }

// Step takes one time step: collide, build the CCP, solve it, integrate.
func (s *Sim) Step() (StepStats, error) {
	t0 := time.Now()
	st := StepStats{Step: s.step + 1}
	submits, recorded := s.submits(), s.recorded()
	nc, err := s.backend.Collide()
	if err != nil {
		return st, fmt.Errorf("step %d: %w", st.Step, err)
	}
	t1 := time.Now()
	st.Contacts = nc
	if c, ok := s.backend.(Clock); ok {
		c.SetTime(s.Time())
	}
	p, err := s.backend.Build(s.h)
	if err != nil {
		return st, fmt.Errorf("step %d: %w", st.Step, err)
	}
	s.problem = p
	tb := time.Now()
	rows := Rows(p)
	if s.gamma == nil || s.gamma.Len() != rows {
		s.gamma = ReuseVec(p, s.gamma, rows)
	}
	if s.settings.WarmStart {
		if err := s.backend.WarmStart(s.gamma); err != nil {
			return st, fmt.Errorf("step %d: %w", st.Step, err)
		}
	} else {
		p.Fill(s.gamma, 0)
	}
	if rows > 0 {
		st.Solve, err = s.solver.Solve(p, s.gamma, SolveOptions{Tol: s.settings.Tol, MaxIter: s.settings.MaxIter, Gd: s.settings.Gd})
		if err != nil {
			return st, fmt.Errorf("step %d: %w", st.Step, err)
		}
		if math.IsNaN(st.Solve.Residual) || math.IsInf(st.Solve.Residual, 0) {
			return st, fmt.Errorf("step %d: solver %s returned a non-finite residual", st.Step, s.solver.Name())
		}
	}
	t2 := time.Now()
	if st.FixedForce, err = s.backend.FixedForce(s.gamma, s.h); err != nil {
		return st, fmt.Errorf("step %d: %w", st.Step, err)
	}
	if err := s.backend.Integrate(s.gamma, s.h); err != nil {
		return st, fmt.Errorf("step %d: %w", st.Step, err)
	}
	s.step++
	st.Time = s.Time()
	st.Submits = s.submits() - submits
	st.Recorded = s.recorded() - recorded
	t3 := time.Now()
	st.CollideSeconds = t1.Sub(t0).Seconds()
	st.BuildSeconds = tb.Sub(t1).Seconds()
	st.SolveSeconds = t2.Sub(tb).Seconds()
	st.IntegrateSeconds = t3.Sub(t2).Seconds()
	st.StepSeconds = t3.Sub(t0).Seconds()
	return st, nil
}

// Impulses copies the last step's impulses γ (N·s: 3 per contact in the
// contact frame n, u, w, then one per joint row, then 3 per rolling block:
// see RollingRows) into dst and returns it.
func (s *Sim) Impulses(dst []float64) []float64 {
	if s.gamma == nil {
		return dst[:0]
	}
	n := s.gamma.Len()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	s.problem.Read(dst, s.gamma)
	return dst
}

// Problem returns the problem of the last step (nil before the first).
func (s *Sim) Problem() Problem { return s.problem }

// submits returns the backend's submit-and-wait round trips so far (see
// Submitter).
func (s *Sim) submits() int {
	if c, ok := s.backend.(Submitter); ok {
		return c.Submits()
	}
	return 0
}

// recorded returns the command buffers the backend recorded so far (see
// Recorder).
func (s *Sim) recorded() int {
	if c, ok := s.backend.(Recorder); ok {
		return c.CommandBuffersRecorded()
	}
	return 0
}

// SetMotor changes joint j's motor (it must have one) from the next step
// on: its speed (rad/s or m/s) and its limit (N·m or N; 0: none). The
// backend must implement Driver (both of gpusim's do).
func (s *Sim) SetMotor(j int, speed, maxForce float64) error {
	d, ok := s.backend.(Driver)
	if !ok {
		return fmt.Errorf("set motor: the %s backend cannot change motors: %w", s.backend.Name(), ErrUnsupported)
	}
	m := Motor{Speed: speed, MaxForce: maxForce}
	if err := m.Check(); err != nil {
		return fmt.Errorf("set motor of joint %d: %w", j, err)
	}
	if err := d.SetMotor(j, m); err != nil {
		return fmt.Errorf("set motor of joint %d: %w", j, err)
	}
	return nil
}

// SetMotion changes kinematic body i's motion from the next step on: the
// body continues from the pose it has now with m's velocity, spin and
// shake, whose sine restarts now (Path.Retarget). The backend must
// implement Driver (both of gpusim's do). Changes made with SetMotor and
// SetMotion are not part of the model: a run restored from a checkpoint
// (a new Sim of the model, then Restore) starts from the model's motors
// and motions, so set them again after the Restore.
func (s *Sim) SetMotion(i int, m Motion) error {
	d, ok := s.backend.(Driver)
	if !ok {
		return fmt.Errorf("set motion: the %s backend cannot change motions: %w", s.backend.Name(), ErrUnsupported)
	}
	if err := m.Check(); err != nil {
		return fmt.Errorf("set motion of body %d: %w", i, err)
	}
	if err := d.SetMotion(i, m, s.Time()); err != nil {
		return fmt.Errorf("set motion of body %d: %w", i, err)
	}
	return nil
}

// JointReactions returns, for each joint of the model in order, the force
// and torque it applied to its Body1 over the last step (see Reaction);
// nil before the first step or for a model without joints. dst is reused
// when long enough.
func (s *Sim) JointReactions(dst []Reaction) ([]Reaction, error) {
	if s.gamma == nil {
		return dst[:0], nil
	}
	r, ok := s.backend.(JointReactor)
	if !ok {
		return dst[:0], nil
	}
	return r.JointReactions(s.gamma, s.h, dst)
}

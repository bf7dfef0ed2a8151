package engine

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/go-gl/mathgl/mgl64"
)

// grownFrom is what Grow checks a new model against: each body's shape
// kind, mass, fixedness and material, and a copy of the materials, the
// gravity and the joints of the model the Sim runs.
type grownFrom struct {
	kind      []ShapeKind
	mass      []float64
	fixed     []bool
	material  []int
	materials []Material
	gravity   mgl64.Vec3
	joints    []Joint
}

func newGrownFrom(m *Model) grownFrom {
	g := grownFrom{
		kind:      make([]ShapeKind, 0, len(m.Bodies)),
		mass:      make([]float64, 0, len(m.Bodies)),
		fixed:     make([]bool, 0, len(m.Bodies)),
		material:  make([]int, 0, len(m.Bodies)),
		materials: append([]Material(nil), m.Materials...),
		gravity:   m.Gravity,
		joints:    append([]Joint(nil), m.Joints...),
	}
	g.add(m.Bodies)
	return g
}

// add records the bodies after the first len(g.kind), which are there
// already (check has compared them).
func (g *grownFrom) add(bodies []Body) {
	for i := len(g.kind); i < len(bodies); i++ {
		b := &bodies[i]
		g.kind = append(g.kind, b.Shape.Kind)
		g.mass = append(g.mass, b.Mass)
		g.fixed = append(g.fixed, b.Fixed)
		g.material = append(g.material, b.Material)
	}
}

// check names the first way m is not g's model with bodies appended.
func (g *grownFrom) check(m *Model) error {
	n := len(g.kind)
	if len(m.Bodies) < n {
		return fmt.Errorf("the new model has %d bodies, fewer than the %d of the simulation", len(m.Bodies), n)
	}
	for i := 0; i < n; i++ {
		b := &m.Bodies[i]
		switch {
		case b.Shape.Kind != g.kind[i]:
			return fmt.Errorf("body %d is a %v, was a %v", i, b.Shape.Kind, g.kind[i])
		case b.Mass != g.mass[i]:
			return fmt.Errorf("body %d's mass is %v kg, was %v kg", i, b.Mass, g.mass[i])
		case b.Fixed != g.fixed[i]:
			return fmt.Errorf("body %d's fixed is %v, was %v", i, b.Fixed, g.fixed[i])
		case b.Material != g.material[i]:
			return fmt.Errorf("body %d's material is %d, was %d", i, b.Material, g.material[i])
		}
	}
	if !reflect.DeepEqual(m.Materials, g.materials) {
		return fmt.Errorf("the materials differ (%d materials, was %d)", len(m.Materials), len(g.materials))
	}
	if m.Gravity != g.gravity {
		return fmt.Errorf("gravity is %v, was %v", m.Gravity, g.gravity)
	}
	if len(m.Joints) != len(g.joints) {
		return fmt.Errorf("the new model has %d joints, was %d", len(m.Joints), len(g.joints))
	}
	for j := range m.Joints {
		if !reflect.DeepEqual(m.Joints[j], g.joints[j]) {
			return fmt.Errorf("joint %d differs", j)
		}
	}
	return nil
}

// Grow replaces the simulation's model by m, whose first bodies are those
// of the model the Sim runs (same count or more; the same shape kind,
// mass, fixedness and material each) with the same materials, gravity
// and joints, and whose further bodies are appended: bodies entering a
// scene (a pour). The bodies already there keep their state (positions,
// orientations, velocities and spins), the step counter and Time go on,
// and with warm start on the warm-start memory is kept (contact keys are
// body ids, which do not change); the new bodies start from their Body
// fields in m (Load's state). Grow reloads the backend (Backend.Load)
// with the Sim's settings, so what Load derives from the whole model is
// derived again: an automatic envelope (Settings.Envelope 0) or
// broadphase cell follows the largest body, and may change when a larger
// one enters. Changes made with SetMotor and SetMotion are not part of
// the model and are reset by the reload to the model's motors and
// motions, as after Restore: set them again after Grow. Impulses,
// JointReactions and BodyReactions report nothing until the next Step.
//
// A model that is not such a growth is an error naming what differs, and
// the Sim is left as it was; an error of the backend's reload leaves it
// unusable. With warm start on and a backend that is not
// a WarmStartSaver, Grow grows the model and returns an error wrapping
// ErrNoWarmStartData (the next step's solve starts from zero impulses),
// which callers may announce and carry on from. The backend must be a
// StateSetter (both of gpusim's are).
func (s *Sim) Grow(m *Model) error {
	if err := s.from.check(m); err != nil {
		return fmt.Errorf("grow: %w", err)
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("grow: %w", err)
	}
	ss, ok := s.backend.(StateSetter)
	if !ok {
		return fmt.Errorf("grow: backend %s cannot set the body state", s.backend.Name())
	}
	var old State
	ws, noWarm := s.Snapshot(&old, new(WarmStartData))
	if noWarm != nil {
		noWarm = fmt.Errorf("grow: %w", noWarm)
		if !errors.Is(noWarm, ErrNoWarmStartData) {
			return noWarm
		}
	}
	settings := s.settings
	if err := s.backend.Load(m, &settings); err != nil {
		return fmt.Errorf("grow: %w", err)
	}
	var st State
	if err := s.backend.ReadState(&st); err != nil {
		return fmt.Errorf("grow: %w", err)
	}
	copy(st.Pos, old.Pos)
	copy(st.Rot, old.Rot)
	copy(st.Vel, old.Vel)
	copy(st.Omega, old.Omega)
	if err := ss.SetState(&st); err != nil {
		return fmt.Errorf("grow: %w", err)
	}
	if ws != nil {
		if err := s.backend.(WarmStartSaver).SetWarmStartData(ws); err != nil {
			return fmt.Errorf("grow: %w", err)
		}
	}
	s.from.add(m.Bodies)
	s.problem, s.gamma = nil, nil
	return noWarm
}

package run

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// reactionsHeader is the first line of reactions.csv.
const reactionsHeader = "step,time,kind,id,fx,fy,fz,tx,ty,tz"

// ReactionSummary is summary.json's entry for one joint or static body
// of a run that reports reactions (see Options.Reactions): world frame,
// torques about body1's (for a joint) or the body's centre of mass.
type ReactionSummary struct {
	// Kind is "joint" (ID: the joint's index in the scene's joints; the
	// force and torque it applies to its body1) or "body" (ID: the body's
	// id; the total contact force and torque on it).
	Kind string `json:"kind"`
	ID   int    `json:"id"`
	// Force and Torque are the last step's.
	Force  [3]float64 `json:"force_N"`
	Torque [3]float64 `json:"torque_N_m"`
	// MeanForce is the mean force over the steps the run took (a resumed
	// run: the steps after its checkpoint), MaxForce the largest |force|
	// and MaxForceStep the step of it, MaxTorque the largest |torque|.
	MeanForce    [3]float64 `json:"mean_force_N"`
	MaxForce     float64    `json:"max_force_N"`
	MaxForceStep int        `json:"max_force_step"`
	MaxTorque    float64    `json:"max_torque_N_m"`
}

// wantReactions reports whether a run of sc reports reactions
// (reactions.csv, summary.json's reactions, the frames' reaction arrays):
// always for a scene with joints or kinematic bodies (a mechanism, whose
// loads are what one runs it for), and for any other scene when asked.
// Not by default for the fixed bodies of every scene: most scenes have a
// fixed container, stats.csv already holds the total force on it, and on
// a device backend each step would read the contacts back.
func wantReactions(sc *scene.Scene, opt Options) bool {
	return opt.Reactions || len(sc.Model.Joints) > 0 || sc.Model.HasKinematic()
}

// reactions computes a run's reactions after each step and keeps their
// summary.
type reactions struct {
	model  *engine.Model
	bodies []int   // the static bodies' ids, in order
	slot   []int32 // body → its index in bodies, −1 for the others
	joints []engine.Reaction
	rb     []engine.Reaction // of bodies
	sum    []ReactionSummary // joints, then bodies
	steps  int
	// force and torque per body, for the frames (see vtk.ArrayReactionForce).
	force, torque []mgl64.Vec3
}

func newReactions(m *engine.Model) *reactions {
	r := &reactions{model: m, bodies: m.StaticBodies(), slot: make([]int32, len(m.Bodies))}
	for i := range r.slot {
		r.slot[i] = -1
	}
	for k, id := range r.bodies {
		r.slot[id] = int32(k)
	}
	r.rb = make([]engine.Reaction, len(r.bodies))
	for j := range m.Joints {
		r.sum = append(r.sum, ReactionSummary{Kind: "joint", ID: j})
	}
	for _, id := range r.bodies {
		r.sum = append(r.sum, ReactionSummary{Kind: "body", ID: id})
	}
	r.force = make([]mgl64.Vec3, len(m.Bodies))
	r.torque = make([]mgl64.Vec3, len(m.Bodies))
	return r
}

// grow follows the model's bodies after some entered (a pour): they are
// movable, so they have no reaction of their own.
func (r *reactions) grow() {
	for len(r.slot) < len(r.model.Bodies) {
		r.slot = append(r.slot, -1)
	}
	r.force = append(r.force, make([]mgl64.Vec3, len(r.model.Bodies)-len(r.force))...)
	r.torque = append(r.torque, make([]mgl64.Vec3, len(r.model.Bodies)-len(r.torque))...)
}

// update takes the reactions of the sim's last step (step) and adds them
// to the summary and the per-body arrays.
func (r *reactions) update(sim *engine.Sim, step int) error {
	var err error
	if r.joints, err = sim.JointReactions(r.joints); err != nil {
		return fmt.Errorf("run: step %d: reactions: %w", step, err)
	}
	if len(r.joints) != len(r.model.Joints) {
		return fmt.Errorf("run: step %d: reactions: the backend gave %d joint reactions for %d joints", step, len(r.joints), len(r.model.Joints))
	}
	if err := sim.BodyReactions(r.slot, r.rb); err != nil {
		return fmt.Errorf("run: step %d: reactions: %w", step, err)
	}
	r.steps++
	clear(r.force)
	clear(r.torque)
	for k, id := range r.bodies {
		r.force[id], r.torque[id] = r.rb[k].Force, r.rb[k].Torque
	}
	for j, jr := range r.joints {
		b := r.model.Joints[j].Body1
		r.force[b] = r.force[b].Add(jr.Force)
		r.torque[b] = r.torque[b].Add(jr.Torque)
	}
	for k := range r.sum {
		s := &r.sum[k]
		x := r.at(k)
		s.Force, s.Torque = x.Force, x.Torque
		for c := 0; c < 3; c++ {
			// The running mean, so that it needs no sum that a long run
			// would round.
			s.MeanForce[c] += (x.Force[c] - s.MeanForce[c]) / float64(r.steps)
		}
		if f := x.Force.Len(); f > s.MaxForce || s.MaxForceStep == 0 {
			s.MaxForce, s.MaxForceStep = f, step
		}
		s.MaxTorque = math.Max(s.MaxTorque, x.Torque.Len())
	}
	return nil
}

// at returns reaction k in the order of sum: joints, then bodies.
func (r *reactions) at(k int) engine.Reaction {
	if k < len(r.joints) {
		return r.joints[k]
	}
	return r.rb[k-len(r.joints)]
}

// summary returns the summary, nil without joints and static bodies or
// before the first step.
func (r *reactions) summary() []ReactionSummary {
	if r == nil || r.steps == 0 || len(r.sum) == 0 {
		return nil
	}
	return r.sum
}

// openReactions opens reactions.csv in the writers' folder: a new file
// when end is negative, else the file there cut to end bytes (see
// openCSV).
func (w *writers) openReactions(end int64) error {
	f, err := openCSV(filepath.Join(w.dir, "reactions.csv"), reactionsHeader, end)
	if err != nil {
		return err
	}
	w.rxnF = f
	return nil
}

// reactions writes the rows of a step into reactions.csv in one write
// (see writers): a row per joint, then a row per static body.
func (w *writers) reactions(step int, t float64, r *reactions) error {
	w.buf = w.buf[:0]
	for k := range r.sum {
		w.i(step)
		w.f(t)
		w.buf = append(w.buf, r.sum[k].Kind...)
		w.buf = append(w.buf, ',')
		w.i(r.sum[k].ID)
		x := r.at(k)
		for c := 0; c < 3; c++ {
			w.f(x.Force[c])
		}
		for c := 0; c < 3; c++ {
			w.f(x.Torque[c])
		}
		w.endRow()
	}
	if len(w.buf) == 0 {
		return nil
	}
	return w.rxnF.write(w.buf)
}

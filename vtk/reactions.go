package vtk

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// The reaction arrays of a frame file of a run that reports reactions
// (run's reactions.csv), one tuple per body, world frame: for a fixed,
// plane or kinematic body the total contact force on it and torque about
// its centre of mass (reactions.csv's rows of kind body), plus, for every
// body, the force and torque of the joints whose body1 it is (the rows of
// kind joint), over the step the frame ends. Zero in the frame of step 0.
const (
	ArrayReactionForce  = "reaction_force"  // Float64 × 3 (N)
	ArrayReactionTorque = "reaction_torque" // Float64 × 3 (N·m)
)

// AddReactions appends the point arrays ArrayReactionForce and
// ArrayReactionTorque to a frame made by BodiesPolyData, a tuple per body.
func AddReactions(p *PolyData, force, torque []mgl64.Vec3) error {
	n := p.NumPoints()
	if len(force) != n || len(torque) != n {
		return fmt.Errorf("vtk: %d reaction forces and %d torques for %d bodies", len(force), len(torque), n)
	}
	f := Array{Name: ArrayReactionForce, Type: "Float64", Components: 3, Data: make([]float64, 0, 3*n)}
	t := Array{Name: ArrayReactionTorque, Type: "Float64", Components: 3, Data: make([]float64, 0, 3*n)}
	for i := range force {
		f.Data = append(f.Data, force[i][:]...)
		t.Data = append(t.Data, torque[i][:]...)
	}
	p.PointData = append(p.PointData, f, t)
	return nil
}

// SetReactions gives the recorder the per-body reaction force and torque
// (see ArrayReactionForce) that the frames it writes from now on carry;
// nil (the default) writes frames without them. The slices are read at
// each Frame, so the caller updates them in place after every step.
func (r *Recorder) SetReactions(force, torque []mgl64.Vec3) {
	r.rForce, r.rTorque = force, torque
}

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

// The reaction arrays of the fixed bodies and planes of a frame: field
// data, one tuple per fixed body in the order of ArrayFixedID.
const (
	ArrayFixedReactionForce  = "fixed_reaction_force"  // Float64 × 3 (N)
	ArrayFixedReactionTorque = "fixed_reaction_torque" // Float64 × 3 (N·m)
)

// AddReactions appends the reaction force and torque of every body
// (indexed by body id) to a frame made by BodiesPolyData: the point
// arrays ArrayReactionForce and ArrayReactionTorque for its moving bodies
// and the field arrays ArrayFixedReactionForce and
// ArrayFixedReactionTorque for its fixed ones.
func AddReactions(p *PolyData, force, torque []mgl64.Vec3) error {
	ids := p.PointArray(ArrayID)
	fids := p.FieldArray(ArrayFixedID)
	n := p.NumPoints()
	if fids != nil {
		n += fids.Tuples()
	}
	if ids == nil || len(force) != n || len(torque) != n {
		return fmt.Errorf("vtk: %d reaction forces and %d torques for %d bodies", len(force), len(torque), n)
	}
	for _, id := range []*Array{ids, fids} {
		if id == nil {
			continue
		}
		for _, v := range id.Data {
			if v < 0 || int(v) >= n {
				return fmt.Errorf("vtk: body id %v out of range [0, %d)", v, n)
			}
		}
	}
	// arrays returns the force and torque arrays of the bodies ids.
	arrays := func(id *Array, fname, tname string) (f, t Array) {
		f = Array{Name: fname, Type: "Float64", Components: 3, Data: make([]float64, 0, 3*len(id.Data))}
		t = Array{Name: tname, Type: "Float64", Components: 3, Data: make([]float64, 0, 3*len(id.Data))}
		for _, v := range id.Data {
			f.Data = append(f.Data, force[int(v)][:]...)
			t.Data = append(t.Data, torque[int(v)][:]...)
		}
		return f, t
	}
	f, t := arrays(ids, ArrayReactionForce, ArrayReactionTorque)
	p.PointData = append(p.PointData, f, t)
	if fids != nil {
		f, t := arrays(fids, ArrayFixedReactionForce, ArrayFixedReactionTorque)
		p.FieldData = append(p.FieldData, f, t)
	}
	return nil
}

// Reactions reads the reaction force and torque of every body of a frame
// back (see AddReactions), indexed by body id: the moving bodies' from
// the point data, the fixed bodies' from the field data (or, in a frame
// of an earlier version, every body's from the point data).
func Reactions(p *PolyData) (force, torque []mgl64.Vec3, err error) {
	type part struct{ id, f, t *Array }
	parts := []part{{p.PointArray(ArrayID), p.PointArray(ArrayReactionForce), p.PointArray(ArrayReactionTorque)}}
	if fid := p.FieldArray(ArrayFixedID); fid != nil {
		parts = append(parts, part{fid, p.FieldArray(ArrayFixedReactionForce), p.FieldArray(ArrayFixedReactionTorque)})
	}
	n := 0
	for _, q := range parts {
		if q.id == nil || q.f == nil || q.t == nil || q.f.Components != 3 || q.t.Components != 3 || q.f.Tuples() != len(q.id.Data) || q.t.Tuples() != len(q.id.Data) {
			return nil, nil, fmt.Errorf("vtk: the frame has no reaction arrays for its bodies")
		}
		n += len(q.id.Data)
	}
	force, torque = make([]mgl64.Vec3, n), make([]mgl64.Vec3, n)
	for _, q := range parts {
		for k, v := range q.id.Data {
			i := int(v)
			if v < 0 || i >= n {
				return nil, nil, fmt.Errorf("vtk: body id %v out of range [0, %d)", v, n)
			}
			force[i] = mgl64.Vec3{q.f.Data[3*k], q.f.Data[3*k+1], q.f.Data[3*k+2]}
			torque[i] = mgl64.Vec3{q.t.Data[3*k], q.t.Data[3*k+1], q.t.Data[3*k+2]}
		}
	}
	return force, torque, nil
}

// SetReactions gives the recorder the per-body reaction force and torque
// (see ArrayReactionForce) that the frames it writes from now on carry;
// nil (the default) writes frames without them. The slices are read at
// each Frame, so the caller updates them in place after every step.
func (r *Recorder) SetReactions(force, torque []mgl64.Vec3) {
	r.rForce, r.rTorque = force, torque
}

package scene

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// FromState returns a scene document that starts where a run of doc left
// off, for example a settled bed to be loaded, struck or reused: the
// bodies of doc's "bodies" and "generators" become explicit bodies with the
// shapes, masses, materials, fixed flags and loads of m (the
// model doc builds to) and the positions, orientations and velocities of
// st; "containers" stay as they are. Body ids are therefore unchanged (the
// explicit bodies come first, in id order, then the containers' bodies), so
// a path override such as bodies.0.mass applies to body 0 (and scales its
// inertia, which is written only where the scene gave one that is not the
// shape's). Materials,
// gravity, settings and run are kept; the name gets the suffix "-restart".
//
// The state is taken as it is: positions and velocities exactly, and
// orientations up to the normalisation Build applies to every quaternion
// (a change of an ulp or so). Run a scene made this way for a different
// experiment; resume a checkpoint (gpusim run --resume) to continue the
// same run bit for bit.
func FromState(doc *Doc, m *engine.Model, st *engine.State) (*Doc, error) {
	explicit := len(doc.Bodies)
	for i, g := range doc.Generators {
		if g.Type == "pour" {
			return nil, fmt.Errorf("scene: generators[%d] is a pour, whose bodies come after the containers': a scene from a state cannot keep them yet", i)
		}
		explicit += g.Count
	}
	if explicit > len(m.Bodies) {
		return nil, fmt.Errorf("scene: the model has %d bodies, fewer than the %d of the document's bodies and generators", len(m.Bodies), explicit)
	}
	if st.Len() != len(m.Bodies) {
		return nil, fmt.Errorf("scene: the state has %d bodies, the model %d", st.Len(), len(m.Bodies))
	}
	out := cloneDoc(doc)
	out.Generators = nil
	out.Bodies = make([]BodySpec, explicit)
	if out.Name != "" {
		out.Name += "-restart"
	}
	for i := range out.Bodies {
		b := &m.Bodies[i]
		if b.Material < 0 || b.Material >= len(m.Materials) {
			return nil, fmt.Errorf("scene: body %d has material %d of %d", i, b.Material, len(m.Materials))
		}
		s := BodySpec{
			Shape:    shapeSpec(b.Shape),
			Pos:      &Vec3{st.Pos[3*i], st.Pos[3*i+1], st.Pos[3*i+2]},
			Rot:      &Quat{st.Rot[4*i], st.Rot[4*i+1], st.Rot[4*i+2], st.Rot[4*i+3]},
			Fixed:    b.Fixed,
			Material: m.Materials[b.Material].Name,
		}
		if !b.Fixed && b.Shape.Kind != engine.Plane {
			s.Vel = &Vec3{st.Vel[3*i], st.Vel[3*i+1], st.Vel[3*i+2]}
			s.Omega = &Vec3{st.Omega[3*i], st.Omega[3*i+1], st.Omega[3*i+2]}
			s.Mass = ptr(b.Mass)
			// The inertia is written only where it is not the shape's for
			// the mass (a scene that gave it explicitly), so that an
			// override of the mass (--set bodies.3.mass=…) scales it.
			shaped := engine.Body{Shape: b.Shape}
			shaped.SetMass(b.Mass)
			if shaped.Inertia != b.Inertia {
				s.Inertia = &Vec3{b.Inertia[0], b.Inertia[1], b.Inertia[2]}
			}
		}
		if b.Force != ([3]float64{}) {
			s.Force = &Vec3{b.Force[0], b.Force[1], b.Force[2]}
		}
		if b.Torque != ([3]float64{}) {
			s.Torque = &Vec3{b.Torque[0], b.Torque[1], b.Torque[2]}
		}
		out.Bodies[i] = s
	}
	return out, nil
}

// shapeSpec is the document form of a shape.
func shapeSpec(s engine.Shape) ShapeSpec {
	size := func(v float64) Size { return Size{Value: v} }
	switch s.Kind {
	case engine.Sphere:
		return ShapeSpec{Type: "sphere", Radius: ptr(size(s.Size[0]))}
	case engine.Ellipsoid:
		return ShapeSpec{Type: "ellipsoid", SemiAxes: &[3]Size{size(s.Size[0]), size(s.Size[1]), size(s.Size[2])}}
	case engine.Box:
		return ShapeSpec{Type: "box", HalfExtents: &[3]Size{size(s.Size[0]), size(s.Size[1]), size(s.Size[2])}}
	case engine.Mesh:
		sc := s.Mesh.Scale
		return ShapeSpec{Type: "mesh", File: s.Mesh.File, Scale: &sc}
	case engine.Convex:
		out := ShapeSpec{Type: "convex"}
		for _, v := range s.Hull.Verts {
			out.Points = append(out.Points, Vec3(v))
		}
		return out
	case engine.Capsule, engine.Cylinder:
		return ShapeSpec{Type: s.Kind.String(), Radius: ptr(size(s.Size[0])), HalfHeight: ptr(size(s.Size[1]))}
	case engine.Compound:
		// The parts as the engine holds them, in the principal frame about
		// the centre of mass: with the state's pos and rot (that centre and
		// frame), the document builds the same body.
		out := ShapeSpec{Type: "compound"}
		for _, p := range s.Compound.Parts {
			out.Parts = append(out.Parts, PartSpec{Shape: shapeSpec(p.Shape),
				Pos: &Vec3{p.Pos[0], p.Pos[1], p.Pos[2]}, Rot: &Quat{p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2]}})
		}
		return out
	}
	return ShapeSpec{Type: "plane"}
}

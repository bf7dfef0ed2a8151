package scene

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// checkCompound checks a compound shape s at path: no size field of its
// own, at least one part and at most engine.MaxParts, each a sphere,
// ellipsoid or box (no plane, no nested compound) with a finite pos and a
// unit rot. Generators do not make compounds.
func checkCompound(path string, s ShapeSpec, inGenerator bool) error {
	if inGenerator {
		return errAt(join(path, "type"), "a generator cannot make compounds (list them in \"bodies\")")
	}
	for _, f := range []struct {
		name  string
		given bool
	}{{"radius", s.Radius != nil}, {"half_height", s.HalfHeight != nil}, {"semi_axes", s.SemiAxes != nil}, {"half_extents", s.HalfExtents != nil}, {"points", s.Points != nil}, {"file", s.File != ""}, {"scale", s.Scale != nil}} {
		if f.given {
			return errAt(join(path, f.name), "does not apply to a compound (its parts have sizes)")
		}
	}
	if len(s.Parts) == 0 {
		return errAt(join(path, "parts"), "missing (a compound needs at least one part)")
	}
	if len(s.Parts) > engine.MaxParts {
		return errAt(join(path, "parts"), "%d parts, more than %d", len(s.Parts), engine.MaxParts)
	}
	for i, part := range s.Parts {
		pp := index(join(path, "parts"), i)
		kind, err := checkShape(join(pp, "shape"), part.Shape, false)
		if err != nil {
			return err
		}
		switch kind {
		case engine.Plane:
			return errAt(join(join(pp, "shape"), "type"), "a plane cannot be a part of a compound (it is unbounded: make it a body of its own)")
		case engine.Compound:
			return errAt(join(join(pp, "shape"), "type"), "compounds do not nest (list the inner compound's parts in the outer one)")
		case engine.Mesh:
			return errAt(join(join(pp, "shape"), "type"), "a mesh cannot be a part of a compound (it has no volume to weigh: make it a fixed or kinematic body of its own)")
		}
		if _, err := vec(join(pp, "pos"), part.Pos); err != nil {
			return err
		}
		if _, err := rotation(join(pp, "rot"), part.Rot); err != nil {
			return err
		}
	}
	return nil
}

// compoundShape builds a checked compound s (at path) with
// engine.NewCompound: its shape, with the parts in the principal frame
// centred on the centre of mass; c, the centre of mass in the frame the
// parts are given in; q, the rotation from the principal frame to that
// frame.
func compoundShape(path string, s ShapeSpec) (shape engine.Shape, c mgl64.Vec3, q mgl64.Quat, err error) {
	parts := make([]engine.Part, len(s.Parts))
	for i, part := range s.Parts {
		sizes, _ := sizesOf("", part.Shape)
		v := make([]float64, len(sizes))
		for k, sz := range sizes {
			v[k] = sz.Value
		}
		kind, _ := engine.ParseShapeKind(part.Shape.Type)
		parts[i] = engine.Part{Shape: makeShape(kind, v)}
		parts[i].Pos, _ = vec("", part.Pos)
		parts[i].Rot, _ = rotation("", part.Rot)
		if kind == engine.Convex {
			// The hull sits at its centre of mass in its principal
			// frame: the part's pose moves there.
			sh, c, q, err := convexShape("", part.Shape)
			if err != nil {
				return shape, c, q, errAt(join(index(join(path, "parts"), i), "shape"), "%v", err)
			}
			parts[i].Shape = sh
			parts[i].Pos = parts[i].Pos.Add(parts[i].Rot.Rotate(c))
			parts[i].Rot = parts[i].Rot.Mul(q).Normalize()
		}
	}
	shape, c, q, err = engine.NewCompound(parts)
	if err != nil {
		return shape, c, q, errAt(path, "%v", err)
	}
	return shape, c, q, nil
}

// placeCompound moves a compound body built with the parts' frame at
// body.Pos and body.Rot (angular velocity body.Omega in that frame) to its
// centre of mass c and principal frame q (compoundShape's), which the
// engine and every output use.
func placeCompound(body *engine.Body, c mgl64.Vec3, q mgl64.Quat) {
	body.Pos = body.Pos.Add(body.Rot.Rotate(c))
	if q == mgl64.QuatIdent() {
		return
	}
	body.Rot = body.Rot.Mul(q).Normalize()
	body.Omega = q.Conjugate().Rotate(body.Omega)
}

package engine

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/geom"
)

// MaxMeshTriangles is the most triangles a mesh shape may have: a
// contact's index within its body pair packs the triangle's index in 16
// bits (collide.Collider.Sub).
const MaxMeshTriangles = 1 << 16

// MeshTriangles is a mesh shape's surface: the mesh as read (in the body
// frame, m) and its triangles as Triangle parts, each posed in the body
// frame (Part.Pos the triangle's first vertex, Part.Rot taking its frame,
// x along its first edge and z along its normal, to the body's). A Shape
// refers to it by pointer; it is never changed once made.
type MeshTriangles struct {
	Source *geom.Mesh
	Parts  []Part
	// File and Scale say where the mesh came from (a scene's "file" and
	// "scale"), for outputs that write the scene back; empty and 0 for a
	// mesh made in Go.
	File  string
	Scale float64
}

// NewMesh makes a mesh shape from m (in the body frame, m): a triangle
// with vertices v0, v1, v2 (counter-clockwise seen from its outside) is
// the Triangle part of size (a, b, c), a = |v1 − v0|, v2 − v0 = b·x + c·y
// in its frame (x = (v1 − v0)/a, z the unit normal (v1 − v0) × (v2 − v0),
// y = z × x), posed at v0. The mesh must pass m.Validate (finite vertices,
// no degenerate triangles) and have at most MaxMeshTriangles triangles.
// Mesh shapes belong to fixed or kinematic bodies: they have no volume.
// Triangles collide on both sides.
func NewMesh(m *geom.Mesh, name string) (Shape, error) {
	if m == nil {
		return Shape{}, fmt.Errorf("%s: no mesh", name)
	}
	if err := m.Validate(name); err != nil {
		return Shape{}, err
	}
	if len(m.Tris) > MaxMeshTriangles {
		return Shape{}, fmt.Errorf("%s: %d triangles, more than %d", name, len(m.Tris), MaxMeshTriangles)
	}
	parts := make([]Part, len(m.Tris))
	for i, t := range m.Tris {
		v0, v1, v2 := m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]
		e1, e2 := v1.Sub(v0), v2.Sub(v0)
		a := e1.Len()
		x := e1.Mul(1 / a)
		z := e1.Cross(e2).Normalize()
		y := z.Cross(x)
		rot := mgl64.Mat4ToQuat(mgl64.Mat3FromCols(x, y, z).Mat4()).Normalize()
		parts[i] = Part{Shape: Shape{Kind: Triangle, Size: mgl64.Vec3{a, e2.Dot(x), e2.Dot(y)}}, Pos: v0, Rot: rot}
		if err := parts[i].Shape.Validate(); err != nil {
			return Shape{}, fmt.Errorf("%s: triangle %d: %v", name, i, err)
		}
	}
	return Shape{Kind: Mesh, Mesh: &MeshTriangles{Source: m, Parts: parts}}, nil
}

// validateMesh checks a mesh shape's triangles: present, at most
// MaxMeshTriangles, each a valid Triangle part posed finitely.
func validateMesh(m *MeshTriangles) error {
	if m == nil || len(m.Parts) == 0 {
		return fmt.Errorf("mesh shape has no triangles (make it with NewMesh)")
	}
	if len(m.Parts) > MaxMeshTriangles {
		return fmt.Errorf("mesh has %d triangles, more than %d", len(m.Parts), MaxMeshTriangles)
	}
	for i, p := range m.Parts {
		if p.Shape.Kind != Triangle {
			return fmt.Errorf("mesh triangle %d is a %v", i, p.Shape.Kind)
		}
		if err := p.Shape.Validate(); err != nil {
			return fmt.Errorf("mesh triangle %d: %w", i, err)
		}
		if !finite3(p.Pos) || math.Abs(p.Rot.Len()-1) > 1e-6 {
			return fmt.Errorf("mesh triangle %d: pose %v, %v is not finite and unit", i, p.Pos, p.Rot)
		}
	}
	return nil
}

// radius returns the largest distance of a vertex from the body origin
// (m).
func (m *MeshTriangles) radius() float64 {
	r := 0.0
	if m == nil || m.Source == nil {
		return r
	}
	for _, v := range m.Source.Verts {
		r = math.Max(r, v.Len())
	}
	return r
}

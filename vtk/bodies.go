package vtk

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// Body is one body of a frame, as a frame file holds it.
type Body struct {
	ID   int
	Kind engine.ShapeKind
	// SemiAxes: the radius three times for a sphere, the semi-axes of an
	// ellipsoid, the half-extents of a box, zero for a plane, the radius
	// and the half-height (and 0) for a capsule or a cylinder, the
	// bounding sphere's radius three times for a compound, a convex hull
	// or a mesh (m).
	SemiAxes mgl64.Vec3
	Pos      mgl64.Vec3 // centre of mass, world frame (m)
	Rot      mgl64.Quat // orientation, body to world
	Vel      mgl64.Vec3 // world frame (m/s)
	Omega    mgl64.Vec3 // angular velocity, world frame (rad/s)
	Fixed    bool
	// Hull is a convex body's hull and Parts a compound's parts (body
	// frame) when the frame comes from a model (Bodies); frame files do not
	// carry them (nil).
	Hull  *geom.Hull
	Parts *engine.CompoundParts
	// Mesh is a mesh body's triangles (body frame) when the frame comes
	// from a model; nil otherwise.
	Mesh *geom.Mesh
}

// Radius returns the value of the "radius" array: the sphere's radius, the
// radius of the bounding sphere of an ellipsoid or a box, 0 for a plane.
func (b *Body) Radius() float64 {
	switch b.Kind {
	case engine.Plane:
		return 0
	case engine.Compound, engine.Convex, engine.Mesh:
		return b.SemiAxes[0]
	}
	return engine.Shape{Kind: b.Kind, Size: b.SemiAxes}.BoundingRadius()
}

// Bodies returns the bodies of model m in state s, with the angular
// velocity turned into the world frame (R·ω̄, as in trace.csv).
func Bodies(m *engine.Model, s *engine.State) ([]Body, error) {
	if s.Len() != len(m.Bodies) {
		return nil, fmt.Errorf("vtk: state of %d bodies for a model of %d", s.Len(), len(m.Bodies))
	}
	bs := make([]Body, len(m.Bodies))
	for i, mb := range m.Bodies {
		q := mgl64.Quat{W: s.Rot[4*i], V: mgl64.Vec3{s.Rot[4*i+1], s.Rot[4*i+2], s.Rot[4*i+3]}}
		b := Body{ID: i, Kind: mb.Shape.Kind, SemiAxes: mb.Shape.Size, Rot: q,
			Pos:   mgl64.Vec3{s.Pos[3*i], s.Pos[3*i+1], s.Pos[3*i+2]},
			Vel:   mgl64.Vec3{s.Vel[3*i], s.Vel[3*i+1], s.Vel[3*i+2]},
			Omega: q.Rotate(mgl64.Vec3{s.Omega[3*i], s.Omega[3*i+1], s.Omega[3*i+2]}),
			Fixed: mb.Fixed || mb.Shape.Kind == engine.Plane}
		switch mb.Shape.Kind {
		case engine.Sphere:
			r := mb.Shape.Size[0]
			b.SemiAxes = mgl64.Vec3{r, r, r}
		case engine.Plane:
			b.SemiAxes = mgl64.Vec3{}
		case engine.Convex:
			r := mb.Shape.BoundingRadius()
			b.SemiAxes = mgl64.Vec3{r, r, r}
			b.Hull = mb.Shape.Hull
		case engine.Compound:
			r := mb.Shape.BoundingRadius()
			b.SemiAxes = mgl64.Vec3{r, r, r}
			b.Parts = mb.Shape.Compound
		case engine.Mesh:
			// A frame holds one glyph per body: a compound, a convex
			// hull or a mesh is its bounding sphere about its centre of
			// mass (its body origin).
			r := mb.Shape.BoundingRadius()
			b.SemiAxes = mgl64.Vec3{r, r, r}
			if mb.Shape.Mesh != nil {
				b.Mesh = mb.Shape.Mesh.Source
			}
		}
		bs[i] = b
	}
	return bs, nil
}

// The arrays of a frame file, one tuple per moving body (see
// BodiesPolyData).
const (
	ArrayID              = "id"               // Int32, the body's index in the scene
	ArrayShape           = "shape"            // Int32: 0 sphere, 1 ellipsoid, 2 box, 3 plane, 4 compound (semi_axes: its bounding sphere), 5 capsule, 6 cylinder (semi_axes: radius, half-height, 0), 7 convex, 8 mesh (semi_axes: the bounding sphere)
	ArrayRadius          = "radius"           // Float64 (m), see Body.Radius
	ArraySemiAxes        = "semi_axes"        // Float64 × 3 (m), see Body.SemiAxes
	ArrayOrientation     = "orientation"      // Float64 × 4: unit quaternion w, x, y, z, body to world
	ArrayVelocity        = "velocity"         // Float64 × 3 (m/s)
	ArraySpeed           = "speed"            // Float64 (m/s)
	ArrayAngularVelocity = "angular_velocity" // Float64 × 3 (rad/s), world frame
	// ArrayFixed (UInt8, 1 for fixed bodies and planes) is in the frames
	// of earlier versions, which held every body; ReadBodies still reads
	// it.
	ArrayFixed = "fixed"
	// The glyph arrays (see Glyph): what ParaView's Tensor Glyph filter
	// needs to draw each body with its size and orientation.
	ArrayGlyph       = "glyph"        // Int32: GlyphSphere, GlyphBox or GlyphCylinder
	ArrayScale       = "scale"        // Float32 × 3 (m): the glyph's half-extents along the body's x, y, z axes
	ArrayGlyphTensor = "glyph_tensor" // Float32 × 9: R·diag(scale) (columns one after the other), see Glyph
)

// The field arrays of a frame file: the fixed bodies and planes, one
// tuple each, which are not points of the frame (they do not move; they
// are drawn from ContainerFile). ArrayFixedID and ArrayFixedShape are
// Int32, the others Float64.
const (
	ArrayFixedID              = "fixed_id"
	ArrayFixedShape           = "fixed_shape"
	ArrayFixedSemiAxes        = "fixed_semi_axes"
	ArrayFixedPosition        = "fixed_position"
	ArrayFixedOrientation     = "fixed_orientation"
	ArrayFixedVelocity        = "fixed_velocity"
	ArrayFixedAngularVelocity = "fixed_angular_velocity"
)

// BodiesPolyData returns a frame: one point per body that is neither
// fixed nor a plane, at its centre of mass, with a vertex cell each and
// the point data listed in the Array* constants (glyph arrays included);
// the fixed bodies and planes are the field data ArrayFixed*, so that
// ReadBodies gives every body back.
func BodiesPolyData(bs []Body) *PolyData {
	// The arrays are made to size: a recorder calls this every frame.
	nf := 0
	for i := range bs {
		if bs[i].Fixed || bs[i].Kind == engine.Plane {
			nf++
		}
	}
	n := len(bs) - nf
	array := func(name, typ string, comps, tuples int) Array {
		return Array{Name: name, Type: typ, Components: comps, Data: make([]float64, 0, comps*tuples)}
	}
	p := &PolyData{Points: make([]float64, 0, 3*n)}
	id := array(ArrayID, "Int32", 1, n)
	shape := array(ArrayShape, "Int32", 1, n)
	radius := array(ArrayRadius, "Float64", 1, n)
	axes := array(ArraySemiAxes, "Float64", 3, n)
	rot := array(ArrayOrientation, "Float64", 4, n)
	vel := array(ArrayVelocity, "Float64", 3, n)
	speed := array(ArraySpeed, "Float64", 1, n)
	omega := array(ArrayAngularVelocity, "Float64", 3, n)
	glyph := array(ArrayGlyph, "Int32", 1, n)
	scale := array(ArrayScale, "Float32", 3, n)
	tensor := array(ArrayGlyphTensor, "Float32", 9, n)
	fid := array(ArrayFixedID, "Int32", 1, nf)
	fshape := array(ArrayFixedShape, "Int32", 1, nf)
	faxes := array(ArrayFixedSemiAxes, "Float64", 3, nf)
	fpos := array(ArrayFixedPosition, "Float64", 3, nf)
	frot := array(ArrayFixedOrientation, "Float64", 4, nf)
	fvel := array(ArrayFixedVelocity, "Float64", 3, nf)
	fomega := array(ArrayFixedAngularVelocity, "Float64", 3, nf)
	for i := range bs {
		b := &bs[i]
		if b.Fixed || b.Kind == engine.Plane {
			fid.Data = append(fid.Data, float64(b.ID))
			fshape.Data = append(fshape.Data, float64(b.Kind))
			faxes.Data = append(faxes.Data, b.SemiAxes[:]...)
			fpos.Data = append(fpos.Data, b.Pos[:]...)
			frot.Data = append(frot.Data, b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2])
			fvel.Data = append(fvel.Data, b.Vel[:]...)
			fomega.Data = append(fomega.Data, b.Omega[:]...)
			continue
		}
		p.Verts.Add(int64(p.NumPoints()))
		p.Points = append(p.Points, b.Pos[:]...)
		id.Data = append(id.Data, float64(b.ID))
		shape.Data = append(shape.Data, float64(b.Kind))
		radius.Data = append(radius.Data, b.Radius())
		axes.Data = append(axes.Data, b.SemiAxes[:]...)
		rot.Data = append(rot.Data, b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2])
		vel.Data = append(vel.Data, b.Vel[:]...)
		speed.Data = append(speed.Data, b.Vel.Len())
		omega.Data = append(omega.Data, b.Omega[:]...)
		g, sc, t := b.Glyph()
		glyph.Data = append(glyph.Data, float64(g))
		scale.Data = append(scale.Data, sc[:]...)
		tensor.Data = append(tensor.Data, t[:]...)
	}
	p.PointData = []Array{id, shape, radius, axes, rot, vel, speed, omega, glyph, scale, tensor}
	if len(fid.Data) > 0 {
		p.FieldData = []Array{fid, fshape, faxes, fpos, frot, fvel, fomega}
	}
	return p
}

// ReadBodies takes the bodies back out of a frame written by
// BodiesPolyData, in the order of their ids: the moving bodies from the
// points, the fixed ones from the field data (a frame of an earlier
// version, every body a point with the array "fixed", reads too). A
// missing array or a shape code out of range is an error naming it.
func ReadBodies(p *PolyData) ([]Body, error) {
	n := p.NumPoints()
	pa, err := bodyArrays("point", p.PointData, n, ArrayID, ArrayShape, ArraySemiAxes, ArrayOrientation, ArrayVelocity, ArrayAngularVelocity)
	if err != nil {
		return nil, err
	}
	var fixed []float64
	if p.PointArray(ArrayFixed) != nil {
		f, err := bodyArrays("point", p.PointData, n, ArrayFixed)
		if err != nil {
			return nil, err
		}
		fixed = f[0]
	}
	bs, err := readBodies("point", n, p.Points, [6][]float64(pa), fixed)
	if err != nil {
		return nil, err
	}
	if fid := p.FieldArray(ArrayFixedID); fid != nil {
		nf := fid.Tuples()
		fa, err := bodyArrays("field", p.FieldData, nf, ArrayFixedID, ArrayFixedShape, ArrayFixedSemiAxes, ArrayFixedOrientation, ArrayFixedVelocity, ArrayFixedAngularVelocity, ArrayFixedPosition)
		if err != nil {
			return nil, err
		}
		ones := make([]float64, nf)
		for i := range ones {
			ones[i] = 1
		}
		fb, err := readBodies("fixed body", nf, fa[6], [6][]float64(fa[:6]), ones)
		if err != nil {
			return nil, err
		}
		bs = append(bs, fb...)
		sort.SliceStable(bs, func(i, j int) bool { return bs[i].ID < bs[j].ID })
	}
	return bs, nil
}

// bodyComponents is the number of components of each body array of a
// frame, point or field data.
var bodyComponents = map[string]int{
	ArrayID: 1, ArrayShape: 1, ArraySemiAxes: 3, ArrayOrientation: 4, ArrayVelocity: 3, ArrayAngularVelocity: 3, ArrayFixed: 1,
	ArrayFixedID: 1, ArrayFixedShape: 1, ArrayFixedSemiAxes: 3, ArrayFixedOrientation: 4, ArrayFixedVelocity: 3, ArrayFixedAngularVelocity: 3, ArrayFixedPosition: 3,
}

// bodyArrays returns the data of the named arrays of as (the "point" or
// "field" data of a frame), each n tuples of its bodyComponents; a
// missing array or one of another size is an error naming it.
func bodyArrays(where string, as []Array, n int, names ...string) ([][]float64, error) {
	d := make([][]float64, len(names))
	for k, name := range names {
		a, comps := find(as, name), bodyComponents[name]
		if a == nil {
			return nil, fmt.Errorf("vtk: %s array %q missing", where, name)
		}
		if a.Components != comps || a.Tuples() != n {
			return nil, fmt.Errorf("vtk: %s array %q: %d tuples of %d components, want %d of %d", where, name, a.Tuples(), a.Components, n, comps)
		}
		d[k] = a.Data
	}
	return d, nil
}

// readBodies makes n bodies from their positions and the arrays id,
// shape, semi-axes, orientation, velocity, angular velocity, and fixed
// (nil: none fixed).
func readBodies(what string, n int, pos []float64, arr [6][]float64, fixed []float64) ([]Body, error) {
	id, shape, axes, rot, vel, omega := arr[0], arr[1], arr[2], arr[3], arr[4], arr[5]
	bs := make([]Body, n)
	for i := range bs {
		k := shape[i]
		if k != math.Trunc(k) || k < 0 || k >= float64(engine.NumShapeKinds) {
			return nil, fmt.Errorf("vtk: %s %d: shape code %v is not 0 to %d", what, i, k, engine.NumShapeKinds-1)
		}
		bs[i] = Body{ID: int(id[i]), Kind: engine.ShapeKind(k),
			SemiAxes: mgl64.Vec3{axes[3*i], axes[3*i+1], axes[3*i+2]},
			Pos:      mgl64.Vec3{pos[3*i], pos[3*i+1], pos[3*i+2]},
			Rot:      mgl64.Quat{W: rot[4*i], V: mgl64.Vec3{rot[4*i+1], rot[4*i+2], rot[4*i+3]}},
			Vel:      mgl64.Vec3{vel[3*i], vel[3*i+1], vel[3*i+2]},
			Omega:    mgl64.Vec3{omega[3*i], omega[3*i+1], omega[3*i+2]},
			Fixed:    fixed != nil && fixed[i] != 0}
	}
	return bs, nil
}

// PlaneSide returns the edge (m) of the square drawn for each plane: twice
// the longest edge of the axis-aligned box around every body that is not
// a plane (centres ± bounding radii), 1 m when every body is a plane.
func PlaneSide(bs []Body) float64 {
	lo := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := lo.Mul(-1)
	for i := range bs {
		if bs[i].Kind == engine.Plane {
			continue
		}
		r := bs[i].Radius()
		for k := range 3 {
			lo[k] = math.Min(lo[k], bs[i].Pos[k]-r)
			hi[k] = math.Max(hi[k], bs[i].Pos[k]+r)
		}
	}
	if lo[0] > hi[0] {
		return 1
	}
	return 2 * math.Max(hi[0]-lo[0], math.Max(hi[1]-lo[1], hi[2]-lo[2]))
}

// ArrayBodyID is the cell array of the container file and the contact
// files naming the body (Int32) or the two bodies (Int32 × 2) of a cell.
const ArrayBodyID = "body"

// ContainerPolyData returns the fixed boxes as six quadrilaterals each
// (outward normals by the right-hand rule) and every plane as a square of
// edge side centred on the plane's point, in the plane (body xy plane), with
// cell data "body". Movable boxes are left to the frames.
func ContainerPolyData(bs []Body, side float64) *PolyData {
	p := &PolyData{}
	body := Array{Name: ArrayBodyID, Type: "Int32", Components: 1}
	add := func(b *Body, local mgl64.Vec3) int64 {
		w := b.Pos.Add(b.Rot.Rotate(local))
		p.Points = append(p.Points, w[:]...)
		return int64(p.NumPoints() - 1)
	}
	for i := range bs {
		b := &bs[i]
		switch {
		case b.Kind == engine.Plane:
			h := side / 2
			p.Polys.Add(add(b, mgl64.Vec3{-h, -h, 0}), add(b, mgl64.Vec3{h, -h, 0}), add(b, mgl64.Vec3{h, h, 0}), add(b, mgl64.Vec3{-h, h, 0}))
			body.Data = append(body.Data, float64(b.ID))
		case b.Kind == engine.Box && b.Fixed:
			var c [8]int64
			for k := range 8 {
				s := mgl64.Vec3{-1, -1, -1}
				for a := range 3 {
					if k&(1<<a) != 0 {
						s[a] = 1
					}
				}
				c[k] = add(b, mgl64.Vec3{s[0] * b.SemiAxes[0], s[1] * b.SemiAxes[1], s[2] * b.SemiAxes[2]})
			}
			// Corner k has bit a set when it is on the + side of axis a.
			for _, f := range [6][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}} {
				p.Polys.Add(c[f[0]], c[f[1]], c[f[2]], c[f[3]])
				body.Data = append(body.Data, float64(b.ID))
			}
		}
	}
	p.CellData = []Array{body}
	return p
}

// The cell arrays of a contacts file, one tuple per contact.
const (
	ArrayNormalForce   = "normal_force"   // Float64 (N): γ_n/h, positive pushing the bodies apart
	ArrayFrictionForce = "friction_force" // Float64 (N): ‖(γ_u, γ_w)‖/h
	ArrayNormal        = "normal"         // Float64 × 3: unit normal from A to B, world frame
	ArrayGap           = "gap"            // Float64 (m): Φ, negative when the bodies overlap
)

// More cell arrays of a contacts file, one tuple per contact.
const (
	// ArrayForce: the force of the contact on body B (on A: its
	// opposite), world frame, Float64 × 3 (N): (γ_n n + γ_u u + γ_w w)/h
	// in the contact frame of engine.TangentBasis.
	ArrayForce = "force"
	// ArrayContactPoint: the contact point, world frame, Float64 × 3 (m):
	// the midpoint of the contact's points on A and on B.
	ArrayContactPoint = "point"
)

// ContactNetworkPolyData returns the contact network of a frame: one line
// cell per contact from the centre of body A to the centre of body B at
// the state s (the force network a granular material carries), with cell
// data "body" (A, B), normal_force, friction_force, force, normal, gap and
// point; gamma holds the impulses (N·s, n, u, w per contact, then any
// joint and rolling rows, which are not read) of a step of length h (s).
// A body with static[i] set (fixed, plane, kinematic; nil: none) ends its
// contacts' lines at the contact point on it instead of its centre, which
// can be far away (a wall's or a plane's). The contact points are stored
// in the bodies' frames, so they move with the bodies: for contacts found
// at the start of a step and a state at its end they are the points
// carried along by the step's motion.
func ContactNetworkPolyData(s *engine.State, c *engine.Contacts, gamma []float64, h float64, static []bool) (*PolyData, error) {
	nc := c.Len()
	if len(gamma) < 3*nc {
		return nil, fmt.Errorf("vtk: %d contacts but %d impulse components (want at least %d)", nc, len(gamma), 3*nc)
	}
	if nc > 0 && !(h > 0) {
		return nil, fmt.Errorf("vtk: step length %v must be positive", h)
	}
	p := &PolyData{Points: make([]float64, 0, 6*nc)}
	body := Array{Name: ArrayBodyID, Type: "Int32", Components: 2}
	fn := Array{Name: ArrayNormalForce, Type: "Float64", Components: 1}
	ft := Array{Name: ArrayFrictionForce, Type: "Float64", Components: 1}
	force := Array{Name: ArrayForce, Type: "Float64", Components: 3}
	normal := Array{Name: ArrayNormal, Type: "Float64", Components: 3}
	gap := Array{Name: ArrayGap, Type: "Float64", Components: 1}
	point := Array{Name: ArrayContactPoint, Type: "Float64", Components: 3}
	// end returns the line's end on body b (its centre, or for a static
	// body the contact point) and the contact point on it.
	end := func(b int32, local []float64) (mgl64.Vec3, mgl64.Vec3, error) {
		if b < 0 || int(b) >= s.Len() {
			return mgl64.Vec3{}, mgl64.Vec3{}, fmt.Errorf("vtk: contact body %d out of range [0, %d)", b, s.Len())
		}
		i := int(b)
		x := mgl64.Vec3{s.Pos[3*i], s.Pos[3*i+1], s.Pos[3*i+2]}
		q := mgl64.Quat{W: s.Rot[4*i], V: mgl64.Vec3{s.Rot[4*i+1], s.Rot[4*i+2], s.Rot[4*i+3]}}
		pt := x.Add(q.Rotate(mgl64.Vec3{local[0], local[1], local[2]}))
		if i < len(static) && static[i] {
			return pt, pt, nil
		}
		return x, pt, nil
	}
	for i := range nc {
		a, pa, err := end(c.A[i], c.PA[3*i:3*i+3])
		if err != nil {
			return nil, err
		}
		b, pb, err := end(c.B[i], c.PB[3*i:3*i+3])
		if err != nil {
			return nil, err
		}
		mid := pa.Add(pb).Mul(0.5)
		point.Data = append(point.Data, mid[:]...)
		p.Points = append(p.Points, a[:]...)
		p.Points = append(p.Points, b[:]...)
		p.Lines.Add(int64(2*i), int64(2*i+1))
		n := mgl64.Vec3{c.Normal[3*i], c.Normal[3*i+1], c.Normal[3*i+2]}
		u, w := engine.TangentBasis(n)
		g := gamma[3*i : 3*i+3]
		f := n.Mul(g[0] / h).Add(u.Mul(g[1] / h)).Add(w.Mul(g[2] / h))
		body.Data = append(body.Data, float64(c.A[i]), float64(c.B[i]))
		fn.Data = append(fn.Data, g[0]/h)
		ft.Data = append(ft.Data, math.Hypot(g[1], g[2])/h)
		force.Data = append(force.Data, f[:]...)
		normal.Data = append(normal.Data, n[:]...)
		gap.Data = append(gap.Data, c.Phi[i])
	}
	p.CellData = []Array{body, fn, ft, force, normal, gap, point}
	return p, nil
}

package vtk

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// The glyph codes of ArrayGlyph: the unit shape ParaView's Tensor Glyph
// filter draws for a body, mapped onto it by ArrayGlyphTensor.
const (
	// GlyphSphere: a sphere of radius 1 (spheres, ellipsoids, and the
	// bounding sphere of a compound, a convex hull or a mesh).
	GlyphSphere = 0
	// GlyphBox: a cube of edge 2 centred on the origin (boxes, and the
	// box around a convex hull).
	GlyphBox = 1
	// GlyphCylinder: a cylinder of radius 1 and height 2 about the
	// glyph's y axis, VTK's cylinder source (capsules, drawn as cylinders
	// of their whole length, and cylinders).
	GlyphCylinder = 2
)

// Glyph returns the body's glyph code (GlyphSphere, GlyphBox or
// GlyphCylinder), its scale (the half-extents of the glyph along the
// body's x, y, z axes: the radius three times for a sphere, the
// semi-axes of an ellipsoid, the half-extents of a box, (r, r, h + r) for
// a capsule and (r, r, h) for a cylinder of radius r and half-height h,
// for a convex hull the box of its largest |coordinate| along each body
// axis (a box's hull: the box), the bounding radius three times for the
// other shapes and a hull-less convex body) and its tensor
// T = R·diag(scale)·G, written column after column (component 3j + i is
// T_ij, the order in which VTK's tensor glyph reads a 9-component
// array): the unit glyph's point x lies at centre + T·x. G is the
// identity, except for cylinders, whose glyph axis y is the body's axis z
// (G takes glyph y to body z and glyph z to body −y).
func (b *Body) Glyph() (glyph int, scale mgl64.Vec3, tensor [9]float64) {
	switch b.Kind {
	case engine.Box:
		glyph, scale = GlyphBox, b.SemiAxes
	case engine.Ellipsoid:
		glyph, scale = GlyphSphere, b.SemiAxes
	case engine.Capsule:
		glyph, scale = GlyphCylinder, mgl64.Vec3{b.SemiAxes[0], b.SemiAxes[0], b.SemiAxes[1] + b.SemiAxes[0]}
	case engine.Cylinder:
		glyph, scale = GlyphCylinder, mgl64.Vec3{b.SemiAxes[0], b.SemiAxes[0], b.SemiAxes[1]}
	case engine.Plane:
		glyph = GlyphSphere
	case engine.Convex:
		if b.Hull == nil {
			r := b.Radius()
			glyph, scale = GlyphSphere, mgl64.Vec3{r, r, r}
			break
		}
		glyph = GlyphBox
		for _, v := range b.Hull.Verts {
			for k := range 3 {
				scale[k] = math.Max(scale[k], math.Abs(v[k]))
			}
		}
	default:
		r := b.Radius()
		glyph, scale = GlyphSphere, mgl64.Vec3{r, r, r}
	}
	rm := b.Rot.Normalize().Mat4()
	col := func(k int) mgl64.Vec3 { return mgl64.Vec3{rm.At(0, k), rm.At(1, k), rm.At(2, k)} }
	cols := [3]mgl64.Vec3{col(0).Mul(scale[0]), col(1).Mul(scale[1]), col(2).Mul(scale[2])}
	if glyph == GlyphCylinder {
		cols[1], cols[2] = cols[2], cols[1].Mul(-1)
	}
	for j := range 3 {
		for i := range 3 {
			tensor[3*j+i] = cols[j][i]
		}
	}
	return glyph, scale, tensor
}

// FixedPolyData returns the geometry of every fixed body and plane as
// polygons with the cell data "body", the file ContainerFile: what
// ContainerPolyData draws (boxes, planes as squares of edge side) and the
// other fixed shapes: spheres and ellipsoids as UV spheres, capsules and
// cylinders as closed 24-sided prisms (a capsule over its whole length),
// convex hulls as their faces, meshes as their triangles, and compounds
// as their bounding spheres.
func FixedPolyData(bs []Body, side float64) *PolyData {
	p := ContainerPolyData(bs, side)
	body := p.CellArray(ArrayBodyID)
	for i := range bs {
		b := &bs[i]
		if !b.Fixed || b.Kind == engine.Plane || b.Kind == engine.Box {
			continue
		}
		base := int64(p.NumPoints())
		add := func(local mgl64.Vec3) {
			w := b.Pos.Add(b.Rot.Rotate(local))
			p.Points = append(p.Points, w[:]...)
		}
		poly := func(ids ...int64) {
			for k := range ids {
				ids[k] += base
			}
			p.Polys.Add(ids...)
			body.Data = append(body.Data, float64(b.ID))
		}
		g, sc, _ := b.Glyph()
		switch {
		case b.Kind == engine.Convex && b.Hull != nil:
			for _, v := range b.Hull.Verts {
				add(v)
			}
			for _, f := range b.Hull.Faces {
				ids := make([]int64, len(f.Verts))
				for k, v := range f.Verts {
					ids[k] = int64(v)
				}
				poly(ids...)
			}
		case b.Kind == engine.Mesh && b.Mesh != nil:
			for _, v := range b.Mesh.Verts {
				add(v)
			}
			for _, t := range b.Mesh.Tris {
				poly(int64(t[0]), int64(t[1]), int64(t[2]))
			}
		case g == GlyphCylinder:
			const n = 24
			for k := range n {
				a := 2 * math.Pi * float64(k) / n
				c, s := math.Cos(a)*sc[0], math.Sin(a)*sc[1]
				add(mgl64.Vec3{c, s, -sc[2]})
				add(mgl64.Vec3{c, s, sc[2]})
			}
			bottom, top := make([]int64, n), make([]int64, n)
			for k := range n {
				k1 := int64((k + 1) % n)
				poly(2*int64(k), 2*k1, 2*k1+1, 2*int64(k)+1)
				bottom[n-1-k], top[k] = 2*int64(k), 2*int64(k)+1
			}
			poly(bottom...)
			poly(top...)
		default: // an ellipsoid of semi-axes sc
			const nu, nv = 24, 12
			add(mgl64.Vec3{0, 0, -sc[2]})
			for j := 1; j < nv; j++ {
				th := math.Pi * (float64(j)/nv - 0.5)
				for k := range nu {
					a := 2 * math.Pi * float64(k) / nu
					add(mgl64.Vec3{sc[0] * math.Cos(th) * math.Cos(a), sc[1] * math.Cos(th) * math.Sin(a), sc[2] * math.Sin(th)})
				}
			}
			add(mgl64.Vec3{0, 0, sc[2]})
			ring := func(j, k int) int64 { return int64(1 + (j-1)*nu + (k % nu)) }
			for k := range nu {
				poly(0, ring(1, k+1), ring(1, k))
				poly(int64(1+(nv-1)*nu), ring(nv-1, k), ring(nv-1, k+1))
				for j := 1; j < nv-1; j++ {
					poly(ring(j, k), ring(j, k+1), ring(j+1, k+1), ring(j+1, k))
				}
			}
		}
	}
	return p
}

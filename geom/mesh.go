package geom

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// Mesh is a triangle mesh: the surface of a mesh shape (a fixed or
// kinematic body's collision geometry).
type Mesh struct {
	// Verts are the vertex positions (m).
	Verts []mgl64.Vec3
	// Tris are the triangles, indices into Verts, counter-clockwise seen
	// from outside (as the OBJ and STL conventions have them).
	Tris [][3]int32

	// lines holds the source line of each triangle (OBJ, ASCII STL), for
	// Validate's messages; nil when unknown.
	lines []int32
}

// degenerateRel is Validate's relative tolerance for a zero-area triangle:
// one whose height is at most degenerateRel times its longest edge (its
// vertices collinear to within rounding, as a float64 cross product of its
// edges can resolve about 1e-16), or whose longest edge is at most
// degenerateRel times the mesh's bounding-box diagonal (collapsed to a
// point at the mesh's scale).
const degenerateRel = 1e-12

// Validate checks m for use as a collision mesh and returns the first
// problem, its message starting with name (the file name) and, where the
// triangle came from a text file, its line: an empty mesh (no vertices or
// no triangles), a non-finite vertex coordinate, a vertex index out of
// range, a zero-area (degenerate) triangle within the relative tolerance
// described at degenerateRel (1e-12).
func (m *Mesh) Validate(name string) error {
	if len(m.Verts) == 0 || len(m.Tris) == 0 {
		return fmt.Errorf("%s: empty mesh (%d vertices, %d triangles)", name, len(m.Verts), len(m.Tris))
	}
	if len(m.Verts) > math.MaxInt32 {
		return fmt.Errorf("%s: %d vertices, more than an int32 index can address", name, len(m.Verts))
	}
	for i, v := range m.Verts {
		for k, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s: vertex %d: %c coordinate is %v (not finite)", name, i, axisName[k], x)
			}
		}
	}
	lo, hi := m.Bounds()
	diag := hi.Sub(lo).Len()
	for ti, t := range m.Tris {
		where := fmt.Sprintf("%s: triangle %d", name, ti)
		if m.lines != nil && ti < len(m.lines) && m.lines[ti] > 0 {
			where = fmt.Sprintf("%s:%d: triangle %d", name, m.lines[ti], ti)
		}
		for _, v := range t {
			if v < 0 || int(v) >= len(m.Verts) {
				return fmt.Errorf("%s: vertex index %d out of range (%d vertices)", where, v, len(m.Verts))
			}
		}
		a, b, c := m.Verts[t[0]], m.Verts[t[1]], m.Verts[t[2]]
		e := math.Max(b.Sub(a).Len(), math.Max(c.Sub(b).Len(), a.Sub(c).Len()))
		twiceArea := b.Sub(a).Cross(c.Sub(a)).Len()
		if !(e > degenerateRel*diag) || !(twiceArea > 2*degenerateRel*e*e) {
			return fmt.Errorf("%s: zero-area triangle (vertices %d, %d, %d; area %.3g m², longest edge %.3g m)",
				where, t[0], t[1], t[2], twiceArea/2, e)
		}
	}
	return nil
}

// Scaled returns a copy of m with every vertex multiplied by s (the mesh
// shape's "scale"). A negative s mirrors the mesh, which would turn the
// surface inside out, so the triangles' orientation is then reversed to
// keep them counter-clockwise seen from outside.
func (m *Mesh) Scaled(s float64) *Mesh {
	out := &Mesh{
		Verts: make([]mgl64.Vec3, len(m.Verts)),
		Tris:  make([][3]int32, len(m.Tris)),
		lines: append([]int32(nil), m.lines...),
	}
	for i, v := range m.Verts {
		out.Verts[i] = v.Mul(s)
	}
	for i, t := range m.Tris {
		if s < 0 {
			t[1], t[2] = t[2], t[1]
		}
		out.Tris[i] = t
	}
	return out
}

// Bounds returns the corners of the mesh's axis-aligned bounding box (m),
// over all its vertices; zero vectors for a mesh without vertices.
func (m *Mesh) Bounds() (lo, hi mgl64.Vec3) {
	if len(m.Verts) == 0 {
		return lo, hi
	}
	lo, hi = m.Verts[0], m.Verts[0]
	for _, v := range m.Verts[1:] {
		for k := range 3 {
			lo[k] = math.Min(lo[k], v[k])
			hi[k] = math.Max(hi[k], v[k])
		}
	}
	return lo, hi
}

// LoadMesh reads the mesh file at path by its extension, .obj (ReadOBJ) or
// .stl (ReadSTL), case-insensitive, and validates it; error messages name
// the file as path. Another extension, or a file that cannot be opened or
// read, is an error.
func LoadMesh(path string) (*Mesh, error) {
	ext := strings.ToLower(filepath.Ext(path))
	var read func(*os.File) (*Mesh, error)
	switch ext {
	case ".obj":
		read = func(f *os.File) (*Mesh, error) { return ReadOBJ(f, path) }
	case ".stl":
		read = func(f *os.File) (*Mesh, error) { return ReadSTL(f, path) }
	default:
		return nil, fmt.Errorf("%s: unknown mesh file extension %q (want .obj or .stl)", path, ext)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mesh file: %w", err)
	}
	defer f.Close()
	return read(f)
}

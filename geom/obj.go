package geom

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// maxLine bounds a text line of a mesh file (bytes).
const maxLine = 1 << 20

// objIgnored are the OBJ statements that carry nothing for a collision
// mesh: normals, texture and parameter-space vertices, object and group
// names, smoothing groups, materials, and line and point elements.
var objIgnored = map[string]bool{
	"vn": true, "vt": true, "vp": true, "o": true, "g": true, "s": true,
	"usemtl": true, "mtllib": true, "l": true, "p": true,
}

// ReadOBJ reads a Wavefront OBJ mesh from r; name (the file name) starts
// every error message, with the line: "blade.obj:12: face index 9 out of
// range (8 vertices)".
//
// It reads "v x y z [w]" vertices (w, and the colour some exporters append
// as three more numbers, are ignored) and "f" faces whose vertex
// references are i, i/j, i//k or i/j/k (only the position index i is used)
// with 1-based indices or negative ones counting back from the last
// vertex read; a face of more than 3 vertices is fan-triangulated from its
// first vertex, which is exact for the convex planar polygons OBJ
// exporters write. Comments (#), blank lines and the statements vn, vt,
// vp, o, g, s, usemtl, mtllib, l and p are ignored; any other statement
// (free-form geometry), a line continuation (a line ending in \), a
// malformed number, a non-finite coordinate, an index of 0 or out of range
// and a face of fewer than 3 vertices are errors. The mesh is then checked
// by Validate.
func ReadOBJ(r io.Reader, name string) (*Mesh, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	m := &Mesh{}
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if strings.HasSuffix(text, `\`) {
			return nil, fmt.Errorf("%s:%d: line continuation (\\) not supported", name, line)
		}
		f := strings.Fields(text)
		switch f[0] {
		case "v":
			if n := len(f) - 1; n < 3 || n > 7 {
				return nil, fmt.Errorf("%s:%d: vertex has %d numbers, want 3 or 4 (x y z [w])", name, line, n)
			}
			var v mgl64.Vec3
			for k := 1; k < len(f); k++ {
				x, err := strconv.ParseFloat(f[k], 64)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: vertex: bad number %q", name, line, f[k])
				}
				if k <= 3 {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return nil, fmt.Errorf("%s:%d: vertex %d: %c coordinate is %v (not finite)", name, line, len(m.Verts)+1, axisName[k-1], x)
					}
					v[k-1] = x
				}
			}
			if len(m.Verts) >= math.MaxInt32 {
				return nil, fmt.Errorf("%s:%d: too many vertices", name, line)
			}
			m.Verts = append(m.Verts, v)
		case "f":
			if len(f) < 4 {
				return nil, fmt.Errorf("%s:%d: face has %d vertices, want at least 3", name, line, len(f)-1)
			}
			idx := make([]int32, len(f)-1)
			for j, ref := range f[1:] {
				s := ref
				if i := strings.IndexByte(s, '/'); i >= 0 {
					s = s[:i]
				}
				i, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: face: bad vertex reference %q", name, line, ref)
				}
				n := int64(len(m.Verts))
				var v int64
				switch {
				case i > 0 && i <= n:
					v = i - 1
				case i < 0 && -i <= n:
					v = n + i
				default:
					return nil, fmt.Errorf("%s:%d: face index %d out of range (%d vertices)", name, line, i, n)
				}
				idx[j] = int32(v)
			}
			for j := 1; j+1 < len(idx); j++ {
				m.Tris = append(m.Tris, [3]int32{idx[0], idx[j], idx[j+1]})
				m.lines = append(m.lines, int32(min(line, math.MaxInt32)))
			}
		default:
			if !objIgnored[f[0]] {
				return nil, fmt.Errorf("%s:%d: unsupported OBJ statement %q", name, line, f[0])
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, maxLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := m.Validate(name); err != nil {
		return nil, err
	}
	return m, nil
}

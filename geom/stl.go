package geom

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// stlHeader and stlRecord are the sizes (bytes) of a binary STL's header
// (80 bytes of text, then the uint32 triangle count) and of each triangle
// record (normal, 3 vertices as little-endian float32, a uint16 attribute).
const (
	stlHeader = 84
	stlRecord = 50
)

// ReadSTL reads an STL mesh from r, binary or ASCII; name (the file name)
// starts every error message, with the line (ASCII) or the triangle index
// (binary).
//
// The format is detected from the size and the content: input of exactly
// 84 + 50·n bytes, n the count at byte 80, is binary unless it starts with
// "solid" and is all text (binary exporters often write "solid" at the
// start of the header too, but their float data is not text) and parses as
// ASCII; other input starting with "solid" and all text is ASCII; anything else is an error,
// naming the size mismatch for what looks binary (the count is never
// trusted for an allocation). ASCII is solid / facet normal / outer loop /
// vertex ×3 / endloop / endfacet ... endsolid, several solids allowed; a
// loop of more than 3 vertices is fan-triangulated. The facet normals are
// ignored (the vertex order defines the orientation).
//
// STL repeats each vertex in every triangle: identical vertices (exact
// equality of the coordinates) are welded, so that triangles share them.
// Non-finite coordinates are errors. The mesh is then checked by Validate.
func ReadSTL(r io.Reader, name string) (*Mesh, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	solid := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("solid"))
	text := isText(data)
	var m *Mesh
	switch {
	case solid && text:
		m, err = readSTLASCII(data, name)
		if err != nil && len(data) >= stlHeader &&
			uint64(len(data)) == stlHeader+stlRecord*uint64(binary.LittleEndian.Uint32(data[80:84])) {
			// Binary data that happens to be all text bytes.
			if mb, errb := readSTLBinary(data, name); errb == nil {
				m, err = mb, nil
			}
		}
	case len(data) < stlHeader:
		return nil, fmt.Errorf("%s: %d bytes: too short for a binary STL (84-byte header) and not an ASCII STL (starting with \"solid\")", name, len(data))
	default:
		m, err = readSTLBinary(data, name)
	}
	if err != nil {
		return nil, err
	}
	if err := m.Validate(name); err != nil {
		return nil, err
	}
	return m, nil
}

// isText reports whether data holds no control bytes other than white
// space.
func isText(data []byte) bool {
	for _, c := range data {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' || c == 0x7f {
			return false
		}
	}
	return true
}

// welder assigns one index to each distinct vertex position.
type welder struct {
	m   *Mesh
	ids map[mgl64.Vec3]int32
}

func (w *welder) id(v mgl64.Vec3) int32 {
	if i, ok := w.ids[v]; ok {
		return i
	}
	i := int32(len(w.m.Verts))
	w.ids[v] = i
	w.m.Verts = append(w.m.Verts, v)
	return i
}

func readSTLBinary(data []byte, name string) (*Mesh, error) {
	n := uint64(binary.LittleEndian.Uint32(data[80:84]))
	if want := stlHeader + stlRecord*n; uint64(len(data)) != want {
		return nil, fmt.Errorf("%s: binary STL header declares %d triangles (%d bytes) but the file has %d bytes", name, n, want, len(data))
	}
	if n > math.MaxInt32/3 {
		return nil, fmt.Errorf("%s: binary STL: %d triangles, more than an int32 index can address", name, n)
	}
	m := &Mesh{Tris: make([][3]int32, 0, n)}
	w := welder{m: m, ids: make(map[mgl64.Vec3]int32)}
	for t := range int(n) {
		rec := data[stlHeader+stlRecord*t:]
		var tri [3]int32
		for j := range 3 {
			var v mgl64.Vec3
			for k := range 3 {
				x := float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[12+12*j+4*k:])))
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("%s: triangle %d: vertex %d: %c coordinate is %v (not finite)", name, t, j, axisName[k], x)
				}
				v[k] = x
			}
			tri[j] = w.id(v)
		}
		m.Tris = append(m.Tris, tri)
	}
	return m, nil
}

func readSTLASCII(data []byte, name string) (*Mesh, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	m := &Mesh{}
	w := welder{m: m, ids: make(map[mgl64.Vec3]int32)}
	// state: what the next line must be.
	const (
		outside  = iota // solid
		inSolid         // facet or endsolid
		inFacet         // outer loop
		inLoop          // vertex or endloop
		loopDone        // endfacet
	)
	state := outside
	line, facetLine, solids := 0, 0, 0
	var loop []int32
	bad := func(f []string, want string) error {
		return fmt.Errorf("%s:%d: ASCII STL: %q where %s expected", name, line, strings.Join(f, " "), want)
	}
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch state {
		case outside:
			if f[0] != "solid" {
				return nil, bad(f, `"solid"`)
			}
			solids++
			state = inSolid
		case inSolid:
			switch {
			case f[0] == "endsolid":
				state = outside
			case f[0] == "facet":
				if len(f) != 5 || f[1] != "normal" {
					return nil, bad(f, `"facet normal nx ny nz"`)
				}
				for _, s := range f[2:] {
					if _, err := strconv.ParseFloat(s, 64); err != nil {
						return nil, fmt.Errorf("%s:%d: ASCII STL: facet normal: bad number %q", name, line, s)
					}
				}
				facetLine = line
				state = inFacet
			default:
				return nil, bad(f, `"facet" or "endsolid"`)
			}
		case inFacet:
			if len(f) != 2 || f[0] != "outer" || f[1] != "loop" {
				return nil, bad(f, `"outer loop"`)
			}
			loop = loop[:0]
			state = inLoop
		case inLoop:
			switch f[0] {
			case "vertex":
				if len(f) != 4 {
					return nil, bad(f, `"vertex x y z"`)
				}
				var v mgl64.Vec3
				for k := range 3 {
					x, err := strconv.ParseFloat(f[1+k], 64)
					if err != nil {
						return nil, fmt.Errorf("%s:%d: ASCII STL: vertex: bad number %q", name, line, f[1+k])
					}
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return nil, fmt.Errorf("%s:%d: vertex: %c coordinate is %v (not finite)", name, line, axisName[k], x)
					}
					v[k] = x
				}
				if len(m.Verts) >= math.MaxInt32 {
					return nil, fmt.Errorf("%s:%d: too many vertices", name, line)
				}
				loop = append(loop, w.id(v))
			case "endloop":
				if len(loop) < 3 {
					return nil, fmt.Errorf("%s:%d: ASCII STL: facet has %d vertices, want 3", name, line, len(loop))
				}
				for j := 1; j+1 < len(loop); j++ {
					m.Tris = append(m.Tris, [3]int32{loop[0], loop[j], loop[j+1]})
					m.lines = append(m.lines, int32(min(facetLine, math.MaxInt32)))
				}
				state = loopDone
			default:
				return nil, bad(f, `"vertex" or "endloop"`)
			}
		case loopDone:
			if f[0] != "endfacet" || len(f) != 1 {
				return nil, bad(f, `"endfacet"`)
			}
			state = inSolid
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", name, line+1, maxLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if state != outside {
		return nil, fmt.Errorf("%s:%d: ASCII STL: unexpected end of file (missing \"endsolid\")", name, line)
	}
	return m, nil
}

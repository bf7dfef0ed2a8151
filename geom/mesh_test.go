package geom

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// cubeOBJ is the unit cube [0,1]³ with quad faces, counter-clockwise from
// outside, some with negative (relative) indices and the various vertex
// reference forms, plus statements the reader ignores.
const cubeOBJ = `# unit cube
mtllib cube.mtl
o cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1 1.0
vn 0 0 -1
vt 0 0
g sides
usemtl steel
s off
f 1/1/1 4/1/1 3/1/1 2/1/1
f 5//1 6//1 7//1 8//1
f -8 -7 -3 -4
f 2/1 3/1 7/1 6/1
f 3 4 8 7
f -8 -4 -1 -5

`

// tetraSTLASCII is the tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1).
const tetraSTLASCII = `solid tetra
  facet normal 0 0 -1
    outer loop
      vertex 0 0 0
      vertex 0 1 0
      vertex 1 0 0
    endloop
  endfacet
  facet normal 0 -1 0
    outer loop
      vertex 0 0 0
      vertex 1 0 0
      vertex 0 0 1
    endloop
  endfacet
  facet normal -1 0 0
    outer loop
      vertex 0 0 0
      vertex 0 0 1
      vertex 0 1 0
    endloop
  endfacet
  facet normal 0.577 0.577 0.577
    outer loop
      vertex 1 0 0
      vertex 0 1 0
      vertex 0 0 1
    endloop
  endfacet
endsolid tetra
`

var tetraTris = [][3][3]float32{
	{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}},
	{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
	{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}},
	{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
}

// binarySTL encodes triangles as a binary STL with the given header text.
func binarySTL(header string, tris [][3][3]float32) []byte {
	b := make([]byte, 80)
	copy(b, header)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(tris)))
	for _, t := range tris {
		b = append(b, make([]byte, 12)...) // normal
		for _, v := range t {
			for _, x := range v {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
		b = append(b, 0, 0)
	}
	return b
}

func checkTetra(t *testing.T, m *Mesh) {
	t.Helper()
	if len(m.Verts) != 4 || len(m.Tris) != 4 {
		t.Fatalf("tetrahedron: %d vertices, %d triangles; want 4, 4 (welded)", len(m.Verts), len(m.Tris))
	}
	vol, cen, _, err := PolyhedronMass(m.Verts, m.Tris)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(vol-1.0/6) > 1e-15 || cen.Sub(mgl64.Vec3{0.25, 0.25, 0.25}).Len() > 1e-15 {
		t.Fatalf("tetrahedron: volume %g centroid %v", vol, cen)
	}
}

func TestReadOBJCube(t *testing.T) {
	m, err := ReadOBJ(strings.NewReader(cubeOBJ), "cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	crlf, err := ReadOBJ(strings.NewReader(strings.ReplaceAll(cubeOBJ, "\n", "\r\n")), "cube.obj")
	if err != nil || len(crlf.Tris) != 12 {
		t.Fatalf("CRLF cube: %v", err)
	}
	if len(m.Verts) != 8 || len(m.Tris) != 12 {
		t.Fatalf("cube: %d vertices, %d triangles; want 8, 12", len(m.Verts), len(m.Tris))
	}
	vol, cen, in, err := PolyhedronMass(m.Verts, m.Tris)
	if err != nil {
		t.Fatal(err)
	}
	// The unit cube: volume 1, centroid (½,½,½), I = diag(1/6): exact up to
	// rounding (see exactRel).
	if !near(vol, 1, exactRel, 1) || cen.Sub(mgl64.Vec3{0.5, 0.5, 0.5}).Len() > exactRel {
		t.Fatalf("cube: volume %g centroid %v", vol, cen)
	}
	checkTensor(t, "OBJ cube", in, mgl64.Diag3(mgl64.Vec3{1.0 / 6, 1.0 / 6, 1.0 / 6}), exactRel)

	lo, hi := m.Bounds()
	if lo != (mgl64.Vec3{}) || hi != (mgl64.Vec3{1, 1, 1}) {
		t.Errorf("bounds %v %v", lo, hi)
	}
	s := m.Scaled(2)
	if vol, _, _, _ := PolyhedronMass(s.Verts, s.Tris); !near(vol, 8, exactRel, 8) {
		t.Errorf("scaled ×2: volume %g, want 8", vol)
	}
	s = m.Scaled(-0.5)
	if vol, _, _, err := PolyhedronMass(s.Verts, s.Tris); err != nil || !near(vol, 0.125, exactRel, 1) {
		t.Errorf("scaled ×−½ (mirrored): volume %g, %v; want 0.125", vol, err)
	}
}

func TestReadSTL(t *testing.T) {
	m, err := ReadSTL(strings.NewReader(tetraSTLASCII), "tetra.stl")
	if err != nil {
		t.Fatal(err)
	}
	checkTetra(t, m)
	for _, header := range []string{"binary tetrahedron", "solid tetra (a binary file whose header starts with solid)", ""} {
		m, err := ReadSTL(bytes.NewReader(binarySTL(header, tetraTris)), "tetra.stl")
		if err != nil {
			t.Fatalf("header %q: %v", header, err)
		}
		checkTetra(t, m)
	}
}

func TestLoadMesh(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"cube.OBJ":   []byte(cubeOBJ),
		"tetra.Stl":  []byte(tetraSTLASCII),
		"tetrab.stl": binarySTL("solid x", tetraTris),
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadMesh(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := LoadMesh(filepath.Join(dir, "missing.obj")); err == nil || !strings.Contains(err.Error(), "missing.obj") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadMesh(filepath.Join(dir, "blade.ply")); err == nil || !strings.Contains(err.Error(), `unknown mesh file extension ".ply"`) {
		t.Errorf("unknown extension: %v", err)
	}
}

func TestMeshErrors(t *testing.T) {
	const tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	truncated := binarySTL("solid x", tetraTris)
	huge := binarySTL("", tetraTris)[:200]
	binary.LittleEndian.PutUint32(huge[80:], 4e9)
	nanSTL := binarySTL("", tetraTris)
	binary.LittleEndian.PutUint32(nanSTL[84+50*2+12+12+4:], math.Float32bits(float32(math.NaN())))
	for _, c := range []struct {
		name, file, data, want string
	}{
		{"obj nan", "blade.obj", "v 0 0 0\nv 1 nan 0\nv 0 1 0\nf 1 2 3\n", "blade.obj:2: vertex 2: y coordinate is NaN"},
		{"obj inf", "blade.obj", "v 0 0 0\nv 1 0 -inf\n", "blade.obj:2: vertex 2: z coordinate is -Inf"},
		{"obj range", "blade.obj", tri + "v 1 1 1\nv 2 2 2\nv 3 3 3\nv 4 4 4\nv 5 5 5\n# c\n\nf 1 2 3\nf 1 2 9\n", "blade.obj:12: face index 9 out of range (8 vertices)"},
		{"obj zero index", "b.obj", tri + "f 0 1 2\n", "b.obj:4: face index 0 out of range"},
		{"obj negative range", "b.obj", tri + "f -1 -2 -4\n", "b.obj:4: face index -4 out of range (3 vertices)"},
		{"obj zero area", "b.obj", tri + "v 2 0 0\nf 1 2 3\nf 1 2 4\n", "b.obj:6: triangle 1: zero-area triangle"},
		{"obj repeated vertex", "b.obj", tri + "f 1 2 2\n", "zero-area"},
		{"obj short face", "b.obj", tri + "f 1 2\n", "b.obj:4: face has 2 vertices"},
		{"obj bad number", "b.obj", "v 0 0 x\n", `b.obj:1: vertex: bad number "x"`},
		{"obj continuation", "b.obj", "v 0 0 \\\n 1\n", "b.obj:1: line continuation"},
		{"obj freeform", "b.obj", "cstype bspline\n", `unsupported OBJ statement "cstype"`},
		{"obj empty", "b.obj", tri, "b.obj: empty mesh"},
		{"stl ascii nan", "t.stl", strings.Replace(tetraSTLASCII, "vertex 0 0 1", "vertex 0 0 NaN", 1), "t.stl:13: vertex: z coordinate is NaN"},
		{"stl ascii syntax", "t.stl", strings.Replace(tetraSTLASCII, "endloop", "endlop", 1), `t.stl:7: ASCII STL: "endlop" where "vertex" or "endloop" expected`},
		{"stl ascii eof", "t.stl", strings.TrimSuffix(tetraSTLASCII, "endsolid tetra\n"), "t.stl:29: ASCII STL: unexpected end of file"},
		{"stl ascii degenerate", "t.stl", strings.Replace(tetraSTLASCII, "vertex 0 1 0", "vertex 2 0 0", 1), "t.stl:2: triangle 0: zero-area"},
		{"stl truncated", "t.stl", string(truncated[:len(truncated)-7]), "declares 4 triangles (284 bytes) but the file has 277 bytes"},
		{"stl huge count", "t.stl", string(huge), "declares 4000000000 triangles"},
		{"stl binary nan", "t.stl", string(nanSTL), "t.stl: triangle 2: vertex 1: y coordinate is NaN"},
		{"stl short", "t.stl", "abc", "too short"},
		{"stl empty binary", "t.stl", string(binarySTL("", nil)), "empty mesh"},
	} {
		var err error
		if strings.HasSuffix(c.file, ".obj") {
			_, err = ReadOBJ(strings.NewReader(c.data), c.file)
		} else {
			_, err = ReadSTL(strings.NewReader(c.data), c.file)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// checkMesh asserts what a successfully read mesh guarantees.
func checkMesh(t *testing.T, m *Mesh) {
	if len(m.Verts) == 0 || len(m.Tris) == 0 {
		t.Fatalf("empty mesh returned without error")
	}
	for _, v := range m.Verts {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("non-finite vertex %v", v)
			}
		}
	}
	for _, tr := range m.Tris {
		for _, i := range tr {
			if i < 0 || int(i) >= len(m.Verts) {
				t.Fatalf("index %d out of range", i)
			}
		}
	}
	if err := m.Validate("fuzz"); err != nil {
		t.Fatalf("returned mesh fails Validate: %v", err)
	}
}

func FuzzReadOBJ(f *testing.F) {
	f.Add([]byte(cubeOBJ))
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"))
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3/1 -2//4 -1/2/3 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadOBJ(bytes.NewReader(data), "fuzz.obj")
		if err != nil {
			return
		}
		checkMesh(t, m)
	})
}

func FuzzReadSTL(f *testing.F) {
	f.Add([]byte(tetraSTLASCII))
	f.Add(binarySTL("solid binary", tetraTris))
	f.Add(binarySTL("", tetraTris[:1]))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadSTL(bytes.NewReader(data), "fuzz.stl")
		if err != nil {
			return
		}
		checkMesh(t, m)
	})
}

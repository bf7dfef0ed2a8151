package vtk

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// randomScene returns a model of every shape kind and a random state for
// it, from a fixed seed.
func randomScene(n int) (*engine.Model, *engine.State) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &engine.Model{Materials: []engine.Material{{Friction: 0.3}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	for i := range n {
		var b engine.Body
		switch i % 4 {
		case 0:
			b.Shape = engine.SphereShape(0.1 + rng.Float64())
		case 1:
			b.Shape = engine.EllipsoidShape(0.1+rng.Float64(), 0.2+rng.Float64(), 0.3+rng.Float64())
		case 2:
			b.Shape = engine.BoxShape(0.1+rng.Float64(), 0.2+rng.Float64(), 0.3+rng.Float64())
			b.Fixed = i%8 == 2
		case 3:
			b.Shape = engine.PlaneShape()
		}
		b.Rot = mgl64.QuatIdent()
		b.SetDensity(1000)
		m.Bodies = append(m.Bodies, b)
	}
	var s engine.State
	s.Resize(n)
	for i := range n {
		for k := range 3 {
			s.Pos[3*i+k] = rng.NormFloat64()
			s.Vel[3*i+k] = rng.NormFloat64()
			s.Omega[3*i+k] = rng.NormFloat64()
		}
		q := mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}.Normalize()
		s.Rot[4*i], s.Rot[4*i+1], s.Rot[4*i+2], s.Rot[4*i+3] = q.W, q.V[0], q.V[1], q.V[2]
	}
	return m, &s
}

// The XML of a frame as the test reads it, independently of Decode.
type testFile struct {
	XMLName    xml.Name `xml:"VTKFile"`
	Type       string   `xml:"type,attr"`
	HeaderType string   `xml:"header_type,attr"`
	FieldData  struct {
		Arrays []testArray `xml:"DataArray"`
	} `xml:"PolyData>FieldData"`
	Piece struct {
		NumberOfPoints int `xml:"NumberOfPoints,attr"`
		NumberOfVerts  int `xml:"NumberOfVerts,attr"`
		NumberOfLines  int `xml:"NumberOfLines,attr"`
		NumberOfPolys  int `xml:"NumberOfPolys,attr"`
		PointData      struct {
			Arrays []testArray `xml:"DataArray"`
		} `xml:"PointData"`
		CellData struct {
			Arrays []testArray `xml:"DataArray"`
		} `xml:"CellData"`
		Points struct {
			Arrays []testArray `xml:"DataArray"`
		} `xml:"Points"`
	} `xml:"PolyData>Piece"`
}

type testArray struct {
	Type       string `xml:"type,attr"`
	Name       string `xml:"Name,attr"`
	Components int    `xml:"NumberOfComponents,attr"`
	Format     string `xml:"format,attr"`
	Text       string `xml:",chardata"`
}

// float64s decodes a binary Float64 array by hand: base64, a UInt64 byte
// count, then little-endian values.
func float64s(t *testing.T, a testArray) []float64 {
	t.Helper()
	if a.Format != "binary" || a.Type != "Float64" {
		t.Fatalf("array %q: format %q type %q, want binary Float64", a.Name, a.Format, a.Type)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a.Text))
	if err != nil {
		t.Fatalf("array %q: %v", a.Name, err)
	}
	n := binary.LittleEndian.Uint64(raw)
	if n != uint64(len(raw)-8) {
		t.Fatalf("array %q: header says %d bytes, %d follow", a.Name, n, len(raw)-8)
	}
	v := make([]float64, n/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8+8*i:]))
	}
	return v
}

// TestFrameFileHoldsTheState writes a frame of every shape kind and reads
// it by hand: one point per moving body (the fixed boxes and the planes
// are field data) with the arrays of the state, exactly; Decode and
// ReadBodies then give every body back, the fixed ones included.
func TestFrameFileHoldsTheState(t *testing.T) {
	m, s := randomScene(13)
	bs, err := Bodies(m, s)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, BodiesPolyData(bs)); err != nil {
		t.Fatal(err)
	}
	var f testFile
	if err := xml.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatalf("frame is not XML: %v", err)
	}
	var moving, fixed []int // body ids
	for i, b := range m.Bodies {
		if b.Fixed || b.Shape.Kind == engine.Plane {
			fixed = append(fixed, i)
		} else {
			moving = append(moving, i)
		}
	}
	n := len(moving)
	if f.Type != "PolyData" || f.HeaderType != "UInt64" || f.Piece.NumberOfPoints != n || f.Piece.NumberOfVerts != n {
		t.Fatalf("type %q header %q points %d verts %d, want PolyData UInt64 %d %d", f.Type, f.HeaderType, f.Piece.NumberOfPoints, f.Piece.NumberOfVerts, n, n)
	}
	want := map[string]int{ArrayID: 1, ArrayShape: 1, ArrayRadius: 1, ArraySemiAxes: 3, ArrayOrientation: 4,
		ArrayVelocity: 3, ArraySpeed: 1, ArrayAngularVelocity: 3, ArrayGlyph: 1, ArrayScale: 3, ArrayGlyphTensor: 9}
	got := map[string]testArray{}
	for _, a := range f.Piece.PointData.Arrays {
		got[a.Name] = a
	}
	for name, comps := range want {
		a, ok := got[name]
		if !ok {
			t.Fatalf("point array %q missing", name)
		}
		if a.Components != comps {
			t.Errorf("%q: %d components, want %d", name, a.Components, comps)
		}
	}
	if _, ok := got[ArrayFixed]; ok {
		t.Errorf("point array %q in a frame of moving bodies only", ArrayFixed)
	}
	// The binary arrays hold exactly the state (float64 in, float64 out).
	pts := float64s(t, f.Piece.Points.Arrays[0])
	vel, rot := float64s(t, got[ArrayVelocity]), float64s(t, got[ArrayOrientation])
	speed, omega, axes := float64s(t, got[ArraySpeed]), float64s(t, got[ArrayAngularVelocity]), float64s(t, got[ArraySemiAxes])
	for k, i := range moving {
		b := m.Bodies[i]
		if !slicesEqual(pts[3*k:3*k+3], s.Pos[3*i:3*i+3]) || !slicesEqual(vel[3*k:3*k+3], s.Vel[3*i:3*i+3]) || !slicesEqual(rot[4*k:4*k+4], s.Rot[4*i:4*i+4]) {
			t.Errorf("point %d (body %d): position, velocity or orientation differs from the state", k, i)
		}
		if want := math.Sqrt(s.Vel[3*i]*s.Vel[3*i] + s.Vel[3*i+1]*s.Vel[3*i+1] + s.Vel[3*i+2]*s.Vel[3*i+2]); math.Abs(speed[k]-want) > 4e-16*want {
			// 4e-16: a few roundings of the norm of three numbers.
			t.Errorf("body %d: speed %v, want %v", i, speed[k], want)
		}
		q := mgl64.Quat{W: s.Rot[4*i], V: mgl64.Vec3{s.Rot[4*i+1], s.Rot[4*i+2], s.Rot[4*i+3]}}
		w := q.Mat4().Mul4x1(mgl64.Vec4{s.Omega[3*i], s.Omega[3*i+1], s.Omega[3*i+2], 0}).Vec3()
		for c := range 3 {
			// 1e-14: the rotation of a unit-size vector by a quaternion
			// and by its matrix differ by a few roundings.
			if math.Abs(omega[3*k+c]-w[c]) > 1e-14 {
				t.Errorf("body %d: angular velocity %v, want R·ω̄ = %v", i, omega[3*k:3*k+3], w)
				break
			}
		}
		wantAxes := b.Shape.Size
		if b.Shape.Kind == engine.Sphere {
			wantAxes = mgl64.Vec3{b.Shape.Size[0], b.Shape.Size[0], b.Shape.Size[0]}
		}
		if !slicesEqual(axes[3*k:3*k+3], wantAxes[:]) {
			t.Errorf("body %d (%v): semi-axes %v, want %v", i, b.Shape.Kind, axes[3*k:3*k+3], wantAxes)
		}
	}
	// The fixed bodies are the field data, in the order of their ids.
	fid := map[string]testArray{}
	for _, a := range f.FieldData.Arrays {
		fid[a.Name] = a
	}
	if ids := fid[ArrayFixedID]; ids.Type != "Int32" || len(strings.Fields(ids.Text)) != 1 {
		t.Errorf("field array %q: %+v", ArrayFixedID, ids)
	}
	if fp := float64s(t, fid[ArrayFixedPosition]); len(fp) != 3*len(fixed) {
		t.Errorf("field array %q: %d values for %d fixed bodies", ArrayFixedPosition, len(fp), len(fixed))
	} else {
		for k, i := range fixed {
			if !slicesEqual(fp[3*k:3*k+3], s.Pos[3*i:3*i+3]) {
				t.Errorf("fixed body %d: position %v, want %v", i, fp[3*k:3*k+3], s.Pos[3*i:3*i+3])
			}
		}
	}
	// Decode and ReadBodies give every body back, in the order of ids.
	p, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadBodies(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(bs) {
		t.Fatalf("read back %d bodies, wrote %d", len(back), len(bs))
	}
	for i := range bs {
		if back[i] != bs[i] {
			t.Errorf("body %d: read back %+v, wrote %+v", i, back[i], bs[i])
		}
		if back[i].Fixed != (m.Bodies[i].Fixed || m.Bodies[i].Shape.Kind == engine.Plane) {
			t.Errorf("body %d: fixed %v", i, back[i].Fixed)
		}
	}
}

// TestReadOldFrame reads a frame as earlier versions wrote it (every body
// a point, with the point array "fixed" and no field data).
func TestReadOldFrame(t *testing.T) {
	m, s := randomScene(9)
	bs, err := Bodies(m, s)
	if err != nil {
		t.Fatal(err)
	}
	p := &PolyData{}
	arr := func(name string, comps int, typ string) *Array {
		p.PointData = append(p.PointData, Array{Name: name, Type: typ, Components: comps})
		return &p.PointData[len(p.PointData)-1]
	}
	// The arrays of the old writer, in its order.
	names := []struct {
		name  string
		comps int
		typ   string
	}{{ArrayID, 1, "Int32"}, {ArrayShape, 1, "Int32"}, {ArrayRadius, 1, "Float64"}, {ArraySemiAxes, 3, "Float64"},
		{ArrayOrientation, 4, "Float64"}, {ArrayVelocity, 3, "Float64"}, {ArraySpeed, 1, "Float64"},
		{ArrayAngularVelocity, 3, "Float64"}, {ArrayFixed, 1, "UInt8"}}
	for _, a := range names {
		arr(a.name, a.comps, a.typ)
	}
	for i := range bs {
		b := &bs[i]
		p.Points = append(p.Points, b.Pos[:]...)
		p.Verts.Add(int64(i))
		fixed := 0.0
		if b.Fixed {
			fixed = 1
		}
		for k, v := range [][]float64{{float64(b.ID)}, {float64(b.Kind)}, {b.Radius()}, b.SemiAxes[:],
			{b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]}, b.Vel[:], {b.Vel.Len()}, b.Omega[:], {fixed}} {
			p.PointData[k].Data = append(p.PointData[k].Data, v...)
		}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	q, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadBodies(q)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(bs) {
		t.Fatalf("%d bodies, want %d", len(back), len(bs))
	}
	for i := range bs {
		if back[i] != bs[i] {
			t.Errorf("body %d: read %+v, wrote %+v", i, back[i], bs[i])
		}
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestContactNetwork checks the contact network on a case worked by hand:
// sphere A (body 0, r = 0.5) at the origin, sphere B (body 1) above it at
// (0, 0, 1) turned a quarter turn about x, touching at (0, 0, 0.5), and
// A resting on a plane (body 2, static) through (3, 4, −0.5). The first
// line joins the two centres, the second runs from the contact point on
// the plane to A's centre; the forces are the impulses over h.
func TestContactNetwork(t *testing.T) {
	var s engine.State
	s.Resize(3)
	s.Rot[0], s.Rot[4], s.Rot[8] = 1, math.Cos(math.Pi/4), 1
	s.Rot[5] = math.Sin(math.Pi / 4) // R_x(90°): y → z, z → −y
	s.Pos[5] = 1
	s.Pos[6], s.Pos[7], s.Pos[8] = 3, 4, -0.5
	var c engine.Contacts
	c.Resize(2)
	c.A[0], c.B[0] = 0, 1
	copy(c.Normal, []float64{0, 0, 1})
	copy(c.PA, []float64{0, 0, 0.5})
	copy(c.PB, []float64{0, -0.5, 0}) // R_x(90°)·(0, −0.5, 0) = (0, 0, −0.5)
	c.Phi[0] = -1e-4
	c.A[1], c.B[1] = 2, 0
	copy(c.Normal[3:], []float64{0, 0, 1})
	copy(c.PA[3:], []float64{-3, -4, 0}) // (0, 0, −0.5) on the plane
	copy(c.PB[3:], []float64{0, 0, -0.5})
	h := 0.01
	gamma := []float64{0.0981, 0.03, -0.04, 0.2, 0, 0, 7} // 7: a joint row, not read
	p, err := ContactNetworkPolyData(&s, &c, gamma, h, []bool{false, false, true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	var f testFile
	if err := xml.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatalf("contacts file is not XML: %v", err)
	}
	if f.Piece.NumberOfPoints != 4 || f.Piece.NumberOfLines != 2 || f.Piece.NumberOfVerts != 0 {
		t.Fatalf("points %d lines %d verts %d, want 4 2 0", f.Piece.NumberOfPoints, f.Piece.NumberOfLines, f.Piece.NumberOfVerts)
	}
	pts := float64s(t, f.Piece.Points.Arrays[0])
	if want := []float64{0, 0, 0, 0, 0, 1, 0, 0, -0.5, 0, 0, 0}; !slicesEqual(pts, want) {
		t.Fatalf("line ends %v, want %v", pts, want)
	}
	cells := map[string]testArray{}
	for _, a := range f.Piece.CellData.Arrays {
		cells[a.Name] = a
	}
	if fn := float64s(t, cells[ArrayNormalForce]); fn[0] != gamma[0]/h || fn[1] != gamma[3]/h {
		t.Errorf("normal forces %v, want γ_n/h = %v, %v", fn, gamma[0]/h, gamma[3]/h)
	}
	if ft := float64s(t, cells[ArrayFrictionForce]); math.Abs(ft[0]-5) > 1e-14 || ft[1] != 0 {
		// ‖(0.03, −0.04)‖/0.01 = 5 N; 1e-14: roundings of hypot and the division.
		t.Errorf("friction forces %v, want 5, 0", ft)
	}
	force := float64s(t, cells[ArrayForce])
	n := mgl64.Vec3{0, 0, 1}
	u, w := engine.TangentBasis(n)
	want := n.Mul(gamma[0] / h).Add(u.Mul(gamma[1] / h)).Add(w.Mul(gamma[2] / h))
	for k := range 3 {
		// 1e-14: the same sum in the same order, up to the last bit.
		if math.Abs(force[k]-want[k]) > 1e-14 || math.Abs(force[3+k]-[]float64{0, 0, 20}[k]) > 1e-14 {
			t.Fatalf("forces %v, want %v and (0, 0, 20)", force, want)
		}
	}
	pt := float64s(t, cells[ArrayContactPoint])
	for k, v := range []float64{0, 0, 0.5, 0, 0, -0.5} {
		// 1e-15: cos and sin of π/4 and the rotation round at the last bit.
		if math.Abs(pt[k]-v) > 1e-15 {
			t.Fatalf("contact points %v, want (0, 0, 0.5) and (0, 0, −0.5)", pt)
		}
	}
	if g := float64s(t, cells[ArrayGap]); g[0] != c.Phi[0] {
		t.Errorf("gap %v, want %v", g[0], c.Phi[0])
	}
	if _, err := ContactNetworkPolyData(&s, &c, gamma[:5], h, nil); err == nil {
		t.Error("too few impulses accepted")
	}
	c.B[1] = 3
	if _, err := ContactNetworkPolyData(&s, &c, gamma, h, nil); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("a contact with body 3 of 3: %v", err)
	}
}

// TestContainer checks that each box face is a planar quadrilateral with
// its normal pointing out of the box, and that planes become squares in
// their plane.
func TestContainer(t *testing.T) {
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	bs := []Body{
		{ID: 0, Kind: engine.Box, SemiAxes: mgl64.Vec3{1, 2, 3}, Pos: mgl64.Vec3{4, 5, 6}, Rot: q, Fixed: true},
		{ID: 1, Kind: engine.Box, SemiAxes: mgl64.Vec3{1, 1, 1}, Rot: mgl64.QuatIdent()}, // movable: not container
		{ID: 2, Kind: engine.Plane, Pos: mgl64.Vec3{0, 0, -1}, Rot: q, Fixed: true},
	}
	side := PlaneSide(bs)
	p := ContainerPolyData(bs, side)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Polys.Len() != 7 {
		t.Fatalf("%d polygons, want 6 faces + 1 plane", p.Polys.Len())
	}
	pt := func(i int64) mgl64.Vec3 { return mgl64.Vec3{p.Points[3*i], p.Points[3*i+1], p.Points[3*i+2]} }
	body := p.CellArray(ArrayBodyID)
	for c := range 6 {
		ids := p.Polys.Cell(c)
		a, b, d := pt(ids[0]), pt(ids[1]), pt(ids[3])
		n := b.Sub(a).Cross(d.Sub(a))
		centre := a.Add(pt(ids[2])).Mul(0.5)
		if n.Dot(centre.Sub(bs[0].Pos)) <= 0 {
			t.Errorf("face %d: normal %v points into the box", c, n)
		}
		// The face centre lies at one half-extent from the box centre.
		local := q.Conjugate().Rotate(centre.Sub(bs[0].Pos))
		on := 0
		for k := range 3 {
			if math.Abs(math.Abs(local[k])-bs[0].SemiAxes[k]) < 1e-12 { // 1e-12: roundings of two rotations
				on++
			}
		}
		if on != 1 || body.Data[c] != 0 {
			t.Errorf("face %d: centre %v (body frame) is not on one face; body %v", c, local, body.Data[c])
		}
	}
	n := q.Rotate(mgl64.Vec3{0, 0, 1})
	for _, id := range p.Polys.Cell(6) {
		x := pt(id).Sub(bs[2].Pos)
		// 1e-12: roundings of the rotation of a vector of length ~side.
		if math.Abs(x.Dot(n)) > 1e-12*side || math.Abs(x.Len()-side/math.Sqrt2) > 1e-12*side {
			t.Errorf("plane corner %v: off the plane or not at side/√2 = %v", x, side/math.Sqrt2)
		}
	}
}

func TestPVD(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.pvd")
	sets := []DataSet{{0, "vtk/frame-000000.vtp"}, {0.125, "vtk/frame-000010.vtp"}, {1e-3, "a&b<c>.vtp"}}
	if err := WritePVD(path, sets); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Type string `xml:"type,attr"`
		Sets []struct {
			Timestep string `xml:"timestep,attr"`
			File     string `xml:"file,attr"`
		} `xml:"Collection>DataSet"`
	}
	if err := xml.Unmarshal(data, &f); err != nil {
		t.Fatalf("pvd is not XML: %v", err)
	}
	if f.Type != "Collection" || len(f.Sets) != 3 || f.Sets[1].Timestep != "0.125" || f.Sets[2].File != "a&b<c>.vtp" {
		t.Fatalf("parsed %+v", f)
	}
	back, err := ReadPVD(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range sets {
		if back[i] != sets[i] {
			t.Errorf("set %d: %+v, want %+v", i, back[i], sets[i])
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestDecodeRejects(t *testing.T) {
	var buf bytes.Buffer
	p := &PolyData{Points: []float64{0, 0, 0, 1, 1, 1}}
	p.Lines.Add(0, 1)
	p.CellData = []Array{{Name: "f", Type: "Float64", Components: 1, Data: []float64{2}}}
	if err := Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	if _, err := Decode(strings.NewReader(good)); err != nil {
		t.Fatalf("good file refused: %v", err)
	}
	cases := []struct{ name, from, to, want string }{
		{"compressed", `header_type="UInt64"`, `header_type="UInt64" compressor="vtkZLibDataCompressor"`, "compressed"},
		{"appended", `format="binary"`, `format="appended"`, "appended"},
		{"points count", `NumberOfPoints="2"`, `NumberOfPoints="3"`, "NumberOfPoints"},
		{"lines count", `NumberOfLines="1"`, `NumberOfLines="2"`, "Lines"},
		{"not xml", `</VTKFile>`, ``, "not a VTK XML file"},
		{"type", `type="PolyData"`, `type="UnstructuredGrid"`, "PolyData"},
		{"unknown type", `type="Float64" Name="f"`, `type="Float128" Name="f"`, `"f"`},
	}
	for _, c := range cases {
		bad := strings.Replace(good, c.from, c.to, 1)
		if bad == good {
			t.Fatalf("%s: %q not in the file", c.name, c.from)
		}
		_, err := Decode(strings.NewReader(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	// A point index out of range is refused on writing too.
	p.Lines.Add(0, 5)
	p.CellData[0].Data = append(p.CellData[0].Data, 3)
	if err := Encode(&buf, p); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("out-of-range line written: %v", err)
	}
}

// TestRecorder runs a sphere resting on a plane for 10 steps with frames
// every 4 steps and checks the files: frames 0, 4, 8 and 10 in run.pvd
// with their times, the last frame equal to the backend's state, and the
// contact force holding the sphere up.
func TestRecorder(t *testing.T) {
	m := &engine.Model{Materials: []engine.Material{{Friction: 0.5}}, Gravity: mgl64.Vec3{0, 0, -9.81}}
	ball := engine.Body{Shape: engine.SphereShape(0.5), Pos: mgl64.Vec3{0, 0, 0.5}, Rot: mgl64.QuatIdent()}
	ball.SetMass(2)
	m.Bodies = []engine.Body{ball, {Shape: engine.PlaneShape(), Rot: mgl64.QuatIdent(), Fixed: true}}
	st := engine.DefaultSettings()
	st.Tol = 1e-10
	st.Workers = 1
	be := cpuref.New(1)
	defer be.Close()
	sim, err := engine.NewSim(m, st, be)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A stale frame of an earlier run is removed.
	os.MkdirAll(filepath.Join(dir, Dir), 0o755)
	os.WriteFile(filepath.Join(dir, FrameFile(99)), nil, 0o644)
	rec, err := NewRecorder(dir, m, 4, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Frame(0, 0, 10, sim); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		s, err := sim.Step()
		if err != nil {
			t.Fatal(err)
		}
		if err := rec.Frame(s.Step, s.Time, 10, sim); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, FrameFile(99))); !os.IsNotExist(err) {
		t.Errorf("stale frame kept: %v", err)
	}
	for _, pvd := range []struct{ name, prefix string }{{PVD, "vtk/frame-"}, {ContactsPVD, "vtk/contacts-"}} {
		sets, err := ReadPVD(filepath.Join(dir, pvd.name))
		if err != nil {
			t.Fatal(err)
		}
		steps := []int{0, 4, 8, 10}
		if len(sets) != len(steps) {
			t.Fatalf("%s: %d data sets, want %d", pvd.name, len(sets), len(steps))
		}
		for i, k := range steps {
			if want := pvd.prefix + strings.TrimPrefix(FrameFile(k), "vtk/frame-"); sets[i].File != want || sets[i].Time != float64(k)*st.Dt {
				t.Errorf("%s set %d: %+v, want %s at %v s", pvd.name, i, sets[i], want, float64(k)*st.Dt)
			}
		}
	}
	p, err := ReadFile(filepath.Join(dir, FrameFile(10)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadBodies(p)
	if err != nil {
		t.Fatal(err)
	}
	var s engine.State
	if err := be.ReadState(&s); err != nil {
		t.Fatal(err)
	}
	want, _ := Bodies(m, &s)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("body %d: frame %+v, state %+v", i, got[i], want[i])
		}
	}
	if _, err := ReadFile(filepath.Join(dir, ContainerFile)); err != nil {
		t.Fatal(err)
	}
	cp, err := ReadFile(filepath.Join(dir, ContactsFile(10)))
	if err != nil {
		t.Fatal(err)
	}
	if cp.Lines.Len() < 1 {
		t.Fatalf("no contact at rest")
	}
	total := 0.0
	for _, f := range cp.CellArray(ArrayNormalForce).Data {
		total += f
	}
	// At rest the normal force carries the weight m·g = 19.62 N; 1e-6
	// relative: the solver tolerance 1e-10 on impulses of 0.2 N·s and the
	// residual motion of the settling ball are well inside it.
	if w := ball.Mass * 9.81; math.Abs(total-w) > 1e-6*w {
		t.Errorf("normal force %v N, want the weight %v N", total, w)
	}
	empty, err := ReadFile(filepath.Join(dir, ContactsFile(0)))
	if err != nil || empty.Lines.Len() != 0 {
		t.Errorf("contacts of frame 0: %v lines, %v", empty.Lines.Len(), err)
	}
}

// TestRecorderResumed checks that a recorder for a run resumed at step 6
// keeps the frames of steps 0 and 4 of the earlier run, in the files and
// in run.pvd, and drops those of steps 8 and 10.
func TestRecorderResumed(t *testing.T) {
	m, s := randomScene(3)
	be := cpuref.New(1)
	defer be.Close()
	for i := range m.Bodies {
		m.Bodies[i].Pos = mgl64.Vec3{s.Pos[3*i], s.Pos[3*i+1], s.Pos[3*i+2]}
	}
	st := engine.DefaultSettings()
	st.Workers = 1
	sim, err := engine.NewSim(m, st, be)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first, err := NewRecorder(dir, m, 4, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, 4, 8, 10} {
		if err := first.Frame(k, float64(k), 10, sim); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := NewRecorder(dir, m, 4, false, 6); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int]bool{0: true, 4: true, 8: false, 10: false} {
		_, err := os.Stat(filepath.Join(dir, FrameFile(k)))
		if (err == nil) != want {
			t.Errorf("frame %d: exists %v, want %v", k, err == nil, want)
		}
	}
	if sets, err := ReadPVD(filepath.Join(dir, PVD)); err != nil || len(sets) != 2 {
		t.Errorf("run.pvd right after resuming: %+v, %v; want frames 0 and 4", sets, err)
	}
	rec, _ := NewRecorder(dir, m, 4, false, 6)
	if err := rec.Frame(8, 8, 10, sim); err != nil {
		t.Fatal(err)
	}
	sets, err := ReadPVD(filepath.Join(dir, PVD))
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 3 || sets[0].File != FrameFile(0) || sets[1].File != FrameFile(4) || sets[2].File != FrameFile(8) {
		t.Errorf("run.pvd after resuming: %+v, want frames 0, 4, 8", sets)
	}
}

// TestCompressed writes arrays of every type in EncodeCompressed's form,
// one spanning several blocks with a partial last one, one of exactly one
// block and an empty one, checks the file's header attributes and the
// compression header of an array by hand, and reads it back with Decode.
func TestCompressed(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3*BlockSize/24 + 5 // points: 3 blocks of Float64 × 3 and 120 bytes
	p := &PolyData{Points: make([]float64, 3*n)}
	for i := range p.Points {
		p.Points[i] = rng.NormFloat64()
	}
	for i := range n {
		p.Verts.Add(int64(i))
	}
	for _, typ := range []string{"Float64", "Float32", "Int64", "Int32", "UInt8"} {
		a := Array{Name: "a " + typ, Type: typ, Components: 1, Data: make([]float64, n)}
		for i := range a.Data {
			a.Data[i] = float64(rng.IntN(200))
			if typ[0] == 'F' {
				a.Data[i] += 0.5
			}
		}
		p.PointData = append(p.PointData, a)
	}
	p.FieldData = []Array{
		{Name: "one block", Type: "Float64", Components: 1, Data: make([]float64, BlockSize/8)},
		{Name: "empty", Type: "Int32", Components: 1},
	}
	var buf bytes.Buffer
	if err := EncodeCompressed(&buf, p); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	head := string(data[:bytes.Index(data, []byte("<AppendedData"))])
	for _, want := range []string{`compressor="vtkZLibDataCompressor"`, `header_type="UInt64"`, `format="appended"`} {
		if !strings.Contains(head, want) {
			t.Errorf("file head has no %s", want)
		}
	}
	if !bytes.Contains(data, []byte("<AppendedData encoding=\"raw\">\n_")) {
		t.Error("no raw AppendedData")
	}
	// The points' array: its compression header is number of blocks,
	// block size, size of the partial last block, then the compressed
	// sizes, which add up to the zlib data that follows.
	app := data[bytes.Index(data, []byte("\n_"))+2:]
	off := strings.Index(head, `NumberOfComponents="3" format="appended" offset="`)
	var at int
	fmt.Sscanf(head[off+len(`NumberOfComponents="3" format="appended" offset="`):], "%d", &at)
	le := binary.LittleEndian
	nb, bs, last := le.Uint64(app[at:]), le.Uint64(app[at+8:]), le.Uint64(app[at+16:])
	if nb != 4 || bs != BlockSize || last != uint64(24*n)%BlockSize {
		t.Errorf("points: header %d blocks of %d, last %d; want 4 of %d, last %d", nb, bs, last, BlockSize, 24*n%BlockSize)
	}
	back, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(back.Points, p.Points) || back.Verts.Len() != n {
		t.Error("points or vertices differ")
	}
	for _, as := range [][2][]Array{{p.PointData, back.PointData}, {p.FieldData, back.FieldData}} {
		if len(as[0]) != len(as[1]) {
			t.Fatalf("%d arrays read, %d written", len(as[1]), len(as[0]))
		}
		for k := range as[0] {
			w, g := as[0][k], as[1][k]
			// Float32 holds x.5 for x < 200 exactly.
			if g.Name != w.Name || g.Type != w.Type || len(g.Data) != len(w.Data) || (len(w.Data) > 0 && !slicesEqual(g.Data, w.Data)) {
				t.Errorf("array %q: read %s × %d, wrote %s × %d, or the values differ", w.Name, g.Type, len(g.Data), w.Type, len(w.Data))
			}
		}
	}
	var plain bytes.Buffer
	if err := Encode(&plain, p); err != nil {
		t.Fatal(err)
	}
	t.Logf("compressed %d bytes, inline base64 %d", buf.Len(), plain.Len())
}

// TestDecodeRejectsCompressed: broken compressed files are errors that
// say what is wrong, never panics.
func TestDecodeRejectsCompressed(t *testing.T) {
	m, s := randomScene(40)
	bs, err := Bodies(m, s)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeCompressed(&buf, BodiesPolyData(bs)); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	if _, err := Decode(bytes.NewReader(good)); err != nil {
		t.Fatalf("good file refused: %v", err)
	}
	app := bytes.Index(good, []byte("\n_")) + 2
	flip := append([]byte{}, good...)
	flip[len(flip)-40] ^= 0xff // inside the last array's zlib stream
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"cut", good[:app+100], "cut short"},
		{"no appended data", good[:bytes.Index(good, []byte("<AppendedData"))], "not a VTK XML file"},
		{"flipped byte", flip, "block"},
		{"lz4", bytes.Replace(good, []byte("vtkZLibDataCompressor"), []byte("vtkLZ4DataCompressor"), 1), "vtkLZ4DataCompressor"},
		{"base64", bytes.Replace(good, []byte(`encoding="raw"`), []byte(`encoding="base64"`), 1), "raw"},
		{"offset", bytes.Replace(good, []byte(`offset="0"`), []byte(`offset="99999999"`), 1), "offset"},
		{"UInt32 header", bytes.Replace(good, []byte(`header_type="UInt64"`), []byte(`header_type="UInt32"`), 1), "array"},
	}
	for _, c := range cases {
		_, err := Decode(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

// FuzzDecode: Decode never panics, whatever the bytes, and what it reads
// is a valid PolyData. The seeds are a frame in both forms.
func FuzzDecode(f *testing.F) {
	m, s := randomScene(5)
	bs, _ := Bodies(m, s)
	for _, enc := range []func(io.Writer, *PolyData) error{Encode, EncodeCompressed} {
		var buf bytes.Buffer
		if err := enc(&buf, BodiesPolyData(bs)); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Decode gave an invalid PolyData: %v", err)
		}
	})
}

// TestFixedPolyData checks the surfaces of fixed bodies other than boxes
// and planes: every point of a turned sphere, ellipsoid, cylinder and
// capsule lies on the body's surface (the capsule's: the cylinder around
// it), a convex hull and a mesh keep their faces, each polygon names its
// body, and moving bodies are left out.
func TestFixedPolyData(t *testing.T) {
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	hull, err := geom.NewHull([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	mesh := &geom.Mesh{Verts: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Tris: [][3]int32{{0, 1, 2}}}
	at := func(id int, k engine.ShapeKind, axes mgl64.Vec3) Body {
		return Body{ID: id, Kind: k, SemiAxes: axes, Pos: mgl64.Vec3{1, -2, 3}, Rot: q, Fixed: true}
	}
	bs := []Body{
		at(0, engine.Sphere, mgl64.Vec3{0.3, 0.3, 0.3}),
		at(1, engine.Ellipsoid, mgl64.Vec3{0.1, 0.2, 0.4}),
		at(2, engine.Cylinder, mgl64.Vec3{0.1, 0.3, 0}),
		at(3, engine.Capsule, mgl64.Vec3{0.1, 0.3, 0}),
		at(4, engine.Convex, mgl64.Vec3{1, 1, 1}),
		at(5, engine.Mesh, mgl64.Vec3{1, 1, 1}),
		{ID: 6, Kind: engine.Sphere, SemiAxes: mgl64.Vec3{1, 1, 1}, Rot: mgl64.QuatIdent()}, // moving: left out
	}
	bs[4].Hull, bs[5].Mesh = hull, mesh
	p := FixedPolyData(bs, 1)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	body := p.CellArray(ArrayBodyID)
	polys := map[int]int{}
	for c := range p.Polys.Len() {
		id := int(body.Data[c])
		polys[id]++
		b := bs[id]
		for _, k := range p.Polys.Cell(c) {
			x := q.Conjugate().Rotate(mgl64.Vec3{p.Points[3*k], p.Points[3*k+1], p.Points[3*k+2]}.Sub(b.Pos))
			var off float64 // distance from the surface, relative
			a := b.SemiAxes
			switch b.Kind {
			case engine.Sphere, engine.Ellipsoid:
				off = math.Sqrt(x[0]*x[0]/(a[0]*a[0])+x[1]*x[1]/(a[1]*a[1])+x[2]*x[2]/(a[2]*a[2])) - 1
			case engine.Cylinder, engine.Capsule:
				h := a[1]
				if b.Kind == engine.Capsule {
					h += a[0]
				}
				off = math.Max(math.Abs(math.Hypot(x[0], x[1])/a[0]-1), math.Abs(math.Abs(x[2])/h-1))
			default: // hull and mesh vertices, here all of a unit size
				off = math.Min(x.Len(), math.Abs(x.Len()-1))
			}
			// 1e-12: the roundings of a rotation and its inverse.
			if math.Abs(off) > 1e-12 {
				t.Fatalf("body %d (%v): point %v (body frame) is %g off its surface", id, b.Kind, x, off)
			}
		}
	}
	if polys[4] != 4 || polys[5] != 1 || polys[6] != 0 || polys[0] < 100 || polys[2] != 26 {
		t.Errorf("polygons per body %v: want 4 for the tetrahedron, 1 for the mesh, none for the moving body, 26 for a cylinder", polys)
	}
}

// TestGlyphConvex: a convex hull's glyph is the box of its largest
// coordinates along the body axes, turned with the body.
func TestGlyphConvex(t *testing.T) {
	hull, err := geom.NewHull([]mgl64.Vec3{{-0.1, -0.2, -0.3}, {0.1, -0.2, -0.3}, {-0.1, 0.2, -0.3}, {-0.1, -0.2, 0.4}})
	if err != nil {
		t.Fatal(err)
	}
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	b := Body{Kind: engine.Convex, SemiAxes: mgl64.Vec3{0.5, 0.5, 0.5}, Rot: q, Hull: hull}
	g, scale, tensor := b.Glyph()
	if g != GlyphBox || scale != (mgl64.Vec3{0.1, 0.2, 0.4}) {
		t.Fatalf("glyph %d scale %v, want box (%d) of (0.1, 0.2, 0.4)", g, scale, GlyphBox)
	}
	for j := range 3 {
		var e mgl64.Vec3
		e[j] = scale[j]
		want := q.Rotate(e)
		for i := range 3 {
			// 1e-15: a rotation by the quaternion and by its matrix.
			if math.Abs(tensor[3*j+i]-want[i]) > 1e-15 {
				t.Fatalf("tensor column %d %v, want R·scale_j e_j = %v", j, tensor[3*j:3*j+3], want)
			}
		}
	}
}

// TestViewScriptUp: ViewScript writes the scene's up direction (unit,
// opposite to gravity) into view.py's UP line, which it finds by its
// exact text in view.py; a zero up leaves z.
func TestViewScriptUp(t *testing.T) {
	s := ViewScript(mgl64.Vec3{0, 9.81, 0})
	if !strings.Contains(s, "\nUP = (0, 1, 0)\n") || strings.Contains(s, "UP = (0.0, 0.0, 1.0)") {
		t.Errorf("ViewScript(0, 9.81, 0): no line UP = (0, 1, 0) in place of view.py's UP = (0.0, 0.0, 1.0)")
	}
	if s := ViewScript(mgl64.Vec3{}); !strings.Contains(s, "\nUP = (0, 0, 1)\n") {
		t.Errorf("ViewScript(0): no line UP = (0, 0, 1)")
	}
}

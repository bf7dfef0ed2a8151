package vtk

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/internal/atomicfile"
)

// Array is a named data array: Components values per tuple, held as float64
// whatever Type it is written as (every integer the writer stores fits a
// float64 exactly).
type Array struct {
	Name string
	// Type is the VTK type the array is written as: Float64, Float32,
	// Int64, Int32, UInt8 (the reader also takes Int8, Int16, UInt16,
	// UInt32 and UInt64).
	Type       string
	Components int
	Data       []float64
}

// Tuples returns the number of tuples, len(Data)/Components.
func (a *Array) Tuples() int {
	if a.Components <= 0 {
		return 0
	}
	return len(a.Data) / a.Components
}

// Cells is a VTK cell array: the point indices of every cell one after the
// other in Connectivity, and in Offsets the end of each cell in it (VTK's
// convention: cell i is Connectivity[Offsets[i-1]:Offsets[i]]).
type Cells struct {
	Connectivity []int64
	Offsets      []int64
}

// Len returns the number of cells.
func (c *Cells) Len() int { return len(c.Offsets) }

// Cell returns the point indices of cell i.
func (c *Cells) Cell(i int) []int64 {
	start := int64(0)
	if i > 0 {
		start = c.Offsets[i-1]
	}
	return c.Connectivity[start:c.Offsets[i]]
}

// Add appends a cell.
func (c *Cells) Add(ids ...int64) {
	c.Connectivity = append(c.Connectivity, ids...)
	c.Offsets = append(c.Offsets, int64(len(c.Connectivity)))
}

// PolyData is one piece of VTK XML PolyData: points, vertex, line and
// polygon cells, and data on points and on cells. Cell data runs over the
// vertices first, then the lines, then the polygons (VTK's order).
type PolyData struct {
	// Points holds x, y, z of every point (m).
	Points              []float64
	Verts, Lines, Polys Cells
	PointData, CellData []Array
}

// NumPoints returns the number of points.
func (p *PolyData) NumPoints() int { return len(p.Points) / 3 }

// NumCells returns the number of cells of every kind.
func (p *PolyData) NumCells() int { return p.Verts.Len() + p.Lines.Len() + p.Polys.Len() }

// PointArray returns the point-data array called name, or nil.
func (p *PolyData) PointArray(name string) *Array { return find(p.PointData, name) }

// CellArray returns the cell-data array called name, or nil.
func (p *PolyData) CellArray(name string) *Array { return find(p.CellData, name) }

func find(as []Array, name string) *Array {
	for i := range as {
		if as[i].Name == name {
			return &as[i]
		}
	}
	return nil
}

// Validate checks that the cells index existing points, that offsets
// increase, and that every array has a whole number of tuples for every
// point or cell.
func (p *PolyData) Validate() error {
	if len(p.Points)%3 != 0 {
		return fmt.Errorf("points: %d coordinates is not a multiple of 3", len(p.Points))
	}
	np := int64(p.NumPoints())
	for _, c := range []struct {
		name  string
		cells *Cells
	}{{"verts", &p.Verts}, {"lines", &p.Lines}, {"polys", &p.Polys}} {
		prev := int64(0)
		for i, o := range c.cells.Offsets {
			if o < prev || o > int64(len(c.cells.Connectivity)) {
				return fmt.Errorf("%s: offset %d of cell %d out of order or past the connectivity (%d entries)", c.name, o, i, len(c.cells.Connectivity))
			}
			prev = o
		}
		if prev != int64(len(c.cells.Connectivity)) {
			return fmt.Errorf("%s: offsets end at %d, connectivity has %d entries", c.name, prev, len(c.cells.Connectivity))
		}
		for _, id := range c.cells.Connectivity {
			if id < 0 || id >= np {
				return fmt.Errorf("%s: point index %d out of range [0, %d)", c.name, id, np)
			}
		}
	}
	check := func(where string, as []Array, n int) error {
		for _, a := range as {
			if a.Components < 1 {
				return fmt.Errorf("%s array %q: %d components", where, a.Name, a.Components)
			}
			if len(a.Data) != n*a.Components {
				return fmt.Errorf("%s array %q: %d values, want %d (%d × %d components)", where, a.Name, len(a.Data), n*a.Components, n, a.Components)
			}
			if _, ok := typeSize[a.Type]; !ok {
				return fmt.Errorf("%s array %q: unknown type %q", where, a.Name, a.Type)
			}
		}
		return nil
	}
	if err := check("point", p.PointData, p.NumPoints()); err != nil {
		return err
	}
	return check("cell", p.CellData, p.NumCells())
}

// typeSize maps the VTK type names to their sizes in bytes.
var typeSize = map[string]int{
	"Int8": 1, "UInt8": 1, "Int16": 2, "UInt16": 2, "Int32": 4, "UInt32": 4,
	"Int64": 8, "UInt64": 8, "Float32": 4, "Float64": 8,
}

// Encode writes p as a VTK XML PolyData file (version 1.0, little endian,
// UInt64 headers). Every array is written inline in the "binary" format:
// the base64 encoding of an 8-byte little-endian byte count followed by
// the values, encoded together as VTK's own writer does, so the file is
// plain XML text.
func Encode(w io.Writer, p *PolyData) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("vtk: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n")
	fmt.Fprintf(bw, "<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"%d\" NumberOfStrips=\"0\" NumberOfPolys=\"%d\">\n",
		p.NumPoints(), p.Verts.Len(), p.Lines.Len(), p.Polys.Len())
	arrays := func(tag string, as []Array) {
		fmt.Fprintf(bw, "<%s>\n", tag)
		for i := range as {
			writeArray(bw, &as[i])
		}
		fmt.Fprintf(bw, "</%s>\n", tag)
	}
	arrays("PointData", p.PointData)
	arrays("CellData", p.CellData)
	arrays("Points", []Array{{Type: "Float64", Components: 3, Data: p.Points}})
	for _, c := range []struct {
		tag   string
		cells *Cells
	}{{"Verts", &p.Verts}, {"Lines", &p.Lines}, {"Strips", &Cells{}}, {"Polys", &p.Polys}} {
		arrays(c.tag, []Array{
			{Name: "connectivity", Type: "Int64", Components: 1, Data: ints(c.cells.Connectivity)},
			{Name: "offsets", Type: "Int64", Components: 1, Data: ints(c.cells.Offsets)},
		})
	}
	fmt.Fprintf(bw, "</Piece>\n</PolyData>\n</VTKFile>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("vtk: write: %w", err)
	}
	return nil
}

func ints(v []int64) []float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return f
}

func writeArray(w *bufio.Writer, a *Array) {
	size := typeSize[a.Type]
	raw := make([]byte, 8, 8+size*len(a.Data))
	binary.LittleEndian.PutUint64(raw, uint64(size*len(a.Data)))
	for _, v := range a.Data {
		raw = appendValue(raw, a.Type, v)
	}
	name := ""
	if a.Name != "" {
		var b strings.Builder
		xml.EscapeText(&b, []byte(a.Name))
		name = fmt.Sprintf(" Name=\"%s\"", b.String())
	}
	fmt.Fprintf(w, "<DataArray type=\"%s\"%s NumberOfComponents=\"%d\" format=\"binary\">", a.Type, name, a.Components)
	enc := base64.NewEncoder(base64.StdEncoding, w)
	enc.Write(raw)
	enc.Close()
	fmt.Fprintf(w, "</DataArray>\n")
}

func appendValue(b []byte, typ string, v float64) []byte {
	le := binary.LittleEndian
	switch typ {
	case "Float64":
		return le.AppendUint64(b, math.Float64bits(v))
	case "Float32":
		return le.AppendUint32(b, math.Float32bits(float32(v)))
	case "Int64":
		return le.AppendUint64(b, uint64(int64(v)))
	case "UInt64":
		return le.AppendUint64(b, uint64(v))
	case "Int32":
		return le.AppendUint32(b, uint32(int32(v)))
	case "UInt32":
		return le.AppendUint32(b, uint32(v))
	case "Int16":
		return le.AppendUint16(b, uint16(int16(v)))
	case "UInt16":
		return le.AppendUint16(b, uint16(v))
	case "Int8":
		return append(b, byte(int8(v)))
	case "UInt8":
		return append(b, byte(v))
	}
	panic("vtk: unknown type " + typ) // Validate rejects unknown types first
}

func readValue(b []byte, typ string) float64 {
	le := binary.LittleEndian
	switch typ {
	case "Float64":
		return math.Float64frombits(le.Uint64(b))
	case "Float32":
		return float64(math.Float32frombits(le.Uint32(b)))
	case "Int64":
		return float64(int64(le.Uint64(b)))
	case "UInt64":
		return float64(le.Uint64(b))
	case "Int32":
		return float64(int32(le.Uint32(b)))
	case "UInt32":
		return float64(le.Uint32(b))
	case "Int16":
		return float64(int16(le.Uint16(b)))
	case "UInt16":
		return float64(le.Uint16(b))
	case "Int8":
		return float64(int8(b[0]))
	}
	return float64(b[0]) // UInt8
}

// WriteFile encodes p into path through a temporary file renamed into
// place, so a reader never sees a partial file.
func WriteFile(path string, p *PolyData) error {
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		return fmt.Errorf("%w (%s)", err, path)
	}
	return writeAtomic(path, buf.Bytes())
}

// writeAtomic writes data to a temporary file beside path, syncs it and
// renames it over path.
func writeAtomic(path string, data []byte) error {
	if err := atomicfile.WriteBytes(path, data); err != nil {
		return fmt.Errorf("vtk: %w", err)
	}
	return nil
}

// The XML form of a file, as far as the reader looks.
type xmlFile struct {
	XMLName    xml.Name `xml:"VTKFile"`
	Type       string   `xml:"type,attr"`
	ByteOrder  string   `xml:"byte_order,attr"`
	HeaderType string   `xml:"header_type,attr"`
	Compressor string   `xml:"compressor,attr"`
	PolyData   *struct {
		Pieces []xmlPiece `xml:"Piece"`
	} `xml:"PolyData"`
}

type xmlPiece struct {
	NumberOfPoints int       `xml:"NumberOfPoints,attr"`
	NumberOfVerts  int       `xml:"NumberOfVerts,attr"`
	NumberOfLines  int       `xml:"NumberOfLines,attr"`
	NumberOfStrips int       `xml:"NumberOfStrips,attr"`
	NumberOfPolys  int       `xml:"NumberOfPolys,attr"`
	PointData      xmlArrays `xml:"PointData"`
	CellData       xmlArrays `xml:"CellData"`
	Points         xmlArrays `xml:"Points"`
	Verts          xmlArrays `xml:"Verts"`
	Lines          xmlArrays `xml:"Lines"`
	Polys          xmlArrays `xml:"Polys"`
}

type xmlArrays struct {
	Arrays []xmlArray `xml:"DataArray"`
}

type xmlArray struct {
	Type               string `xml:"type,attr"`
	Name               string `xml:"Name,attr"`
	NumberOfComponents string `xml:"NumberOfComponents,attr"`
	Format             string `xml:"format,attr"`
	Text               string `xml:",chardata"`
}

// Decode reads a VTK XML PolyData file of one piece whose arrays are
// inline, in the "ascii" format or the uncompressed "binary" format (with
// UInt32 or UInt64 headers, little endian). Appended data and compressed
// files are refused with an error saying so; so is anything inconsistent
// (sizes that disagree with the declared counts, indices out of range).
func Decode(r io.Reader) (*PolyData, error) {
	var f xmlFile
	if err := xml.NewDecoder(r).Decode(&f); err != nil {
		return nil, fmt.Errorf("vtk: not a VTK XML file: %w", err)
	}
	if f.Type != "PolyData" || f.PolyData == nil {
		return nil, fmt.Errorf("vtk: file type %q, want PolyData", f.Type)
	}
	if f.ByteOrder != "" && f.ByteOrder != "LittleEndian" {
		return nil, fmt.Errorf("vtk: byte_order %q is not supported (LittleEndian only)", f.ByteOrder)
	}
	if f.Compressor != "" {
		return nil, fmt.Errorf("vtk: compressed files (%s) are not supported", f.Compressor)
	}
	header := 4
	switch f.HeaderType {
	case "", "UInt32":
	case "UInt64":
		header = 8
	default:
		return nil, fmt.Errorf("vtk: header_type %q, want UInt32 or UInt64", f.HeaderType)
	}
	if len(f.PolyData.Pieces) != 1 {
		return nil, fmt.Errorf("vtk: %d pieces, want 1", len(f.PolyData.Pieces))
	}
	pc := f.PolyData.Pieces[0]
	if pc.NumberOfStrips != 0 {
		return nil, fmt.Errorf("vtk: %d triangle strips: strips are not supported", pc.NumberOfStrips)
	}
	p := &PolyData{}
	arrays := func(where string, xs []xmlArray) ([]Array, error) {
		var as []Array
		for _, x := range xs {
			a, err := decodeArray(x, header)
			if err != nil {
				return nil, fmt.Errorf("vtk: %s: %w", where, err)
			}
			as = append(as, a)
		}
		return as, nil
	}
	var err error
	if p.PointData, err = arrays("PointData", pc.PointData.Arrays); err != nil {
		return nil, err
	}
	if p.CellData, err = arrays("CellData", pc.CellData.Arrays); err != nil {
		return nil, err
	}
	pts, err := arrays("Points", pc.Points.Arrays)
	if err != nil {
		return nil, err
	}
	switch {
	case len(pts) == 1 && pts[0].Components == 3:
		p.Points = pts[0].Data
	case len(pts) == 0 && pc.NumberOfPoints == 0:
	default:
		return nil, fmt.Errorf("vtk: Points: want one array of 3 components")
	}
	if p.NumPoints() != pc.NumberOfPoints {
		return nil, fmt.Errorf("vtk: %d points, NumberOfPoints says %d", p.NumPoints(), pc.NumberOfPoints)
	}
	for _, c := range []struct {
		tag   string
		xs    []xmlArray
		n     int
		cells *Cells
	}{{"Verts", pc.Verts.Arrays, pc.NumberOfVerts, &p.Verts}, {"Lines", pc.Lines.Arrays, pc.NumberOfLines, &p.Lines}, {"Polys", pc.Polys.Arrays, pc.NumberOfPolys, &p.Polys}} {
		as, err := arrays(c.tag, c.xs)
		if err != nil {
			return nil, err
		}
		conn, offs := find(as, "connectivity"), find(as, "offsets")
		if c.n == 0 && conn == nil && offs == nil {
			continue
		}
		if conn == nil || offs == nil {
			return nil, fmt.Errorf("vtk: %s: connectivity or offsets missing", c.tag)
		}
		c.cells.Connectivity = int64s(conn.Data)
		c.cells.Offsets = int64s(offs.Data)
		if c.cells.Len() != c.n {
			return nil, fmt.Errorf("vtk: %s: %d offsets, the piece declares %d cells", c.tag, c.cells.Len(), c.n)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("vtk: %w", err)
	}
	return p, nil
}

func int64s(v []float64) []int64 {
	n := make([]int64, len(v))
	for i, x := range v {
		n[i] = int64(x)
	}
	return n
}

func decodeArray(x xmlArray, header int) (Array, error) {
	a := Array{Name: x.Name, Type: x.Type, Components: 1}
	size, ok := typeSize[x.Type]
	if !ok {
		return a, fmt.Errorf("array %q: unknown type %q", x.Name, x.Type)
	}
	if x.NumberOfComponents != "" {
		n, err := strconv.Atoi(x.NumberOfComponents)
		if err != nil || n < 1 {
			return a, fmt.Errorf("array %q: NumberOfComponents %q is not a positive integer", x.Name, x.NumberOfComponents)
		}
		a.Components = n
	}
	switch x.Format {
	case "ascii":
		for _, f := range strings.Fields(x.Text) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return a, fmt.Errorf("array %q: %q is not a number", x.Name, f)
			}
			a.Data = append(a.Data, v)
		}
	case "binary":
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(x.Text), ""))
		if err != nil {
			return a, fmt.Errorf("array %q: bad base64: %w", x.Name, err)
		}
		if len(raw) < header {
			return a, fmt.Errorf("array %q: %d bytes, shorter than its %d-byte header", x.Name, len(raw), header)
		}
		var n uint64
		if header == 8 {
			n = binary.LittleEndian.Uint64(raw)
		} else {
			n = uint64(binary.LittleEndian.Uint32(raw))
		}
		raw = raw[header:]
		if n != uint64(len(raw)) || n%uint64(size) != 0 {
			return a, fmt.Errorf("array %q: header says %d bytes, %d follow (%s values are %d bytes)", x.Name, n, len(raw), x.Type, size)
		}
		a.Data = make([]float64, len(raw)/size)
		for i := range a.Data {
			a.Data[i] = readValue(raw[i*size:], x.Type)
		}
	case "appended":
		return a, fmt.Errorf("array %q: appended data is not supported (inline ascii or binary only)", x.Name)
	default:
		return a, fmt.Errorf("array %q: unknown format %q", x.Name, x.Format)
	}
	if len(a.Data)%a.Components != 0 {
		return a, fmt.Errorf("array %q: %d values is not a multiple of its %d components", x.Name, len(a.Data), a.Components)
	}
	return a, nil
}

// ReadFile decodes the PolyData file at path.
func ReadFile(path string) (*PolyData, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vtk: %w", err)
	}
	defer f.Close()
	p, err := Decode(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

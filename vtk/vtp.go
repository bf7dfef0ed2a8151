package vtk

import (
	"bufio"
	"bytes"
	"compress/zlib"
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
	// FieldData holds arrays of the data set as a whole, of any number of
	// tuples (a frame keeps its fixed bodies there, see BodiesPolyData).
	FieldData []Array
}

// NumPoints returns the number of points.
func (p *PolyData) NumPoints() int { return len(p.Points) / 3 }

// NumCells returns the number of cells of every kind.
func (p *PolyData) NumCells() int { return p.Verts.Len() + p.Lines.Len() + p.Polys.Len() }

// FieldArray returns the field-data array called name, or nil.
func (p *PolyData) FieldArray(name string) *Array { return find(p.FieldData, name) }

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
	for _, a := range p.FieldData {
		if err := check("field", []Array{a}, a.Tuples()); err != nil {
			return err
		}
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
// plain XML text. WriteFile writes the smaller form of EncodeCompressed
// instead.
func Encode(w io.Writer, p *PolyData) error {
	return encode(w, p, "", func(bw *bufio.Writer, a *Array, attrs string) {
		fmt.Fprintf(bw, "<DataArray%s format=\"binary\">", attrs)
		enc := base64.NewEncoder(base64.StdEncoding, bw)
		enc.Write(rawArray(a))
		enc.Close()
		fmt.Fprintf(bw, "</DataArray>\n")
	}, nil)
}

// BlockSize is the size (bytes) of the blocks EncodeCompressed compresses
// one by one, as VTK's writers do (VTK's default is 32 KiB; any size
// reads).
const BlockSize = 1 << 16

// EncodeCompressed writes p as a VTK XML PolyData file whose arrays are
// appended raw binary data compressed with zlib (compressor
// "vtkZLibDataCompressor", UInt64 headers), as ParaView's own writer
// does by default: each array at its offset after the "_" of the
// AppendedData element is the header (number of blocks, block size, size
// of the last block when partial (else 0), compressed size of each block)
// and the zlib streams of its blocks of BlockSize bytes. Only the part
// before AppendedData is XML; Decode reads both forms.
func EncodeCompressed(w io.Writer, p *PolyData) error {
	var app bytes.Buffer
	// One compressor for every block of the file: a zlib.Writer holds
	// some hundreds of kilobytes, and Reset starts the same stream anew.
	zw, _ := zlib.NewWriterLevel(nil, zlib.DefaultCompression) // the level is valid
	err := encode(w, p, ` compressor="vtkZLibDataCompressor"`, func(bw *bufio.Writer, a *Array, attrs string) {
		fmt.Fprintf(bw, "<DataArray%s format=\"appended\" offset=\"%d\"/>\n", attrs, app.Len())
		compressBlocks(&app, rawArray(a)[8:], zw)
	}, func(bw *bufio.Writer) {
		bw.WriteString("<AppendedData encoding=\"raw\">\n_")
		bw.Write(app.Bytes())
		bw.WriteString("\n</AppendedData>\n")
	})
	return err
}

// compressBlocks appends to app the compression header and the zlib
// streams of data cut into blocks of BlockSize bytes, compressed by zw.
func compressBlocks(app *bytes.Buffer, data []byte, zw *zlib.Writer) {
	nb := (len(data) + BlockSize - 1) / BlockSize
	head := make([]byte, 8*(3+nb))
	le := binary.LittleEndian
	le.PutUint64(head, uint64(nb))
	le.PutUint64(head[8:], BlockSize)
	le.PutUint64(head[16:], uint64(len(data)%BlockSize))
	var z bytes.Buffer
	for k := range nb {
		blk := data[k*BlockSize : min(len(data), (k+1)*BlockSize)]
		start := z.Len()
		zw.Reset(&z)
		zw.Write(blk) // a bytes.Buffer does not fail
		zw.Close()
		le.PutUint64(head[8*(3+k):], uint64(z.Len()-start))
	}
	app.Write(head)
	app.Write(z.Bytes())
}

// encode writes the XML of p, each DataArray element by array (given the
// element's type, name, component and tuple attributes), and then tail.
func encode(w io.Writer, p *PolyData, compressor string, array func(*bufio.Writer, *Array, string), tail func(*bufio.Writer)) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("vtk: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\"%s>\n<PolyData>\n", compressor)
	arrays := func(tag string, as []Array, tuples bool) {
		fmt.Fprintf(bw, "<%s>\n", tag)
		for i := range as {
			a := &as[i]
			attrs := fmt.Sprintf(" type=\"%s\"", a.Type)
			if a.Name != "" {
				var b strings.Builder
				xml.EscapeText(&b, []byte(a.Name))
				attrs += fmt.Sprintf(" Name=\"%s\"", b.String())
			}
			attrs += fmt.Sprintf(" NumberOfComponents=\"%d\"", a.Components)
			if tuples {
				attrs += fmt.Sprintf(" NumberOfTuples=\"%d\"", a.Tuples())
			}
			array(bw, a, attrs)
		}
		fmt.Fprintf(bw, "</%s>\n", tag)
	}
	if len(p.FieldData) > 0 {
		arrays("FieldData", p.FieldData, true)
	}
	fmt.Fprintf(bw, "<Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"%d\" NumberOfStrips=\"0\" NumberOfPolys=\"%d\">\n",
		p.NumPoints(), p.Verts.Len(), p.Lines.Len(), p.Polys.Len())
	arrays("PointData", p.PointData, false)
	arrays("CellData", p.CellData, false)
	arrays("Points", []Array{{Type: "Float64", Components: 3, Data: p.Points}}, false)
	for _, c := range []struct {
		tag   string
		cells *Cells
	}{{"Verts", &p.Verts}, {"Lines", &p.Lines}, {"Strips", &Cells{}}, {"Polys", &p.Polys}} {
		arrays(c.tag, []Array{
			{Name: "connectivity", Type: "Int64", Components: 1, Data: ints(c.cells.Connectivity)},
			{Name: "offsets", Type: "Int64", Components: 1, Data: ints(c.cells.Offsets)},
		}, false)
	}
	fmt.Fprintf(bw, "</Piece>\n</PolyData>\n")
	if tail != nil {
		tail(bw)
	}
	fmt.Fprintf(bw, "</VTKFile>\n")
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

// rawArray returns the 8-byte little-endian byte count of a's values
// followed by the values.
func rawArray(a *Array) []byte {
	size := typeSize[a.Type]
	raw := make([]byte, 8, 8+size*len(a.Data))
	binary.LittleEndian.PutUint64(raw, uint64(size*len(a.Data)))
	for _, v := range a.Data {
		raw = appendValue(raw, a.Type, v)
	}
	return raw
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

// WriteFile encodes p into path (EncodeCompressed) through a temporary file renamed into
// place, so a reader never sees a partial file.
func WriteFile(path string, p *PolyData) error {
	var buf bytes.Buffer
	if err := EncodeCompressed(&buf, p); err != nil {
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
		FieldData xmlArrays  `xml:"FieldData"`
		Pieces    []xmlPiece `xml:"Piece"`
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
	Offset             string `xml:"offset,attr"`
	Text               string `xml:",chardata"`
}

// Decode reads a VTK XML PolyData file of one piece whose arrays are
// inline, in the "ascii" format or the uncompressed "binary" format, or
// appended raw binary data, uncompressed or compressed with zlib
// (vtkZLibDataCompressor, as EncodeCompressed and ParaView write it),
// with UInt32 or UInt64 headers, little endian. Appended data encoded in
// base64 and compressed inline arrays are refused with an error saying
// so; so is anything inconsistent (sizes that disagree with the declared
// counts, indices out of range).
func Decode(r io.Reader) (*PolyData, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("vtk: read: %w", err)
	}
	head, app, err := splitAppended(data)
	if err != nil {
		return nil, err
	}
	var f xmlFile
	if err := xml.Unmarshal(head, &f); err != nil {
		return nil, fmt.Errorf("vtk: not a VTK XML file: %w", err)
	}
	if f.Type != "PolyData" || f.PolyData == nil {
		return nil, fmt.Errorf("vtk: file type %q, want PolyData", f.Type)
	}
	if f.ByteOrder != "" && f.ByteOrder != "LittleEndian" {
		return nil, fmt.Errorf("vtk: byte_order %q is not supported (LittleEndian only)", f.ByteOrder)
	}
	d := &decoder{header: 4, app: app}
	switch f.Compressor {
	case "":
	case "vtkZLibDataCompressor":
		d.zlib = true
	default:
		return nil, fmt.Errorf("vtk: compressor %s is not supported (vtkZLibDataCompressor only)", f.Compressor)
	}
	switch f.HeaderType {
	case "", "UInt32":
	case "UInt64":
		d.header = 8
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
			a, err := decodeArray(x, d)
			if err != nil {
				return nil, fmt.Errorf("vtk: %s: %w", where, err)
			}
			as = append(as, a)
		}
		return as, nil
	}
	if p.FieldData, err = arrays("FieldData", f.PolyData.FieldData.Arrays); err != nil {
		return nil, err
	}
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

// splitAppended cuts a file with appended raw data into its XML part (the
// text before AppendedData, closed) and the bytes after AppendedData's
// "_"; a file without appended data is all XML (nil bytes).
func splitAppended(data []byte) (head, app []byte, err error) {
	i := bytes.Index(data, []byte("<AppendedData"))
	if i < 0 {
		return data, nil, nil
	}
	gt := bytes.IndexByte(data[i:], '>')
	if gt < 0 {
		return nil, nil, fmt.Errorf("vtk: AppendedData element not closed")
	}
	if tag := string(data[i : i+gt]); !strings.Contains(tag, `encoding="raw"`) {
		return nil, nil, fmt.Errorf("vtk: %s>: only raw appended data is supported", tag)
	}
	rest := data[i+gt+1:]
	u := bytes.IndexByte(rest, '_')
	if u < 0 || len(bytes.TrimSpace(rest[:u])) != 0 {
		return nil, nil, fmt.Errorf("vtk: AppendedData does not start with \"_\"")
	}
	head = append(append([]byte{}, data[:i]...), "</VTKFile>"...)
	return head, rest[u+1:], nil
}

// decoder reads the binary arrays of a file.
type decoder struct {
	header int    // bytes of a header integer: 4 (UInt32) or 8 (UInt64)
	zlib   bool   // arrays are zlib-compressed
	app    []byte // appended raw data, after the "_"
}

func (d *decoder) uint(b []byte) uint64 {
	if d.header == 8 {
		return binary.LittleEndian.Uint64(b)
	}
	return uint64(binary.LittleEndian.Uint32(b))
}

// appended returns the bytes of the array at offset off of the appended
// data, decompressed.
func (d *decoder) appended(off uint64) ([]byte, error) {
	app, hs := d.app, uint64(d.header)
	n := uint64(len(app))
	if off > n || n-off < hs {
		return nil, fmt.Errorf("offset %d past the appended data (%d bytes)", off, n)
	}
	if !d.zlib {
		size := d.uint(app[off:])
		if size > n-off-hs {
			return nil, fmt.Errorf("header says %d bytes, %d follow", size, n-off-hs)
		}
		return app[off+hs : off+hs+size], nil
	}
	if n-off < 3*hs {
		return nil, fmt.Errorf("compression header cut short")
	}
	nb, bs, last := d.uint(app[off:]), d.uint(app[off+hs:]), d.uint(app[off+2*hs:])
	if nb > (n-off)/hs-3 || last > bs || bs > 1<<30 {
		return nil, fmt.Errorf("compression header (%d blocks of %d bytes, last %d) does not fit the data", nb, bs, last)
	}
	pos := off + hs*(3+nb)
	var out []byte
	for k := range nb {
		cs := d.uint(app[off+hs*(3+k):])
		if cs > n-pos {
			return nil, fmt.Errorf("block %d: %d compressed bytes, %d left", k, cs, n-pos)
		}
		want := bs
		if k == nb-1 && last != 0 {
			want = last
		}
		zr, err := zlib.NewReader(bytes.NewReader(app[pos : pos+cs]))
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", k, err)
		}
		blk, err := io.ReadAll(io.LimitReader(zr, int64(want)+1))
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", k, err)
		}
		if uint64(len(blk)) != want {
			return nil, fmt.Errorf("block %d: %d bytes, the header says %d", k, len(blk), want)
		}
		out = append(out, blk...)
		pos += cs
	}
	return out, nil
}

func decodeArray(x xmlArray, d *decoder) (Array, error) {
	header := d.header
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
		if d.zlib {
			return a, fmt.Errorf("array %q: compressed inline arrays are not supported (appended or uncompressed only)", x.Name)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(x.Text), ""))
		if err != nil {
			return a, fmt.Errorf("array %q: bad base64: %w", x.Name, err)
		}
		if len(raw) < header {
			return a, fmt.Errorf("array %q: %d bytes, shorter than its %d-byte header", x.Name, len(raw), header)
		}
		n := d.uint(raw)
		raw = raw[header:]
		if n != uint64(len(raw)) || n%uint64(size) != 0 {
			return a, fmt.Errorf("array %q: header says %d bytes, %d follow (%s values are %d bytes)", x.Name, n, len(raw), x.Type, size)
		}
		a.Data = readValues(raw, x.Type)
	case "appended":
		if d.app == nil {
			return a, fmt.Errorf("array %q: format appended, but the file has no AppendedData", x.Name)
		}
		off, err := strconv.ParseUint(x.Offset, 10, 64)
		if err != nil {
			return a, fmt.Errorf("array %q: appended data offset %q is not a whole number", x.Name, x.Offset)
		}
		raw, err := d.appended(off)
		if err != nil {
			return a, fmt.Errorf("array %q: %w", x.Name, err)
		}
		if len(raw)%size != 0 {
			return a, fmt.Errorf("array %q: %d bytes is not a whole number of %s values", x.Name, len(raw), x.Type)
		}
		a.Data = readValues(raw, x.Type)
	default:
		return a, fmt.Errorf("array %q: unknown format %q", x.Name, x.Format)
	}
	if len(a.Data)%a.Components != 0 {
		return a, fmt.Errorf("array %q: %d values is not a multiple of its %d components", x.Name, len(a.Data), a.Components)
	}
	return a, nil
}

// readValues returns the values of type typ in raw, a whole number of
// them.
func readValues(raw []byte, typ string) []float64 {
	size := typeSize[typ]
	v := make([]float64, len(raw)/size)
	for i := range v {
		v[i] = readValue(raw[i*size:], typ)
	}
	return v
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

package vtk

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// DataSet is one entry of a ParaView collection (.pvd): a file (relative to
// the collection's folder) and its simulated time (s).
type DataSet struct {
	Time float64
	File string
}

// EncodePVD returns the collection file listing the data sets, one time
// step each, which ParaView opens as an animation.
func EncodePVD(sets []DataSet) []byte {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n<Collection>\n")
	for _, s := range sets {
		b.WriteString("<DataSet timestep=\"")
		b.WriteString(strconv.FormatFloat(s.Time, 'g', -1, 64))
		b.WriteString("\" group=\"\" part=\"0\" file=\"")
		xml.EscapeText(&b, []byte(filepath.ToSlash(s.File)))
		b.WriteString("\"/>\n")
	}
	b.WriteString("</Collection>\n</VTKFile>\n")
	return b.Bytes()
}

// WritePVD writes the collection at path atomically (a temporary file
// renamed into place), so the file is whole at every moment of a run.
func WritePVD(path string, sets []DataSet) error {
	return writeAtomic(path, EncodePVD(sets))
}

// ReadPVD reads a collection file. File names stay as written, relative
// to the collection's folder.
func ReadPVD(path string) ([]DataSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("vtk: %w", err)
	}
	var f struct {
		XMLName    xml.Name `xml:"VTKFile"`
		Type       string   `xml:"type,attr"`
		Collection *struct {
			Sets []struct {
				Timestep string `xml:"timestep,attr"`
				File     string `xml:"file,attr"`
			} `xml:"DataSet"`
		} `xml:"Collection"`
	}
	if err := xml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("vtk: %s: not a VTK XML file: %w", path, err)
	}
	if f.Type != "Collection" || f.Collection == nil {
		return nil, fmt.Errorf("vtk: %s: file type %q, want Collection", path, f.Type)
	}
	sets := make([]DataSet, 0, len(f.Collection.Sets))
	for i, s := range f.Collection.Sets {
		t, err := strconv.ParseFloat(s.Timestep, 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("vtk: %s: DataSet %d: timestep %q is not a finite number", path, i, s.Timestep)
		}
		if s.File == "" {
			return nil, fmt.Errorf("vtk: %s: DataSet %d: no file", path, i)
		}
		sets = append(sets, DataSet{Time: t, File: s.File})
	}
	return sets, nil
}

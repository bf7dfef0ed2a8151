package fclib

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/internal/atomicfile"
)

// Meta is what Write puts in meta.json.
type Meta struct {
	Name             string `json:"name"`
	Description      string `json:"description,omitempty"`
	NumberOfContacts int    `json:"number_of_contacts"`
	N                int    `json:"n"`
	NNZ              int    `json:"nnz"`
	Cohesion         bool   `json:"cohesion"`
	Ordering         string `json:"ordering"`
	Convention       string `json:"convention"`
	Source           string `json:"source"`
}

// Write writes p into the folder dir (created if needed) in the format
// Read reads: W.mtx (coordinate real general, both triangles, sorted by row
// and column, duplicates of p.Entries summed), q.txt, mu.txt, cohesion.txt
// when some cohesion impulse is not zero (an old cohesion.txt is removed
// otherwise) and meta.json. Numbers are written in full precision
// (strconv 'g', -1), so Read gives back the same float64 values. Each file
// is written to a temporary file and renamed into place.
func Write(dir string, p *Problem) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("fclib: %w", err)
	}
	merged := cpuref.SumSorted(slices.Clone(p.Entries))
	for _, e := range merged {
		if !finite(e.Val) {
			return fmt.Errorf("fclib: problem %q: the duplicates of entry (%d, %d) sum to %v", p.Name, e.Row, e.Col, e.Val)
		}
	}
	n := p.N()
	err := writeAtomic(filepath.Join(dir, "W.mtx"), func(w *bufio.Writer) {
		fmt.Fprintf(w, "%%%%MatrixMarket matrix coordinate real general\n")
		fmt.Fprintf(w, "%% N = DᵀM⁻¹D of %s (u = N γ + r), contact i at rows 3i-2, 3i-1, 3i (normal, tangent u, tangent w), written by gpusim\n", oneLine(p.Name))
		fmt.Fprintf(w, "%d %d %d\n", n, n, len(merged))
		var buf []byte
		for _, e := range merged {
			buf = strconv.AppendInt(buf[:0], int64(e.Row+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(e.Col+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, e.Val, 'g', -1, 64)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
	if err != nil {
		return err
	}
	if err := WriteVector(filepath.Join(dir, "q.txt"), p.Q); err != nil {
		return err
	}
	if err := WriteVector(filepath.Join(dir, "mu.txt"), p.Mu); err != nil {
		return err
	}
	cPath := filepath.Join(dir, "cohesion.txt")
	hasCoh := slices.ContainsFunc(p.Cohesion, func(c float64) bool { return c != 0 })
	if hasCoh {
		if err := WriteVector(cPath, p.Cohesion); err != nil {
			return err
		}
	} else if err := os.Remove(cPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fclib: %w", err)
	}
	meta := Meta{Name: p.Name, Description: p.Description, NumberOfContacts: p.NC, N: n, NNZ: len(merged), Cohesion: hasCoh,
		Ordering:   "per contact (normal, tangent u, tangent w)",
		Convention: "u = W γ + q; γ_i in the cone ‖γ_T‖ ≤ μ_i (γ_n + c_i), c_i from cohesion.txt (0 if absent)",
		Source:     "gpusim"}
	data, err := json.MarshalIndent(meta, "", " ")
	if err != nil {
		return fmt.Errorf("fclib: encode meta.json: %w", err)
	}
	return writeAtomic(filepath.Join(dir, "meta.json"), func(w *bufio.Writer) {
		w.Write(data)
		w.WriteByte('\n')
	})
}

// WriteVector writes v, one value per line in full precision, to path
// through a temporary file renamed into place.
func WriteVector(path string, v []float64) error {
	return writeAtomic(path, func(w *bufio.Writer) {
		var buf []byte
		for _, x := range v {
			buf = strconv.AppendFloat(buf[:0], x, 'g', -1, 64)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
}

// writeAtomic writes a file through fill into a temporary file beside
// path, syncs it and renames it over path, so that a reader never sees a
// partial file. A bufio.Writer keeps its first error, which is reported at
// Flush.
func writeAtomic(path string, fill func(w *bufio.Writer)) error {
	if err := atomicfile.Write(path, func(w *bufio.Writer) error { fill(w); return nil }); err != nil {
		return fmt.Errorf("fclib: %w", err)
	}
	return nil
}

// oneLine replaces line breaks so that s fits in a comment line.
func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return string(b)
}

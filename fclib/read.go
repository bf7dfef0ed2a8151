package fclib

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/internal/inputfile"
)

// maxLine is the longest line the readers accept (bytes).
const maxLine = 1 << 20

// Read reads the problem in the folder dir (see the package doc). Every
// error names the file and, for a bad value, the line: a missing or bad
// Matrix Market banner, an unsupported format (array), field (complex,
// pattern) or symmetry (skew-symmetric, hermitian), a bad size line, a
// matrix that is not square or whose size is not a multiple of 3, a wrong
// number of entries, indices out of range or given twice, values that are
// not numbers or not finite, q or mu or cohesion of the wrong length, and
// negative μ or cohesion. Only regular files are read (a FIFO or a device
// in the folder is an error, not a hang), each of at most
// inputfile.DefaultProblem bytes (ReadWith changes the cap).
func Read(dir string) (*Problem, error) {
	return ReadWith(dir, 0)
}

// ReadWith is Read with a cap of maxFileSize bytes on each file of the
// folder: 0 means inputfile.DefaultProblem (2 GiB), a negative value no
// cap.
func ReadWith(dir string, maxFileSize int64) (*Problem, error) {
	max := maxFileSize
	if max == 0 {
		max = inputfile.DefaultProblem
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("fclib: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("fclib: %s is not a problem folder (want W.mtx, q.txt and mu.txt in a folder)", dir)
	}
	wPath := filepath.Join(dir, "W.mtx")
	f, err := inputfile.Open(wPath, max)
	if err != nil {
		return nil, fmt.Errorf("fclib: %w", err)
	}
	n, es, err := ReadMatrixMarket(f, wPath)
	f.Close()
	if err != nil {
		return nil, err
	}
	nc := n / 3
	p := &Problem{Name: filepath.Base(filepath.Clean(dir)), NC: nc, Entries: es}

	qPath := filepath.Join(dir, "q.txt")
	if p.Q, _, err = readVectorFile(qPath, max); err != nil {
		return nil, err
	}
	if len(p.Q) != n {
		return nil, fmt.Errorf("fclib: %s has %d values, want %d (3·nc for the %d × %d W.mtx)", qPath, len(p.Q), n, n, n)
	}
	muPath := filepath.Join(dir, "mu.txt")
	mu, lines, err := readVectorFile(muPath, max)
	if err != nil {
		return nil, err
	}
	if len(mu) != nc {
		return nil, fmt.Errorf("fclib: %s has %d values, want nc = %d (W.mtx is %d × %d)", muPath, len(mu), nc, n, n)
	}
	for i, v := range mu {
		if v < 0 {
			return nil, fmt.Errorf("fclib: %s:%d: friction coefficient %v is negative", muPath, lines[i], v)
		}
	}
	p.Mu = mu
	cPath := filepath.Join(dir, "cohesion.txt")
	coh, lines, err := readVectorFile(cPath, max)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case len(coh) != nc:
		return nil, fmt.Errorf("fclib: %s has %d values, want nc = %d (W.mtx is %d × %d)", cPath, len(coh), nc, n, n)
	default:
		for i, v := range coh {
			if v < 0 {
				return nil, fmt.Errorf("fclib: %s:%d: cohesion impulse %v is negative", cPath, lines[i], v)
			}
		}
		p.Cohesion = coh
	}
	mPath := filepath.Join(dir, "meta.json")
	data, err := inputfile.ReadFile(mPath, max)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("fclib: %w", err)
	default:
		var m struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("fclib: %s: %w", mPath, err)
		}
		if m.Name != "" {
			p.Name = m.Name
		}
		p.Description = m.Description
	}
	return p, nil
}

// ReadMatrixMarket reads a square real matrix in Matrix Market coordinate
// format from r, name naming the source in errors. It accepts the fields
// real, double and integer and the symmetries general and symmetric (an
// off-diagonal entry then also stands for its mirror), and returns the size
// n, a multiple of 3, and the entries 0-based, sorted by row and then
// column. Blank lines and, before the size line, comment lines (%) are
// skipped. An index given twice (or, in a symmetric matrix, an entry and
// its mirror) is an error, as is any value that is not a finite number.
func ReadMatrixMarket(r io.Reader, name string) (int, []cpuref.Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("fclib: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	next := func() (string, bool) {
		if sc.Scan() {
			line++
			return sc.Text(), true
		}
		return "", false
	}
	scanErr := func(what string) error {
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				line++
				return bad("line longer than %d bytes", maxLine)
			}
			if errors.Is(err, inputfile.ErrTooLarge) {
				return fmt.Errorf("fclib: %w", err) // it names the file
			}
			return fmt.Errorf("fclib: %s: %w", name, err)
		}
		return fmt.Errorf("fclib: %s: %s", name, what)
	}

	banner, ok := next()
	if !ok {
		return 0, nil, scanErr("empty file (want a %%MatrixMarket banner)")
	}
	tok := strings.Fields(banner)
	if len(tok) == 0 || !strings.EqualFold(tok[0], "%%MatrixMarket") {
		return 0, nil, bad("missing %%%%MatrixMarket banner, found %q", clip(banner))
	}
	if len(tok) != 5 {
		return 0, nil, bad("banner %q: want %%%%MatrixMarket matrix coordinate real general", clip(banner))
	}
	object, format, field, symmetry := strings.ToLower(tok[1]), strings.ToLower(tok[2]), strings.ToLower(tok[3]), strings.ToLower(tok[4])
	if object != "matrix" {
		return 0, nil, bad("object %q is not supported (want matrix)", tok[1])
	}
	if format != "coordinate" {
		return 0, nil, bad("format %q is not supported (want coordinate)", tok[2])
	}
	integer := false
	switch field {
	case "real", "double":
	case "integer":
		integer = true
	default:
		return 0, nil, bad("field %q is not supported (want real)", tok[3])
	}
	symmetric := false
	switch symmetry {
	case "general":
	case "symmetric":
		symmetric = true
	default:
		return 0, nil, bad("symmetry %q is not supported (want general or symmetric)", tok[4])
	}

	var size string
	for {
		s, ok := next()
		if !ok {
			return 0, nil, scanErr("no size line after the banner")
		}
		if t := strings.TrimSpace(s); t != "" && !strings.HasPrefix(t, "%") {
			size = t
			break
		}
	}
	tok = strings.Fields(size)
	if len(tok) != 3 {
		return 0, nil, bad("size line %q: want three integers (rows columns entries)", clip(size))
	}
	var dims [3]int
	for i, s := range tok {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return 0, nil, bad("size line %q: %q is not a non-negative integer", clip(size), clip(s))
		}
		dims[i] = v
	}
	m, n, nnz := dims[0], dims[1], dims[2]
	if m != n {
		return 0, nil, bad("matrix is %d × %d, want a square matrix", m, n)
	}
	if n == 0 {
		return 0, nil, bad("matrix is 0 × 0: a problem needs at least one contact")
	}
	if n%3 != 0 {
		return 0, nil, bad("size %d is not a multiple of 3 (3 rows per contact)", n)
	}
	if q := nnz / n; q > n || (q == n && nnz%n > 0) {
		return 0, nil, bad("%d entries do not fit in a %d × %d matrix", nnz, n, n)
	}

	type loc struct {
		line   int
		mirror bool
	}
	es := make([]cpuref.Entry, 0, min(nnz, 1<<16))
	from := make([]loc, 0, min(nnz, 1<<16))
	read := 0
	for {
		s, ok := next()
		if !ok {
			break
		}
		t := strings.TrimSpace(s)
		if t == "" {
			continue
		}
		if read == nnz {
			return 0, nil, bad("more entries than the %d of the size line", nnz)
		}
		tok := strings.Fields(t)
		if len(tok) != 3 {
			return 0, nil, bad("entry %q: want three fields (row column value)", clip(t))
		}
		var idx [2]int
		for k := 0; k < 2; k++ {
			v, err := strconv.Atoi(tok[k])
			if err != nil {
				return 0, nil, bad("%s index %q is not an integer", [2]string{"row", "column"}[k], clip(tok[k]))
			}
			if v < 1 || v > n {
				return 0, nil, bad("%s index %d out of range [1, %d]", [2]string{"row", "column"}[k], v, n)
			}
			idx[k] = v - 1
		}
		var val float64
		var err error
		if integer {
			var iv int64
			iv, err = strconv.ParseInt(tok[2], 10, 64)
			val = float64(iv)
		} else {
			val, err = strconv.ParseFloat(tok[2], 64)
		}
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, nil, bad("value %q is not a number", clip(tok[2]))
		}
		if err != nil || math.IsNaN(val) || math.IsInf(val, 0) {
			return 0, nil, bad("value %q is not finite", clip(tok[2]))
		}
		read++
		es = append(es, cpuref.Entry{Row: idx[0], Col: idx[1], Val: val})
		from = append(from, loc{line: line})
		if symmetric && idx[0] != idx[1] {
			es = append(es, cpuref.Entry{Row: idx[1], Col: idx[0], Val: val})
			from = append(from, loc{line: line, mirror: true})
		}
	}
	if err := sc.Err(); err != nil {
		return 0, nil, scanErr("")
	}
	if read != nnz {
		return 0, nil, fmt.Errorf("fclib: %s: %d entries, but the size line announces %d", name, read, nnz)
	}
	order := make([]int, len(es))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if es[a].Row != es[b].Row {
			return es[a].Row - es[b].Row
		}
		return es[a].Col - es[b].Col
	})
	sorted := make([]cpuref.Entry, len(es))
	for i, k := range order {
		sorted[i] = es[k]
		if i == 0 {
			continue
		}
		j := order[i-1]
		if es[j].Row == es[k].Row && es[j].Col == es[k].Col {
			line = from[k].line
			what := ""
			if from[k].mirror || from[j].mirror {
				what = " (a symmetric matrix stores one triangle: an entry stands for its mirror too)"
			}
			return 0, nil, bad("entry (%d, %d) given twice, first at line %d%s", es[k].Row+1, es[k].Col+1, from[j].line, what)
		}
	}
	return n, sorted, nil
}

// ReadVector reads a file of numbers, one per line; blank lines and lines
// starting with # are skipped. Values must be finite. The file must be a
// regular file of at most inputfile.DefaultProblem bytes.
func ReadVector(path string) ([]float64, error) {
	v, _, err := readVectorFile(path, inputfile.DefaultProblem)
	return v, err
}

// readVectorFile reads a vector and the line of each value.
func readVectorFile(path string, max int64) ([]float64, []int, error) {
	f, err := inputfile.Open(path, max)
	if err != nil {
		return nil, nil, fmt.Errorf("fclib: %w", err)
	}
	defer f.Close()
	return readVector(f, path)
}

func readVector(r io.Reader, name string) ([]float64, []int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	var vals []float64
	var lines []int
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if f := strings.Fields(t); len(f) != 1 {
			return nil, nil, fmt.Errorf("fclib: %s:%d: %d values on one line, want one per line", name, line, len(f))
		}
		v, err := strconv.ParseFloat(t, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, nil, fmt.Errorf("fclib: %s:%d: %q is not a number", name, line, clip(t))
		}
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("fclib: %s:%d: %q is not finite", name, line, clip(t))
		}
		vals = append(vals, v)
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, fmt.Errorf("fclib: %s:%d: line longer than %d bytes", name, line+1, maxLine)
		}
		if errors.Is(err, inputfile.ErrTooLarge) {
			return nil, nil, fmt.Errorf("fclib: %w", err) // it names the file
		}
		return nil, nil, fmt.Errorf("fclib: %s: %w", name, err)
	}
	return vals, lines, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

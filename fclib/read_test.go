package fclib

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
)

// writeFiles makes a folder with the given files.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// okFiles is a valid two-contact problem.
func okFiles() map[string]string {
	return map[string]string{
		"W.mtx": "%%MatrixMarket matrix coordinate real general\n% comment\n6 6 7\n" +
			"1 1 2\n2 2 2\n3 3 2\n4 4 3\n5 5 3\n6 6 3\n1 4 0.5\n",
		"q.txt":  "-1\n0.5\n0\n-2\n0\n0.25\n",
		"mu.txt": "0.3\n0.5\n",
	}
}

func TestReadValid(t *testing.T) {
	p, err := Read(writeFiles(t, okFiles()))
	if err != nil {
		t.Fatal(err)
	}
	if p.NC != 2 || len(p.Entries) != 7 || len(p.Q) != 6 || len(p.Mu) != 2 || p.Cohesion != nil {
		t.Fatalf("got nc %d, %d entries, %d q, %d mu, cohesion %v", p.NC, len(p.Entries), len(p.Q), len(p.Mu), p.Cohesion)
	}
	if e := p.Entries[1]; e != (cpuref.Entry{Row: 0, Col: 3, Val: 0.5}) {
		t.Errorf("second entry %v, want (0, 3, 0.5) (sorted by row and column)", e)
	}

	// A symmetric file gives the mirror of each off-diagonal entry, and
	// cohesion.txt and meta.json are read.
	files := okFiles()
	files["W.mtx"] = "%%MatrixMarket matrix coordinate real symmetric\n6 6 3\n1 1 2\n4 1 0.5\n6 6 1\n"
	files["cohesion.txt"] = "0\n0.125\n"
	files["meta.json"] = `{"name": "two", "description": "a test"}`
	p, err = Read(writeFiles(t, files))
	if err != nil {
		t.Fatal(err)
	}
	want := []cpuref.Entry{{Row: 0, Col: 0, Val: 2}, {Row: 0, Col: 3, Val: 0.5}, {Row: 3, Col: 0, Val: 0.5}, {Row: 5, Col: 5, Val: 1}}
	if !slices.Equal(p.Entries, want) {
		t.Errorf("symmetric entries %v, want %v", p.Entries, want)
	}
	if !slices.Equal(p.Cohesion, []float64{0, 0.125}) || p.Name != "two" || p.Description != "a test" {
		t.Errorf("cohesion %v, name %q, description %q", p.Cohesion, p.Name, p.Description)
	}
}

// TestReadErrors: each broken folder gives an error naming the file, the
// line where there is one, and the problem.
func TestReadErrors(t *testing.T) {
	cases := []struct {
		name  string
		file  string // file to replace ("" to delete del)
		body  string
		del   string
		wants []string
	}{
		{"no W", "", "", "W.mtx", []string{"W.mtx", "no such file"}},
		{"no q", "", "", "q.txt", []string{"q.txt", "no such file"}},
		{"no mu", "", "", "mu.txt", []string{"mu.txt", "no such file"}},
		{"empty W", "W.mtx", "", "", []string{"W.mtx", "empty file"}},
		{"no banner", "W.mtx", "6 6 0\n", "", []string{"W.mtx:1", "banner"}},
		{"short banner", "W.mtx", "%%MatrixMarket matrix coordinate real\n6 6 0\n", "", []string{"W.mtx:1", "banner"}},
		{"array", "W.mtx", "%%MatrixMarket matrix array real general\n6 6\n", "", []string{"W.mtx:1", `format "array"`}},
		{"complex", "W.mtx", "%%MatrixMarket matrix coordinate complex general\n6 6 0\n", "", []string{"W.mtx:1", `field "complex"`}},
		{"pattern", "W.mtx", "%%MatrixMarket matrix coordinate pattern general\n6 6 0\n", "", []string{"W.mtx:1", `field "pattern"`}},
		{"skew", "W.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n6 6 0\n", "", []string{"W.mtx:1", "skew-symmetric"}},
		{"vector object", "W.mtx", "%%MatrixMarket vector coordinate real general\n6 6 0\n", "", []string{"W.mtx:1", `object "vector"`}},
		{"no size", "W.mtx", "%%MatrixMarket matrix coordinate real general\n% only a comment\n", "", []string{"W.mtx", "no size line"}},
		{"size fields", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6\n", "", []string{"W.mtx:2", "three integers"}},
		{"size number", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 x\n", "", []string{"W.mtx:2", `"x"`}},
		{"negative size", "W.mtx", "%%MatrixMarket matrix coordinate real general\n-6 -6 0\n", "", []string{"W.mtx:2", "non-negative"}},
		{"not square", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 3 0\n", "", []string{"W.mtx:2", "6 × 3", "square"}},
		{"not 3", "W.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 0\n", "", []string{"W.mtx:2", "multiple of 3"}},
		{"zero size", "W.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", "", []string{"W.mtx:2", "0 × 0"}},
		{"too many nnz", "W.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 10\n", "", []string{"W.mtx:2", "do not fit"}},
		{"few entries", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 3\n1 1 1\n", "", []string{"W.mtx", "1 entries", "announces 3"}},
		{"many entries", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1 1 1\n2 2 1\n", "", []string{"W.mtx:4", "more entries"}},
		{"entry fields", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1 1\n", "", []string{"W.mtx:3", "three fields"}},
		{"row range", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n7 1 1\n", "", []string{"W.mtx:3", "row index 7 out of range [1, 6]"}},
		{"col zero", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1 0 1\n", "", []string{"W.mtx:3", "column index 0 out of range"}},
		{"index float", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1.0 1 1\n", "", []string{"W.mtx:3", `row index "1.0"`}},
		{"value", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1 1 abc\n", "", []string{"W.mtx:3", `"abc" is not a number`}},
		{"nan", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1 1 NaN\n", "", []string{"W.mtx:3", "not finite"}},
		{"inf", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1 1 -Inf\n", "", []string{"W.mtx:3", "not finite"}},
		{"overflow", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 1\n1 1 1e999\n", "", []string{"W.mtx:3", "not finite"}},
		{"duplicate", "W.mtx", "%%MatrixMarket matrix coordinate real general\n6 6 3\n1 1 1\n2 2 1\n1 1 2\n", "", []string{"W.mtx:5", "(1, 1) given twice, first at line 3"}},
		{"symmetric both", "W.mtx", "%%MatrixMarket matrix coordinate real symmetric\n6 6 2\n2 1 1\n1 2 1\n", "", []string{"W.mtx:", "(1, 2) given twice", "symmetric"}},
		{"q short", "q.txt", "1\n2\n", "", []string{"q.txt", "2 values, want 6"}},
		{"q two per line", "q.txt", "1 2\n3\n4\n5\n6\n", "", []string{"q.txt:1", "one per line"}},
		{"q text", "q.txt", "1\n2\n3\nfour\n5\n6\n", "", []string{"q.txt:4", `"four" is not a number`}},
		{"q nan", "q.txt", "1\n2\n3\nnan\n5\n6\n", "", []string{"q.txt:4", "not finite"}},
		{"mu long", "mu.txt", "0.1\n0.2\n0.3\n", "", []string{"mu.txt", "3 values, want nc = 2"}},
		{"mu negative", "mu.txt", "0.1\n-0.2\n", "", []string{"mu.txt:2", "negative"}},
		{"mu inf", "mu.txt", "0.1\ninf\n", "", []string{"mu.txt:2", "not finite"}},
		{"cohesion short", "cohesion.txt", "1\n", "", []string{"cohesion.txt", "1 values, want nc = 2"}},
		{"cohesion negative", "cohesion.txt", "1\n-1\n", "", []string{"cohesion.txt:2", "negative"}},
		{"meta", "meta.json", "{name", "", []string{"meta.json"}},
	}
	for _, c := range cases {
		files := okFiles()
		if c.file != "" {
			files[c.file] = c.body
		}
		delete(files, c.del)
		dir := writeFiles(t, files)
		p, err := Read(dir)
		if err == nil {
			t.Errorf("%s: no error (problem %+v)", c.name, p)
			continue
		}
		for _, w := range c.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.name, err, w)
			}
		}
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing folder: error %v", err)
	}
	f := filepath.Join(writeFiles(t, okFiles()), "q.txt")
	if _, err := Read(f); err == nil || !strings.Contains(err.Error(), "not a problem folder") {
		t.Errorf("file instead of folder: error %v", err)
	}
}

// randomProblem makes a problem with random sparse N (duplicates
// included), r, μ and cohesion, with values that need all 17 digits.
func randomProblem(rng *rand.Rand, nc int, cohesion bool) *Problem {
	n := 3 * nc
	p := &Problem{Name: "random", Description: "line one\nline two", NC: nc, Q: make([]float64, n), Mu: make([]float64, nc)}
	for i := 0; i < 4*n; i++ {
		p.Entries = append(p.Entries, cpuref.Entry{Row: rng.IntN(n), Col: rng.IntN(n), Val: rng.NormFloat64() * math.Exp(10*rng.NormFloat64())})
	}
	// Diagonally dominant contact blocks (Gershgorin), as Validate wants
	// of every block.
	rowSum := make([]float64, n)
	for _, e := range p.Entries {
		if e.Row/3 == e.Col/3 {
			rowSum[e.Row] += math.Abs(e.Val)
			rowSum[e.Col] += math.Abs(e.Val)
		}
	}
	for k, v := range rowSum {
		p.Entries = append(p.Entries, cpuref.Entry{Row: k, Col: k, Val: 1 + 2*v})
	}
	for i := range p.Q {
		p.Q[i] = rng.NormFloat64() / 3
	}
	for i := range p.Mu {
		p.Mu[i] = rng.Float64()
	}
	if cohesion {
		p.Cohesion = make([]float64, nc)
		for i := range p.Cohesion {
			p.Cohesion[i] = rng.ExpFloat64()
		}
	}
	return p
}

// TestWriteReadRoundTrip: Read gives back exactly what Write wrote, with
// the duplicates summed and the entries sorted, and a stale cohesion.txt
// is removed when the problem has none.
func TestWriteReadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for trial, coh := range []bool{true, false, true} {
		p := randomProblem(rng, 1+rng.IntN(20), coh)
		if err := Write(dir, p); err != nil {
			t.Fatal(err)
		}
		got, err := Read(dir)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		mp, err := p.CCP(1)
		if err != nil {
			t.Fatal(err)
		}
		want := mp.Entries() // sorted, duplicates summed in input order
		if !slices.Equal(got.Entries, want) {
			t.Fatalf("trial %d: entries differ after the round trip", trial)
		}
		if got.NC != p.NC || !slices.Equal(got.Q, p.Q) || !slices.Equal(got.Mu, p.Mu) || !slices.Equal(got.Cohesion, p.Cohesion) {
			t.Fatalf("trial %d: vectors differ after the round trip", trial)
		}
		if got.Name != p.Name || got.Description != p.Description {
			t.Fatalf("trial %d: name %q description %q", trial, got.Name, got.Description)
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".tmp-") {
				t.Errorf("temporary file %s left behind", e.Name())
			}
		}
	}
}

func TestWriteRejectsBadProblem(t *testing.T) {
	p := randomProblem(rand.New(rand.NewPCG(3, 4)), 2, false)
	p.Mu[1] = -1
	if err := Write(t.TempDir(), p); err == nil || !strings.Contains(err.Error(), "mu[1]") {
		t.Errorf("negative mu: error %v", err)
	}
	p.Mu[1] = 0.5
	p.Q = p.Q[:5]
	if err := Write(t.TempDir(), p); err == nil || !strings.Contains(err.Error(), "q has 5 values") {
		t.Errorf("short q: error %v", err)
	}
}

// FuzzReadMatrixMarket: no input makes the reader panic, and whatever it
// accepts is in range, sorted and free of duplicates.
func FuzzReadMatrixMarket(f *testing.F) {
	f.Add(okFiles()["W.mtx"])
	f.Add("%%MatrixMarket matrix coordinate real symmetric\n6 6 3\n1 1 2\n4 1 0.5\n6 6 1\n")
	f.Add("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 7\n")
	f.Add("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n1 1 1\n")
	f.Add("%%MatrixMarket matrix coordinate real general\n999999999999 999999999999 99999999999\n")
	f.Add("%%matrixmarket MATRIX Coordinate REAL General\n\n3 3 1\n\n3 3 -0x1p-3\n")
	f.Fuzz(func(t *testing.T, s string) {
		n, es, err := ReadMatrixMarket(strings.NewReader(s), "fuzz.mtx")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.mtx") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if n < 3 || n%3 != 0 {
			t.Fatalf("accepted size %d", n)
		}
		for i, e := range es {
			if e.Row < 0 || e.Row >= n || e.Col < 0 || e.Col >= n || !finite(e.Val) {
				t.Fatalf("accepted entry %v of a %d × %d matrix", e, n, n)
			}
			if i > 0 && (es[i-1].Row > e.Row || (es[i-1].Row == e.Row && es[i-1].Col >= e.Col)) {
				t.Fatalf("entries %v, %v out of order or duplicate", es[i-1], e)
			}
		}
	})
}

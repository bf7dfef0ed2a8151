package cpuref

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// dense returns the entries as a dense n × n matrix, failing on unsorted or
// duplicate entries.
func dense(t *testing.T, es []Entry, n int) [][]float64 {
	t.Helper()
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
	}
	for i, e := range es {
		if i > 0 {
			p := es[i-1]
			if p.Row > e.Row || (p.Row == e.Row && p.Col >= e.Col) {
				t.Fatalf("entries %d and %d out of order or duplicate: (%d, %d) then (%d, %d)", i-1, i, p.Row, p.Col, e.Row, e.Col)
			}
		}
		m[e.Row][e.Col] = e.Val
	}
	return m
}

// TestEntriesAgainstSchur compares the assembled N with the columns of the
// matrix-free Schur product applied to unit vectors, on random systems
// (several contacts per body pair, fixed bodies, contacts sharing both
// bodies), and checks that it is exactly symmetric.
func TestEntriesAgainstSchur(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for trial := 0; trial < 30; trial++ {
		nb, nc := 1+rng.IntN(6), 1+rng.IntN(15)
		_, pr := randomBuilt(t, rng, nb, nc)
		n := 3 * nc
		N := dense(t, pr.(Assembler).Entries(), n)
		scale := 0.0
		for _, row := range N {
			for _, v := range row {
				scale = math.Max(scale, math.Abs(v))
			}
		}
		e, col := make(Vec, n), make(Vec, n)
		for c := 0; c < n; c++ {
			e[c] = 1
			pr.Schur(col, e)
			e[c] = 0
			for r := 0; r < n; r++ {
				// Both sides are sums of a few products of O(1) numbers
				// taken in different orders: agreement to 1e-12 of the
				// largest element.
				if math.Abs(N[r][c]-col[r]) > 1e-12*scale {
					t.Fatalf("trial %d: N[%d][%d] = %v assembled, %v from Schur", trial, r, c, N[r][c], col[r])
				}
				if N[r][c] != N[c][r] {
					t.Fatalf("trial %d: N[%d][%d] = %v ≠ N[%d][%d] = %v", trial, r, c, N[r][c], c, r, N[c][r])
				}
			}
		}
	}
}

// TestMatrixProblemEntries: a MatrixProblem gives back its matrix sorted,
// with the duplicates of the input summed, and one made from the entries of
// a contact problem computes the same products.
func TestMatrixProblemEntries(t *testing.T) {
	in := []Entry{{2, 1, 1}, {0, 0, 2}, {2, 1, 0.5}, {1, 2, -1}, {0, 2, 3}}
	mp, err := NewMatrixProblem(1, in, make([]float64, 3), []float64{0.5}, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := mp.Entries()
	want := []Entry{{0, 0, 2}, {0, 2, 3}, {1, 2, -1}, {2, 1, 1.5}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}

	rng := rand.New(rand.NewPCG(5, 8))
	b, pr := randomBuilt(t, rng, 4, 10)
	mu := make([]float64, 10)
	coh := make([]float64, 10)
	pr.Cones(mu, coh)
	mp, err = NewMatrixProblem(10, pr.(Assembler).Entries(), b.r, mu, coh, 2)
	if err != nil {
		t.Fatal(err)
	}
	x := make(Vec, 30)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	var _ engine.Problem = mp
	y1, y2 := make(Vec, 30), make(Vec, 30)
	pr.Schur(y1, x)
	mp.Schur(y2, x)
	for i := range y1 {
		// Same tolerance as TestSchurAgainstAssembled.
		if math.Abs(y1[i]-y2[i]) > 1e-12*(1+math.Abs(y1[i])) {
			t.Fatalf("row %d: matrix-free %v, assembled %v", i, y1[i], y2[i])
		}
	}
}

package fclib

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// TestFromEngine copies a problem through the engine interface and back,
// with and without cohesion, and refuses one that cannot be assembled.
func TestFromEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for _, coh := range []bool{true, false} {
		p := randomProblem(rng, 7, coh)
		mp, err := p.CCP(2)
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromEngine(mp, "copy")
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "copy" || got.NC != p.NC || !slices.Equal(got.Entries, mp.Entries()) ||
			!slices.Equal(got.Q, p.Q) || !slices.Equal(got.Mu, p.Mu) || !slices.Equal(got.Cohesion, p.Cohesion) {
			t.Errorf("cohesion %v: the copy differs from the problem", coh)
		}
	}
	mp, err := randomProblem(rng, 2, false).CCP(1)
	if err != nil {
		t.Fatal(err)
	}
	hidden := struct{ engine.Problem }{mp} // no Entries method
	if _, err := FromEngine(hidden, "x"); err == nil || !strings.Contains(err.Error(), "cannot be assembled") {
		t.Errorf("problem without Entries: error %v", err)
	}
}

// TestSymEig3Range: the extreme eigenvalues of QΛQᵀ for random rotations
// Q and eigenvalues Λ, to rounding (1e-12 of the largest magnitude:
// Jacobi rotations are backward stable, a few ulps per sweep).
func TestSymEig3Range(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for range 200 {
		l := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		if rng.IntN(4) == 0 {
			l[1] = l[0] // a repeated eigenvalue
		}
		// Q from the Gram–Schmidt of a random matrix.
		var q [3][3]float64
		for c := range 3 {
			for r := range 3 {
				q[r][c] = rng.NormFloat64()
			}
			for k := range c {
				d := q[0][c]*q[0][k] + q[1][c]*q[1][k] + q[2][c]*q[2][k]
				for r := range 3 {
					q[r][c] -= d * q[r][k]
				}
			}
			n := math.Sqrt(q[0][c]*q[0][c] + q[1][c]*q[1][c] + q[2][c]*q[2][c])
			for r := range 3 {
				q[r][c] /= n
			}
		}
		var a [3][3]float64
		for r := range 3 {
			for c := range 3 {
				for k := range 3 {
					a[r][c] += q[r][k] * l[k] * q[c][k]
				}
			}
		}
		lo, hi := symEig3Range(a)
		wlo, whi := math.Min(l[0], math.Min(l[1], l[2])), math.Max(l[0], math.Max(l[1], l[2]))
		scale := math.Max(math.Abs(wlo), math.Abs(whi))
		if math.Abs(lo-wlo) > 1e-12*scale || math.Abs(hi-whi) > 1e-12*scale {
			t.Fatalf("eigenvalues %v: range %v … %v", l, lo, hi)
		}
	}
}

// TestValidateIndefiniteBlock: a contact block with a negative eigenvalue
// is refused, naming the contact, even where the diagonal is positive; a
// semidefinite (singular) block is accepted.
func TestValidateIndefiniteBlock(t *testing.T) {
	mk := func(b [3][3]float64) *Problem {
		p := &Problem{Name: "b", NC: 2, Q: make([]float64, 6), Mu: []float64{0.5, 0.5}}
		for i := range 2 {
			for r := range 3 {
				for c := range 3 {
					v := b[r][c]
					if i == 0 {
						v = 0
						if r == c {
							v = 1
						}
					}
					if v != 0 {
						p.Entries = append(p.Entries, cpuref.Entry{Row: 3*i + r, Col: 3*i + c, Val: v})
					}
				}
			}
		}
		return p
	}
	// Eigenvalues 3 and −1 in the (n, u) plane, diagonal (1, 1, 1).
	if err := mk([3][3]float64{{1, 2, 0}, {2, 1, 0}, {0, 0, 1}}).Validate(); err == nil || !strings.Contains(err.Error(), "contact 1") ||
		!strings.Contains(err.Error(), "not positive semidefinite") {
		t.Errorf("indefinite block: error %v", err)
	}
	// Rank one: eigenvalues 2, 0, 0.
	if err := mk([3][3]float64{{1, 1, 0}, {1, 1, 0}, {0, 0, 0}}).Validate(); err != nil {
		t.Errorf("semidefinite block: %v", err)
	}
}

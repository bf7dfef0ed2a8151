//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestDiagCheck: the block diagonal's check on the device (diag_check)
// against engine's host loop: on a random scene's diagonal every row is
// positive and finite, the diagonal is cpuref's and inv is 1/g bit for
// bit (correctly rounded division: lavapipe; the NVIDIA H100 and H200
// matched such divisions in the parity tests); with bad values planted
// the check names the lowest bad row and its value, as the host loop's
// first failure.
func TestDiagCheck(t *testing.T) {
	_, cp, gp := randomTwin(t, 31, kernelScene, 0)
	p := gp.(*problem)
	n := engine.Rows(gp)
	diag, inv := gp.NewVec(n), gp.NewVec(n)
	before := p.b.d.ReadBackBytes()
	row, _, err := p.CheckBlockDiag(diag, inv)
	if err != nil || row != -1 {
		t.Fatalf("CheckBlockDiag: row %d, %v; want -1, nil", row, err)
	}
	if got := p.b.d.ReadBackBytes() - before; got != 4 {
		t.Errorf("the check read back %d bytes, want 4", got)
	}
	want := make([]float64, n)
	cd := cp.NewVec(n)
	cp.BlockDiag(cd)
	cp.Read(want, cd)
	g, gi := make([]float64, n), make([]float64, n)
	gp.Read(g, diag)
	gp.Read(gi, inv)
	for i := range want {
		if math.Float64bits(g[i]) != math.Float64bits(want[i]) {
			t.Fatalf("diag[%d] = %v, cpuref %v", i, g[i], want[i])
		}
		if q := 1 / want[i]; math.Float64bits(gi[i]) != math.Float64bits(q) {
			t.Fatalf("inv[%d] = %v, want 1/%v = %v", i, gi[i], want[i], q)
		}
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name  string
		plant map[int]float64
		row   int
	}{
		{"first row zero", map[int]float64{0: 0}, 0},
		{"last row NaN", map[int]float64{n - 1: nan}, n - 1},
		{"+Inf", map[int]float64{n / 2: inf}, n / 2},
		{"-Inf", map[int]float64{n / 3: -inf}, n / 3},
		{"lowest of several", map[int]float64{40: nan, 7: -1e-300, 5000: 0, n - 2: inf}, 7},
		{"subnormal is positive", map[int]float64{9: 5e-324, 300: -5e-324}, 300},
	} {
		vals := append([]float64(nil), want...)
		for i, v := range c.plant {
			vals[i] = v
		}
		gp.Write(diag, vals)
		row, v, err := p.checkDiag(diag, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if wv := c.plant[c.row]; row != c.row || math.Float64bits(v) != math.Float64bits(wv) {
			t.Errorf("%s: row %d value %v, want row %d value %v", c.name, row, v, c.row, wv)
		}
	}
}

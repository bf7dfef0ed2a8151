//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// sameSolve fails unless the solve g, st equals the device solve dg, dst
// bit for bit: γ, iterations, residual, projected gradient, convergence,
// objective and history (what names the other solve).
func sameSolve(t *testing.T, what string, dg []float64, dst engine.SolveStats, g []float64, st engine.SolveStats) {
	t.Helper()
	if i := enginetest.FirstDiff(dg, g); i >= 0 {
		t.Errorf("γ[%d] = %v on the device, %v %s", i, dg[i], g[i], what)
	}
	if dst.Iterations != st.Iterations || dst.Products != st.Products || dst.Residual != st.Residual || dst.Converged != st.Converged ||
		dst.ProjGrad != st.ProjGrad || math.Float64bits(dst.Objective) != math.Float64bits(st.Objective) ||
		len(dst.History) != len(st.History) {
		t.Errorf("stats %+v on the device, %+v %s", dst, st, what)
		return
	}
	for k := range st.History {
		if dst.History[k] != st.History[k] {
			t.Errorf("iteration %d: %+v on the device, %+v %s", k+1, dst.History[k], st.History[k], what)
			return
		}
	}
}

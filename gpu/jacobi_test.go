//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// hostJacobi hides the problem's SolveJacobi, so that engine.Jacobi drives
// the iterations from the host through the Problem's methods.
type hostJacobi struct{ engine.Problem }

// jacobiSubmitBound is the submits a device Jacobi solve of iter
// iterations may take: the read-back of the block diagonal
// (engine.Jacobi's, on the host), one for the power iteration when ω is
// estimated, then one submit per 16, 32, 64, 64, … iterations, counted
// generously as one per 10 iterations, plus 1.
func jacobiSubmitBound(iter int, estimate bool) int {
	b := (iter+9)/10 + 2
	if estimate {
		b++
	}
	return b
}

// TestDeviceJacobi: device Jacobi on random cone problems (the random scene
// of kernels_test.go) against the host-driven solve on the same backend and
// the solve on cpuref in the GPU's dot order, bit for bit (γ, iterations,
// residual, objective, history), with ω estimated and given, λ = 1 and
// λ < 1, for a fixed number of iterations and to a tolerance; and within
// the submit bound above (the host-driven solve takes about four submits
// per iteration).
func TestDeviceJacobi(t *testing.T) {
	tw, cp, gp := randomTwin(t, 31, 300, 0)
	r := rand.New(rand.NewPCG(31, 1))
	gamma0 := make([]float64, 3*tw.nc)
	for i := range gamma0 {
		gamma0[i] = 1e-3 * r.NormFloat64()
	}
	set := engine.DefaultSettings()
	for _, c := range []struct {
		name   string
		solver engine.Jacobi
		opt    engine.SolveOptions
	}{
		{"fixed", engine.Jacobi{}, engine.SolveOptions{MaxIter: 70, Gd: set.Gd, History: true}},
		// Jacobi is slow on this problem (residual 0.038 after 70
		// iterations): a tolerance it reaches within them.
		{"tolerance", engine.Jacobi{}, engine.SolveOptions{Tol: 0.039, MaxIter: 400, Gd: set.Gd}},
		{"omega-lambda", engine.Jacobi{Omega: 0.05, Lambda: 0.7}, engine.SolveOptions{MaxIter: 40, Gd: set.Gd, History: true}},
		{"none", engine.Jacobi{}, engine.SolveOptions{MaxIter: 0, Gd: set.Gd, History: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			solve := func(p engine.Problem, la engine.LinAlg) ([]float64, engine.SolveStats) {
				t.Helper()
				s := c.solver
				g := vecOf(la, gamma0)
				st, err := s.Solve(p, g, c.opt)
				if err != nil {
					t.Fatal(err)
				}
				return readVec(la, g), st
			}
			if err := tw.gpu.sync(); err != nil {
				t.Fatal(err)
			}
			s0 := tw.gpu.Submits()
			dg, dst := solve(gp, gp)
			submits := tw.gpu.Submits() - s0
			if c.opt.Tol > 0 && (!dst.Converged || dst.Iterations >= c.opt.MaxIter) {
				t.Errorf("%d iterations, residual %g: the tolerance %g was meant to stop the solve", dst.Iterations, dst.Residual, c.opt.Tol)
			}
			if b := jacobiSubmitBound(dst.Iterations, c.solver.Omega == 0); submits > b {
				t.Errorf("%d submits for %d iterations, over %d", submits, dst.Iterations, b)
			}
			s1 := tw.gpu.Submits()
			hg, hst := solve(hostJacobi{gp}, gp)
			sameSolve(t, "driven from the host", dg, dst, hg, hst)
			if goFusesMultiplyAdd {
				t.Log("bit-identity with cpuref not checked: Go may fuse multiply-adds on this target")
			} else {
				og, ost := solve(gpuOrder{cp}, cp)
				sameSolve(t, "on cpuref with the GPU's dot order", dg, dst, og, ost)
			}
			t.Logf("%d iterations, residual %.3g: %d submits on the device, %d driven from the host",
				dst.Iterations, dst.Residual, submits, tw.gpu.Submits()-s1)
		})
	}
}

// A device Jacobi solve that diverges (ω far past 2/ρ(BN)) fails with
// engine.Jacobi's error, at the iteration where the host-driven solve
// fails.
func TestDeviceJacobiDiverges(t *testing.T) {
	tw, _, gp := randomTwin(t, 32, 300, 0)
	gamma0 := make([]float64, 3*tw.nc)
	for i := range gamma0 {
		gamma0[i] = 1
	}
	s := engine.Jacobi{Omega: 1.99}
	opt := engine.SolveOptions{MaxIter: 5000, Gd: engine.DefaultSettings().Gd}
	_, derr := s.Solve(gp, vecOf(gp, gamma0), opt)
	_, herr := s.Solve(hostJacobi{gp}, vecOf(gp, gamma0), opt)
	if derr == nil || herr == nil || derr.Error() != herr.Error() || !strings.Contains(derr.Error(), "diverged") {
		t.Errorf("device: %v\nhost:   %v\nwant the same divergence error", derr, herr)
	}
}

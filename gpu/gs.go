//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// Device Gauss–Seidel: engine.GaussSeidel's iterations with the solver's
// scalars on the device, as the device Jacobi solver keeps them
// (jacobi.go), so that many sweeps go into one submit instead of a submit
// and a read-back for the residual of every sweep. One iteration is
// recorded as a block, every kernel gated on the phase being "running":
//
//	gs_colour_sweep (per colour),
//	gs_sweep:                   problem.Sweep's updates of γ (recordSweep)
//	apgd_body_impulse,
//	apgd_contact_velocity:      Nγ
//	apgd_residual:              γ − Π(γ − g_d(Nγ + r))
//	apgd_dot (mode 4), apgd_sum: ‖…‖², γᵀNγ, rᵀγ
//	jacobi_scalar:              residual, objective, history (step ω); done
//	                            when the residual is below the tolerance or
//	                            MaxIter is reached
//
// The sweep needs dv = M⁻¹Dγ, which the block's product leaves for the
// next block (and the start's product for the first): problem.Sweep's own
// body_impulse, which the host-driven loop runs before each sweep,
// computes the same values again (the device takes no rolling rows,
// engine's deviceTakes, and apgd_body_impulse and body_impulse share
// lib/body_impulse.glsl), so a block skips it. The blocks recorded after
// the solve stopped return at once. The contacts are coloured once,
// before the blocks are recorded, as the first Sweep after Collide does.
// Every kernel computes what engine's host loop (its iterate: Sweep, Schur,
// progress) computes on this backend, bit for bit, so the device solve
// returns the host-driven solve's γ, iterations, residual, objective and
// history exactly (TestDeviceGS).

// SolveGS implements engine.DeviceGS (see above), recorded into the open
// batch; the last iterate is left in gamma.
func (p *problem) SolveGS(gamma, diag engine.Vec, omega, lambda float64, opt engine.SolveOptions) (engine.SolveStats, error) {
	const name = "gs"
	var st engine.SolveStats
	gv, dg := p.contactVec("SolveGS", gamma), p.contactVec("SolveGS", diag)
	n := gv.n
	if p.Err() != nil {
		return st, p.Err()
	}
	if n == 0 {
		return st, nil
	}
	var scalar *Kernel
	ds, err := newDevSolve(p, n, apgdScalarBytes, opt, kernelSpec{&scalar, shaders.JacobiScalar})
	if err != nil {
		return st, err
	}
	defer ds.release()
	if _, err := p.sweepReady(); err != nil {
		return st, err
	}
	// The sweep starts from dv = M⁻¹Dγ, which the product before it (the
	// start's Schur, then each iteration's) left in b.dv for the same γ:
	// problem.Sweep's own body impulse would compute it again.
	return ds.iterate(name, scalar, gv, omega, func(_, _ *Vec, run uint32) {
		p.recordSweep(gv, dg, omega, lambda, ds.s, run)
	})
}

var _ engine.DeviceGS = (*problem)(nil)

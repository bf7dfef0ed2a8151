//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// Device PCG: the preconditioned conjugate gradients of PDIP's Newton
// systems (engine's pdipCG.solve) with their scalars on the device, so that
// an iteration neither reads the direction and the residual back nor
// writes H d and P⁻¹r, as PDIP's own loop does on a backend without
// DevicePCG (two round trips of 3n_c values and two submits for the dot
// products per iteration). The system's blocks (engine.PCGSystem) are
// written once per solve. One iteration is recorded as a block, every
// kernel run only while the phase (shaders/lib/pcg_scalars.glsl) is 0:
//
//	apgd_body_impulse,
//	apgd_contact_velocity:  q = N d
//	pdip_cg 1:              q = (1/s_N)q, masked, + H d
//	apgd_dot 3, apgd_sum:   dᵀq
//	pdip_cg_scalar 1:       α = rᵀz/dᵀq; done at dᵀq ≤ 0 (x = z at the first)
//	pdip_cg 2:              x += αd, r −= αq, z = P⁻¹r
//	apgd_dot 3, apgd_sum:   rᵀz
//	pdip_cg_scalar 2:       β, iter++; done at the tolerance or the budget
//	pdip_cg 3:              d = z + βd
//
// after pdip_cg 0 (x = 0, r = b, z = P⁻¹r, d = z), rᵀz and pdip_cg_scalar
// 0. Blocks go into submits as the other device solvers' do (runBlocks,
// the second submit's recording run again), the first submit sized by the
// last system's iterations. Every kernel computes what
// engine's loop computes with this backend's LinAlg and Problem, bit for
// bit, so PDIP returns the same γ with and without it (TestDevicePCG).

// The scalar slots of the device PCG solve beyond apgd.go's layout.
const (
	pcgValue = 4   // float64: the value that ended the solve
	pcgFlags = 108 // uint32: 1 when x = z
)

// SolvePCG implements engine.DevicePCG (see above).
func (p *problem) SolvePCG(x, bv engine.Vec, sys engine.PCGSystem) (engine.PCGEnd, error) {
	var end engine.PCGEnd
	xv, rhs := p.contactVec("SolvePCG", x), p.contactVec("SolvePCG", bv)
	if err := p.Err(); err != nil {
		return end, err
	}
	b := p.b
	n, nc, nj := xv.n, b.nc, b.jt.Rows
	if len(sys.H) != 7*nc || len(sys.Prec) != 6*nc || len(sys.HJ) != nj || len(sys.PJ) != nj {
		return end, fmt.Errorf("gpu: SolvePCG: blocks of %d, %d, %d and %d values for %d contacts and %d joint rows",
			len(sys.H), len(sys.Prec), len(sys.HJ), len(sys.PJ), nc, nj)
	}
	if n == 0 || sys.MaxIter <= 0 {
		return end, fmt.Errorf("gpu: SolvePCG: %d rows, at most %d iterations", n, sys.MaxIter)
	}
	var vk, sk *Kernel
	ds, err := newDevSolve(p, n, apgdScalarBytes, engine.SolveOptions{MaxIter: sys.MaxIter}, // phase 0: running
		kernelSpec{&vk, shaders.PdipCg}, kernelSpec{&sk, shaders.PdipCgScalar})
	if err != nil {
		return end, err
	}
	defer ds.release()
	r, z, d, q := p.devVec(1, n), p.devVec(2, n), p.devVec(3, n), p.devVec(4, n)
	blk := p.devVec(5, 13*nc+2*nj)
	host := append(append(append(append(b.pcgHost[:0], sys.H...), sys.Prec...), sys.HJ...), sys.PJ...)
	b.pcgHost = host
	p.Write(blk, host)
	mask, masked := xv, uint32(0) // bound, not read, when unmasked
	if sys.Mask != nil {
		mask, masked = p.contactVec("SolvePCG", sys.Mask), 1
	}
	if err := p.Err(); err != nil {
		return end, err
	}
	maxIter := uint32(min(sys.MaxIter, 1<<32-1))
	run := gate(apgdStart)
	vec := func(mode uint32) {
		p.record(vk, p.groupsRows(vk), shaders.PdipCgArgs{InvSN: sys.InvSN, NC: uint32(nc), Nj: uint32(nj), Mode: mode, Masked: masked},
			xv.buf, r.buf, z.buf, d.buf, q.buf, rhs.buf, blk.buf, mask.buf, b.mu, ds.s)
	}
	dot := func(mode uint32, u, v *Vec) {
		vec(mode)
		ds.dots(3, 1, run, u, v, u, u, u) // the first pair: uᵀv, LinAlg.Dot's
		p.record(sk, [3]uint32{1, 1, 1}, shaders.PdipCgScalarArgs{StopFactor: sys.StopFactor, Mode: mode, MaxIter: maxIter}, ds.s)
	}
	dot(0, r, z)
	// A Newton system takes about as many iterations as the last one (a
	// few early in a pile's fall, thousands in a settled bed): as many
	// blocks, and two more, go into the first submit (apgdBlocks at most,
	// and for the first system), so that a short solve does not run a
	// dozen blocks that return at once.
	first := apgdBlocks
	if b.pcgLast > 0 {
		first = min(apgdBlocks, b.pcgLast+2)
	}
	sc, err := runBlocks(p, ds.s, sys.MaxIter, first, "pdip: PCG", func() {
		ds.schur(q, d, q, rhs, run, false)
		dot(1, d, q)
		dot(2, r, z)
		vec(3)
	}, nil, true)
	if err != nil {
		return end, err
	}
	if sc.u32(pcgFlags)&1 != 0 {
		p.Copy(x, z)
	}
	end.Iterations, end.Fail, end.Value = int(sc.u32(sIter)), int(sc.u32(sErr)), sc.f64(pcgValue)
	b.pcgLast = end.Iterations
	return end, p.Err()
}

var _ engine.DevicePCG = (*problem)(nil)

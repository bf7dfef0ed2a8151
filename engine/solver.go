package engine

import (
	"fmt"
	"sort"
	"strings"
)

// SolveOptions control one solve.
type SolveOptions struct {
	// Tol is the tolerance τ on the residual of eq. 25 (0: run MaxIter).
	Tol float64
	// MaxIter caps the iterations.
	MaxIter int
	// Gd is g_d of eq. 25.
	Gd float64
	// History records one IterRecord per iteration.
	History bool
}

// IterRecord is one iteration of a solve.
type IterRecord struct {
	Iter      int
	Residual  float64 // r of eq. 25 at this iterate
	Objective float64 // ½γᵀNγ + rᵀγ at this iterate
	Step      float64 // step size t_k (solver-specific meaning)
	Restart   bool    // an adaptive restart happened
}

// SolveStats report a solve.
type SolveStats struct {
	Iterations int
	// Residual is r of eq. 25 of the returned γ,
	// ‖γ − Π(γ − g_d(Nγ + r))‖ / (n·g_d), n = 3·nc plus the joint rows.
	Residual float64
	// ProjGrad is the unscaled projected-gradient norm
	// ‖γ − Π(γ − g_d(Nγ + r))‖ / g_d = n·Residual.
	ProjGrad float64
	// Objective is ½γᵀNγ + rᵀγ of the returned γ, with the problem's r.
	Objective float64
	// Converged is true when Residual < Tol.
	Converged bool
	// Products is the number of products with N the solve took (the
	// measure of its work that does not depend on the machine), where the
	// solver counts them: apgd and apgd-ar, on every backend (an
	// iteration's trial and each step-size halving take one, the start
	// two, apgd-ar's final objective one); 0 for the other solvers.
	Products int
	History  []IterRecord
}

// Record appends r to the history when opt asks for one.
func (st *SolveStats) Record(opt SolveOptions, r IterRecord) {
	if opt.History {
		st.History = append(st.History, r)
	}
}

// Solver solves a Problem. gamma holds the initial guess on entry and the
// solution on return.
type Solver interface {
	Name() string
	Solve(p Problem, gamma Vec, opt SolveOptions) (SolveStats, error)
}

// The solvers call the Device interfaces below for problems without joint
// rows (see JointRows), and for problems with joint rows whose Device
// iterations take them too (DeviceJoints), never for problems with
// rolling rows (RollingRows); otherwise they run their own iterations on
// the Problem's LinAlg.
//
// DeviceAPGD is implemented by a Problem whose backend runs the iterations
// of APGD (and of its anti-relaxed variant) itself, with the solver's
// scalars kept on the device, so that the host need not read back every
// dot product. SolveAPGD must compute what APGD.Solve computes on the
// Problem's own LinAlg: the same iteration sequence, stopping test, best
// iterate, statistics and errors. APGD.Solve calls it for MaxIter > 0.
type DeviceAPGD interface {
	SolveAPGD(gamma Vec, opt SolveOptions, antiRelax bool) (SolveStats, error)
}

// DeviceJacobi is implemented by a Problem whose backend runs the
// iterations of Jacobi itself, with the scalars kept on the device.
// Jacobi.Solve calls it once it has ω, λ and inv = B (1/g_i on the rows of
// contact i); SolveJacobi projects gamma and must then compute what
// Jacobi.Solve's own iterations compute on the Problem's LinAlg: the same
// iterates, stopping test, statistics, history and errors, leaving the
// last iterate in gamma.
//
// JacobiRho runs the power iteration of Jacobi's estimate of ρ(BN) on the
// device: steps times w = G v, a = vᵀw, w = N v, ρ = vᵀw / a, v = B w,
// v = v/√(vᵀv) (G = diag(g_i) in diag, B in inv), from the start already in
// v, with the LinAlg's operations and values, and returns the last ρ.
type DeviceJacobi interface {
	SolveJacobi(gamma, inv Vec, omega, lambda float64, opt SolveOptions) (SolveStats, error)
	JacobiRho(diag, inv, v, w Vec, steps int) (float64, error)
}

// DeviceBlockDiag is implemented by a Problem whose backend checks the
// block diagonal on its device, so that Gauss–Seidel, Jacobi and SPG read
// back a row index instead of the diagonal. CheckBlockDiag sets diag as
// BlockDiag does and, unless inv is nil, inv to 1/diag element by element
// (Go's 1/v); it returns the lowest row whose value is not positive and
// finite, with that value, or −1 when every row is.
type DeviceBlockDiag interface {
	CheckBlockDiag(diag, inv Vec) (row int, value float64, err error)
}

// DeviceGS is implemented by a Problem whose backend runs the iterations
// of Gauss–Seidel itself, with the scalars kept on the device.
// GaussSeidel.Solve calls it once it has ω, λ and diag = g_i on the rows
// of contact i (N_rr on joint row r), when its own loop would read a
// residual every iteration (opt.Tol > 0 or opt.History); SolveGS projects
// gamma and must then compute what GaussSeidel.Solve's own iterations
// (Sweep, then Schur and the residual and objective of the new iterate)
// compute on the Problem: the same iterates, stopping test, iterations,
// residual, objective, history (step ω) and errors, leaving the last
// iterate in gamma.
type DeviceGS interface {
	SolveGS(gamma, diag Vec, omega, lambda float64, opt SolveOptions) (SolveStats, error)
}

// DeviceSPG is implemented by a Problem whose backend runs the iterations
// of SPG (P-SPG-FB) itself, with the scalars kept on the device. SPG.Solve
// calls it once it has the preconditioner (diag = P, inv = P⁻¹);
// SolveSPG must compute what SPG.Solve's own iterations compute on the
// Problem's LinAlg: the same iterates, line searches, fall-back iterate,
// statistics, history and errors, leaving x_FB in gamma.
type DeviceSPG interface {
	SolveSPG(gamma, diag, inv Vec, opt SolveOptions) (SolveStats, error)
}

// DevicePCG is implemented by a Problem whose backend solves PDIP's
// Newton systems (M N̂ M + H) x = b itself (N̂ = N·InvSN, M = diag(Mask),
// H and the block-Jacobi preconditioner as in sys): preconditioned
// conjugate gradients from x = 0 with the scalars kept on the device, so
// that an iteration reads nothing back and writes nothing, where PDIP's
// own loop reads the direction and the residual back and writes H d and
// P⁻¹r every iteration. SolvePCG must compute what that loop computes on
// the Problem's LinAlg: the same iterates, stopping test and end, leaving
// x as the loop leaves it (z, the preconditioned right-hand side, when the
// first curvature is not positive), and report a value that is not finite
// in PCGEnd instead of an error. PDIP calls it when N is symmetric (its
// BiCGSTAB for a non-symmetric N stays on the host).
type DevicePCG interface {
	SolvePCG(x, b Vec, sys PCGSystem) (PCGEnd, error)
}

// PCGSystem is a Newton system of PDIP for DevicePCG, in host slices that
// the backend copies: per contact i, H_i as D_i's diagonal (3), f_i and
// g_i (3) in H[7i:7i+7], and the LDLᵀ factors of g_i I + H_i (the three
// pivots, then L_10, L_20, L_21) in Prec[6i:6i+6] (engine's pdipWork.h
// and pc; a contact with μ_i = 0 uses H[7i] and Prec[6i] only); per joint
// row r, H_rr in HJ[r] and g_r + H_rr in PJ[r].
type PCGSystem struct {
	H, Prec    []float64
	HJ, PJ     []float64
	InvSN      float64 // 1/s_N
	Mask       Vec     // zero on the rows that are not unknowns; nil: none
	MaxIter    int     // iterations at most
	StopFactor float64 // stop once rᵀz ≤ StopFactor·r₀ᵀz₀
}

// PCGEnd says how a DevicePCG solve ended: after Iterations iterations,
// with Fail one of the PCG constants below (0: converged, out of
// iterations, or stopped at a curvature dᵀ(N̂ + H)d ≤ 0) and Value the
// number that ended it (the curvature or the value not finite).
type PCGEnd struct {
	Iterations int
	Fail       int
	Value      float64
}

// PCGEnd.Fail: which value was not finite.
const (
	PCGRHS       = 1 // r₀ᵀz₀ (the right-hand side)
	PCGCurvature = 2 // dᵀ(N̂ + H)d
	PCGResidual  = 3 // rᵀz
)

type solverInfo struct {
	doc string
	new func() Solver
}

var solvers = map[string]solverInfo{
	"apgd":    {"accelerated projected gradient descent (APGD paper, Algorithm 1)", func() Solver { return &APGD{} }},
	"apgd-ar": {"APGD with anti-relaxation (anti-relaxation paper, section 2.3)", func() Solver { return &APGD{AntiRelax: true} }},
	"pdip":    {"primal-dual interior point method with PCG Newton steps (PDIP paper)", func() Solver { return &PDIP{} }},
	"gs":      {"projected Gauss–Seidel (APGD paper, Algorithm 2)", func() Solver { return &GaussSeidel{} }},
	"jacobi":  {"projected Jacobi (APGD paper, Algorithm 2 without line 6)", func() Solver { return &Jacobi{} }},
	"spg":     {"preconditioned spectral projected gradient with fall-back (SPG paper, P-SPG-FB)", func() Solver { return &SPG{} }},
}

// Solvers lists the solver names with a line of description each.
func Solvers() []string {
	names := make([]string, 0, len(solvers))
	for n := range solvers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n + ": " + solvers[n].doc
	}
	return out
}

// NewSolver returns the solver with the given name.
func NewSolver(name string) (Solver, error) {
	s, ok := solvers[name]
	if !ok {
		names := make([]string, 0, len(solvers))
		for n := range solvers {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown solver %q (have %s)", name, strings.Join(names, ", "))
	}
	return s.new(), nil
}

// DeviceJoints is implemented by a Problem whose Device iterations
// (DeviceAPGD, DeviceJacobi, DeviceGS, DeviceSPG) take its joint rows too:
// the same joint-row operations as the solvers' own iterations (their
// projections onto the rows' intervals, the rows of N, the
// anti-relaxation left to the contacts).
type DeviceJoints interface {
	DeviceJoints() bool
}

// deviceTakes reports whether p's Device iterations may solve it: it has
// no rolling rows (RollingRows; no Device iterations take them), and no
// joint rows or Device iterations that take them (DeviceJoints).
func deviceTakes(p Problem) bool {
	if rollingOf(p) > 0 {
		return false
	}
	if jointRowsOf(p) == 0 {
		return true
	}
	d, ok := p.(DeviceJoints)
	return ok && d.DeviceJoints()
}

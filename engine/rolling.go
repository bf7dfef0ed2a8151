package engine

import "errors"

// ErrRollingPDIP is returned (wrapped) by PDIP for a problem with rolling
// rows: its barrier covers the friction cones and the joint rows'
// intervals, not the rolling set (a second-order cone ‖(γ_ru, γ_rw)‖ ≤
// μ_r γ_n coupled to the contact's γ_n, plus the two linear inequalities
// |γ_s| ≤ μ_s γ_n). Adding those barriers would not be enough: an
// interior point method minimises the objective over the composite cone,
// whose minimiser is the relaxed solution (its optimality conditions give
// the contact a separating normal velocity μ_r‖ω_r‖ + μ_s|ω_s|, the
// rolling analogue of the sliding ball's hop), not the fixed point of the
// projection the other solvers converge to (see RollingRows and SPG). Use
// apgd, apgd-ar, gs or jacobi (or spg, see SPG).
var ErrRollingPDIP = errors.New("pdip does not take rolling or spinning friction yet (its barrier covers friction cones and joint intervals only); use apgd, apgd-ar, spg, gs or jacobi")

// RollingRows is implemented by a Problem whose contacts may have rolling
// and spinning friction (Tasora & Anitescu 2013; Project Chrono's
// ChConstraintRollingNormal and ChConstraintRollingTangential). Each
// contact with a nonzero combined rolling or spinning coefficient
// (Contacts.HasRollingRows) has three rolling rows, a block placed after
// the joint rows:
//
//	γ = [3·nc contact rows | nj joint rows | 3·nr rolling rows],
//
// rolling block k at 3nc + nj + 3k, for contact RollingContact(k), blocks
// in contact order. Its rows act on angular velocities only: the relative
// angular velocity ω_B − ω_A (world frame) along the contact's tangents u
// and w (two rolling rows, γ_ru and γ_rw) and along its normal n (the
// spinning row, γ_s); the impulse applies the torque (γ_ru u + γ_rw w +
// γ_s n) to B and its opposite to A. Its set is the composite cone
//
//	‖(γ_ru, γ_rw)‖ ≤ μ_r γ_n,  |γ_s| ≤ μ_s γ_n,
//
// with γ_n the contact's normal impulse. Project projects as Project
// Chrono does, contact by contact: first the contact's three rows onto its
// friction cone (unchanged), then, with that projected γ_n, (γ_ru, γ_rw)
// onto the disc of radius μ_r·max(γ_n, 0) and γ_s onto the interval
// [−μ_s max(γ_n, 0), μ_s max(γ_n, 0)]. The cohesion impulse is not added to
// γ_n there (as Chrono's rolling constraint reads the normal multiplier
// without it): a contact that pulls (γ_n < 0) carries no rolling or
// spinning torque. The result always lies in the composite cone, and a
// point inside it is left as it is; unlike Chrono's current
// ChConstraintRollingNormal::Project, γ_n is not moved by the rolling and
// spinning parts, so that the sliding cone stays satisfied.
//
// On the rolling rows, BlockDiag writes the block's tr(N_kk)/3 (its own,
// as joint rows have theirs: a multiple of the identity maps the disc and
// the interval to a disc and an interval), Sweep updates each block after
// all contacts and joint rows (so that it sees its contact's γ_n of the
// same sweep), AntiRelax leaves them at r, and Cones covers contacts only.
// A Problem without the method has no rolling rows. The solvers' Device
// iterations are not used for problems with rolling rows: the solvers run
// their own iterations on the Problem's LinAlg. PDIP does not take them
// (ErrRollingPDIP).
type RollingRows interface {
	// Rolling returns nr, the number of contacts with rolling rows.
	Rolling() int
	// RollingContact returns the contact of rolling block k, 0 ≤ k < nr.
	RollingContact(k int) int
}

// rollingOf returns the number of rolling blocks of p (3 rows each).
func rollingOf(p Problem) int {
	if r, ok := p.(RollingRows); ok {
		return r.Rolling()
	}
	return 0
}

// RollingBlocks returns nr, the number of rolling blocks of p (0 without
// RollingRows); they take the last 3·nr rows of γ.
func RollingBlocks(p Problem) int { return rollingOf(p) }

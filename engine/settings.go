package engine

import (
	"fmt"
	"math"
)

// Settings control the time step and the solver. The zero value is not
// usable; start from DefaultSettings.
type Settings struct {
	// Dt is the time step h (s).
	Dt float64 `json:"dt"`
	// Solver names the CCP solver (see Solvers).
	Solver string `json:"solver"`
	// Tol is the tolerance τ on the residual r of eq. 25 of the APGD paper;
	// 0 runs every solver to MaxIter.
	Tol float64 `json:"tol"`
	// MaxIter caps the solver iterations per step.
	MaxIter int `json:"max_iter"`
	// Gd is the small step g_d of the residual of eq. 25.
	Gd float64 `json:"gd"`
	// WarmStart starts each solve from the previous step's impulses of the
	// contacts that persist (matched by body pair and contact index).
	WarmStart bool `json:"warm_start"`
	// Envelope δ (m): contacts are reported while the gap Φ < δ, so that
	// contacts about to close enter the problem (the set A(q, δ)).
	Envelope float64 `json:"envelope"`
	// BinSize is the broadphase bin edge (m); 0 picks twice the median
	// bounding diameter of the movable bodies plus the envelope.
	BinSize float64 `json:"bin_size"`
	// MaxRecoverySpeed caps the speed at which a penetration is pushed out,
	// b_i = max(Φ_i/h, −MaxRecoverySpeed) (m/s); 0 means no cap, as in the
	// paper.
	MaxRecoverySpeed float64 `json:"max_recovery_speed"`
	// Workers is the number of goroutines of the CPU path (0: GOMAXPROCS).
	// Results do not depend on it.
	Workers int `json:"workers"`
	// Precision is how the APGD solvers store their work vectors:
	// PrecisionDouble ("double", or "": float64) or PrecisionMixed
	// ("mixed": float32 storage, float64 arithmetic; see PrecisionMixed).
	Precision string `json:"precision"`
}

// The values of Settings.Precision.
const (
	// PrecisionDouble keeps every vector in float64.
	PrecisionDouble = "double"
	// PrecisionMixed stores the contacts' Jacobian blocks D_k and the
	// work vectors of apgd and apgd-ar (γ_k, γ_{k+1}, y_k, g, N y_k, N γ_k,
	// N γ_{k+1}, the best iterate and the residual vector) as float32,
	// rounded to nearest where each is stored, and does all arithmetic in
	// float64: products, projections, dot products and the solver's
	// scalars; r is formed from D as rounded. r, μ, the cohesion and the
	// bodies' state stay float64. On the Vulkan backend it halves what an
	// iteration reads and writes of those arrays (gpu/traffic.go: 1138 →
	// 694 B per contact-iteration of a settled bed) and their memory; the
	// CPU path computes the same values (it rounds where the device
	// stores: cpuref/precision.go) as the oracle of the device's, and
	// saves nothing. A model with joints or rolling friction
	// is solved in float64 on both backends (MixedFor; MixedNotes says so,
	// and what float32 does to a tolerance).
	PrecisionMixed = "mixed"
)

// Mixed reports whether s asks for mixed precision.
func (s *Settings) Mixed() bool { return s.Precision == PrecisionMixed }

// MixedFor reports whether the backends solve model m in mixed precision:
// s asks for it and m has neither joints nor rolling friction. (The CPU
// path solves problems with joint or rolling rows with engine.APGD's own
// iterations, which have no float32 storage to emulate; the device takes
// the same float64 solve, so that both backends compute the same values.)
func (s *Settings) MixedFor(m *Model) bool {
	return s.Mixed() && len(m.Joints) == 0 && !m.HasRolling()
}

// MixedNotes returns the lines that run prints when s asks for mixed
// precision: that m is solved in float64 (MixedFor), or that a tolerance
// may not be reached. The residual of eq. 25, ‖γ − Π(γ − g_d(Nγ + r))‖
// / (3n_c g_d), divides differences of impulses by g_d, and float32
// iterates resolve the direction of a sliding contact's friction impulse
// to about 2⁻²⁴ rad only: each such contact adds about
// 2⁻²⁴|γ_t|/(3n_c g_d) to it (in quadrature), a floor under which the
// residual scatters while the objective still falls. On the fill scene
// (tol 1e-6, max_iter 500) that floor is near 2e-5, and most solves run
// to max_iter (docs/validation.md, "Mixed precision against float64").
func MixedNotes(m *Model, s *Settings) []string {
	if !s.Mixed() {
		return nil
	}
	if !s.MixedFor(m) {
		return []string{"settings.precision \"mixed\": this model has joints or rolling friction, so its solves are float64 (mixed precision covers contacts without rolling friction)"}
	}
	if s.Tol > 0 {
		return []string{fmt.Sprintf("settings.precision \"mixed\" with tol = %g: float32 iterates floor the residual of eq. 25 (each sliding contact adds about 2⁻²⁴|γ_t|/(3n_c g_d): its friction direction is resolved to 2⁻²⁴ rad; near 2e-5 on the fill scene), so a tolerance below that floor runs each solve to max_iter; mixed precision suits tol 0 with a fixed max_iter", s.Tol)}
	}
	return nil
}

// DefaultSettings are the settings a scene starts from.
func DefaultSettings() Settings {
	return Settings{
		Dt:      0.01,
		Solver:  "apgd",
		Tol:     1e-6,
		MaxIter: 500,
		Gd:      1e-6,
		// Warm start cuts the iterations to tol 1e-6 (max 1000) on the
		// settle scene (n = 1000, t = 1–2 s) from 158 to 116 per step and on
		// the pressure scene (n = 1000, 1000 kg slab, t = 2–4 s) from 938
		// (160 of 200 steps at the cap) to 48, with the same residuals and
		// heights.
		WarmStart: true,
		// Envelope 0 means automatic: 5% of the smallest bounding radius
		// of the movable bodies (see Sim).
		Envelope:  0,
		Precision: PrecisionDouble,
	}
}

// Validate names the first setting that is out of range.
func (s *Settings) Validate() error {
	bad := func(name string, v float64) bool {
		return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (name == "dt" && v == 0)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"dt", s.Dt}, {"tol", s.Tol}, {"gd", s.Gd}, {"envelope", s.Envelope}, {"bin_size", s.BinSize}, {"max_recovery_speed", s.MaxRecoverySpeed}} {
		if bad(f.name, f.v) {
			if f.name == "dt" {
				return fmt.Errorf("settings: dt = %v must be positive and finite", f.v)
			}
			return fmt.Errorf("settings: %s = %v must be ≥ 0 and finite", f.name, f.v)
		}
	}
	if s.Gd == 0 {
		return fmt.Errorf("settings: gd must be positive")
	}
	if s.MaxIter < 1 {
		return fmt.Errorf("settings: max_iter = %d must be ≥ 1", s.MaxIter)
	}
	if s.Workers < 0 {
		return fmt.Errorf("settings: workers = %d must be ≥ 0", s.Workers)
	}
	if _, err := NewSolver(s.Solver); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	switch s.Precision {
	case "", PrecisionDouble:
	case PrecisionMixed:
		if s.Solver != "apgd" && s.Solver != "apgd-ar" {
			return fmt.Errorf("settings: precision %q is for the solvers apgd and apgd-ar, not %s", s.Precision, s.Solver)
		}
	default:
		return fmt.Errorf("settings: precision %q is not %q or %q", s.Precision, PrecisionDouble, PrecisionMixed)
	}
	return nil
}

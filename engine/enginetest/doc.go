// Package enginetest is the conformance suite every engine.Backend runs,
// in the manner of gonum's lapack/testlapack and Go's
// crypto/internal/cryptotest: exported test bodies that take the backend
// under test (an Impl) and run as its subtests. engine's solvers are the
// reference; a backend's kernels, and the fused solvers that run engine's
// iterations without the host (engine.DeviceAPGD, DeviceJacobi,
// DeviceGS, DeviceSPG; cpuref's fused APGD), are checked against it.
//
//	func TestEngineConformance(t *testing.T) {
//		enginetest.Run(t, enginetest.Impl{Name: "cpu", New: ..., Fused: []string{"apgd", "apgd-ar"}})
//	}
//
// Kernels builds seeded random scenes (RandomModel: spheres, ellipsoids,
// boxes, a plane and a fixed box; frictionless, rough and cohesive
// materials, so that μ = 0, cohesion on and cohesion off all occur) in the
// backend itself (Load, Collide, Build) and checks each Problem method
// against a dense reference assembled from the model, the backend's
// contacts (ReadContacts) and state (ReadState), sharing no code with any
// backend: Schur against N = DᵀM⁻¹D, BlockDiag against tr(N_ii)/3, R
// against b + DᵀM⁻¹k, Cones, Project (cone feasibility, idempotence, its
// exact branches), AntiRelax and Sweep. Tolerances are bounds in Higham's
// γ_k = ku/(1 − ku) relative to the magnitudes that flow into a result
// (|D|ᵀM⁻¹|D||x| for Schur), with the number of roundings k stated where
// it is set; results an implementation cannot round (a point inside its
// cone, the apex, the copied rows of AntiRelax, μ_i and h·ĉ_i) are
// compared bit for bit, and so is every method against itself on the same
// input (backends are deterministic).
//
// Solvers runs every solver of engine.Solvers, and Jacobi and
// Gauss–Seidel with a given ω and λ, on a larger random scene (about 4500
// contacts): the backend's path against engine's host-driven iterations
// on the same Problem (the Problem wrapped so that the Device*
// assertions fail), bit for bit, as the Device* interfaces require: γ,
// iterations, residual, projected gradient, objective, convergence, every
// history record and error messages. Cases: a fixed number of iterations,
// none, tolerances that stop at a known iteration, a guess with +Inf, and
// a divergent Jacobi step; invariants of the result: γ in its cones, the
// statistics those of γ (eq. 25 of the APGD paper), the objective below
// the projected guess's.
//
// Where Impl.Twin is set (the Vulkan backend: cpuref with its dot
// products in the GPU's order), every kernel and every solve must also
// equal the twin's bit for bit; where Impl.Submits is set, a fused solve
// is held to one round trip to the device per 10 iterations plus a few.
//
// Whole steps are not here: tests/ runs the validation scenes on every
// backend, and gpu's TestSceneStep and TestSolversMatchCPU compare whole
// steps with cpuref bit for bit.
//
// A new backend is covered by a test in its package that calls Run with
// an Impl: New returns a backend or, where none can be made on this
// machine, skips unless the variable that marks a machine that must have
// it is set (GPUSIM_REQUIRE_VULKAN=1 for Vulkan), where it fails; Fused
// lists the solvers its Problem runs itself, and the suite fails when a
// Problem has such a method that is not listed, or lacks a listed one.
// It must use cpuref.TangentBasis's contact frame, as the reference does.
//
// A new solver is covered once it is registered with engine.NewSolver:
// Solvers runs everything engine.Solvers lists (give it an entry in
// fixedIters, else it runs 50 iterations). A new fused interface
// (engine.DeviceX) needs its name in fusedOf and Impl.Fused, and its
// submit allowance in submitBound.
package enginetest

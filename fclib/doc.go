// Package fclib reads, writes, solves and measures standalone
// cone-complementarity problems
//
//	min ½γᵀNγ + rᵀγ   subject to  ‖(γ_u, γ_w)‖ ≤ μ_i (γ_n + c_i), i = 1…nc,
//
// stored as folders in the plain-text format of shared/fclib (see its
// README), the layout of FCLib, the collection of frictional-contact
// problems on which solvers of this kind are compared (hence the
// package's name):
//
//   - W.mtx: N (FCLib's Delassus matrix W), Matrix Market
//     "coordinate real general" (or "symmetric", the other triangle implied),
//     1-based indices, 3nc × 3nc, contact i at rows 3i, 3i+1, 3i+2 as
//     (normal, tangent u, tangent w);
//   - q.txt: r (FCLib's q, u = Nγ + r), 3nc values, one per line;
//   - mu.txt: the friction coefficients μ_i, nc values, one per line;
//   - cohesion.txt (optional, gpusim's extension): the cohesion impulses
//     c_i ≥ 0 (N·s), nc values; absent means zero;
//   - meta.json (optional): name and description; Write adds
//     number_of_contacts, n, nnz and source "gpusim".
//
// Problems come from the FCLib collection or from a scene of this project
// (gpusim run --dump-problem). Measures computes, in Go, every number that
// shared/fclib/check.py prints for a candidate γ.
//
// Solve runs one of the engine's solvers (engine.Solvers) on a problem
// from γ₀ = 0 and returns a Result: the solver's statistics and history,
// γ, the wall time, the measures and a Status (converged, not_converged,
// unbounded with its certificate, or failed). Compare runs several on the
// same problem, a Result per solver. These are gpusim solve and gpusim
// compare without the command line: WriteSolve writes solve's outputs
// (gamma.txt, history.csv, summary.json), WriteCompare compare's tables
// (TableMD, TableCSV, HistoryCSV), and viz.PlotResiduals its plots.
//
// A problem with joint rows (γ = [3nc contact rows | nj joint rows], see
// engine.JointRows) does not fit the folder format: EngineProblem compares
// solvers on such a problem where its backend holds it (gpusim compare on a
// scene with joints), with the same tables, check.py's columns n/a, and
// figures of merit of each solver's γ (Figure) as extra columns.
package fclib

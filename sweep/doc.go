// Package sweep runs parameter sweeps: many runs of one scene with
// different "--set" overrides, locally with a bounded number of runs at
// once or one run per task of a cluster scheduler (Slurm job arrays,
// Kubernetes Indexed Jobs), and collects their summaries into one table.
//
// # Spec
//
// A spec is a JSON object (docs/sweeps.md has examples):
//
//	{
//	  "name": "settle-friction",     optional; default the file name without extension
//	  "scene": "settle",             required: a built-in scene or a scene file
//	                                 (a relative path is taken from the spec's folder)
//	  "base": ["n=200", "run.duration=0.5"],   optional: overrides of every run
//	  "vary": {                      required, at least one key
//	    "materials.0.friction": [0.1, 0.3, 0.5],
//	    "generators.0.seed": {"range": [1, 3]}
//	  },
//	  "mode": "grid",                optional: "grid" (default) or "zip"
//	  "backend": "auto",             optional: "auto" (default), "cpu" or "vulkan"
//	  "observables": ["mean_height_m", "fixed_force_z_N"]   optional: collect's result columns
//	}
//
// Keys are those of "gpusim run --set" (package scene): a built-in's
// parameter (n, mu, slab_mass, v0) or a dotted path into the scene
// document (settings.solver, materials.0.friction, generators.0.seed). A
// key may appear once in base or vary, not in both. Values are a
// non-empty JSON list (numbers, strings such as "apgd-ar", booleans,
// arrays; not null), or:
//
//	{"range": [first, last]}          the integers first … last (inclusive)
//	{"range": [first, last, step]}    every step-th of them (step ≥ 1)
//	{"linspace": [first, last, n]}    n evenly spaced numbers, first and last included
//	{"logspace": [first, last, n]}    n numbers in geometric progression from
//	                                  first to last (both > 0; values, not exponents)
//
// Inner values of linspace and logspace are rounded to 12 significant
// digits (so 0.1 to 0.5 in 5 steps gives 0.2, not 0.20000000000000001).
// Each value becomes the override key=VALUE with VALUE its JSON text.
//
// # Expansion
//
// Grid mode makes every combination, numbered from 0 like nested loops over
// the keys in the order the spec gives them: the first key slowest, the
// last fastest. Zip mode needs lists of equal length and makes run i from
// the i-th value of each. A run's overrides are base, then the varied keys
// in order. The expansion depends on nothing but the spec, so every task of
// a scheduler array numbers the runs alike. At most MaxRuns runs.
//
// # Sweep folder
//
//	SWEEP_DIR/manifest.json   the spec's fields and every run: index, folder,
//	                          params (object in key order), sets
//	SWEEP_DIR/runs/0003/      run 3: the outputs of package run (stats.csv,
//	                          final.csv, summary.json), then DONE, or FAILED
//	SWEEP_DIR/collect.csv     gpusim collect's table
//
// The manifest is written (atomically) before any run starts, after every
// run's scene has been built once so that a bad key or value fails first,
// naming the run and the key. A sweep started again into the same folder
// must list the same runs (else ErrSpecChanged); runs whose DONE marker is
// valid (it names the run and the checksum of its summary.json, and is
// written last) are skipped; the folders of the others are removed and
// the runs run again.
//
// # Results
//
// collect.csv has the columns index, each varied key, status (done,
// failed, interrupted, incomplete, missing), backend, steps and the
// results, from each done run's summary.json: final_contacts,
// iterations_mean (per step), final_residual (last step), steps_not_converged,
// wall_s, step_s_median, fixed_force_z_N (the last step's contact force on
// the fixed bodies along z), weight_N, mean_height_m, max_penetration_m,
// escaped (empty for scenes without a box container), max_speed_m_s; or the
// spec's observables among them.
package sweep

// Package bench is the benchmark of gpusim bench: a fixed matrix of scenes
// (Matrix: the settle scene of shared/bench/settle.md with N = 1000, 8000
// and 64 000, the pressure scene, a polydisperse ellipsoid pile) and a
// scaling series (ScalingCases), each measured on each backend (Measure):
// wall time per step split into collision, Jacobian and r, solve and
// update; solver iterations and residuals; device submits per step and per
// iteration; Go heap bytes and mallocs per step; peak resident memory and
// bytes per body; device memory and its estimate (gpu.EstimateBytes);
// bodies × steps per second. Run collects the measurements, fits time per
// step against contacts (FitPowerLaw) and returns a Report, which writes
// itself as JSON and as Markdown tables.
//
// Peak memory (VmHWM) is per process, so gpusim bench runs each Request in
// a process of its own (the hidden gpusim bench-case command) and
// subtracts the peak of a process that only opened the backend.
//
// Timings are wall clock on whatever else the machine is doing; on a
// device backend a phase that only records work (Build, Integrate) shows
// its recording time and the work's device time falls in the next phase
// that submits.
package bench

// Package cpuref is gpusim's pure-Go backend: every kernel of the time step
// (broadphase, narrowphase, Jacobian, matrix-free Schur product, cone
// projection, vector algebra, integration) written plainly, next to the
// equations of the APGD paper, so that it is both the CPU fallback and the
// oracle the GPU kernels are tested against.
//
// Loops over bodies and contacts run on goroutines over fixed partitions
// (chunks of a fixed size, independent of the number of workers) and every
// sum is taken in a fixed order, so results are bit-identical whatever the
// number of goroutines.
package cpuref

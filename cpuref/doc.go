// Package cpuref is gpusim's pure-Go backend: every kernel of the time step
// (Jacobian, matrix-free Schur product, cone projection, vector algebra,
// integration) written plainly, next to the equations of the APGD paper,
// so that it is both the CPU fallback and the oracle the GPU kernels are
// tested against. Collision detection is package collide's Collider,
// which the Vulkan backend shares.
//
// Loops over bodies and contacts run on a pool of goroutines started once
// per backend, over fixed partitions (parts of a fixed size, independent of
// the number of workers); every sum is taken per fixed chunk of 2048
// elements and then over the chunks, in the Vulkan backend's order
// (order.go), so results are bit-identical whatever the number of
// goroutines, and whole runs give the Vulkan backend's bits
// (tests.TestCPUMatchesVulkan). Loops small enough that waking a worker would
// cost more than it saves run on the calling goroutine.
//
// A step allocates nothing once the buffers have grown to the pile's
// contact count (TestStepAllocs): loop bodies are made once, solver
// vectors and γ are kept from step to step. APGD runs as SolveAPGD
// (engine.DeviceAPGD), engine.APGD's iterations with the vector operations
// fused into a few passes and bit for bit the same results.
package cpuref

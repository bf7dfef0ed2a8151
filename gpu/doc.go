// Package gpu is gpusim's Vulkan backend: it will load libvulkan.so.1 at
// run time, pick a device and run the time step's kernels (shaders/) on it.
//
// It is not written yet: New reports ErrUnavailable, so that
// --backend auto falls back to the CPU path and says so, and
// --backend vulkan fails with a clear error.
package gpu

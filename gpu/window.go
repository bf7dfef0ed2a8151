package gpu

import "math/bits"

// Buffers bound in windows (shaders/lib/window.glsl): a kernel binding
// whose reflection lists windows (shaders.Binding's Windows) takes its
// buffer as windows-many ranges of it, 2^windowLog2 bytes apart and at
// most that long, so that a buffer may hold up to windows·2^windowLog2
// bytes whatever the device's maxStorageBufferRange. The kernels find
// element i in window i >> (windowLog2 − log2 of its size): buildKernel
// sets windowLog2 in the specialization constant shaders.WindowSpecID,
// and the number of windows the buffers reach in WindowsUsedSpecID, so
// that Dispatch takes the kernel specialised for one window (no branch
// among windows) while the buffers fit one (Kernel.forBuffers).
// The Jacobian's rows (96 B per contact, 64 with the arms as ρ:
// lib/jac.glsl) and the collider's pair normals (32 B per pair slot) are
// bound so (Buffer.windowed); every other buffer is bound whole, at most
// maxStorageBufferRange bytes.
const (
	windows = 4
	// minWindowLog2 keeps a window's offset a multiple of 256 B, the
	// largest minStorageBufferOffsetAlignment Vulkan allows.
	minWindowLog2 = 8
	maxWindowLog2 = 31
)

// windowLog2For is the log2 of the window size for a device whose
// maxStorageBufferRange is rng: the largest power of two within it (at
// most 2^31, so that the kernels' uint index reaches every element of
// the four windows).
func windowLog2For(rng uint32) uint32 {
	if rng == 0 {
		return 0
	}
	return min(uint32(bits.Len32(rng))-1, maxWindowLog2)
}

package gpu

// ErrOutOfMemory is returned (wrapped, with what was being allocated and
// its size) when the driver reports VK_ERROR_OUT_OF_DEVICE_MEMORY or
// VK_ERROR_OUT_OF_HOST_MEMORY, or an allocation would take the device past
// Options.MemoryLimit. It does not wrap engine.ErrUnavailable: the device
// works, the problem is too large for it; run.OpenBackend falls back to the
// CPU path on it only when the backend was chosen automatically.
var ErrOutOfMemory error = &sentinel{"out of device memory", nil}

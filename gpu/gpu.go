package gpu

// Options choose the device.
type Options struct {
	// Device selects a device by index ("0") or by a case-insensitive
	// substring of its name; empty picks the best with float64 arithmetic
	// (discrete, integrated, virtual, CPU; the lowest index among equals).
	Device string
	// Validation turns on the Vulkan validation layer
	// (VK_LAYER_KHRONOS_validation, with synchronization validation where
	// offered); its warnings and errors are collected (see
	// Device.ValidationMessages) and errors fail the submission they
	// occur in.
	Validation bool
	// MemoryLimit, if positive, caps the bytes of buffers the device may
	// hold (their capacities, as Device.MemoryBytes counts them, less the
	// staging buffer, which is host memory of at most 16 MiB): an
	// allocation past it fails with ErrOutOfMemory as if the driver had
	// said VK_ERROR_OUT_OF_DEVICE_MEMORY. For tests of what running out of
	// memory does.
	MemoryLimit int64

	// forceStaging makes buffers device-local with staging copies even on
	// unified memory, so that tests run the discrete-GPU path on lavapipe.
	forceStaging bool
}

// New returns the Vulkan backend on the device opt chooses, or an error
// wrapping engine.ErrUnavailable (ErrNoDevice) when it cannot run here. The
// backend owns the device and closes it with Close. It is an
// engine.Backend, and an engine.StateSetter, WarmStartSaver, Submitter,
// Enveloper, DeviceIdentifier and DeviceMemory.
func New(opt Options) (*Backend, error) {
	return newBackend(opt)
}

package gpu

import "github.com/gpusim/gpusim/engine"

// sentinel is an error that callers compare with errors.Is.
type sentinel struct {
	msg  string
	wrap error
}

func (e *sentinel) Error() string { return e.msg }
func (e *sentinel) Unwrap() error { return e.wrap }

var (
	// ErrNoDevice is returned (wrapped) when there is no usable Vulkan
	// device: no libvulkan.so.1, no driver, no device with float64
	// arithmetic, or a build without Vulkan support. It wraps
	// engine.ErrUnavailable, so callers fall back to the CPU path.
	ErrNoDevice error = &sentinel{"no usable Vulkan device", engine.ErrUnavailable}
	// ErrDeviceLost is returned (wrapped) when the driver reports
	// VK_ERROR_DEVICE_LOST or a submission never completes: the Device
	// must be closed.
	ErrDeviceLost error = &sentinel{"Vulkan device lost", nil}
	// ErrBadSelection is returned (wrapped) when Options.Device or
	// CUDA_VISIBLE_DEVICES names no device, several, or is malformed: the
	// user's input is wrong, so it does not wrap engine.ErrUnavailable.
	ErrBadSelection error = &sentinel{"bad device selection", nil}
)

// badSelection is an error that errors.Is matches with ErrBadSelection.
type badSelection struct{ error }

func (badSelection) Is(target error) bool { return target == ErrBadSelection }
func (e badSelection) Unwrap() error      { return e.error }

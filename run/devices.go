package run

import (
	"github.com/gpusim/gpusim/gpu"
)

// ErrBadSelection is wrapped by the error of a --device or a
// CUDA_VISIBLE_DEVICES that names no device (gpu.ErrBadSelection): input,
// not a failure of the machine.
var ErrBadSelection = gpu.ErrBadSelection

// Devices returns the Vulkan devices a run with backend kind ("auto" or
// "vulkan") and no --device chooses among: of those CUDA_VISIBLE_DEVICES
// leaves visible (gpu.Visible), the ones with float64 — and with "auto"
// only hardware ones (discrete, integrated or virtual GPUs), since a CPU
// implementation such as lavapipe runs the kernels several times slower
// than the Go path. note says how CUDA_VISIBLE_DEVICES restricted the
// devices ("" when it is not set). The error wraps engine.ErrUnavailable
// when there is no Vulkan at all, ErrBadSelection for a malformed
// CUDA_VISIBLE_DEVICES. NewBackend and a sweep's plan apply this one rule.
func Devices(kind string) (devs []gpu.DeviceInfo, note string, err error) {
	all, err := gpu.Devices()
	if err != nil {
		return nil, "", err
	}
	vis, note, err := gpu.Visible(all)
	if err != nil {
		return nil, "", err
	}
	for _, d := range vis {
		if d.Float64 && (kind == "vulkan" || d.Type != gpu.CPUDevice) {
			devs = append(devs, d)
		}
	}
	return devs, note, nil
}

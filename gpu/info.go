package gpu

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// DeviceType is VkPhysicalDeviceType.
type DeviceType int

// Device types, in the order of VkPhysicalDeviceType.
const (
	OtherDevice DeviceType = iota
	IntegratedGPU
	DiscreteGPU
	VirtualGPU
	CPUDevice
)

func (t DeviceType) String() string {
	switch t {
	case IntegratedGPU:
		return "integrated GPU"
	case DiscreteGPU:
		return "discrete GPU"
	case VirtualGPU:
		return "virtual GPU"
	case CPUDevice:
		return "CPU"
	}
	return "other"
}

// rank orders device types for the automatic choice: higher is better.
func (t DeviceType) rank() int {
	switch t {
	case DiscreteGPU:
		return 4
	case IntegratedGPU:
		return 3
	case VirtualGPU:
		return 2
	case CPUDevice:
		return 1
	}
	return 0
}

// MemoryHeap is one VkMemoryHeap.
type MemoryHeap struct {
	Size        uint64 // bytes
	DeviceLocal bool
	// HostVisible: some memory type of the heap can be mapped.
	HostVisible bool
}

// DeviceInfo describes a physical device.
type DeviceInfo struct {
	// Index is the position in vkEnumeratePhysicalDevices, as Options.Device
	// takes it.
	Index    int
	Name     string
	Type     DeviceType
	VendorID uint32
	DeviceID uint32
	// API is the Vulkan version the device supports, "1.3.230".
	API    string
	Driver uint32 // driverVersion, vendor-encoded

	Heaps []MemoryHeap
	// UnifiedMemory: every device-local memory type is also host-visible
	// (CPU devices, integrated GPUs), so buffers are mapped instead of
	// staged.
	UnifiedMemory bool

	// Float64 and Int64: shaderFloat64 and shaderInt64. gpusim needs
	// Float64.
	Float64, Int64 bool
	// Float32AtomicAdd and Float64AtomicAdd: atomic adds on storage
	// buffers (VK_EXT_shader_atomic_float).
	Float32AtomicAdd, Float64AtomicAdd bool

	// SubgroupSize is the default subgroup size (0: unknown, Vulkan 1.0).
	SubgroupSize uint32
	// MaxWorkgroupSize, MaxWorkgroupInvocations, MaxWorkgroupCount and
	// MaxSharedMemory (bytes) are the compute limits.
	MaxWorkgroupSize        [3]uint32
	MaxWorkgroupInvocations uint32
	MaxWorkgroupCount       [3]uint32
	MaxSharedMemory         uint32
	// MaxStorageBufferRange is the largest storage-buffer binding (bytes).
	MaxStorageBufferRange uint32
	// MaxPushConstants is the push-constant limit (bytes).
	MaxPushConstants uint32
	// Timestamps: the compute queue has timestamp queries; TimestampPeriod
	// is the length of a tick in nanoseconds.
	Timestamps      bool
	TimestampPeriod float32
}

func (d DeviceInfo) String() string {
	return fmt.Sprintf("%d: %s (%s)", d.Index, d.Name, d.Type)
}

// pick chooses a device by opt.Device, or the best with float64.
func pick(infos []DeviceInfo, sel string) (int, error) {
	list := func(ds []DeviceInfo) string {
		var s []string
		for _, d := range ds {
			s = append(s, d.String())
		}
		return strings.Join(s, "; ")
	}
	need := func(i int) (int, error) {
		if !infos[i].Float64 {
			return -1, fmt.Errorf("gpu: %w: device %s has no shaderFloat64 (gpusim's kernels compute in float64)", ErrNoDevice, infos[i])
		}
		return i, nil
	}
	if sel != "" {
		if i, err := strconv.Atoi(sel); err == nil {
			if i < 0 || i >= len(infos) {
				return -1, fmt.Errorf("gpu: no Vulkan device %d: there are %d (%s)", i, len(infos), list(infos))
			}
			return need(i)
		}
		var match []DeviceInfo
		for _, d := range infos {
			if strings.Contains(strings.ToLower(d.Name), strings.ToLower(sel)) {
				match = append(match, d)
			}
		}
		switch len(match) {
		case 0:
			return -1, fmt.Errorf("gpu: no Vulkan device matches %q (devices: %s)", sel, list(infos))
		case 1:
			return need(match[0].Index)
		}
		return -1, fmt.Errorf("gpu: %q matches %d Vulkan devices (%s): give an index", sel, len(match), list(match))
	}
	best := -1
	for i, d := range infos {
		if d.Float64 && (best < 0 || d.Type.rank() > infos[best].Type.rank()) {
			best = i
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("gpu: %w: no device has shaderFloat64 (devices: %s)", ErrNoDevice, list(infos))
	}
	return best, nil
}

// errNoValidation: Options.Validation without the layer installed.
var errNoValidation = errors.New("gpu: validation requested but VK_LAYER_KHRONOS_validation is not installed (Debian: apt-get install vulkan-validationlayers)")

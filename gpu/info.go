package gpu

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
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

	// UUID is VkPhysicalDeviceIDProperties.deviceUUID (all zero where
	// Vulkan 1.1 is missing). For an NVIDIA GPU it is the UUID that
	// nvidia-smi -L and CUDA show, "GPU-" and then its hex in 8-4-4-4-12
	// groups (UUIDString).
	UUID [16]byte
	// PCI is the device's PCI address, "0000:3b:00.0" (domain:bus:device.
	// function, VK_EXT_pci_bus_info); empty where the driver does not
	// offer it (CPU implementations).
	PCI string
}

// NVIDIA's PCI vendor id: CUDA_VISIBLE_DEVICES names NVIDIA GPUs only.
const vendorNVIDIA = 0x10de

// UUIDString formats UUID as nvidia-smi does, "GPU-8e3c1b2a-…"; empty if
// the UUID is unknown.
func (d DeviceInfo) UUIDString() string {
	if d.UUID == ([16]byte{}) {
		return ""
	}
	h := hex.EncodeToString(d.UUID[:])
	return "GPU-" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (d DeviceInfo) String() string {
	return fmt.Sprintf("%d: %s (%s)", d.Index, d.Name, d.Type)
}

// pick chooses a device by sel (Options.Device), or, with sel empty, the
// best with float64 among the devices that CUDA_VISIBLE_DEVICES leaves
// visible (Visible; cuda is its value, nil when it is not set).
func pick(infos []DeviceInfo, sel string, cuda *string) (int, error) {
	need := func(i int) (int, error) {
		if !infos[i].Float64 {
			return -1, fmt.Errorf("gpu: %w: device %s has no shaderFloat64 (gpusim's kernels compute in float64)", ErrNoDevice, infos[i])
		}
		return i, nil
	}
	if sel != "" {
		i, err := Select(infos, sel)
		if err != nil {
			return -1, err
		}
		return need(i)
	}
	vis, note, err := visible(infos, cuda)
	if err != nil {
		return -1, err
	}
	best := -1
	for _, d := range vis {
		if d.Float64 && (best < 0 || d.Type.rank() > infos[best].Type.rank()) {
			best = d.Index
		}
	}
	if best < 0 {
		if note != "" {
			note = "; " + note
		}
		return -1, fmt.Errorf("gpu: %w: no device has shaderFloat64 (devices: %s%s)", ErrNoDevice, listDevices(vis), note)
	}
	return best, nil
}

func listDevices(ds []DeviceInfo) string {
	if len(ds) == 0 {
		return "none"
	}
	var s []string
	for _, d := range ds {
		s = append(s, d.String())
	}
	return strings.Join(s, "; ")
}

var (
	pciAddress = regexp.MustCompile(`^(?:([0-9a-f]{4,8}):)?([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$`)
	uuidHex    = regexp.MustCompile(`^[0-9a-f]{8,32}$`)
)

// Select returns the index of the device that sel names, as
// Options.Device takes it: an index ("1"), a UUID or a unique prefix of at
// least 8 hex digits ("GPU-8e3c1b2a-…" as nvidia-smi -L prints it, with or
// without "GPU-" and dashes), a PCI address ("0000:3b:00.0" or "3b:00.0"),
// or a case-insensitive substring of the name naming one device.
func Select(infos []DeviceInfo, sel string) (int, error) {
	if i, err := strconv.Atoi(sel); err == nil {
		if i < 0 || i >= len(infos) {
			return -1, badSelection{fmt.Errorf("gpu: no Vulkan device %d: there are %d (%s)", i, len(infos), listDevices(infos))}
		}
		return i, nil
	}
	low := strings.ToLower(strings.TrimSpace(sel))
	var match []DeviceInfo
	what := "matches"
	if m := pciAddress.FindStringSubmatch(low); m != nil {
		what = "has the PCI address"
		dom := m[1]
		if dom == "" {
			dom = "0000"
		}
		want := fmt.Sprintf("%s:%s:%s.%s", dom, m[2], m[3], m[4])
		for _, d := range infos {
			if d.PCI != "" && strings.TrimLeft(d.PCI, "0") == strings.TrimLeft(want, "0") {
				match = append(match, d)
			}
		}
	} else if u := strings.ReplaceAll(strings.TrimPrefix(low, "gpu-"), "-", ""); uuidHex.MatchString(u) && (strings.HasPrefix(low, "gpu-") || len(u) == 32) {
		what = "has the UUID"
		for _, d := range infos {
			if d.UUID != ([16]byte{}) && strings.HasPrefix(hex.EncodeToString(d.UUID[:]), u) {
				match = append(match, d)
			}
		}
	} else {
		for _, d := range infos {
			if strings.Contains(strings.ToLower(d.Name), low) {
				match = append(match, d)
			}
		}
	}
	switch len(match) {
	case 0:
		return -1, badSelection{fmt.Errorf("gpu: no Vulkan device %s %q (devices: %s)", what, sel, listDevicesLong(infos))}
	case 1:
		return match[0].Index, nil
	}
	return -1, badSelection{fmt.Errorf("gpu: %q matches %d Vulkan devices (%s): give an index, a UUID or a PCI address", sel, len(match), listDevicesLong(match))}
}

// listDevicesLong lists devices with their UUIDs and PCI addresses.
func listDevicesLong(ds []DeviceInfo) string {
	if len(ds) == 0 {
		return "none"
	}
	var s []string
	for _, d := range ds {
		s = append(s, d.String()+d.ids())
	}
	return strings.Join(s, "; ")
}

// ids is " [GPU-…, PCI 0000:3b:00.0]", or what of it is known.
func (d DeviceInfo) ids() string {
	var id []string
	if u := d.UUIDString(); u != "" {
		id = append(id, u)
	}
	if d.PCI != "" {
		id = append(id, "PCI "+d.PCI)
	}
	if len(id) == 0 {
		return ""
	}
	return " [" + strings.Join(id, ", ") + "]"
}

// Visible returns the devices that the automatic choice (Options.Device
// empty) may take, and, when CUDA_VISIBLE_DEVICES restricts them, a line
// saying how. Batch schedulers hand a job its GPUs in that variable
// (Slurm's --gres=gpu, most cluster launchers) and NVIDIA's Vulkan driver
// does not read it, so gpusim applies it to the NVIDIA devices itself:
// those it lists are visible, in its order, the other NVIDIA devices are
// not; devices of other vendors are unaffected. Its entries are GPU UUIDs
// (or unique prefixes, "GPU-8e3c1b2a") or indices; index k is the k-th
// NVIDIA GPU by PCI address, which is nvidia-smi's order and CUDA's with
// CUDA_DEVICE_ORDER=PCI_BUS_ID. An empty value, "-1" or "NoDevFiles" hides
// every NVIDIA GPU. An entry that names no device, a MIG instance (Vulkan
// cannot open one) or an index where the driver gives no PCI addresses is
// an error naming the variable.
func Visible(infos []DeviceInfo) ([]DeviceInfo, string, error) {
	v, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES")
	if !ok {
		return infos, "", nil
	}
	return visible(infos, &v)
}

func visible(infos []DeviceInfo, cuda *string) ([]DeviceInfo, string, error) {
	if cuda == nil {
		return infos, "", nil
	}
	val := *cuda
	bad := func(format string, a ...any) ([]DeviceInfo, string, error) {
		return nil, "", badSelection{fmt.Errorf("gpu: CUDA_VISIBLE_DEVICES=%q: %s", val, fmt.Sprintf(format, a...))}
	}
	// The entries: an index k ≥ 0, or a UUID's hex digits (uuid).
	type entry struct {
		k    int
		uuid string
		text string
	}
	var entries []entry
	switch t := strings.TrimSpace(val); t {
	case "", "-1", "NoDevFiles": // no GPU
	default:
		for _, e := range strings.Split(t, ",") {
			e = strings.TrimSpace(e)
			if k, err := strconv.Atoi(e); err == nil {
				if k < 0 {
					return bad("index %d is negative", k)
				}
				entries = append(entries, entry{k: k, text: e})
				continue
			}
			if strings.HasPrefix(strings.ToUpper(e), "MIG-") {
				return bad("%s is a MIG instance, which Vulkan cannot open: give gpusim a whole GPU", e)
			}
			u := strings.ReplaceAll(strings.TrimPrefix(strings.ToLower(e), "gpu-"), "-", "")
			if !uuidHex.MatchString(u) {
				return bad("%q is neither an index nor a GPU UUID (GPU-…, at least 8 hex digits)", e)
			}
			entries = append(entries, entry{k: -1, uuid: u, text: e})
		}
	}
	var nv, others []DeviceInfo
	for _, d := range infos {
		if d.VendorID == vendorNVIDIA {
			nv = append(nv, d)
		} else {
			others = append(others, d)
		}
	}
	if len(nv) == 0 {
		// Nothing to restrict, but worth saying where a GPU was meant.
		if len(entries) == 0 {
			return infos, "", nil
		}
		return infos, fmt.Sprintf("CUDA_VISIBLE_DEVICES=%q assigns NVIDIA GPUs, but the Vulkan loader lists none (no NVIDIA Vulkan ICD? In a container the NVIDIA driver capabilities must include graphics)", val), nil
	}
	// The NVIDIA GPUs in PCI order, for indices.
	byPCI := slices.Clone(nv)
	slices.SortStableFunc(byPCI, func(a, b DeviceInfo) int { return strings.Compare(a.PCI, b.PCI) })
	var chosen []DeviceInfo
	seen := map[int]bool{}
	for _, e := range entries {
		var idx int
		if e.k >= 0 {
			if e.k >= len(byPCI) {
				return bad("index %d, but the Vulkan loader lists %d NVIDIA GPUs (%s)", e.k, len(byPCI), listDevicesLong(byPCI))
			}
			if len(byPCI) > 1 && slices.ContainsFunc(byPCI, func(d DeviceInfo) bool { return d.PCI == "" }) {
				return bad("index %d, but the driver gives no PCI addresses to put the NVIDIA GPUs in CUDA's order: give UUIDs (nvidia-smi -L) or --device", e.k)
			}
			idx = byPCI[e.k].Index
		} else {
			var m []DeviceInfo
			for _, d := range nv {
				if strings.HasPrefix(hex.EncodeToString(d.UUID[:]), e.uuid) {
					m = append(m, d)
				}
			}
			if len(m) != 1 {
				return bad("%s names %d of the NVIDIA GPUs the Vulkan loader lists (%s)", e.text, len(m), listDevicesLong(nv))
			}
			idx = m[0].Index
		}
		if !seen[idx] {
			seen[idx] = true
			chosen = append(chosen, infos[idx])
		}
	}
	if len(chosen) == 0 {
		return others, fmt.Sprintf("CUDA_VISIBLE_DEVICES=%q hides every NVIDIA GPU", val), nil
	}
	var names []string
	for _, d := range chosen {
		names = append(names, d.String()+d.ids())
	}
	note := fmt.Sprintf("CUDA_VISIBLE_DEVICES=%q: NVIDIA GPUs visible: %s", val, strings.Join(names, "; "))
	return append(chosen, others...), note, nil
}

// errNoValidation: Options.Validation without the layer installed.
var errNoValidation = errors.New("gpu: validation requested but VK_LAYER_KHRONOS_validation is not installed (Debian: apt-get install vulkan-validationlayers)")

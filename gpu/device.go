//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime/cgo"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Memory property and queue bits (Vulkan specification).
const (
	memDeviceLocal  = 0x1
	memHostVisible  = 0x2
	memHostCoherent = 0x4
	memHostCached   = 0x8
	queueCompute    = 0x2
)

// Device is an open Vulkan device with one compute queue. It is not safe
// for concurrent use. Close releases it and everything made from it.
type Device struct {
	// Info describes the device.
	Info DeviceInfo

	vk      *C.gs_vk
	log     *messageLog
	handle  cgo.Handle // of log, passed to the debug callback
	pd      C.gs_obj
	dev     C.gs_obj
	queue   C.gs_obj
	family  uint32
	cmdPool C.gs_nd
	memory  []memoryType
	unified bool // buffers are host-visible and mapped; no staging

	xfer *Batch // uploads, downloads, clears
	// fill records the zero-fills of new device-local buffers until the
	// next submit runs it first (Buffer.zero); fillPending are its buffers.
	fill        *Batch
	fillPending []*Buffer
	transfers   int     // submits made by transfer
	staging     *Buffer // host-visible bounce buffer where !unified
	kernels     map[string]*Kernel
	// kernelErrs remembers the builds that failed, by the same key.
	kernelErrs map[string]error
	buffers    map[*Buffer]struct{}
	// allocations counts the buffers allocated (Buffer.id).
	allocations uint64
	// recorded counts the dispatches recorded into command buffers and
	// the host time spent recording them (RecordedDispatches).
	recorded struct {
		dispatches int
		host       time.Duration
	}
	batches map[*Batch]struct{}
	// windowLog2: the buffers bound in windows (window.go) are bound in
	// ranges of 2^windowLog2 bytes.
	windowLog2 uint32
	submits    int
	readBack   int64 // bytes downloaded by Buffer reads (ReadBackBytes)
	lost       error // the ErrDeviceLost error, once seen
	memLimit   int64 // Options.MemoryLimit
	closed     bool
	// The pipeline cache (pipecache.go): its file, the bytes Open loaded
	// from it, and the kernels built since.
	cachePath    string
	cacheLoaded  int
	kernelsBuilt int
	closeErr     error
}

type memoryType struct {
	flags uint32
	heap  uint32
}

// instance is a Vulkan instance and its physical devices.
type instance struct {
	vk     *C.gs_vk
	log    *messageLog
	handle cgo.Handle
	pds    []C.gs_obj
	infos  []DeviceInfo
	memory [][]memoryType
	family []int // compute queue family per device, -1: none
}

func (in *instance) destroy() {
	if in.vk != nil {
		C.gs_destroy_instance(in.vk)
		in.vk = nil
	}
	if in.handle != 0 {
		in.handle.Delete()
		in.handle = 0
	}
}

// newInstance creates an instance and describes its physical devices.
func newInstance(validation bool) (*instance, error) {
	gipa, err := loadVulkan()
	if err != nil {
		return nil, err
	}
	in := &instance{log: &messageLog{}}
	var user C.uintptr_t // the debug callback's handle on the log
	val := C.int(0)
	if validation {
		in.handle = cgo.NewHandle(in.log)
		user, val = C.uintptr_t(in.handle), 1
	}
	r := C.gs_create_instance(gipa, val, user, &in.vk)
	switch r {
	case C.GS_SUCCESS:
	case C.GS_ERROR_INCOMPATIBLE_DRIVER, C.GS_ERROR_INITIALIZATION_FAILED:
		in.destroy()
		return nil, fmt.Errorf("gpu: %w: vkCreateInstance: %v: %s", ErrNoDevice, Result(r), driverHint(os.Getenv, probeLibrary))
	case C.GS_ERROR_LAYER_NOT_PRESENT:
		in.destroy()
		return nil, errNoValidation
	case C.GS_ERROR_EXTENSION_NOT_PRESENT:
		in.destroy()
		return nil, errors.New("gpu: validation requested but VK_EXT_debug_utils is not available")
	default:
		in.destroy()
		return nil, check("vkCreateInstance", r)
	}
	libvulkan.mu.Lock()
	defer libvulkan.mu.Unlock()
	if err := initInstance(C.gs_instance(in.vk)); err != nil {
		in.destroy()
		return nil, err
	}
	var n C.uint32_t
	if err := check("vkEnumeratePhysicalDevices", C.gs_physical_devices(in.vk, nil, &n)); err != nil {
		in.destroy()
		return nil, err
	}
	if n == 0 {
		in.destroy()
		return nil, fmt.Errorf("gpu: %w: the Vulkan loader found no device", ErrNoDevice)
	}
	pds := (*C.gs_obj)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.gs_obj(nil)))))
	defer C.free(unsafe.Pointer(pds))
	if r := C.gs_physical_devices(in.vk, pds, &n); r != C.GS_SUCCESS && r != 5 /* VK_INCOMPLETE */ {
		in.destroy()
		return nil, check("vkEnumeratePhysicalDevices", r)
	}
	in.pds = append(in.pds, unsafe.Slice(pds, int(n))...)
	for i, pd := range in.pds {
		info, mem, family := describe(in.vk, pd)
		info.Index = i
		in.infos = append(in.infos, info)
		in.memory = append(in.memory, mem)
		in.family = append(in.family, family)
	}
	return in, nil
}

// describe queries a physical device.
func describe(v *C.gs_vk, cpd C.gs_obj) (DeviceInfo, []memoryType, int) {
	pd := vk.PhysicalDevice(unsafe.Pointer(cpd))
	var props vk.PhysicalDeviceProperties
	vk.GetPhysicalDeviceProperties(pd, &props)
	props.Deref()
	props.Limits.Deref()
	lim := props.Limits
	info := DeviceInfo{
		Name:                    vk.ToString(props.DeviceName[:]),
		Type:                    DeviceType(props.DeviceType),
		VendorID:                props.VendorID,
		DeviceID:                props.DeviceID,
		API:                     vkVersion(props.ApiVersion),
		Driver:                  props.DriverVersion,
		MaxWorkgroupSize:        lim.MaxComputeWorkGroupSize,
		MaxWorkgroupInvocations: lim.MaxComputeWorkGroupInvocations,
		MaxWorkgroupCount:       lim.MaxComputeWorkGroupCount,
		MaxSharedMemory:         lim.MaxComputeSharedMemorySize,
		MaxStorageBufferRange:   lim.MaxStorageBufferRange,
		MaxPushConstants:        lim.MaxPushConstantsSize,
		TimestampPeriod:         lim.TimestampPeriod,
	}
	api := props.ApiVersion
	props.Free()
	if info.Type > CPUDevice || info.Type < 0 {
		info.Type = OtherDevice
	}

	var feat vk.PhysicalDeviceFeatures
	vk.GetPhysicalDeviceFeatures(pd, &feat)
	feat.Deref()
	info.Float64 = feat.ShaderFloat64 == vk.True
	info.Int64 = feat.ShaderInt64 == vk.True
	feat.Free()

	var mp vk.PhysicalDeviceMemoryProperties
	vk.GetPhysicalDeviceMemoryProperties(pd, &mp)
	mp.Deref()
	mem := make([]memoryType, min(int(mp.MemoryTypeCount), len(mp.MemoryTypes)))
	for i := range mem {
		mp.MemoryTypes[i].Deref()
		mem[i] = memoryType{flags: uint32(mp.MemoryTypes[i].PropertyFlags), heap: mp.MemoryTypes[i].HeapIndex}
	}
	for i := 0; i < int(mp.MemoryHeapCount) && i < len(mp.MemoryHeaps); i++ {
		mp.MemoryHeaps[i].Deref()
		h := MemoryHeap{Size: uint64(mp.MemoryHeaps[i].Size), DeviceLocal: mp.MemoryHeaps[i].Flags&memDeviceLocal != 0}
		for _, t := range mem {
			if int(t.heap) == i && t.flags&memHostVisible != 0 {
				h.HostVisible = true
			}
		}
		info.Heaps = append(info.Heaps, h)
	}
	mp.Free()
	info.UnifiedMemory = unifiedMemory(mem)

	var fams [64]C.gs_queue_family
	nf := int(C.gs_queue_families(v, cpd, &fams[0], C.uint32_t(len(fams))))
	family := -1
	for i := 0; i < nf; i++ {
		if fams[i].flags&queueCompute != 0 && fams[i].count > 0 {
			family = i
			info.Timestamps = fams[i].timestamp_bits > 0 && info.TimestampPeriod > 0
			break
		}
	}

	if api >= 1<<22|1<<12 && C.gs_instance_api(v) >= 1<<22|1<<12 {
		var ex C.gs_extras
		C.gs_device_extras(v, cpd, &ex)
		info.SubgroupSize = uint32(ex.subgroup_size)
		info.UUID = *(*[16]byte)(unsafe.Pointer(&ex.uuid[0]))
		if ex.pci_valid != 0 {
			info.PCI = fmt.Sprintf("%04x:%02x:%02x.%x", uint32(ex.pci_domain), uint32(ex.pci_bus), uint32(ex.pci_device), uint32(ex.pci_function))
		}
		info.Float32AtomicAdd = ex.buffer_f32_atomic_add != 0
		info.Float64AtomicAdd = ex.buffer_f64_atomic_add != 0
	}
	return info, mem, family
}

// unifiedMemory reports whether every device-local memory type is also
// host-visible and coherent (and there is at least one).
func unifiedMemory(mem []memoryType) bool {
	n := 0
	for _, t := range mem {
		if t.flags&memDeviceLocal == 0 {
			continue
		}
		n++
		if t.flags&(memHostVisible|memHostCoherent) != memHostVisible|memHostCoherent {
			return false
		}
	}
	return n > 0
}

// Devices lists the Vulkan devices.
func Devices() ([]DeviceInfo, error) {
	in, err := newInstance(false)
	if err != nil {
		return nil, err
	}
	defer in.destroy()
	return in.infos, nil
}

// Choose returns the device that Open would open for Options{Device:
// device} (and CUDA_VISIBLE_DEVICES), without opening it: what a caller
// needs to know of it before any buffer is made (whether its memory is the
// host's, UnifiedMemory).
func Choose(device string) (DeviceInfo, error) {
	in, err := newInstance(false)
	if err != nil {
		return DeviceInfo{}, err
	}
	defer in.destroy()
	var cuda *string
	if v, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES"); ok {
		cuda = &v
	}
	i, err := pick(in.infos, device, cuda)
	if err != nil {
		return DeviceInfo{}, err
	}
	return in.infos[i], nil
}

// Open opens the device that opt chooses.
func Open(opt Options) (*Device, error) {
	in, err := newInstance(opt.Validation)
	if err != nil {
		return nil, err
	}
	var cuda *string
	if v, ok := os.LookupEnv("CUDA_VISIBLE_DEVICES"); ok {
		cuda = &v
	}
	i, err := pick(in.infos, opt.Device, cuda)
	if err == nil && in.family[i] < 0 {
		err = fmt.Errorf("gpu: %w: device %s has no compute queue", ErrNoDevice, in.infos[i])
	}
	if err != nil {
		in.destroy()
		return nil, err
	}
	d := &Device{
		Info:    in.infos[i],
		vk:      in.vk,
		log:     in.log,
		handle:  in.handle,
		pd:      in.pds[i],
		family:  uint32(in.family[i]),
		memory:  in.memory[i],
		unified: in.infos[i].UnifiedMemory && !opt.forceStaging,
		kernels: map[string]*Kernel{},
		buffers: map[*Buffer]struct{}{},
		batches: map[*Batch]struct{}{},

		windowLog2: windowLog2For(in.infos[i].MaxStorageBufferRange),
	}
	d.memLimit = opt.MemoryLimit
	if err := d.init(); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.log.takeErrors("open"); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *Device) init() error {
	feat := vk.PhysicalDeviceFeatures{ShaderFloat64: vk.True}
	if d.Info.Int64 {
		feat.ShaderInt64 = vk.True
	}
	ref, _ := feat.PassRef()
	r := C.gs_create_device(d.vk, d.pd, C.uint32_t(d.family), unsafe.Pointer(ref), &d.dev, &d.queue)
	feat.Free()
	if err := check("vkCreateDevice", r); err != nil {
		return err
	}
	if err := check("vkCreateCommandPool", C.gs_create_command_pool(d.vk, C.uint32_t(d.family), &d.cmdPool)); err != nil {
		return err
	}
	d.openPipelineCache()
	xfer, err := d.NewBatch()
	if err != nil {
		return err
	}
	d.xfer = xfer
	if d.fill, err = d.NewBatch(); err != nil {
		return err
	}
	return nil
}

// Name returns the device's name.
func (d *Device) Name() string { return d.Info.Name }

// RecordedDispatches returns the number of dispatches recorded into
// Vulkan command buffers so far and the host time that took (descriptor
// sets written, commands recorded); a kept command buffer submitted again
// records none (cmdcache.go).
func (d *Device) RecordedDispatches() (int, time.Duration) {
	return d.recorded.dispatches, d.recorded.host
}

// Submits returns the number of queue submissions so far (batches,
// uploads, downloads and clears).
func (d *Device) Submits() int { return d.submits }

// Transfers returns how many of the submits were copies or clears of
// their own (Buffer reads and writes through the staging buffer where
// memory is not unified, Grow's copies): the round trips a caller's data
// costs, as opposed to those of recorded work.
func (d *Device) Transfers() int { return d.transfers }

// ValidationMessages returns the validation layer's warnings and errors
// since the last call (none without Options.Validation).
func (d *Device) ValidationMessages() []string { return d.log.take() }

// Close waits for the device to be idle and releases everything made from
// it (batches, kernels, buffers), then the device and the instance, in
// reverse order of creation. Calling it again returns the first result.
func (d *Device) Close() error {
	if d.closed {
		return d.closeErr
	}
	d.closed = true
	var errs []error
	if d.dev != nil {
		if err := check("vkDeviceWaitIdle", C.gs_device_wait_idle(d.vk)); err != nil {
			errs = append(errs, err)
		}
		// Pending fills are dropped: their command buffer is never
		// submitted, and goes with the pool.
		for _, b := range d.fillPending {
			b.fillPending = false
		}
		d.fillPending = nil
		if d.fill != nil {
			d.fill.recording = false
		}
		for b := range d.batches {
			b.release()
		}
		d.savePipelineCache()
		for _, k := range d.kernels {
			k.release()
		}
		for b := range d.buffers {
			b.release()
		}
		if d.cmdPool != 0 {
			C.gs_destroy_command_pool(d.vk, d.cmdPool)
		}
		C.gs_destroy_device(d.vk)
		d.dev = nil
	}
	C.gs_destroy_instance(d.vk)
	d.vk = nil
	if d.log != nil {
		if err := d.log.takeErrors("close"); err != nil {
			errs = append(errs, err)
		}
	}
	if d.handle != 0 {
		d.handle.Delete()
	}
	d.closeErr = errors.Join(errs...)
	return d.closeErr
}

// usable panics on a closed device: using one is a programmer error.
func (d *Device) usable() {
	if d.closed {
		panic("gpu: use of a closed Device")
	}
}

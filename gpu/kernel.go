//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/gpusim/gpusim/shaders"
)

// Descriptor types (VkDescriptorType).
const (
	descUniformBuffer = 6
	descStorageBuffer = 7
)

// Kernel is a compute pipeline made from a shaders.Module: its descriptor
// set layout comes from the module's reflection table.
type Kernel struct {
	d *Device
	m shaders.Module
	k *C.gs_kernel // C memory: handles the shim reads on every dispatch
	// bindings are the layout's binding numbers: each of the module's
	// bindings in order, followed by its windows where it has them
	// (window.go); types are their VkDescriptorTypes.
	bindings []uint32
	types    []uint32
	// readOnly and windowed describe each of the module's bindings, a
	// Dispatch's buffers; a kernel with windowed bindings is specialised
	// by the log2 of the windows' size and the windows its buffers reach,
	// and by the layout of the contacts' Jacobian among them, arms
	// (window_bind.go; windowsUsed is 0 for a kernel without them).
	readOnly    []bool
	windowed    []bool
	windowLog2  uint32
	windowsUsed uint32
	arms        uint32                  // shaders.JacArmsSpecID's value: 1 for Buffer.arms
	spec        []uint32                // the caller's specialization constants
	variants    [2][windows + 1]*Kernel // by arms and windowsUsed: forBuffers' kernels
	key         string                  // d.kernels' key: the name, and the specialization
}

// Kernel returns the kernel of module m, building it on first use.
func (d *Device) Kernel(m shaders.Module) (*Kernel, error) {
	return d.KernelSpec(m, nil)
}

// KernelSpec returns the kernel of module m with its specialization
// constants set (constant_id i takes spec[i], 32 bits each), building it
// on first use. A failed build is remembered: asking again returns the
// same error without building again (a driver may take seconds to fail).
func (d *Device) KernelSpec(m shaders.Module, spec []uint32) (*Kernel, error) {
	return d.kernel(m, spec, 1, 0)
}

// kernel is KernelSpec for buffers bound in windows that reach used
// windows (1 for a module without windows), among them a Jacobian that
// holds the arms as ρ where arms is 1 (Buffer.arms).
func (d *Device) kernel(m shaders.Module, spec []uint32, used, arms uint32) (*Kernel, error) {
	d.usable()
	key := m.Name
	if len(spec) > 0 {
		key = fmt.Sprint(m.Name, spec)
	}
	if windowed(m) {
		key = fmt.Sprintf("%s windows %d of 2^%d", key, used, d.windowLog2)
		if arms != 0 {
			key += " arms"
		}
	}
	if k, ok := d.kernels[key]; ok {
		if k.m.SPIRV != m.SPIRV {
			panic(fmt.Sprintf("gpu: two different modules named %q", m.Name))
		}
		return k, nil
	}
	if err, ok := d.kernelErrs[key]; ok {
		return nil, err
	}
	k, err := d.buildKernel(m, spec, used, arms)
	if err != nil {
		if d.kernelErrs == nil {
			d.kernelErrs = map[string]error{}
		}
		d.kernelErrs[key] = err
		return nil, err
	}
	k.key = key
	d.kernels[key] = k
	d.kernelsBuilt++
	return k, nil
}

// buildKernel makes the pipeline of module m specialised by spec, and by
// the windows and arms of kernel.
func (d *Device) buildKernel(m shaders.Module, spec []uint32, used, arms uint32) (*Kernel, error) {
	if len(spec) > 6 {
		return nil, fmt.Errorf("gpu: kernel %s: %d specialization constants (at most 6)", m.Name, len(spec))
	}
	caller := spec
	ids := make([]uint32, len(spec), len(spec)+3)
	for i := range ids {
		ids[i] = uint32(i)
	}
	if windowed(m) {
		ids = append(ids, shaders.WindowSpecID, shaders.WindowsUsedSpecID)
		spec = append(spec[:len(spec):len(spec)], d.windowLog2, used)
		if arms != 0 {
			// A module without lib/jac.glsl has no constant of this id:
			// Vulkan ignores the entry.
			ids = append(ids, shaders.JacArmsSpecID)
			spec = append(spec, arms)
		}
	}
	ls := m.LocalSize
	lim := d.Info
	if ls[0] == 0 || ls[1] == 0 || ls[2] == 0 ||
		ls[0] > lim.MaxWorkgroupSize[0] || ls[1] > lim.MaxWorkgroupSize[1] || ls[2] > lim.MaxWorkgroupSize[2] ||
		uint64(ls[0])*uint64(ls[1])*uint64(ls[2]) > uint64(lim.MaxWorkgroupInvocations) {
		return nil, fmt.Errorf("gpu: kernel %s: workgroup %v exceeds the device's limits (%v, %d invocations)",
			m.Name, ls, lim.MaxWorkgroupSize, lim.MaxWorkgroupInvocations)
	}
	if m.PushSize > argsGroups || m.PushSize%4 != 0 {
		return nil, fmt.Errorf("gpu: kernel %s: %d bytes of arguments (at most %d, a multiple of 4: args.go)",
			m.Name, m.PushSize, argsGroups)
	}
	if len(m.SPIRV) == 0 || len(m.SPIRV)%4 != 0 {
		return nil, fmt.Errorf("gpu: kernel %s: SPIR-V of %d bytes", m.Name, len(m.SPIRV))
	}
	k := &Kernel{d: d, m: m, spec: append([]uint32(nil), caller...)}
	if windowed(m) {
		k.windowLog2, k.windowsUsed, k.arms = d.windowLog2, used, arms
	}
	for _, b := range m.Bindings {
		t := uint32(descStorageBuffer)
		if b.Kind == shaders.UniformBuffer {
			t = descUniformBuffer
		}
		if len(b.Windows) != 0 && len(b.Windows) != windows-1 {
			return nil, fmt.Errorf("gpu: kernel %s: binding %d has %d windows, want %d", m.Name, b.Binding, len(b.Windows), windows-1)
		}
		for _, n := range append([]uint32{b.Binding}, b.Windows...) {
			k.bindings = append(k.bindings, n)
			k.types = append(k.types, t)
		}
		k.readOnly = append(k.readOnly, b.ReadOnly)
		k.windowed = append(k.windowed, len(b.Windows) > 0)
	}
	// The code must be 4-byte aligned: copy it into C memory.
	code := C.CBytes([]byte(m.SPIRV))
	defer C.free(code)
	k.k = (*C.gs_kernel)(C.calloc(1, C.size_t(unsafe.Sizeof(C.gs_kernel{}))))
	var bp, tp *C.uint32_t
	if len(k.bindings) > 0 {
		bp = (*C.uint32_t)(unsafe.Pointer(&k.bindings[0]))
		tp = (*C.uint32_t)(unsafe.Pointer(&k.types[0]))
	}
	var sp, ip *C.uint32_t
	if len(spec) > 0 {
		sp = (*C.uint32_t)(C.CBytes(unsafe.Slice((*byte)(unsafe.Pointer(&spec[0])), 4*len(spec))))
		defer C.free(unsafe.Pointer(sp))
		ip = (*C.uint32_t)(C.CBytes(unsafe.Slice((*byte)(unsafe.Pointer(&ids[0])), 4*len(ids))))
		defer C.free(unsafe.Pointer(ip))
	}
	r := C.gs_create_kernel(d.vk, (*C.uint32_t)(code), C.size_t(len(m.SPIRV)), C.uint32_t(len(k.bindings)),
		bp, tp, C.uint32_t(m.PushSize), C.uint32_t(len(spec)), ip, sp, k.k)
	if err := check("kernel "+m.Name, r); err != nil {
		C.free(unsafe.Pointer(k.k))
		return nil, err
	}
	if err := d.log.takeErrors("kernel " + m.Name); err != nil {
		k.release()
		return nil, err
	}
	return k, nil
}

// bindable returns an error when buf is too large for the kernel's
// binding i: past maxStorageBufferRange where it is bound whole, past its
// windows where it is bound in windows (window.go).
func (k *Kernel) bindable(i int, buf *Buffer) error {
	rng := int64(buf.binding().rng)
	if k.windowed[i] {
		if rng > windows<<k.windowLog2 {
			return fmt.Errorf("gpu: kernel %s: buffer %d of %d bytes exceeds its binding's %d windows of %d bytes", k.m.Name, i, rng, windows, int64(1)<<k.windowLog2)
		}
	} else if rng > int64(k.d.Info.MaxStorageBufferRange) {
		return fmt.Errorf("gpu: kernel %s: buffer %d of %d bytes exceeds the device's maxStorageBufferRange (%d bytes); the kernel binds it whole", k.m.Name, i, rng, k.d.Info.MaxStorageBufferRange)
	}
	return nil
}

// Module returns the kernel's module.
func (k *Kernel) Module() shaders.Module { return k.m }

func (k *Kernel) release() {
	if k.k != nil {
		C.gs_destroy_kernel(k.d.vk, k.k)
		C.free(unsafe.Pointer(k.k))
		k.k = nil
	}
	if k.key != "" {
		delete(k.d.kernels, k.key)
	}
}

// vkshim: the part of gpusim's Vulkan layer written in C.
//
// It loads libvulkan.so.1 with dlopen, creates the instance (with the
// validation layer and a debug-utils messenger when asked), queries what the
// Vulkan 1.1 headers bundled with vulkan-go cannot (subgroup size, float
// atomics), and makes every call that creates, uses or destroys a
// non-dispatchable object (buffers, memory, pipelines, descriptor sets,
// fences, query pools) or whose arguments hold arrays of structs or strings.
// Two reasons keep these out of vulkan-go:
//   - vulkan-go types non-dispatchable handles as Go pointers; drivers may
//     return any 64-bit value there, which Go's garbage collector must never
//     see as a pointer. Here they are uint64_t (gs_nd), as in Gio.
//   - vulkan-go's generated code copies arrays of structs into C memory that
//     a finalizer may free before the call returns (c-for-go issue #91).
// vulkan-go serves the physical-device queries (properties, limits,
// features, memory types), which involve only dispatchable handles.
//
// There are no Vulkan headers at build time: the structs used here are
// declared in vkshim.c with the member order and types of the Vulkan
// specification, for 64-bit platforms, where a non-dispatchable handle is
// passed like a uint64_t (gpu builds this file on linux/amd64 and
// linux/arm64 only).

#ifndef GPUSIM_VKSHIM_H
#define GPUSIM_VKSHIM_H

#include <stddef.h>
#include <stdint.h>

typedef void *gs_obj;   // a dispatchable handle: VkInstance, VkDevice, VkQueue, ...
typedef uint64_t gs_nd; // a non-dispatchable handle: VkBuffer, VkPipeline, ...

// Result codes used by name on the Go side (VkResult).
enum {
	GS_SUCCESS = 0,
	GS_TIMEOUT = 2,
	GS_ERROR_OUT_OF_HOST_MEMORY = -1,
	GS_ERROR_INITIALIZATION_FAILED = -3,
	GS_ERROR_DEVICE_LOST = -4,
	GS_ERROR_LAYER_NOT_PRESENT = -6,
	GS_ERROR_EXTENSION_NOT_PRESENT = -7,
	GS_ERROR_INCOMPATIBLE_DRIVER = -9,
	GS_ERROR_FRAGMENTED_POOL = -12,
	GS_ERROR_OUT_OF_POOL_MEMORY = -1000069000,
	GS_ERROR_LOADER = -100000, // gpusim's own: an entry point is missing
};

// gs_vk holds one instance, at most one device, and the entry points the
// shim calls, loaded with vkGetInstanceProcAddr / vkGetDeviceProcAddr.
typedef struct gs_vk gs_vk;

// gs_load dlopens name and returns its vkGetInstanceProcAddr, or NULL
// with a message in err.
void *gs_load(const char *name, const char **err);

// gs_create_instance creates an instance for API version 1.1 (1.0 where
// the loader is older). With validation it enables
// VK_LAYER_KHRONOS_validation, VK_EXT_debug_utils (a messenger for warnings
// and errors whose callback calls gpusimDebugMessage with user) and, when
// the layer offers it, synchronization validation. Returns a VkResult.
int32_t gs_create_instance(void *gipa, int validation, uintptr_t user, gs_vk **out);
void gs_destroy_instance(gs_vk *vk);
gs_obj gs_instance(gs_vk *vk);
uint32_t gs_instance_api(gs_vk *vk);

// gs_physical_devices is vkEnumeratePhysicalDevices: with out NULL it sets
// *n to the number of devices, else it writes up to *n of them.
int32_t gs_physical_devices(gs_vk *vk, gs_obj *out, uint32_t *n);

// Queue family properties (VkQueueFamilyProperties without the image
// transfer granularity).
typedef struct {
	uint32_t flags, count, timestamp_bits;
} gs_queue_family;

uint32_t gs_queue_families(gs_vk *vk, gs_obj pd, gs_queue_family *out, uint32_t cap);

// What vkGetPhysicalDeviceProperties2 / Features2 add to the 1.0 queries.
typedef struct {
	uint32_t subgroup_size, subgroup_stages, subgroup_ops;
	uint32_t atomic_float_ext; // VK_EXT_shader_atomic_float is offered
	uint32_t buffer_f32_atomics, buffer_f32_atomic_add;
	uint32_t buffer_f64_atomics, buffer_f64_atomic_add;
	uint8_t uuid[16];    // VkPhysicalDeviceIDProperties.deviceUUID
	uint32_t pci_valid;  // VK_EXT_pci_bus_info is offered; then the address
	uint32_t pci_domain, pci_bus, pci_device, pci_function;
} gs_extras;

void gs_device_extras(gs_vk *vk, gs_obj pd, gs_extras *out);

// gs_create_device creates a device with one queue of family and the
// features in features (a VkPhysicalDeviceFeatures in C memory), loads the
// device entry points and returns the device and its queue.
int32_t gs_create_device(gs_vk *vk, gs_obj pd, uint32_t family, const void *features, gs_obj *device, gs_obj *queue);
void gs_destroy_device(gs_vk *vk);
int32_t gs_device_wait_idle(gs_vk *vk);

// Buffers and memory.
int32_t gs_create_buffer(gs_vk *vk, uint64_t size, uint32_t usage, gs_nd *out,
	uint64_t *mem_size, uint32_t *mem_types);
void gs_destroy_buffer(gs_vk *vk, gs_nd buf);
// gs_allocate allocates size bytes of memory type, binds buf to it and,
// when mapped is not NULL, maps all of it.
int32_t gs_allocate(gs_vk *vk, gs_nd buf, uint64_t size, uint32_t type, gs_nd *mem, void **mapped);
void gs_free(gs_vk *vk, gs_nd mem);

// Command buffers, fences, timestamp queries.
int32_t gs_create_command_pool(gs_vk *vk, uint32_t family, gs_nd *out);
void gs_destroy_command_pool(gs_vk *vk, gs_nd pool);
int32_t gs_allocate_command_buffer(gs_vk *vk, gs_nd pool, gs_obj *out);
int32_t gs_create_fence(gs_vk *vk, gs_nd *out);
void gs_destroy_fence(gs_vk *vk, gs_nd fence);
int32_t gs_create_timestamps(gs_vk *vk, gs_nd *out); // a query pool of 2 timestamps
void gs_destroy_timestamps(gs_vk *vk, gs_nd pool);
// gs_timestamps reads queries 0 and 1.
int32_t gs_timestamps(gs_vk *vk, gs_nd queries, uint64_t out[2]);

// A compute kernel: shader module, descriptor set layout, pipeline layout,
// pipeline.
typedef struct {
	gs_nd module, set_layout, layout, pipeline;
	uint32_t push_size;
} gs_kernel;

// gs_create_kernel builds a kernel from SPIR-V code (size bytes) whose set
// 0 has nbind bindings (binding numbers and VkDescriptorTypes), with nspec
// 32-bit specialization constants (constant_id spec_ids[i] takes
// spec[i]). On failure it destroys what it made.
int32_t gs_create_kernel(gs_vk *vk, const uint32_t *code, size_t size, uint32_t nbind,
	const uint32_t *bindings, const uint32_t *types, uint32_t push_size, uint32_t nspec,
	const uint32_t *spec_ids, const uint32_t *spec, gs_kernel *out);
void gs_destroy_kernel(gs_vk *vk, gs_kernel *k);

// gs_create_pipeline_cache gives the device a pipeline cache, started from
// size bytes of data (NULL: empty) that an earlier run's
// gs_pipeline_cache_data returned; the kernels built after it use it, and
// gs_destroy_device destroys it. gs_pipeline_cache_data is
// vkGetPipelineCacheData: with data NULL it sets *size to the bytes
// needed, else it copies at most *size of them (VK_INCOMPLETE when that
// is short). Without a cache it reports 0 bytes.
int32_t gs_create_pipeline_cache(gs_vk *vk, const void *data, size_t size);
int32_t gs_pipeline_cache_data(gs_vk *vk, size_t *size, void *data);

// Descriptor pools: maxsets sets, nstorage storage-buffer and nuniform
// uniform-buffer descriptors.
int32_t gs_create_pool(gs_vk *vk, uint32_t maxsets, uint32_t nstorage, uint32_t nuniform, gs_nd *out);
int32_t gs_reset_pool(gs_vk *vk, gs_nd pool);
void gs_destroy_pool(gs_vk *vk, gs_nd pool);

// gs_begin begins cmd for one submission, or for several when reusable
// (gs_resubmit); with a query pool (not 0) it resets queries 0 and 1 and
// writes timestamp 0.
int32_t gs_begin(gs_vk *vk, gs_obj cmd, gs_nd queries, uint32_t reusable);

// A kernel's arguments (push_size bytes, its GLSL block at binding
// GS_ARGS_BINDING of set 0) and its workgroup counts (3 uint32 at
// GS_ARGS_GROUPS) lie in a slot of GS_ARGS_SLOT bytes of an arguments
// buffer, which the host writes before it submits: a recorded command
// buffer runs again with other arguments and counts (gpu/cmdcache.go).
// GS_ARGS_SLOT is Vulkan's largest minStorageBufferOffsetAlignment.
enum { GS_ARGS_BINDING = 31, GS_ARGS_SLOT = 256, GS_ARGS_GROUPS = 240 };

// gs_dispatch allocates a descriptor set for k from pool, points its
// bindings (binding numbers, types) at buffers (offsets, ranges in bytes)
// and, for a kernel with arguments, binding GS_ARGS_BINDING at the slot
// of args at args_off, and records bind pipeline, bind set and dispatch:
// an indirect dispatch of the slot's counts for a kernel with arguments,
// else of gx, gy, gz. It records nothing when the pool is exhausted
// (GS_ERROR_OUT_OF_POOL_MEMORY or GS_ERROR_FRAGMENTED_POOL: the caller
// adds a pool and retries).
int32_t gs_dispatch(gs_vk *vk, gs_obj cmd, gs_nd pool, const gs_kernel *k, uint32_t nbuf,
	const uint32_t *bindings, const uint32_t *types, const gs_nd *buffers,
	const uint64_t *offsets, const uint64_t *ranges, gs_nd args, uint64_t args_off,
	uint32_t gx, uint32_t gy, uint32_t gz);

// gs_barrier records a global memory barrier.
void gs_barrier(gs_vk *vk, gs_obj cmd, uint32_t src_stages, uint32_t src_access,
	uint32_t dst_stages, uint32_t dst_access);

// gs_copy records a buffer copy; gs_fill records vkCmdFillBuffer;
// gs_update records vkCmdUpdateBuffer (size ≤ 65536 and a multiple of 4,
// off a multiple of 4; data is copied into the command buffer at once).
void gs_copy(gs_vk *vk, gs_obj cmd, gs_nd src, uint64_t src_off, gs_nd dst, uint64_t dst_off, uint64_t size);
void gs_fill(gs_vk *vk, gs_obj cmd, gs_nd dst, uint64_t off, uint64_t size, uint32_t data);
void gs_update(gs_vk *vk, gs_obj cmd, gs_nd dst, uint64_t off, uint64_t size, const void *data);

// gs_submit ends cmd (after a barrier making device writes visible to the
// host and, with a query pool, timestamp 1), submits it, waits for fence
// up to timeout ns and resets the fence. A non-zero pre is a command
// buffer ended with gs_end_pre, submitted before cmd in the same
// submission.
int32_t gs_submit(gs_vk *vk, gs_obj queue, gs_obj pre, gs_obj cmd, gs_nd fence, gs_nd queries, uint64_t timeout);

// gs_resubmit submits cmd, already ended by gs_submit and begun reusable,
// again (after pre, as gs_submit), waits for fence and resets it.
int32_t gs_resubmit(gs_vk *vk, gs_obj queue, gs_obj pre, gs_obj cmd, gs_nd fence, uint64_t timeout);

// gs_end_pre ends cmd after a barrier making its transfer writes visible
// to the compute and transfer work submitted after it.
int32_t gs_end_pre(gs_vk *vk, gs_obj cmd);

#endif

//go:build linux && cgo && (amd64 || arm64)

#include "vkshim.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"

// Structure types, flags and enums (Vulkan specification, API reference).
enum {
	ST_APPLICATION_INFO = 0,
	ST_INSTANCE_CREATE_INFO = 1,
	ST_DEVICE_QUEUE_CREATE_INFO = 2,
	ST_DEVICE_CREATE_INFO = 3,
	ST_SUBMIT_INFO = 4,
	ST_MEMORY_ALLOCATE_INFO = 5,
	ST_FENCE_CREATE_INFO = 8,
	ST_QUERY_POOL_CREATE_INFO = 11,
	ST_BUFFER_CREATE_INFO = 12,
	ST_SHADER_MODULE_CREATE_INFO = 16,
	ST_PIPELINE_CACHE_CREATE_INFO = 17,
	ST_PIPELINE_SHADER_STAGE_CREATE_INFO = 18,
	ST_COMPUTE_PIPELINE_CREATE_INFO = 29,
	ST_PIPELINE_LAYOUT_CREATE_INFO = 30,
	ST_DESCRIPTOR_SET_LAYOUT_CREATE_INFO = 32,
	ST_DESCRIPTOR_POOL_CREATE_INFO = 33,
	ST_DESCRIPTOR_SET_ALLOCATE_INFO = 34,
	ST_WRITE_DESCRIPTOR_SET = 35,
	ST_COMMAND_POOL_CREATE_INFO = 39,
	ST_COMMAND_BUFFER_ALLOCATE_INFO = 40,
	ST_COMMAND_BUFFER_BEGIN_INFO = 42,
	ST_MEMORY_BARRIER = 46,
	ST_PHYSICAL_DEVICE_FEATURES_2 = 1000059000,
	ST_PHYSICAL_DEVICE_PROPERTIES_2 = 1000059001,
	ST_PHYSICAL_DEVICE_ID_PROPERTIES = 1000071004,
	ST_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES = 1000094000,
	ST_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT = 1000212000,
	ST_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT = 1000128004,
	ST_VALIDATION_FEATURES_EXT = 1000247000,
	ST_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT = 1000260000,

	STAGE_COMPUTE = 0x20,                 // VK_SHADER_STAGE_COMPUTE_BIT
	BIND_POINT_COMPUTE = 1,               // VK_PIPELINE_BIND_POINT_COMPUTE
	CMD_ONE_TIME_SUBMIT = 1,              // VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT
	POOL_RESET_COMMAND_BUFFER = 2,        // VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT
	PIPE_TOP = 0x1,                       // VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT
	PIPE_COMPUTE = 0x800,                 // VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT
	PIPE_TRANSFER = 0x1000,               // VK_PIPELINE_STAGE_TRANSFER_BIT
	PIPE_BOTTOM = 0x2000,                 // VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT
	PIPE_HOST = 0x4000,                   // VK_PIPELINE_STAGE_HOST_BIT
	ACCESS_SHADER_WRITE = 0x40,           // VK_ACCESS_SHADER_WRITE_BIT
	ACCESS_TRANSFER_WRITE = 0x1000,       // VK_ACCESS_TRANSFER_WRITE_BIT
	ACCESS_HOST_READ = 0x2000,            // VK_ACCESS_HOST_READ_BIT
	DESC_UNIFORM_BUFFER = 6,              // VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
	DESC_STORAGE_BUFFER = 7,              // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
	QUERY_RESULT_64_WAIT = 0x1 | 0x2,     // VK_QUERY_RESULT_64_BIT | WAIT_BIT
	SEVERITY_WARNING_ERROR = 0x100 | 0x1000,
	TYPES_ALL = 0x1 | 0x2 | 0x4,          // general, validation, performance
	VALIDATION_FEATURE_SYNC = 4,          // ..._ENABLE_SYNCHRONIZATION_VALIDATION_EXT
	MAX_BINDINGS = 32,
};

#define API_1_0 ((1u << 22) | (0u << 12))
#define API_1_1 ((1u << 22) | (1u << 12))

typedef struct {
	int32_t sType;
	const void *pNext;
} base_in;

typedef struct {
	int32_t sType;
	const void *pNext;
	const char *pApplicationName;
	uint32_t applicationVersion;
	const char *pEngineName;
	uint32_t engineVersion;
	uint32_t apiVersion;
} application_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	const application_info *pApplicationInfo;
	uint32_t enabledLayerCount;
	const char *const *ppEnabledLayerNames;
	uint32_t enabledExtensionCount;
	const char *const *ppEnabledExtensionNames;
} instance_create_info;

typedef struct {
	char layerName[256];
	uint32_t specVersion;
	uint32_t implementationVersion;
	char description[256];
} layer_properties;

typedef struct {
	char extensionName[256];
	uint32_t specVersion;
} extension_properties;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	const char *pMessageIdName;
	int32_t messageIdNumber;
	const char *pMessage;
	// labels and objects follow; not read here
} debug_callback_data;

typedef uint32_t (*debug_callback)(uint32_t severity, uint32_t types, const debug_callback_data *data, void *user);

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t messageSeverity;
	uint32_t messageType;
	debug_callback pfnUserCallback;
	void *pUserData;
} debug_messenger_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t enabledValidationFeatureCount;
	const int32_t *pEnabledValidationFeatures;
	uint32_t disabledValidationFeatureCount;
	const int32_t *pDisabledValidationFeatures;
} validation_features;

typedef struct {
	uint32_t queueFlags;
	uint32_t queueCount;
	uint32_t timestampValidBits;
	uint32_t minImageTransferGranularity[3];
} queue_family_properties;

typedef struct {
	int32_t sType;
	void *pNext;
	// VkPhysicalDeviceProperties is 824 bytes on 64-bit platforms; the
	// driver writes exactly that, so more room is harmless.
	uint64_t properties[128];
} physical_device_properties2;

typedef struct {
	int32_t sType;
	void *pNext;
	uint32_t subgroupSize;
	uint32_t supportedStages;
	uint32_t supportedOperations;
	uint32_t quadOperationsInAllStages;
} subgroup_properties;

typedef struct {
	int32_t sType;
	void *pNext;
	uint8_t deviceUUID[16];
	uint8_t driverUUID[16];
	uint8_t deviceLUID[8];
	uint32_t deviceNodeMask;
	uint32_t deviceLUIDValid;
} id_properties;

typedef struct {
	int32_t sType;
	void *pNext;
	uint32_t pciDomain, pciBus, pciDevice, pciFunction;
} pci_bus_info_properties;

typedef struct {
	int32_t sType;
	void *pNext;
	// VkPhysicalDeviceFeatures: 55 VkBool32 (220 bytes); more room is
	// harmless.
	uint32_t features[64];
} physical_device_features2;

typedef struct {
	int32_t sType;
	void *pNext;
	uint32_t shaderBufferFloat32Atomics;
	uint32_t shaderBufferFloat32AtomicAdd;
	uint32_t shaderBufferFloat64Atomics;
	uint32_t shaderBufferFloat64AtomicAdd;
	uint32_t shaderSharedFloat32Atomics;
	uint32_t shaderSharedFloat32AtomicAdd;
	uint32_t shaderSharedFloat64Atomics;
	uint32_t shaderSharedFloat64AtomicAdd;
	uint32_t shaderImageFloat32Atomics;
	uint32_t shaderImageFloat32AtomicAdd;
	uint32_t sparseImageFloat32Atomics;
	uint32_t sparseImageFloat32AtomicAdd;
} atomic_float_features;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t queueFamilyIndex;
	uint32_t queueCount;
	const float *pQueuePriorities;
} device_queue_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t queueCreateInfoCount;
	const device_queue_create_info *pQueueCreateInfos;
	uint32_t enabledLayerCount;
	const char *const *ppEnabledLayerNames;
	uint32_t enabledExtensionCount;
	const char *const *ppEnabledExtensionNames;
	const void *pEnabledFeatures;
} device_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	size_t codeSize;
	const uint32_t *pCode;
} shader_module_create_info;

typedef struct {
	uint32_t binding;
	uint32_t descriptorType;
	uint32_t descriptorCount;
	uint32_t stageFlags;
	const gs_nd *pImmutableSamplers;
} descriptor_set_layout_binding;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t bindingCount;
	const descriptor_set_layout_binding *pBindings;
} descriptor_set_layout_create_info;

typedef struct {
	uint32_t stageFlags;
	uint32_t offset;
	uint32_t size;
} push_constant_range;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t setLayoutCount;
	const gs_nd *pSetLayouts;
	uint32_t pushConstantRangeCount;
	const push_constant_range *pPushConstantRanges;
} pipeline_layout_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t stage;
	gs_nd module;
	const char *pName;
	const void *pSpecializationInfo;
} pipeline_shader_stage_create_info;

// VkSpecializationMapEntry and VkSpecializationInfo.
typedef struct {
	uint32_t constantID;
	uint32_t offset;
	size_t size;
} specialization_map_entry;

typedef struct {
	uint32_t mapEntryCount;
	const specialization_map_entry *pMapEntries;
	size_t dataSize;
	const void *pData;
} specialization_info;

// MAX_SPEC bounds a kernel's specialization constants.
#define MAX_SPEC 8

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	pipeline_shader_stage_create_info stage;
	gs_nd layout;
	gs_nd basePipelineHandle;
	int32_t basePipelineIndex;
} compute_pipeline_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	size_t initialDataSize;
	const void *pInitialData;
} pipeline_cache_create_info;

typedef struct {
	uint32_t type;
	uint32_t descriptorCount;
} descriptor_pool_size;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t maxSets;
	uint32_t poolSizeCount;
	const descriptor_pool_size *pPoolSizes;
} descriptor_pool_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	gs_nd descriptorPool;
	uint32_t descriptorSetCount;
	const gs_nd *pSetLayouts;
} descriptor_set_allocate_info;

typedef struct {
	gs_nd buffer;
	uint64_t offset;
	uint64_t range;
} descriptor_buffer_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	gs_nd dstSet;
	uint32_t dstBinding;
	uint32_t dstArrayElement;
	uint32_t descriptorCount;
	uint32_t descriptorType;
	const void *pImageInfo;
	const descriptor_buffer_info *pBufferInfo;
	const gs_nd *pTexelBufferView;
} write_descriptor_set;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	const void *pInheritanceInfo;
} command_buffer_begin_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t srcAccessMask;
	uint32_t dstAccessMask;
} memory_barrier;

typedef struct {
	uint64_t srcOffset;
	uint64_t dstOffset;
	uint64_t size;
} buffer_copy;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t waitSemaphoreCount;
	const gs_nd *pWaitSemaphores;
	const uint32_t *pWaitDstStageMask;
	uint32_t commandBufferCount;
	const gs_obj *pCommandBuffers;
	uint32_t signalSemaphoreCount;
	const gs_nd *pSignalSemaphores;
} submit_info;

typedef struct {
	uint64_t size;
	uint64_t alignment;
	uint32_t memoryTypeBits;
} memory_requirements;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint64_t size;
	uint32_t usage;
	uint32_t sharingMode;
	uint32_t queueFamilyIndexCount;
	const uint32_t *pQueueFamilyIndices;
} buffer_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint64_t allocationSize;
	uint32_t memoryTypeIndex;
} memory_allocate_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t queueFamilyIndex;
} command_pool_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	gs_nd commandPool;
	uint32_t level;
	uint32_t commandBufferCount;
} command_buffer_allocate_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
} fence_create_info;

typedef struct {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t queryType;
	uint32_t queryCount;
	uint32_t pipelineStatistics;
} query_pool_create_info;

typedef void (*PFN_void)(void);
typedef PFN_void (*PFN_gipa)(gs_obj instance, const char *name);

struct gs_vk {
	PFN_gipa gipa;
	gs_obj instance, device;
	gs_nd messenger;
	gs_nd pipeline_cache; // 0: kernels build without one
	uint32_t api;

	void (*DestroyInstance)(gs_obj, const void *);
	int32_t (*EnumeratePhysicalDevices)(gs_obj, uint32_t *, gs_obj *);
	void (*GetPhysicalDeviceQueueFamilyProperties)(gs_obj, uint32_t *, queue_family_properties *);
	void (*GetPhysicalDeviceProperties2)(gs_obj, physical_device_properties2 *);
	void (*GetPhysicalDeviceFeatures2)(gs_obj, physical_device_features2 *);
	int32_t (*EnumerateDeviceExtensionProperties)(gs_obj, const char *, uint32_t *, extension_properties *);
	int32_t (*CreateDevice)(gs_obj, const device_create_info *, const void *, gs_obj *);
	PFN_void (*GetDeviceProcAddr)(gs_obj, const char *);
	int32_t (*CreateDebugUtilsMessengerEXT)(gs_obj, const debug_messenger_create_info *, const void *, gs_nd *);
	void (*DestroyDebugUtilsMessengerEXT)(gs_obj, gs_nd, const void *);

	void (*DestroyDevice)(gs_obj, const void *);
	void (*GetDeviceQueue)(gs_obj, uint32_t, uint32_t, gs_obj *);
	int32_t (*DeviceWaitIdle)(gs_obj);
	int32_t (*CreateBuffer)(gs_obj, const buffer_create_info *, const void *, gs_nd *);
	void (*DestroyBuffer)(gs_obj, gs_nd, const void *);
	void (*GetBufferMemoryRequirements)(gs_obj, gs_nd, memory_requirements *);
	int32_t (*AllocateMemory)(gs_obj, const memory_allocate_info *, const void *, gs_nd *);
	void (*FreeMemory)(gs_obj, gs_nd, const void *);
	int32_t (*BindBufferMemory)(gs_obj, gs_nd, gs_nd, uint64_t);
	int32_t (*MapMemory)(gs_obj, gs_nd, uint64_t, uint64_t, uint32_t, void **);
	int32_t (*CreateCommandPool)(gs_obj, const command_pool_create_info *, const void *, gs_nd *);
	void (*DestroyCommandPool)(gs_obj, gs_nd, const void *);
	int32_t (*AllocateCommandBuffers)(gs_obj, const command_buffer_allocate_info *, gs_obj *);
	int32_t (*CreateFence)(gs_obj, const fence_create_info *, const void *, gs_nd *);
	void (*DestroyFence)(gs_obj, gs_nd, const void *);
	int32_t (*CreateQueryPool)(gs_obj, const query_pool_create_info *, const void *, gs_nd *);
	void (*DestroyQueryPool)(gs_obj, gs_nd, const void *);
	int32_t (*CreateShaderModule)(gs_obj, const shader_module_create_info *, const void *, gs_nd *);
	void (*DestroyShaderModule)(gs_obj, gs_nd, const void *);
	int32_t (*CreateDescriptorSetLayout)(gs_obj, const descriptor_set_layout_create_info *, const void *, gs_nd *);
	void (*DestroyDescriptorSetLayout)(gs_obj, gs_nd, const void *);
	int32_t (*CreatePipelineLayout)(gs_obj, const pipeline_layout_create_info *, const void *, gs_nd *);
	void (*DestroyPipelineLayout)(gs_obj, gs_nd, const void *);
	int32_t (*CreateComputePipelines)(gs_obj, gs_nd, uint32_t, const compute_pipeline_create_info *, const void *, gs_nd *);
	void (*DestroyPipeline)(gs_obj, gs_nd, const void *);
	int32_t (*CreatePipelineCache)(gs_obj, const pipeline_cache_create_info *, const void *, gs_nd *);
	void (*DestroyPipelineCache)(gs_obj, gs_nd, const void *);
	int32_t (*GetPipelineCacheData)(gs_obj, gs_nd, size_t *, void *);
	int32_t (*CreateDescriptorPool)(gs_obj, const descriptor_pool_create_info *, const void *, gs_nd *);
	int32_t (*ResetDescriptorPool)(gs_obj, gs_nd, uint32_t);
	void (*DestroyDescriptorPool)(gs_obj, gs_nd, const void *);
	int32_t (*AllocateDescriptorSets)(gs_obj, const descriptor_set_allocate_info *, gs_nd *);
	void (*UpdateDescriptorSets)(gs_obj, uint32_t, const write_descriptor_set *, uint32_t, const void *);
	int32_t (*BeginCommandBuffer)(gs_obj, const command_buffer_begin_info *);
	int32_t (*EndCommandBuffer)(gs_obj);
	void (*CmdBindPipeline)(gs_obj, uint32_t, gs_nd);
	void (*CmdBindDescriptorSets)(gs_obj, uint32_t, gs_nd, uint32_t, uint32_t, const gs_nd *, uint32_t, const uint32_t *);
	void (*CmdDispatch)(gs_obj, uint32_t, uint32_t, uint32_t);
	void (*CmdDispatchIndirect)(gs_obj, gs_nd, uint64_t);
	void (*CmdPipelineBarrier)(gs_obj, uint32_t, uint32_t, uint32_t, uint32_t, const memory_barrier *, uint32_t, const void *, uint32_t, const void *);
	void (*CmdCopyBuffer)(gs_obj, gs_nd, gs_nd, uint32_t, const buffer_copy *);
	void (*CmdFillBuffer)(gs_obj, gs_nd, uint64_t, uint64_t, uint32_t);
	void (*CmdUpdateBuffer)(gs_obj, gs_nd, uint64_t, uint64_t, const void *);
	void (*CmdResetQueryPool)(gs_obj, gs_nd, uint32_t, uint32_t);
	void (*CmdWriteTimestamp)(gs_obj, uint32_t, gs_nd, uint32_t);
	int32_t (*QueueSubmit)(gs_obj, uint32_t, const submit_info *, gs_nd);
	int32_t (*WaitForFences)(gs_obj, uint32_t, const gs_nd *, uint32_t, uint64_t);
	int32_t (*ResetFences)(gs_obj, uint32_t, const gs_nd *);
	int32_t (*GetQueryPoolResults)(gs_obj, gs_nd, uint32_t, uint32_t, size_t, void *, uint64_t, uint32_t);
};

void *gs_load(const char *name, const char **err) {
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		*err = dlerror();
		return NULL;
	}
	void *gipa = dlsym(lib, "vkGetInstanceProcAddr");
	if (gipa == NULL) {
		*err = "vkGetInstanceProcAddr not found";
		dlclose(lib);
		return NULL;
	}
	// The library stays loaded for the life of the process: vulkan-go
	// keeps its entry points.
	return gipa;
}

static uint32_t debug_cb(uint32_t severity, uint32_t types, const debug_callback_data *data, void *user) {
	gpusimDebugMessage((uintptr_t)user, severity, types,
		(char *)(data->pMessageIdName ? data->pMessageIdName : ""),
		(char *)(data->pMessage ? data->pMessage : ""));
	return 0; // VK_FALSE: do not abort the call
}

static int has_layer(gs_vk *vk, const char *name) {
	int32_t (*enumerate)(uint32_t *, layer_properties *) =
		(int32_t(*)(uint32_t *, layer_properties *))vk->gipa(NULL, "vkEnumerateInstanceLayerProperties");
	if (enumerate == NULL) {
		return 0;
	}
	uint32_t n = 0;
	if (enumerate(&n, NULL) != GS_SUCCESS || n == 0) {
		return 0;
	}
	layer_properties *p = calloc(n, sizeof *p);
	if (p == NULL) {
		return 0;
	}
	int found = 0;
	if (enumerate(&n, p) >= 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(p[i].layerName, name) == 0) {
				found = 1;
			}
		}
	}
	free(p);
	return found;
}

static int has_instance_extension(gs_vk *vk, const char *layer, const char *name) {
	int32_t (*enumerate)(const char *, uint32_t *, extension_properties *) =
		(int32_t(*)(const char *, uint32_t *, extension_properties *))vk->gipa(NULL, "vkEnumerateInstanceExtensionProperties");
	if (enumerate == NULL) {
		return 0;
	}
	uint32_t n = 0;
	if (enumerate(layer, &n, NULL) != GS_SUCCESS || n == 0) {
		return 0;
	}
	extension_properties *p = calloc(n, sizeof *p);
	if (p == NULL) {
		return 0;
	}
	int found = 0;
	if (enumerate(layer, &n, p) >= 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(p[i].extensionName, name) == 0) {
				found = 1;
			}
		}
	}
	free(p);
	return found;
}

#define LOAD(vk, field, name) ((vk)->field = (__typeof__((vk)->field))(vk)->gipa((vk)->instance, name))
// LOADD loads a device entry point and counts the missing ones.
#define LOADD(vk, field, name) \
	(missing += ((vk)->field = (__typeof__((vk)->field))(vk)->GetDeviceProcAddr((vk)->device, name)) == NULL)

int32_t gs_create_instance(void *gipa, int validation, uintptr_t user, gs_vk **out) {
	*out = NULL;
	gs_vk *vk = calloc(1, sizeof *vk);
	if (vk == NULL) {
		return -1; // VK_ERROR_OUT_OF_HOST_MEMORY
	}
	vk->gipa = (PFN_gipa)gipa;
	int32_t (*create)(const instance_create_info *, const void *, gs_obj *) =
		(int32_t(*)(const instance_create_info *, const void *, gs_obj *))vk->gipa(NULL, "vkCreateInstance");
	if (create == NULL) {
		free(vk);
		return GS_ERROR_LOADER;
	}
	int32_t (*version)(uint32_t *) = (int32_t(*)(uint32_t *))vk->gipa(NULL, "vkEnumerateInstanceVersion");
	uint32_t loader = API_1_0;
	if (version != NULL && version(&loader) != GS_SUCCESS) {
		loader = API_1_0;
	}
	vk->api = loader >= API_1_1 ? API_1_1 : API_1_0;

	const char *layers[1];
	const char *exts[2];
	uint32_t nlayers = 0, nexts = 0;
	debug_messenger_create_info dbg = {0};
	validation_features vf = {0};
	const int32_t sync = VALIDATION_FEATURE_SYNC;
	const void *next = NULL;
	if (validation) {
		const char *layer = "VK_LAYER_KHRONOS_validation";
		if (!has_layer(vk, layer)) {
			free(vk);
			return GS_ERROR_LAYER_NOT_PRESENT;
		}
		if (!has_instance_extension(vk, NULL, "VK_EXT_debug_utils") &&
			!has_instance_extension(vk, layer, "VK_EXT_debug_utils")) {
			free(vk);
			return GS_ERROR_EXTENSION_NOT_PRESENT;
		}
		layers[nlayers++] = layer;
		exts[nexts++] = "VK_EXT_debug_utils";
		dbg.sType = ST_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
		dbg.messageSeverity = SEVERITY_WARNING_ERROR;
		dbg.messageType = TYPES_ALL;
		dbg.pfnUserCallback = debug_cb;
		dbg.pUserData = (void *)user;
		next = &dbg; // also reports on vkCreateInstance and vkDestroyInstance
		if (has_instance_extension(vk, layer, "VK_EXT_validation_features")) {
			exts[nexts++] = "VK_EXT_validation_features";
			vf.sType = ST_VALIDATION_FEATURES_EXT;
			vf.pNext = &dbg;
			vf.enabledValidationFeatureCount = 1;
			vf.pEnabledValidationFeatures = &sync;
			next = &vf;
		}
	}
	application_info app = {
		.sType = ST_APPLICATION_INFO,
		.pApplicationName = "gpusim",
		.applicationVersion = 1,
		.pEngineName = "gpusim",
		.engineVersion = 1,
		.apiVersion = vk->api,
	};
	instance_create_info info = {
		.sType = ST_INSTANCE_CREATE_INFO,
		.pNext = next,
		.pApplicationInfo = &app,
		.enabledLayerCount = nlayers,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = nexts,
		.ppEnabledExtensionNames = exts,
	};
	int32_t r = create(&info, NULL, &vk->instance);
	if (r != GS_SUCCESS) {
		free(vk);
		return r;
	}
	LOAD(vk, DestroyInstance, "vkDestroyInstance");
	LOAD(vk, EnumeratePhysicalDevices, "vkEnumeratePhysicalDevices");
	LOAD(vk, GetPhysicalDeviceQueueFamilyProperties, "vkGetPhysicalDeviceQueueFamilyProperties");
	LOAD(vk, EnumerateDeviceExtensionProperties, "vkEnumerateDeviceExtensionProperties");
	LOAD(vk, CreateDevice, "vkCreateDevice");
	LOAD(vk, GetDeviceProcAddr, "vkGetDeviceProcAddr");
	if (vk->api >= API_1_1) {
		LOAD(vk, GetPhysicalDeviceProperties2, "vkGetPhysicalDeviceProperties2");
		LOAD(vk, GetPhysicalDeviceFeatures2, "vkGetPhysicalDeviceFeatures2");
	}
	if (vk->DestroyInstance == NULL || vk->EnumeratePhysicalDevices == NULL ||
		vk->GetPhysicalDeviceQueueFamilyProperties == NULL ||
		vk->EnumerateDeviceExtensionProperties == NULL || vk->CreateDevice == NULL ||
		vk->GetDeviceProcAddr == NULL) {
		if (vk->DestroyInstance != NULL) {
			vk->DestroyInstance(vk->instance, NULL);
		}
		free(vk);
		return GS_ERROR_LOADER;
	}
	if (validation) {
		LOAD(vk, CreateDebugUtilsMessengerEXT, "vkCreateDebugUtilsMessengerEXT");
		LOAD(vk, DestroyDebugUtilsMessengerEXT, "vkDestroyDebugUtilsMessengerEXT");
		dbg.pNext = NULL;
		if (vk->CreateDebugUtilsMessengerEXT == NULL || vk->DestroyDebugUtilsMessengerEXT == NULL) {
			vk->DestroyInstance(vk->instance, NULL);
			free(vk);
			return GS_ERROR_EXTENSION_NOT_PRESENT;
		}
		r = vk->CreateDebugUtilsMessengerEXT(vk->instance, &dbg, NULL, &vk->messenger);
		if (r != GS_SUCCESS) {
			vk->DestroyInstance(vk->instance, NULL);
			free(vk);
			return r;
		}
	}
	*out = vk;
	return GS_SUCCESS;
}

void gs_destroy_instance(gs_vk *vk) {
	if (vk == NULL) {
		return;
	}
	if (vk->messenger != 0) {
		vk->DestroyDebugUtilsMessengerEXT(vk->instance, vk->messenger, NULL);
	}
	vk->DestroyInstance(vk->instance, NULL);
	free(vk);
}

gs_obj gs_instance(gs_vk *vk) { return vk->instance; }

uint32_t gs_instance_api(gs_vk *vk) { return vk->api; }

uint32_t gs_queue_families(gs_vk *vk, gs_obj pd, gs_queue_family *out, uint32_t cap) {
	uint32_t n = 0;
	vk->GetPhysicalDeviceQueueFamilyProperties(pd, &n, NULL);
	if (n == 0) {
		return 0;
	}
	queue_family_properties *p = calloc(n, sizeof *p);
	if (p == NULL) {
		return 0;
	}
	vk->GetPhysicalDeviceQueueFamilyProperties(pd, &n, p);
	for (uint32_t i = 0; i < n && i < cap; i++) {
		out[i].flags = p[i].queueFlags;
		out[i].count = p[i].queueCount;
		out[i].timestamp_bits = p[i].timestampValidBits;
	}
	free(p);
	return n < cap ? n : cap;
}

static int has_device_extension(gs_vk *vk, gs_obj pd, const char *name) {
	uint32_t n = 0;
	if (vk->EnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != GS_SUCCESS || n == 0) {
		return 0;
	}
	extension_properties *p = calloc(n, sizeof *p);
	if (p == NULL) {
		return 0;
	}
	int found = 0;
	if (vk->EnumerateDeviceExtensionProperties(pd, NULL, &n, p) >= 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(p[i].extensionName, name) == 0) {
				found = 1;
			}
		}
	}
	free(p);
	return found;
}

void gs_device_extras(gs_vk *vk, gs_obj pd, gs_extras *out) {
	memset(out, 0, sizeof *out);
	if (vk->GetPhysicalDeviceProperties2 == NULL) {
		return;
	}
	pci_bus_info_properties pci = {.sType = ST_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
	id_properties id = {.sType = ST_PHYSICAL_DEVICE_ID_PROPERTIES};
	subgroup_properties sg = {.sType = ST_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = &id};
	int has_pci = has_device_extension(vk, pd, "VK_EXT_pci_bus_info");
	if (has_pci) {
		id.pNext = &pci;
	}
	physical_device_properties2 props = {.sType = ST_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sg};
	vk->GetPhysicalDeviceProperties2(pd, &props);
	out->subgroup_size = sg.subgroupSize;
	out->subgroup_stages = sg.supportedStages;
	out->subgroup_ops = sg.supportedOperations;
	memcpy(out->uuid, id.deviceUUID, sizeof out->uuid);
	if (has_pci) {
		out->pci_valid = 1;
		out->pci_domain = pci.pciDomain;
		out->pci_bus = pci.pciBus;
		out->pci_device = pci.pciDevice;
		out->pci_function = pci.pciFunction;
	}
	if (vk->GetPhysicalDeviceFeatures2 == NULL || !has_device_extension(vk, pd, "VK_EXT_shader_atomic_float")) {
		return;
	}
	atomic_float_features af = {.sType = ST_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
	physical_device_features2 feat = {.sType = ST_PHYSICAL_DEVICE_FEATURES_2, .pNext = &af};
	vk->GetPhysicalDeviceFeatures2(pd, &feat);
	out->atomic_float_ext = 1;
	out->buffer_f32_atomics = af.shaderBufferFloat32Atomics;
	out->buffer_f32_atomic_add = af.shaderBufferFloat32AtomicAdd;
	out->buffer_f64_atomics = af.shaderBufferFloat64Atomics;
	out->buffer_f64_atomic_add = af.shaderBufferFloat64AtomicAdd;
}

int32_t gs_create_device(gs_vk *vk, gs_obj pd, uint32_t family, const void *features, gs_obj *device, gs_obj *queue) {
	const float priority = 1.0f;
	device_queue_create_info q = {
		.sType = ST_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	device_create_info info = {
		.sType = ST_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &q,
		.pEnabledFeatures = features,
	};
	int32_t r = vk->CreateDevice(pd, &info, NULL, &vk->device);
	if (r != GS_SUCCESS) {
		vk->device = NULL;
		return r;
	}
	int missing = 0;
	LOADD(vk, DestroyDevice, "vkDestroyDevice");
	LOADD(vk, GetDeviceQueue, "vkGetDeviceQueue");
	LOADD(vk, DeviceWaitIdle, "vkDeviceWaitIdle");
	LOADD(vk, CreateBuffer, "vkCreateBuffer");
	LOADD(vk, DestroyBuffer, "vkDestroyBuffer");
	LOADD(vk, GetBufferMemoryRequirements, "vkGetBufferMemoryRequirements");
	LOADD(vk, AllocateMemory, "vkAllocateMemory");
	LOADD(vk, FreeMemory, "vkFreeMemory");
	LOADD(vk, BindBufferMemory, "vkBindBufferMemory");
	LOADD(vk, MapMemory, "vkMapMemory");
	LOADD(vk, CreateCommandPool, "vkCreateCommandPool");
	LOADD(vk, DestroyCommandPool, "vkDestroyCommandPool");
	LOADD(vk, AllocateCommandBuffers, "vkAllocateCommandBuffers");
	LOADD(vk, CreateFence, "vkCreateFence");
	LOADD(vk, DestroyFence, "vkDestroyFence");
	LOADD(vk, CreateQueryPool, "vkCreateQueryPool");
	LOADD(vk, DestroyQueryPool, "vkDestroyQueryPool");
	LOADD(vk, CreateShaderModule, "vkCreateShaderModule");
	LOADD(vk, DestroyShaderModule, "vkDestroyShaderModule");
	LOADD(vk, CreateDescriptorSetLayout, "vkCreateDescriptorSetLayout");
	LOADD(vk, DestroyDescriptorSetLayout, "vkDestroyDescriptorSetLayout");
	LOADD(vk, CreatePipelineLayout, "vkCreatePipelineLayout");
	LOADD(vk, DestroyPipelineLayout, "vkDestroyPipelineLayout");
	LOADD(vk, CreateComputePipelines, "vkCreateComputePipelines");
	LOADD(vk, DestroyPipeline, "vkDestroyPipeline");
	LOADD(vk, CreatePipelineCache, "vkCreatePipelineCache");
	LOADD(vk, DestroyPipelineCache, "vkDestroyPipelineCache");
	LOADD(vk, GetPipelineCacheData, "vkGetPipelineCacheData");
	LOADD(vk, CreateDescriptorPool, "vkCreateDescriptorPool");
	LOADD(vk, ResetDescriptorPool, "vkResetDescriptorPool");
	LOADD(vk, DestroyDescriptorPool, "vkDestroyDescriptorPool");
	LOADD(vk, AllocateDescriptorSets, "vkAllocateDescriptorSets");
	LOADD(vk, UpdateDescriptorSets, "vkUpdateDescriptorSets");
	LOADD(vk, BeginCommandBuffer, "vkBeginCommandBuffer");
	LOADD(vk, EndCommandBuffer, "vkEndCommandBuffer");
	LOADD(vk, CmdBindPipeline, "vkCmdBindPipeline");
	LOADD(vk, CmdBindDescriptorSets, "vkCmdBindDescriptorSets");
	LOADD(vk, CmdDispatch, "vkCmdDispatch");
	LOADD(vk, CmdDispatchIndirect, "vkCmdDispatchIndirect");
	LOADD(vk, CmdPipelineBarrier, "vkCmdPipelineBarrier");
	LOADD(vk, CmdCopyBuffer, "vkCmdCopyBuffer");
	LOADD(vk, CmdFillBuffer, "vkCmdFillBuffer");
	LOADD(vk, CmdUpdateBuffer, "vkCmdUpdateBuffer");
	LOADD(vk, CmdResetQueryPool, "vkCmdResetQueryPool");
	LOADD(vk, CmdWriteTimestamp, "vkCmdWriteTimestamp");
	LOADD(vk, QueueSubmit, "vkQueueSubmit");
	LOADD(vk, WaitForFences, "vkWaitForFences");
	LOADD(vk, ResetFences, "vkResetFences");
	LOADD(vk, GetQueryPoolResults, "vkGetQueryPoolResults");
	if (missing > 0) {
		if (vk->DestroyDevice != NULL) {
			vk->DestroyDevice(vk->device, NULL);
		}
		vk->device = NULL;
		return GS_ERROR_LOADER;
	}
	*device = vk->device;
	vk->GetDeviceQueue(vk->device, family, 0, queue);
	return GS_SUCCESS;
}

void gs_destroy_device(gs_vk *vk) {
	if (vk->device != NULL && vk->pipeline_cache != 0) {
		vk->DestroyPipelineCache(vk->device, vk->pipeline_cache, NULL);
		vk->pipeline_cache = 0;
	}
	if (vk->device != NULL) {
		vk->DestroyDevice(vk->device, NULL);
		vk->device = NULL;
	}
}

void gs_destroy_kernel(gs_vk *vk, gs_kernel *k) {
	if (k->pipeline != 0) {
		vk->DestroyPipeline(vk->device, k->pipeline, NULL);
	}
	if (k->layout != 0) {
		vk->DestroyPipelineLayout(vk->device, k->layout, NULL);
	}
	if (k->set_layout != 0) {
		vk->DestroyDescriptorSetLayout(vk->device, k->set_layout, NULL);
	}
	if (k->module != 0) {
		vk->DestroyShaderModule(vk->device, k->module, NULL);
	}
	memset(k, 0, sizeof *k);
}

int32_t gs_create_kernel(gs_vk *vk, const uint32_t *code, size_t size, uint32_t nbind,
	const uint32_t *bindings, const uint32_t *types, uint32_t push_size, uint32_t nspec,
	const uint32_t *spec_ids, const uint32_t *spec, gs_kernel *out) {
	memset(out, 0, sizeof *out);
	if (nbind + 1 > MAX_BINDINGS || nspec > MAX_SPEC) {
		return GS_ERROR_INITIALIZATION_FAILED;
	}
	out->push_size = push_size;
	shader_module_create_info sm = {
		.sType = ST_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = code,
	};
	int32_t r = vk->CreateShaderModule(vk->device, &sm, NULL, &out->module);
	if (r != GS_SUCCESS) {
		gs_destroy_kernel(vk, out);
		return r;
	}
	descriptor_set_layout_binding b[MAX_BINDINGS];
	for (uint32_t i = 0; i < nbind; i++) {
		b[i] = (descriptor_set_layout_binding){
			.binding = bindings[i],
			.descriptorType = types[i],
			.descriptorCount = 1,
			.stageFlags = STAGE_COMPUTE,
		};
	}
	uint32_t nb = nbind;
	if (push_size > 0) {
		// The arguments block.
		b[nb++] = (descriptor_set_layout_binding){
			.binding = GS_ARGS_BINDING,
			.descriptorType = DESC_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = STAGE_COMPUTE,
		};
	}
	descriptor_set_layout_create_info dsl = {
		.sType = ST_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = nb,
		.pBindings = b,
	};
	r = vk->CreateDescriptorSetLayout(vk->device, &dsl, NULL, &out->set_layout);
	if (r != GS_SUCCESS) {
		gs_destroy_kernel(vk, out);
		return r;
	}
	pipeline_layout_create_info pl = {
		.sType = ST_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &out->set_layout,
	};
	r = vk->CreatePipelineLayout(vk->device, &pl, NULL, &out->layout);
	if (r != GS_SUCCESS) {
		gs_destroy_kernel(vk, out);
		return r;
	}
	specialization_map_entry me[MAX_SPEC];
	for (uint32_t i = 0; i < nspec; i++) {
		me[i] = (specialization_map_entry){.constantID = spec_ids[i], .offset = 4 * i, .size = 4};
	}
	specialization_info si = {.mapEntryCount = nspec, .pMapEntries = me, .dataSize = 4 * nspec, .pData = spec};
	compute_pipeline_create_info cp = {
		.sType = ST_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {
			.sType = ST_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = STAGE_COMPUTE,
			.module = out->module,
			.pName = "main",
			.pSpecializationInfo = nspec > 0 ? &si : NULL,
		},
		.layout = out->layout,
		.basePipelineIndex = -1,
	};
	r = vk->CreateComputePipelines(vk->device, vk->pipeline_cache, 1, &cp, NULL, &out->pipeline);
	if (r != GS_SUCCESS) {
		out->pipeline = 0;
		gs_destroy_kernel(vk, out);
		return r;
	}
	return GS_SUCCESS;
}

int32_t gs_create_pipeline_cache(gs_vk *vk, const void *data, size_t size) {
	pipeline_cache_create_info info = {
		.sType = ST_PIPELINE_CACHE_CREATE_INFO,
		.initialDataSize = data != NULL ? size : 0,
		.pInitialData = data,
	};
	return vk->CreatePipelineCache(vk->device, &info, NULL, &vk->pipeline_cache);
}

int32_t gs_pipeline_cache_data(gs_vk *vk, size_t *size, void *data) {
	if (vk->pipeline_cache == 0) {
		*size = 0;
		return GS_SUCCESS;
	}
	return vk->GetPipelineCacheData(vk->device, vk->pipeline_cache, size, data);
}

int32_t gs_create_pool(gs_vk *vk, uint32_t maxsets, uint32_t nstorage, uint32_t nuniform, gs_nd *out) {
	descriptor_pool_size sizes[2];
	uint32_t n = 0;
	if (nstorage > 0) {
		sizes[n++] = (descriptor_pool_size){DESC_STORAGE_BUFFER, nstorage};
	}
	if (nuniform > 0) {
		sizes[n++] = (descriptor_pool_size){DESC_UNIFORM_BUFFER, nuniform};
	}
	descriptor_pool_create_info info = {
		.sType = ST_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = maxsets,
		.poolSizeCount = n,
		.pPoolSizes = sizes,
	};
	return vk->CreateDescriptorPool(vk->device, &info, NULL, out);
}

int32_t gs_reset_pool(gs_vk *vk, gs_nd pool) { return vk->ResetDescriptorPool(vk->device, pool, 0); }

void gs_destroy_pool(gs_vk *vk, gs_nd pool) { vk->DestroyDescriptorPool(vk->device, pool, NULL); }

int32_t gs_begin(gs_vk *vk, gs_obj cmd, gs_nd queries, uint32_t reusable) {
	command_buffer_begin_info info = {
		.sType = ST_COMMAND_BUFFER_BEGIN_INFO,
		.flags = reusable ? 0 : CMD_ONE_TIME_SUBMIT,
	};
	int32_t r = vk->BeginCommandBuffer(cmd, &info);
	if (r != GS_SUCCESS) {
		return r;
	}
	if (queries != 0) {
		vk->CmdResetQueryPool(cmd, queries, 0, 2);
		vk->CmdWriteTimestamp(cmd, PIPE_TOP, queries, 0);
	}
	return GS_SUCCESS;
}

int32_t gs_dispatch(gs_vk *vk, gs_obj cmd, gs_nd pool, const gs_kernel *k, uint32_t nbuf,
	const uint32_t *bindings, const uint32_t *types, const gs_nd *buffers,
	const uint64_t *offsets, const uint64_t *ranges, gs_nd args, uint64_t args_off,
	uint32_t gx, uint32_t gy, uint32_t gz) {
	if (nbuf + 1 > MAX_BINDINGS) {
		return GS_ERROR_INITIALIZATION_FAILED;
	}
	gs_nd set = 0;
	descriptor_set_allocate_info ai = {
		.sType = ST_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &k->set_layout,
	};
	int32_t r = vk->AllocateDescriptorSets(vk->device, &ai, &set);
	if (r != GS_SUCCESS) {
		return r;
	}
	descriptor_buffer_info bi[MAX_BINDINGS];
	write_descriptor_set w[MAX_BINDINGS];
	for (uint32_t i = 0; i < nbuf; i++) {
		bi[i] = (descriptor_buffer_info){buffers[i], offsets[i], ranges[i]};
		w[i] = (write_descriptor_set){
			.sType = ST_WRITE_DESCRIPTOR_SET,
			.dstSet = set,
			.dstBinding = bindings[i],
			.descriptorCount = 1,
			.descriptorType = types[i],
			.pBufferInfo = &bi[i],
		};
	}
	uint32_t nw = nbuf;
	if (k->push_size > 0) {
		bi[nw] = (descriptor_buffer_info){args, args_off, k->push_size};
		w[nw] = (write_descriptor_set){
			.sType = ST_WRITE_DESCRIPTOR_SET,
			.dstSet = set,
			.dstBinding = GS_ARGS_BINDING,
			.descriptorCount = 1,
			.descriptorType = DESC_STORAGE_BUFFER,
			.pBufferInfo = &bi[nw],
		};
		nw++;
	}
	if (nw > 0) {
		vk->UpdateDescriptorSets(vk->device, nw, w, 0, NULL);
	}
	vk->CmdBindPipeline(cmd, BIND_POINT_COMPUTE, k->pipeline);
	vk->CmdBindDescriptorSets(cmd, BIND_POINT_COMPUTE, k->layout, 0, 1, &set, 0, NULL);
	if (k->push_size > 0) {
		vk->CmdDispatchIndirect(cmd, args, args_off + GS_ARGS_GROUPS);
	} else {
		vk->CmdDispatch(cmd, gx, gy, gz);
	}
	return GS_SUCCESS;
}

void gs_barrier(gs_vk *vk, gs_obj cmd, uint32_t src_stages, uint32_t src_access,
	uint32_t dst_stages, uint32_t dst_access) {
	memory_barrier b = {
		.sType = ST_MEMORY_BARRIER,
		.srcAccessMask = src_access,
		.dstAccessMask = dst_access,
	};
	vk->CmdPipelineBarrier(cmd, src_stages, dst_stages, 0, 1, &b, 0, NULL, 0, NULL);
}

void gs_copy(gs_vk *vk, gs_obj cmd, gs_nd src, uint64_t src_off, gs_nd dst, uint64_t dst_off, uint64_t size) {
	buffer_copy c = {src_off, dst_off, size};
	vk->CmdCopyBuffer(cmd, src, dst, 1, &c);
}

void gs_fill(gs_vk *vk, gs_obj cmd, gs_nd dst, uint64_t off, uint64_t size, uint32_t data) {
	vk->CmdFillBuffer(cmd, dst, off, size, data);
}

void gs_update(gs_vk *vk, gs_obj cmd, gs_nd dst, uint64_t off, uint64_t size, const void *data) {
	vk->CmdUpdateBuffer(cmd, dst, off, size, data);
}

int32_t gs_end_pre(gs_vk *vk, gs_obj cmd) {
	gs_barrier(vk, cmd, PIPE_TRANSFER, ACCESS_TRANSFER_WRITE, PIPE_COMPUTE | PIPE_TRANSFER,
		0x20 | ACCESS_SHADER_WRITE | 0x800 | ACCESS_TRANSFER_WRITE); // shader and transfer reads and writes
	return vk->EndCommandBuffer(cmd);
}

int32_t gs_submit(gs_vk *vk, gs_obj queue, gs_obj pre, gs_obj cmd, gs_nd fence, gs_nd queries, uint64_t timeout) {
	gs_barrier(vk, cmd, PIPE_COMPUTE | PIPE_TRANSFER, ACCESS_SHADER_WRITE | ACCESS_TRANSFER_WRITE,
		PIPE_HOST, ACCESS_HOST_READ);
	if (queries != 0) {
		vk->CmdWriteTimestamp(cmd, PIPE_BOTTOM, queries, 1);
	}
	int32_t r = vk->EndCommandBuffer(cmd);
	if (r != GS_SUCCESS) {
		return r;
	}
	return gs_resubmit(vk, queue, pre, cmd, fence, timeout);
}

int32_t gs_resubmit(gs_vk *vk, gs_obj queue, gs_obj pre, gs_obj cmd, gs_nd fence, uint64_t timeout) {
	int32_t r;
	gs_obj cmds[2] = {pre, cmd};
	submit_info si = {
		.sType = ST_SUBMIT_INFO,
		.commandBufferCount = pre != 0 ? 2 : 1,
		.pCommandBuffers = pre != 0 ? cmds : &cmd,
	};
	r = vk->QueueSubmit(queue, 1, &si, fence);
	if (r != GS_SUCCESS) {
		return r;
	}
	r = vk->WaitForFences(vk->device, 1, &fence, 1, timeout);
	if (r != GS_SUCCESS) {
		return r;
	}
	return vk->ResetFences(vk->device, 1, &fence);
}

int32_t gs_timestamps(gs_vk *vk, gs_nd queries, uint64_t out[2]) {
	return vk->GetQueryPoolResults(vk->device, queries, 0, 2, 2 * sizeof(uint64_t), out,
		sizeof(uint64_t), QUERY_RESULT_64_WAIT);
}

int32_t gs_physical_devices(gs_vk *vk, gs_obj *out, uint32_t *n) {
	return vk->EnumeratePhysicalDevices(vk->instance, n, out);
}

int32_t gs_device_wait_idle(gs_vk *vk) { return vk->DeviceWaitIdle(vk->device); }

int32_t gs_create_buffer(gs_vk *vk, uint64_t size, uint32_t usage, gs_nd *out,
	uint64_t *mem_size, uint32_t *mem_types) {
	buffer_create_info info = {
		.sType = ST_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = 0, // VK_SHARING_MODE_EXCLUSIVE
	};
	int32_t r = vk->CreateBuffer(vk->device, &info, NULL, out);
	if (r != GS_SUCCESS) {
		*out = 0;
		return r;
	}
	memory_requirements req;
	vk->GetBufferMemoryRequirements(vk->device, *out, &req);
	*mem_size = req.size;
	*mem_types = req.memoryTypeBits;
	return GS_SUCCESS;
}

void gs_destroy_buffer(gs_vk *vk, gs_nd buf) { vk->DestroyBuffer(vk->device, buf, NULL); }

int32_t gs_allocate(gs_vk *vk, gs_nd buf, uint64_t size, uint32_t type, gs_nd *mem, void **mapped) {
	memory_allocate_info info = {
		.sType = ST_MEMORY_ALLOCATE_INFO,
		.allocationSize = size,
		.memoryTypeIndex = type,
	};
	int32_t r = vk->AllocateMemory(vk->device, &info, NULL, mem);
	if (r != GS_SUCCESS) {
		*mem = 0;
		return r;
	}
	r = vk->BindBufferMemory(vk->device, buf, *mem, 0);
	if (r == GS_SUCCESS && mapped != NULL) {
		r = vk->MapMemory(vk->device, *mem, 0, ~0ull /* VK_WHOLE_SIZE */, 0, mapped);
	}
	if (r != GS_SUCCESS) {
		vk->FreeMemory(vk->device, *mem, NULL);
		*mem = 0;
	}
	return r;
}

// gs_free frees memory; a mapped allocation is unmapped implicitly.
void gs_free(gs_vk *vk, gs_nd mem) { vk->FreeMemory(vk->device, mem, NULL); }

int32_t gs_create_command_pool(gs_vk *vk, uint32_t family, gs_nd *out) {
	command_pool_create_info info = {
		.sType = ST_COMMAND_POOL_CREATE_INFO,
		.flags = POOL_RESET_COMMAND_BUFFER,
		.queueFamilyIndex = family,
	};
	return vk->CreateCommandPool(vk->device, &info, NULL, out);
}

void gs_destroy_command_pool(gs_vk *vk, gs_nd pool) { vk->DestroyCommandPool(vk->device, pool, NULL); }

int32_t gs_allocate_command_buffer(gs_vk *vk, gs_nd pool, gs_obj *out) {
	command_buffer_allocate_info info = {
		.sType = ST_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = pool,
		.level = 0, // VK_COMMAND_BUFFER_LEVEL_PRIMARY
		.commandBufferCount = 1,
	};
	return vk->AllocateCommandBuffers(vk->device, &info, out);
}

int32_t gs_create_fence(gs_vk *vk, gs_nd *out) {
	fence_create_info info = {.sType = ST_FENCE_CREATE_INFO};
	return vk->CreateFence(vk->device, &info, NULL, out);
}

void gs_destroy_fence(gs_vk *vk, gs_nd fence) { vk->DestroyFence(vk->device, fence, NULL); }

int32_t gs_create_timestamps(gs_vk *vk, gs_nd *out) {
	query_pool_create_info info = {
		.sType = ST_QUERY_POOL_CREATE_INFO,
		.queryType = 2, // VK_QUERY_TYPE_TIMESTAMP
		.queryCount = 2,
	};
	return vk->CreateQueryPool(vk->device, &info, NULL, out);
}

void gs_destroy_timestamps(gs_vk *vk, gs_nd pool) { vk->DestroyQueryPool(vk->device, pool, NULL); }

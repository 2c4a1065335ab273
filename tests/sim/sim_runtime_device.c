/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's device queries and settings: attributes (the driver's numbers),
 * the whole cudaDeviceProp filled from the driver's attributes, device flags, peer access,
 * PCI bus ids, limits, cache configuration, stream priorities and the profiler. */
#include <stddef.h>
#include <string.h>
#include "sim_runtime.h"

/* cudaDeviceAttr has the driver's attribute numbers. */
SIM_RT_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess && !value)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceGetAttribute(value, (CUdevice_attribute)attr, device));
    return sim_rt_fail(e);
}

/* One int field of cudaDeviceProp and the driver attribute it comes from. */
#define INT_FIELD(field, attr)                                                                     \
    {                                                                                              \
        offsetof(struct sim_device_prop, field), SIM_DEVICE_ATTRIBUTE_##attr, 0                    \
    }
#define SIZE_FIELD(field, attr)                                                                    \
    {                                                                                              \
        offsetof(struct sim_device_prop, field), SIM_DEVICE_ATTRIBUTE_##attr, 1                    \
    }

static const struct {
    size_t offset;
    int attr;
    int is_size;
} prop_fields[] = {
    SIZE_FIELD(sharedMemPerBlock, MAX_SHARED_MEMORY_PER_BLOCK),
    INT_FIELD(regsPerBlock, MAX_REGISTERS_PER_BLOCK),
    INT_FIELD(warpSize, WARP_SIZE),
    SIZE_FIELD(memPitch, MAX_PITCH),
    INT_FIELD(maxThreadsPerBlock, MAX_THREADS_PER_BLOCK),
    INT_FIELD(maxThreadsDim[0], MAX_BLOCK_DIM_X),
    INT_FIELD(maxThreadsDim[1], MAX_BLOCK_DIM_Y),
    INT_FIELD(maxThreadsDim[2], MAX_BLOCK_DIM_Z),
    INT_FIELD(maxGridSize[0], MAX_GRID_DIM_X),
    INT_FIELD(maxGridSize[1], MAX_GRID_DIM_Y),
    INT_FIELD(maxGridSize[2], MAX_GRID_DIM_Z),
    SIZE_FIELD(totalConstMem, TOTAL_CONSTANT_MEMORY),
    INT_FIELD(major, COMPUTE_CAPABILITY_MAJOR),
    INT_FIELD(minor, COMPUTE_CAPABILITY_MINOR),
    SIZE_FIELD(textureAlignment, TEXTURE_ALIGNMENT),
    SIZE_FIELD(texturePitchAlignment, TEXTURE_PITCH_ALIGNMENT),
    INT_FIELD(multiProcessorCount, MULTIPROCESSOR_COUNT),
    INT_FIELD(integrated, INTEGRATED),
    INT_FIELD(canMapHostMemory, CAN_MAP_HOST_MEMORY),
    INT_FIELD(maxTexture1D, MAXIMUM_TEXTURE1D_WIDTH),
    INT_FIELD(maxTexture1DMipmap, MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH),
    INT_FIELD(maxTexture2D[0], MAXIMUM_TEXTURE2D_WIDTH),
    INT_FIELD(maxTexture2D[1], MAXIMUM_TEXTURE2D_HEIGHT),
    INT_FIELD(maxTexture2DMipmap[0], MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH),
    INT_FIELD(maxTexture2DMipmap[1], MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT),
    INT_FIELD(maxTexture2DLinear[0], MAXIMUM_TEXTURE2D_LINEAR_WIDTH),
    INT_FIELD(maxTexture2DLinear[1], MAXIMUM_TEXTURE2D_LINEAR_HEIGHT),
    INT_FIELD(maxTexture2DLinear[2], MAXIMUM_TEXTURE2D_LINEAR_PITCH),
    INT_FIELD(maxTexture2DGather[0], MAXIMUM_TEXTURE2D_GATHER_WIDTH),
    INT_FIELD(maxTexture2DGather[1], MAXIMUM_TEXTURE2D_GATHER_HEIGHT),
    INT_FIELD(maxTexture3D[0], MAXIMUM_TEXTURE3D_WIDTH),
    INT_FIELD(maxTexture3D[1], MAXIMUM_TEXTURE3D_HEIGHT),
    INT_FIELD(maxTexture3D[2], MAXIMUM_TEXTURE3D_DEPTH),
    INT_FIELD(maxTexture3DAlt[0], MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE),
    INT_FIELD(maxTexture3DAlt[1], MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE),
    INT_FIELD(maxTexture3DAlt[2], MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE),
    INT_FIELD(maxTextureCubemap, MAXIMUM_TEXTURECUBEMAP_WIDTH),
    INT_FIELD(maxTexture1DLayered[0], MAXIMUM_TEXTURE1D_LAYERED_WIDTH),
    INT_FIELD(maxTexture1DLayered[1], MAXIMUM_TEXTURE1D_LAYERED_LAYERS),
    INT_FIELD(maxTexture2DLayered[0], MAXIMUM_TEXTURE2D_LAYERED_WIDTH),
    INT_FIELD(maxTexture2DLayered[1], MAXIMUM_TEXTURE2D_LAYERED_HEIGHT),
    INT_FIELD(maxTexture2DLayered[2], MAXIMUM_TEXTURE2D_LAYERED_LAYERS),
    INT_FIELD(maxTextureCubemapLayered[0], MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH),
    INT_FIELD(maxTextureCubemapLayered[1], MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS),
    INT_FIELD(maxSurface1D, MAXIMUM_SURFACE1D_WIDTH),
    INT_FIELD(maxSurface2D[0], MAXIMUM_SURFACE2D_WIDTH),
    INT_FIELD(maxSurface2D[1], MAXIMUM_SURFACE2D_HEIGHT),
    INT_FIELD(maxSurface3D[0], MAXIMUM_SURFACE3D_WIDTH),
    INT_FIELD(maxSurface3D[1], MAXIMUM_SURFACE3D_HEIGHT),
    INT_FIELD(maxSurface3D[2], MAXIMUM_SURFACE3D_DEPTH),
    INT_FIELD(maxSurface1DLayered[0], MAXIMUM_SURFACE1D_LAYERED_WIDTH),
    INT_FIELD(maxSurface1DLayered[1], MAXIMUM_SURFACE1D_LAYERED_LAYERS),
    INT_FIELD(maxSurface2DLayered[0], MAXIMUM_SURFACE2D_LAYERED_WIDTH),
    INT_FIELD(maxSurface2DLayered[1], MAXIMUM_SURFACE2D_LAYERED_HEIGHT),
    INT_FIELD(maxSurface2DLayered[2], MAXIMUM_SURFACE2D_LAYERED_LAYERS),
    INT_FIELD(maxSurfaceCubemap, MAXIMUM_SURFACECUBEMAP_WIDTH),
    INT_FIELD(maxSurfaceCubemapLayered[0], MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH),
    INT_FIELD(maxSurfaceCubemapLayered[1], MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS),
    SIZE_FIELD(surfaceAlignment, SURFACE_ALIGNMENT),
    INT_FIELD(concurrentKernels, CONCURRENT_KERNELS),
    INT_FIELD(ECCEnabled, ECC_ENABLED),
    INT_FIELD(pciBusID, PCI_BUS_ID),
    INT_FIELD(pciDeviceID, PCI_DEVICE_ID),
    INT_FIELD(pciDomainID, PCI_DOMAIN_ID),
    INT_FIELD(tccDriver, TCC_DRIVER),
    INT_FIELD(asyncEngineCount, ASYNC_ENGINE_COUNT),
    INT_FIELD(unifiedAddressing, UNIFIED_ADDRESSING),
    INT_FIELD(memoryBusWidth, GLOBAL_MEMORY_BUS_WIDTH),
    INT_FIELD(l2CacheSize, L2_CACHE_SIZE),
    INT_FIELD(persistingL2CacheMaxSize, MAX_PERSISTING_L2_CACHE_SIZE),
    INT_FIELD(maxThreadsPerMultiProcessor, MAX_THREADS_PER_MULTIPROCESSOR),
    INT_FIELD(streamPrioritiesSupported, STREAM_PRIORITIES_SUPPORTED),
    INT_FIELD(globalL1CacheSupported, GLOBAL_L1_CACHE_SUPPORTED),
    INT_FIELD(localL1CacheSupported, LOCAL_L1_CACHE_SUPPORTED),
    SIZE_FIELD(sharedMemPerMultiprocessor, MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    INT_FIELD(regsPerMultiprocessor, MAX_REGISTERS_PER_MULTIPROCESSOR),
    INT_FIELD(managedMemory, MANAGED_MEMORY),
    INT_FIELD(isMultiGpuBoard, MULTI_GPU_BOARD),
    INT_FIELD(multiGpuBoardGroupID, MULTI_GPU_BOARD_GROUP_ID),
    INT_FIELD(hostNativeAtomicSupported, HOST_NATIVE_ATOMIC_SUPPORTED),
    INT_FIELD(pageableMemoryAccess, PAGEABLE_MEMORY_ACCESS),
    INT_FIELD(concurrentManagedAccess, CONCURRENT_MANAGED_ACCESS),
    INT_FIELD(computePreemptionSupported, COMPUTE_PREEMPTION_SUPPORTED),
    INT_FIELD(canUseHostPointerForRegisteredMem, CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
    INT_FIELD(cooperativeLaunch, COOPERATIVE_LAUNCH),
    SIZE_FIELD(sharedMemPerBlockOptin, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    INT_FIELD(pageableMemoryAccessUsesHostPageTables, PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES),
    INT_FIELD(directManagedMemAccessFromHost, DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
    INT_FIELD(maxBlocksPerMultiProcessor, MAX_BLOCKS_PER_MULTIPROCESSOR),
    INT_FIELD(accessPolicyMaxWindowSize, MAX_ACCESS_POLICY_WINDOW_SIZE),
    SIZE_FIELD(reservedSharedMemPerBlock, RESERVED_SHARED_MEMORY_PER_BLOCK),
    INT_FIELD(hostRegisterSupported, HOST_REGISTER_SUPPORTED),
    INT_FIELD(sparseCudaArraySupported, SPARSE_CUDA_ARRAY_SUPPORTED),
    INT_FIELD(hostRegisterReadOnlySupported, READ_ONLY_HOST_REGISTER_SUPPORTED),
    INT_FIELD(timelineSemaphoreInteropSupported, TIMELINE_SEMAPHORE_INTEROP_SUPPORTED),
    INT_FIELD(memoryPoolsSupported, MEMORY_POOLS_SUPPORTED),
    INT_FIELD(gpuDirectRDMASupported, GPU_DIRECT_RDMA_SUPPORTED),
    INT_FIELD(gpuDirectRDMAFlushWritesOptions, GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS),
    INT_FIELD(gpuDirectRDMAWritesOrdering, GPU_DIRECT_RDMA_WRITES_ORDERING),
    INT_FIELD(memoryPoolSupportedHandleTypes, MEMPOOL_SUPPORTED_HANDLE_TYPES),
    INT_FIELD(deferredMappingCudaArraySupported, DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED),
    INT_FIELD(ipcEventSupported, IPC_EVENT_SUPPORTED),
    INT_FIELD(clusterLaunch, CLUSTER_LAUNCH),
    INT_FIELD(unifiedFunctionPointers, UNIFIED_FUNCTION_POINTERS),
    INT_FIELD(deviceNumaConfig, NUMA_CONFIG),
    INT_FIELD(deviceNumaId, NUMA_ID),
    INT_FIELD(mpsEnabled, MPS_ENABLED),
    INT_FIELD(hostNumaId, HOST_NUMA_ID),
    INT_FIELD(gpuPciDeviceID, GPU_PCI_DEVICE_ID),
    INT_FIELD(gpuPciSubsystemID, GPU_PCI_SUBSYSTEM_ID),
    INT_FIELD(hostNumaMultinodeIpcSupported, HOST_NUMA_MULTINODE_IPC_SUPPORTED),
};

/* Every field from the driver: name, UUID, memory and the attribute each field reports
 * (managed memory included); the reserved bytes stay zero. */
SIM_RT_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess && !prop)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e != cudaSuccess)
        return sim_rt_fail(e);
    struct sim_device_prop p;
    memset(&p, 0, sizeof p);
    CUuuid uuid;
    CUresult rc = sim_rt_cu.cuDeviceGetName(p.name, (int)sizeof p.name, device);
    if (rc == CUDA_SUCCESS)
        rc = sim_rt_cu.cuDeviceTotalMem_v2(&p.totalGlobalMem, device);
    if (rc == CUDA_SUCCESS)
        rc = sim_rt_cu.cuDeviceGetUuid_v2(&uuid, device);
    if (rc == CUDA_SUCCESS)
        memcpy(p.uuid, uuid.bytes, sizeof p.uuid);
    for (size_t i = 0; rc == CUDA_SUCCESS && i < sizeof prop_fields / sizeof prop_fields[0]; i++) {
        int v = 0;
        rc = sim_rt_cu.cuDeviceGetAttribute(&v, (CUdevice_attribute)prop_fields[i].attr, device);
        char *field = (char *)&p + prop_fields[i].offset;
        if (prop_fields[i].is_size) {
            size_t z = (size_t)(unsigned)v;
            memcpy(field, &z, sizeof z);
        } else {
            memcpy(field, &v, sizeof v);
        }
    }
    if (rc == CUDA_SUCCESS)
        memcpy(prop, &p, sizeof p);
    return sim_rt_fail(sim_rt_error(rc));
}

_Static_assert(sizeof(struct sim_device_prop) == sizeof(struct cudaDeviceProp),
               "cudaDeviceProp is filled whole");

/* ---- device flags: the primary context's ------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess && (flags & ~0x1fu))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDevicePrimaryCtxSetFlags_v2(
            sim_rt_current_device(), flags & ~(unsigned)cudaDeviceMapHost));
    return sim_rt_fail(e);
}

/* cudaDeviceMapHost is always reported: mapping is always on with unified addressing. */
SIM_RT_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess && !flags)
        e = cudaErrorInvalidValue;
    unsigned f = 0;
    int active = 0;
    if (e == cudaSuccess)
        e = sim_rt_error(
            sim_rt_cu.cuDevicePrimaryCtxGetState(sim_rt_current_device(), &f, &active));
    if (e == cudaSuccess)
        *flags = f | cudaDeviceMapHost;
    return sim_rt_fail(e);
}

/* ---- peers -------------------------------------------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess && !canAccessPeer)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(peerDevice);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice));
    return sim_rt_fail(e);
}

static cudaError_t peer_access(int peerDevice, unsigned int flags, int enable)
{
    cudaError_t e = sim_rt_context();
    CUcontext peer;
    if (e == cudaSuccess)
        e = sim_rt_primary(peerDevice, &peer);
    if (e != cudaSuccess)
        return e;
    return sim_rt_error(enable ? sim_rt_cu.cuCtxEnablePeerAccess(peer, flags)
                               : sim_rt_cu.cuCtxDisablePeerAccess(peer));
}

SIM_RT_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    return sim_rt_fail(peer_access(peerDevice, flags, 1));
}

SIM_RT_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    return sim_rt_fail(peer_access(peerDevice, 0, 0));
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess)
        e = sim_rt_check_ordinal(device);
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceGetPCIBusId(pciBusId, len, device));
    return sim_rt_fail(e);
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    cudaError_t e = sim_rt_init();
    if (e == cudaSuccess)
        e = sim_rt_error(sim_rt_cu.cuDeviceGetByPCIBusId(device, pciBusId));
    return sim_rt_fail(e);
}

/* ---- the current device's context settings ----------------------------------------------- */

SIM_RT_EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    SIM_RT_FORWARD(cuCtxSetLimit((CUlimit)limit, value));
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    SIM_RT_FORWARD(cuCtxGetLimit(pValue, (CUlimit)limit));
}

SIM_RT_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    SIM_RT_FORWARD(cuCtxSetCacheConfig((CUfunc_cache)cacheConfig));
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    SIM_RT_FORWARD(cuCtxGetCacheConfig((CUfunc_cache *)pCacheConfig));
}

SIM_RT_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                           int *greatestPriority)
{
    SIM_RT_FORWARD(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
}

SIM_RT_EXPORT cudaError_t cudaProfilerStart(void)
{
    SIM_RT_FORWARD(cuProfilerStart());
}

SIM_RT_EXPORT cudaError_t cudaProfilerStop(void)
{
    SIM_RT_FORWARD(cuProfilerStop());
}

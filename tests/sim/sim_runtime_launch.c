/* SPDX-License-Identifier: MIT */
/* The simulated CUDA runtime's module registration and kernel launches: the host-stub entry
 * points that `nvcc -cudart shared` programs call (crt/host_runtime.h; docs/simulator.md), so real
 * nvcc-built programs run on the simulated device. Kernels do nothing; a launch checks what the
 * real runtime checks before it reaches the GPU (registration, configuration, stream). */
#include <stdlib.h>
#include <pthread.h>
#include "sim_runtime.h"

/* One registered fat binary; *handle is the fat binary as with the real runtime. */
typedef struct sim_rt_module_s {
    void *fat_cubin;
    int ended;
} sim_rt_module_t;

/* A registered __global__ function; a pointer to it is the cudaKernel_t handle. */
struct CUkern_st {
    const void *host_fun;
    const char *device_name;
    sim_rt_module_t *module;
    struct CUkern_st *next;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUkern_st *kernels; /* reg_lock */

/* The <<<...>>> configurations pushed and not yet popped on this thread. A kernel's arguments
 * can themselves contain launches, hence a stack. */
#define SIM_RT_MAX_PUSHED 16
typedef struct call_config_s {
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
} call_config_t;
static __thread call_config_t tls_configs[SIM_RT_MAX_PUSHED];
static __thread int tls_n_configs;

SIM_RT_EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    sim_rt_module_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->fat_cubin = fatCubin;
    return (void **)m;
}

SIM_RT_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    if (fatCubinHandle)
        ((sim_rt_module_t *)fatCubinHandle)->ended = 1;
}

/* Called from the program's atexit handler: the module's functions stop being launchable. */
SIM_RT_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    sim_rt_module_t *m = (sim_rt_module_t *)fatCubinHandle;
    if (!m)
        return;
    pthread_mutex_lock(&reg_lock);
    for (struct CUkern_st **pp = &kernels; *pp;) {
        struct CUkern_st *k = *pp;
        if (k->module == m) {
            *pp = k->next;
            free(k);
        } else {
            pp = &k->next;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    free(m);
}

SIM_RT_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                          char *deviceFun, const char *deviceName, int thread_limit,
                                          uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim,
                                          int *wSize)
{
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    if (!fatCubinHandle || !hostFun)
        return;
    struct CUkern_st *k = calloc(1, sizeof *k);
    if (!k)
        return;
    k->host_fun = hostFun;
    k->device_name = deviceName;
    k->module = (sim_rt_module_t *)fatCubinHandle;
    pthread_mutex_lock(&reg_lock);
    k->next = kernels;
    kernels = k;
    pthread_mutex_unlock(&reg_lock);
}

/* Device variables have no device memory to live in here; the host copy is the only one. */
SIM_RT_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                     const char *deviceName, int ext, size_t size, int constant,
                                     int global)
{
    (void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)deviceName, (void)ext,
        (void)size, (void)constant, (void)global;
}

/* Loading a module needs the context; returns 1 when the module is usable (managed-variable
 * initialisation tests it), 0 when the runtime cannot initialise. */
SIM_RT_EXPORT char __cudaInitModule(void **fatCubinHandle)
{
    (void)fatCubinHandle;
    return sim_rt_fail(sim_rt_context()) == cudaSuccess;
}

/* `k<<<g, b, s, st>>>(args)` is `__cudaPushCallConfiguration(g, b, s, st) ? (void)0 : k(args)`:
 * 0 lets the host stub run, and the stub pops the configuration again. */
SIM_RT_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                   struct CUstream_st *stream)
{
    if (tls_n_configs == SIM_RT_MAX_PUSHED)
        return 1;
    tls_configs[tls_n_configs++] = (call_config_t){gridDim, blockDim, sharedMem, stream};
    return 0;
}

SIM_RT_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                     size_t *sharedMem, void *stream)
{
    if (tls_n_configs == 0)
        return sim_rt_fail(cudaErrorMissingConfiguration);
    call_config_t *c = &tls_configs[--tls_n_configs];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->shared_bytes;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

/* The registered kernel for a host stub or a kernel handle (whichever is non-NULL), or NULL. */
static struct CUkern_st *kernel_find(const void *host_fun, cudaKernel_t handle)
{
    pthread_mutex_lock(&reg_lock);
    struct CUkern_st *k = kernels;
    while (k && (handle ? k != handle : k->host_fun != host_fun))
        k = k->next;
    pthread_mutex_unlock(&reg_lock);
    return k;
}

SIM_RT_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    if (!kernel)
        return sim_rt_fail(cudaErrorInvalidValue);
    struct CUkern_st *k = hostFun ? kernel_find(hostFun, NULL) : NULL;
    if (!k)
        return sim_rt_fail(cudaErrorInvalidDeviceFunction);
    *kernel = k;
    return cudaSuccess;
}

/* The limits of every CUDA device since compute capability 3.0 (CUDA C Programming Guide,
 * "Technical Specifications per Compute Capability"). */
static int config_valid(dim3 grid, dim3 block)
{
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    return grid.x && grid.y && grid.z && block.x && block.y && block.z && grid.x <= 0x7fffffffu &&
           grid.y <= 65535 && grid.z <= 65535 && block.x <= 1024 && block.y <= 1024 &&
           block.z <= 64 && threads <= 1024;
}

/* A launch of a registered kernel that does nothing. Returns cudaSuccess, the initialisation
 * error, cudaErrorInvalidDeviceFunction for an unregistered function or handle,
 * cudaErrorInvalidConfiguration for impossible dimensions, or the stream's error. */
cudaError_t sim_rt_launch(const void *host_fun, cudaKernel_t kernel, dim3 grid, dim3 block,
                          cudaStream_t stream)
{
    cudaError_t e = sim_rt_context();
    if (e != cudaSuccess)
        return e;
    if ((!host_fun && !kernel) || !kernel_find(host_fun, kernel))
        return cudaErrorInvalidDeviceFunction;
    if (!config_valid(grid, block))
        return SIM_RT_ERROR_INVALID_CONFIGURATION;
    return sim_rt_stream_check(stream);
}

SIM_RT_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream)
{
    (void)args, (void)sharedMem;
    return sim_rt_fail(sim_rt_launch(NULL, kernel, gridDim, blockDim, stream));
}

SIM_RT_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                  void **args, size_t sharedMem,
                                                  cudaStream_t stream)
{
    (void)args, (void)sharedMem;
    return sim_rt_fail(sim_rt_launch(NULL, kernel, gridDim, blockDim, stream));
}

SIM_RT_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream)
{
    (void)args, (void)sharedMem;
    return sim_rt_fail(sim_rt_launch(func, NULL, gridDim, blockDim, stream));
}

/* What cudaLaunchKernel becomes in a --default-stream per-thread build (cuda_runtime_api.h). */
SIM_RT_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                                void **args, size_t sharedMem, cudaStream_t stream)
{
    (void)args, (void)sharedMem;
    return sim_rt_fail(sim_rt_launch(func, NULL, gridDim, blockDim, stream));
}

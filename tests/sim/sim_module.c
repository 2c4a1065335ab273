/* SPDX-License-Identifier: MIT */
/* Modules, libraries, functions, the JIT linker and kernel launches of the simulated driver.
 * Kernels do not execute: any image is accepted (cuModuleLoad needs a readable file), any function
 * name is found, a launch is checked as the driver checks it (function, dimensions, shared memory,
 * stream, parameters) and then does nothing. Module images and their globals cost no device
 * memory (cuModuleGetGlobal answers CUDA_ERROR_NOT_FOUND: there is nothing to point at). The
 * linker accepts any input and hands out a small placeholder image. A module belongs to the
 * context that loaded it; a library to none (it is loaded into every context). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim_internal.h"

#define SIM_N_FUNC_ATTRS       16     /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK .. 15 */
#define SIM_MAX_DYNAMIC_SHARED 232448 /* the opt-in maximum of sim_attributes.def */
#define SIM_JIT_NUM_OPTIONS    35     /* CU_JIT_NUM_OPTIONS */
#define SIM_JIT_NUM_INPUTS     6      /* CU_JIT_NUM_INPUT_TYPES */

typedef struct sim_module_s sim_module_t;

typedef struct sim_function_s {
    sim_module_t *module;
    char *name;
    int attrs[SIM_N_FUNC_ATTRS];
    int cache_config;
    struct sim_function_s *next;
} sim_function_t;

struct sim_module_s {
    sim_ctx_t *ctx;
    int is_library;
    sim_function_t *functions;
    struct sim_module_s *next;
};

typedef struct sim_link_s {
    unsigned n_inputs;
    char image[64]; /* what cuLinkComplete hands out */
    struct sim_link_s *next;
} sim_link_t;

static sim_module_t *sim_modules;
static sim_link_t *sim_links;

/* The attributes of a function of a recent data-centre GPU (cuFuncGetAttribute). */
static const int default_func_attrs[SIM_N_FUNC_ATTRS] = {
    1024,  /* MAX_THREADS_PER_BLOCK */
    0,     /* SHARED_SIZE_BYTES */
    0,     /* CONST_SIZE_BYTES */
    0,     /* LOCAL_SIZE_BYTES */
    32,    /* NUM_REGS */
    90,    /* PTX_VERSION */
    90,    /* BINARY_VERSION */
    0,     /* CACHE_MODE_CA */
    49152, /* MAX_DYNAMIC_SHARED_SIZE_BYTES (settable) */
    -1,    /* PREFERRED_SHARED_MEMORY_CARVEOUT (settable) */
    0,     /* CLUSTER_SIZE_MUST_BE_SET */
    0,     /* REQUIRED_CLUSTER_WIDTH */
    0,     /* REQUIRED_CLUSTER_HEIGHT */
    0,     /* REQUIRED_CLUSTER_DEPTH */
    0,     /* NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
    0,     /* CLUSTER_SCHEDULING_POLICY_PREFERENCE */
};

static sim_module_t *module_find(const void *handle)
{
    for (sim_module_t *m = sim_modules; m; m = m->next)
        if (m == handle)
            return m;
    return NULL;
}

/* A function or kernel handle of a loaded module or library, or NULL. sim_lock held. */
static sim_function_t *function_find(const void *handle)
{
    for (sim_module_t *m = sim_modules; m; m = m->next)
        for (sim_function_t *f = m->functions; f; f = f->next)
            if (f == handle)
                return f;
    return NULL;
}

static void module_free(sim_module_t *m)
{
    while (m->functions) {
        sim_function_t *f = m->functions;
        m->functions = f->next;
        free(f->name);
        free(f);
    }
    free(m);
}

static void module_unlink(sim_module_t *m)
{
    for (sim_module_t **pp = &sim_modules; *pp; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    }
    module_free(m);
}

/* JIT options come in (count, options, values) triples that must agree. */
static int options_valid(unsigned n, const CUjit_option *options, void **values)
{
    if (n && (!options || !values))
        return 0;
    for (unsigned i = 0; i < n; i++)
        if ((unsigned)options[i] >= SIM_JIT_NUM_OPTIONS)
            return 0;
    return 1;
}

static CUresult module_load(CUmodule *module, const void *image, int is_library)
{
    int dev;
    CUresult rc = is_library ? (sim_initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED)
                             : sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!module || !image)
        return CUDA_ERROR_INVALID_VALUE;
    sim_module_t *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->ctx = is_library ? NULL : sim_current_ctx();
    m->is_library = is_library;
    SIM_LOCK();
    m->next = sim_modules;
    sim_modules = m;
    SIM_UNLOCK();
    *module = (CUmodule)m;
    return CUDA_SUCCESS;
}

/* The file must exist and be readable; its contents are not looked at. */
static CUresult file_check(const char *fname)
{
    if (!fname)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(fname, "rb");
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    fclose(f);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    CUresult rc = sim_initialized ? file_check(fname) : CUDA_ERROR_NOT_INITIALIZED;
    return rc != CUDA_SUCCESS ? rc : module_load(module, fname, 0);
}

SIM_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    return module_load(module, image, 0);
}

SIM_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                       CUjit_option *options, void **optionValues)
{
    if (!options_valid(numOptions, options, optionValues))
        return sim_initialized ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return module_load(module, image, 0);
}

SIM_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    return module_load(module, fatCubin, 0);
}

SIM_EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_module_t *m = module_find(hmod);
    int ok = m && !m->is_library;
    if (ok)
        module_unlink(m);
    SIM_UNLOCK();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Any name is found: the same handle for the same name. sim_lock held. */
static CUresult function_get(sim_function_t **out, sim_module_t *m, const char *name)
{
    for (sim_function_t *f = m->functions; f; f = f->next) {
        if (strcmp(f->name, name) == 0) {
            *out = f;
            return CUDA_SUCCESS;
        }
    }
    sim_function_t *f = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(name))) {
        free(f);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    f->module = m;
    memcpy(f->attrs, default_func_attrs, sizeof f->attrs);
    f->next = m->functions;
    m->functions = f;
    *out = f;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_module_t *m = module_find(hmod);
    sim_function_t *f = NULL;
    CUresult rc = m && !m->is_library ? function_get(&f, m, name) : CUDA_ERROR_INVALID_HANDLE;
    SIM_UNLOCK();
    if (rc == CUDA_SUCCESS)
        *hfunc = (CUfunction)f;
    return rc;
}

SIM_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                         const char *name)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    (void)dptr, (void)bytes;
    SIM_LOCK();
    sim_module_t *m = module_find(hmod);
    SIM_UNLOCK();
    return m ? CUDA_ERROR_NOT_FOUND : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!mode)
        return CUDA_ERROR_INVALID_VALUE;
    *mode = CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

/* ---- libraries: context-independent modules --------------------------------------------- */

SIM_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code,
                                      CUjit_option *jitOptions, void **jitOptionsValues,
                                      unsigned int numJitOptions, CUlibraryOption *libraryOptions,
                                      void **libraryOptionValues, unsigned int numLibraryOptions)
{
    (void)libraryOptions, (void)libraryOptionValues;
    if (!options_valid(numJitOptions, jitOptions, jitOptionsValues) ||
        (numLibraryOptions && (!libraryOptions || !libraryOptionValues)))
        return sim_initialized ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return module_load((CUmodule *)library, code, 1);
}

SIM_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                                          CUjit_option *jitOptions, void **jitOptionsValues,
                                          unsigned int numJitOptions,
                                          CUlibraryOption *libraryOptions,
                                          void **libraryOptionValues,
                                          unsigned int numLibraryOptions)
{
    CUresult rc = sim_initialized ? file_check(fileName) : CUDA_ERROR_NOT_INITIALIZED;
    if (rc != CUDA_SUCCESS)
        return rc;
    return cuLibraryLoadData(library, fileName, jitOptions, jitOptionsValues, numJitOptions,
                             libraryOptions, libraryOptionValues, numLibraryOptions);
}

SIM_EXPORT CUresult cuLibraryUnload(CUlibrary library)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_module_t *m = module_find(library);
    int ok = m && m->is_library;
    if (ok)
        module_unlink(m);
    SIM_UNLOCK();
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pKernel || !name)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_module_t *m = module_find(library);
    sim_function_t *f = NULL;
    CUresult rc = m && m->is_library ? function_get(&f, m, name) : CUDA_ERROR_INVALID_HANDLE;
    SIM_UNLOCK();
    if (rc == CUDA_SUCCESS)
        *pKernel = (CUkernel)f;
    return rc;
}

/* The library's module in the current context: the library itself stands for it. */
SIM_EXPORT CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pMod)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_module_t *m = module_find(library);
    SIM_UNLOCK();
    if (!m || !m->is_library)
        return CUDA_ERROR_INVALID_HANDLE;
    *pMod = (CUmodule)m;
    return CUDA_SUCCESS;
}

/* A kernel's function in the current context: the same handle. */
SIM_EXPORT CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pFunc)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_function_t *f = function_find(kernel);
    SIM_UNLOCK();
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    *pFunc = (CUfunction)f;
    return CUDA_SUCCESS;
}

/* ---- function attributes ----------------------------------------------------------------- */

SIM_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pi || (unsigned)attrib >= SIM_N_FUNC_ATTRS)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_function_t *f = function_find(hfunc);
    if (f)
        *pi = f->attrs[attrib];
    SIM_UNLOCK();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Two attributes can be set: the dynamic shared memory (up to the device's opt-in maximum) and
 * the shared memory carveout (-1 or 0..100). */
SIM_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    int ok = (attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES && value >= 0 &&
              value <= SIM_MAX_DYNAMIC_SHARED) ||
             (attrib == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT && value >= -1 &&
              value <= 100);
    SIM_LOCK();
    sim_function_t *f = function_find(hfunc);
    if (f && ok)
        f->attrs[attrib] = value;
    SIM_UNLOCK();
    return !f ? CUDA_ERROR_INVALID_HANDLE : ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SIM_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_function_t *f = function_find(hfunc);
    if (f)
        f->cache_config = (int)config;
    SIM_UNLOCK();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_function_t *f = function_find(hfunc);
    if (f)
        *name = f->name;
    SIM_UNLOCK();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* ---- launches ---------------------------------------------------------------------------- */

/* The driver's checks before a launch reaches the GPU; then nothing happens. */
static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared_bytes, CUstream stream,
                       void **params, void **extra)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    unsigned long long threads = (unsigned long long)bx * by * bz;
    SIM_LOCK();
    sim_function_t *fn = function_find(f);
    int max_dynamic = fn ? fn->attrs[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES] : 0;
    if (!fn || !sim_valid_stream(stream, NULL))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if ((params && extra) || !gx || !gy || !gz || !bx || !by || !bz || gx > 0x7fffffffu ||
             gy > 65535 || gz > 65535 || bx > 1024 || by > 1024 || bz > 64 || threads > 1024 ||
             shared_bytes > (unsigned)max_dynamic)
        rc = CUDA_ERROR_INVALID_VALUE;
    int invalid;
    sim_capture_t *capture = rc == CUDA_SUCCESS ? sim_capture_active(stream, &invalid) : NULL;
    if (capture && !invalid) { /* a kernel node: it does nothing when the graph runs either */
        sim_node_t node;
        memset(&node, 0, sizeof node);
        node.type = CU_GRAPH_NODE_TYPE_KERNEL;
        rc = sim_capture_add(capture, &node, NULL);
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                  hStream, kernelParams, extra);
}

SIM_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                        unsigned int gridDimZ, unsigned int blockDimX,
                                        unsigned int blockDimY, unsigned int blockDimZ,
                                        unsigned int sharedMemBytes, CUstream hStream,
                                        void **kernelParams, void **extra)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                  hStream, kernelParams, extra);
}

SIM_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                     void **kernelParams, void **extra)
{
    if (!config)
        return sim_initialized ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    if (config->numAttrs && !config->attrs)
        return CUDA_ERROR_INVALID_VALUE;
    return launch(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                  config->blockDimY, config->blockDimZ, config->sharedMemBytes, config->hStream,
                  kernelParams, extra);
}

SIM_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f,
                                          void **kernelParams, void **extra)
{
    return cuLaunchKernelEx(config, f, kernelParams, extra);
}

SIM_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                              unsigned int gridDimY, unsigned int gridDimZ,
                                              unsigned int blockDimX, unsigned int blockDimY,
                                              unsigned int blockDimZ, unsigned int sharedMemBytes,
                                              CUstream hStream, void **kernelParams)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                  hStream, kernelParams, NULL);
}

SIM_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX,
                                                   unsigned int gridDimY, unsigned int gridDimZ,
                                                   unsigned int blockDimX, unsigned int blockDimY,
                                                   unsigned int blockDimZ,
                                                   unsigned int sharedMemBytes, CUstream hStream,
                                                   void **kernelParams)
{
    return launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                  hStream, kernelParams, NULL);
}

/* ---- occupancy: 2048 threads and 32 blocks per multiprocessor ---------------------------- */

static int blocks_per_sm(int block_size)
{
    int by_threads = 2048 / block_size;
    return by_threads < 32 ? by_threads : 32;
}

static CUresult occupancy_check(CUfunction func)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_function_t *f = function_find(func);
    SIM_UNLOCK();
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    CUresult rc = occupancy_check(func);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!numBlocks || blockSize <= 0 || blockSize > 1024 || flags > 1 ||
        dynamicSMemSize > SIM_MAX_DYNAMIC_SHARED)
        return CUDA_ERROR_INVALID_VALUE;
    *numBlocks = blocks_per_sm(blockSize);
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                                int blockSize,
                                                                size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

/* The largest block (a multiple of 32 up to the limit) with the most resident threads, and the
 * grid that fills the device with it. */
SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags)
{
    CUresult rc = occupancy_check(func);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!minGridSize || !blockSize || blockSizeLimit < 0 || flags > 1)
        return CUDA_ERROR_INVALID_VALUE;
    int limit = blockSizeLimit && blockSizeLimit < 1024 ? blockSizeLimit : 1024;
    int best = 0, best_threads = 0;
    for (int b = 32; b <= limit; b += 32) {
        size_t shared =
            blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(b) : dynamicSMemSize;
        int threads = shared > SIM_MAX_DYNAMIC_SHARED ? 0 : blocks_per_sm(b) * b;
        if (threads >= best_threads) {
            best = b;
            best_threads = threads;
        }
    }
    if (!best)
        return CUDA_ERROR_INVALID_VALUE;
    *blockSize = best;
    *minGridSize = blocks_per_sm(best) * 132; /* the multiprocessors of sim_attributes.def */
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                     CUfunction func,
                                                     CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                     size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                     blockSizeToDynamicSMemSize, dynamicSMemSize,
                                                     blockSizeLimit, 0);
}

/* ---- the JIT linker ---------------------------------------------------------------------- */

static sim_link_t *link_find(CUlinkState state)
{
    for (sim_link_t *l = sim_links; l; l = l->next)
        if ((CUlinkState)l == state)
            return l;
    return NULL;
}

SIM_EXPORT CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                                    void **optionValues, CUlinkState *stateOut)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!stateOut || !options_valid(numOptions, options, optionValues))
        return CUDA_ERROR_INVALID_VALUE;
    sim_link_t *l = calloc(1, sizeof *l);
    if (!l)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(l->image, "vtsim linked image", sizeof "vtsim linked image");
    SIM_LOCK();
    l->next = sim_links;
    sim_links = l;
    SIM_UNLOCK();
    *stateOut = (CUlinkState)l;
    return CUDA_SUCCESS;
}

SIM_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data,
                                     size_t size, const char *name, unsigned int numOptions,
                                     CUjit_option *options, void **optionValues)
{
    (void)name;
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!data || size == 0 || (unsigned)type >= SIM_JIT_NUM_INPUTS ||
        !options_valid(numOptions, options, optionValues))
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_link_t *l = link_find(state);
    if (l)
        l->n_inputs++;
    SIM_UNLOCK();
    return l ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

SIM_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path,
                                     unsigned int numOptions, CUjit_option *options,
                                     void **optionValues)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((unsigned)type >= SIM_JIT_NUM_INPUTS || !options_valid(numOptions, options, optionValues))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = file_check(path);
    if (rc != CUDA_SUCCESS)
        return rc;
    SIM_LOCK();
    sim_link_t *l = link_find(state);
    if (l)
        l->n_inputs++;
    SIM_UNLOCK();
    return l ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* The image stays valid until cuLinkDestroy, as cuda.h says. Nothing added: nothing to link. */
SIM_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!cubinOut)
        return CUDA_ERROR_INVALID_VALUE;
    SIM_LOCK();
    sim_link_t *l = link_find(state);
    CUresult rc = !l             ? CUDA_ERROR_INVALID_HANDLE
                  : !l->n_inputs ? CUDA_ERROR_INVALID_VALUE
                                 : CUDA_SUCCESS;
    if (rc == CUDA_SUCCESS) {
        *cubinOut = l->image;
        if (sizeOut)
            *sizeOut = sizeof l->image;
    }
    SIM_UNLOCK();
    return rc;
}

SIM_EXPORT CUresult cuLinkDestroy(CUlinkState state)
{
    if (!sim_initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    SIM_LOCK();
    sim_link_t *l = NULL;
    for (sim_link_t **pp = &sim_links; *pp; pp = &(*pp)->next) {
        if ((CUlinkState)*pp == state) {
            l = *pp;
            *pp = l->next;
            free(l);
            break;
        }
    }
    SIM_UNLOCK();
    return l ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* A context's destruction unloads its modules. sim_lock held. */
void sim_module_teardown(sim_ctx_t *ctx)
{
    for (sim_module_t *m = sim_modules, *next; m; m = next) {
        next = m->next;
        if (m->ctx == ctx && !m->is_library)
            module_unlink(m);
    }
}

/* ---- the profiler: start and stop are accepted, nothing is collected ---------------------- */

static int profiler_running;

SIM_EXPORT CUresult cuProfilerStart(void)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc == CUDA_SUCCESS)
        __atomic_store_n(&profiler_running, 1, __ATOMIC_RELAXED);
    return rc;
}

SIM_EXPORT CUresult cuProfilerStop(void)
{
    int dev;
    CUresult rc = sim_current_device(&dev);
    if (rc == CUDA_SUCCESS)
        __atomic_store_n(&profiler_running, 0, __ATOMIC_RELAXED);
    return rc;
}

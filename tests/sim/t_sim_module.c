/* SPDX-License-Identifier: MIT */
/* Modules, libraries, functions, launches, occupancy, the JIT linker, the profiler and texture and
 * surface objects of the simulated driver: any image loads, any name is found, launches are
 * checked and do nothing, and each entry point's error paths. Run with VTSIM_DEVICE_MEMORY=1G. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "sim_test.h"

static const char image[] = "any bytes: the simulator does not look at a module image";

static size_t shared_for(int block_size)
{
    return (size_t)block_size * 4;
}

static void test_modules(void)
{
    CUmodule m, m2;
    CUfunction f, g, f2;
    VT_CHECK_EQ("load data", cuModuleLoadData(&m, image), CUDA_SUCCESS);
    VT_CHECK_EQ("any name", cuModuleGetFunction(&f, m, "_Z6vecAddPKfS0_Pfi"), CUDA_SUCCESS);
    VT_CHECK_EQ("another", cuModuleGetFunction(&g, m, "other"), CUDA_SUCCESS);
    VT_CHECK_EQ("same name again", cuModuleGetFunction(&f2, m, "_Z6vecAddPKfS0_Pfi"), CUDA_SUCCESS);
    VT_CHECK("same handle for the same name", f == f2 && f != g);
    const char *name = NULL;
    VT_CHECK_EQ("name", cuFuncGetName(&name, f), CUDA_SUCCESS);
    VT_CHECK("its name", name && strcmp(name, "_Z6vecAddPKfS0_Pfi") == 0);
    CUjit_option opts[2] = {CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_MAX_REGISTERS};
    void *vals[2] = {(void *)(size_t)1024, (void *)(size_t)32};
    VT_CHECK_EQ("load data ex", cuModuleLoadDataEx(&m2, image, 2, opts, vals), CUDA_SUCCESS);
    VT_CHECK_EQ("load data ex bad option",
                cuModuleLoadDataEx(&m2, image, 1, (CUjit_option[]){(CUjit_option)99}, vals),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("load data ex options NULL", cuModuleLoadDataEx(&m2, image, 2, NULL, vals),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unload 2", cuModuleUnload(m2), CUDA_SUCCESS);
    VT_CHECK_EQ("fat binary", cuModuleLoadFatBinary(&m2, image), CUDA_SUCCESS);
    VT_CHECK_EQ("unload fat", cuModuleUnload(m2), CUDA_SUCCESS);
    VT_CHECK_EQ("load a file", cuModuleLoad(&m2, "/proc/self/exe"), CUDA_SUCCESS);
    VT_CHECK_EQ("unload file", cuModuleUnload(m2), CUDA_SUCCESS);
    VT_CHECK_EQ("load a missing file", cuModuleLoad(&m2, "/nonexistent/kernel.cubin"),
                CUDA_ERROR_FILE_NOT_FOUND);
    VT_CHECK_EQ("load NULL image", cuModuleLoadData(&m2, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("load NULL out", cuModuleLoadData(NULL, image), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr gptr;
    size_t gbytes;
    VT_CHECK_EQ("globals are not simulated", cuModuleGetGlobal_v2(&gptr, &gbytes, m, "counter"),
                CUDA_ERROR_NOT_FOUND);
    VT_CHECK_EQ("global of a bad module", cuModuleGetGlobal_v2(&gptr, &gbytes, m2, "x"),
                CUDA_ERROR_INVALID_HANDLE);
    CUmoduleLoadingMode mode;
    VT_CHECK_EQ("loading mode", cuModuleGetLoadingMode(&mode), CUDA_SUCCESS);
    VT_CHECK_EQ("lazy", mode, CU_MODULE_LAZY_LOADING);
    VT_CHECK_EQ("loading mode NULL", cuModuleGetLoadingMode(NULL), CUDA_ERROR_INVALID_VALUE);

    int v = 0;
    VT_CHECK_EQ("attribute", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
                CUDA_SUCCESS);
    VT_CHECK_EQ("1024 threads", v, 1024);
    VT_CHECK_EQ("registers", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f), CUDA_SUCCESS);
    VT_CHECK_EQ("32", v, 32);
    VT_CHECK_EQ("set dynamic shared",
                cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100000),
                CUDA_SUCCESS);
    VT_CHECK_EQ("read back",
                cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f),
                CUDA_SUCCESS);
    VT_CHECK_EQ("100000", v, 100000);
    VT_CHECK_EQ("dynamic shared too large",
                cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 300000),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("read-only attribute", cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 8),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unknown attribute", cuFuncGetAttribute(&v, (CUfunction_attribute)16, f),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("attribute NULL", cuFuncGetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS, f),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cache config", cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_L1), CUDA_SUCCESS);
    VT_CHECK_EQ("bad cache config", cuFuncSetCacheConfig(f, (CUfunc_cache)7),
                CUDA_ERROR_INVALID_VALUE);

    /* launches */
    CUdeviceptr buf;
    int n = 16;
    cuMemAlloc_v2(&buf, 64);
    void *params[] = {&buf, &n};
    VT_CHECK_EQ("launch", cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, params, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("launch with opted-in shared memory",
                cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 100000, NULL, params, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("launch ptsz", cuLaunchKernel_ptsz(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL),
                CUDA_SUCCESS);
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 2;
    cfg.blockDimX = 64, cfg.blockDimY = 2, cfg.blockDimZ = 1;
    VT_CHECK_EQ("launch ex", cuLaunchKernelEx(&cfg, f, params, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("launch ex ptsz", cuLaunchKernelEx_ptsz(&cfg, f, params, NULL), CUDA_SUCCESS);
    cfg.numAttrs = 1;
    VT_CHECK_EQ("launch ex attrs NULL", cuLaunchKernelEx(&cfg, f, params, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("launch ex NULL", cuLaunchKernelEx(NULL, f, params, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("cooperative", cuLaunchCooperativeKernel(f, 132, 1, 1, 128, 1, 1, 0, NULL, params),
                CUDA_SUCCESS);
    VT_CHECK_EQ("cooperative ptsz",
                cuLaunchCooperativeKernel_ptsz(f, 1, 1, 1, 1, 1, 1, 0, NULL, params), CUDA_SUCCESS);
    VT_CHECK_EQ("too many threads", cuLaunchKernel(f, 1, 1, 1, 1024, 2, 1, 0, NULL, params, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("zero grid", cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, NULL, params, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("grid y too large", cuLaunchKernel(f, 1, 65536, 1, 1, 1, 1, 0, NULL, params, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("shared past the function's limit",
                cuLaunchKernel(g, 1, 1, 1, 1, 1, 1, 49153, NULL, params, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("params and extra", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, params),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("bad stream",
                cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)params, params, NULL),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("bad function",
                cuLaunchKernel((CUfunction)params, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL),
                CUDA_ERROR_INVALID_HANDLE);

    /* occupancy */
    int blocks = 0, grid = 0, block = 0;
    VT_CHECK_EQ("occupancy", cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 256, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("2048 / 256", blocks, 8);
    VT_CHECK_EQ("occupancy flags",
                cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, f, 32, 0, 1),
                CUDA_SUCCESS);
    VT_CHECK_EQ("32 blocks at most", blocks, 32);
    VT_CHECK_EQ("occupancy bad block",
                cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("potential", cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL, 0, 0),
                CUDA_SUCCESS);
    VT_CHECK("a full multiprocessor", block % 32 == 0 && block >= 64 && grid >= 132);
    VT_CHECK_EQ("potential limited",
                cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block, f, shared_for, 0, 96, 0),
                CUDA_SUCCESS);
    VT_CHECK("at most 96", block <= 96 && block % 32 == 0);
    VT_CHECK_EQ("potential NULL", cuOccupancyMaxPotentialBlockSize(NULL, &block, f, NULL, 0, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("occupancy bad function",
                cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (CUfunction)&v, 32, 0),
                CUDA_ERROR_INVALID_HANDLE);

    VT_CHECK_EQ("unload", cuModuleUnload(m), CUDA_SUCCESS);
    VT_CHECK_EQ("unload twice", cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("function of an unloaded module",
                cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("get function of an unloaded module", cuModuleGetFunction(&f, m, "x"),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("name of an unloaded function", cuFuncGetName(&name, g), CUDA_ERROR_INVALID_HANDLE);
    cuMemFree_v2(buf);
}

static void test_libraries(void)
{
    CUlibrary lib;
    CUkernel k;
    CUfunction f;
    CUmodule m;
    VT_CHECK_EQ("library", cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("kernel", cuLibraryGetKernel(&k, lib, "kernel"), CUDA_SUCCESS);
    VT_CHECK_EQ("function", cuKernelGetFunction(&f, k), CUDA_SUCCESS);
    VT_CHECK_EQ("module", cuLibraryGetModule(&m, lib), CUDA_SUCCESS);
    VT_CHECK_EQ("launch a kernel's function",
                cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("a library is not a module to unload", cuModuleUnload((CUmodule)lib),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("library options without values",
                cuLibraryLoadData(&lib, image, NULL, NULL, 0,
                                  (CUlibraryOption[]){CU_LIBRARY_BINARY_IS_PRESERVED}, NULL, 1),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("library from file",
                cuLibraryLoadFromFile(&lib, "/proc/self/exe", NULL, NULL, 0, NULL, NULL, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("unload", cuLibraryUnload(lib), CUDA_SUCCESS);
    VT_CHECK_EQ("library from a missing file",
                cuLibraryLoadFromFile(&lib, "/nonexistent.fatbin", NULL, NULL, 0, NULL, NULL, 0),
                CUDA_ERROR_FILE_NOT_FOUND);
    VT_CHECK_EQ("kernel NULL name", cuLibraryGetKernel(&k, lib, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("unload twice", cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("kernel of an unloaded library", cuLibraryGetKernel(&k, lib, "x"),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("module of an unloaded library", cuLibraryGetModule(&m, lib),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("function of a bogus kernel", cuKernelGetFunction(&f, (CUkernel)&m),
                CUDA_ERROR_INVALID_HANDLE);
}

static void test_linker(void)
{
    CUlinkState st;
    void *cubin = NULL;
    size_t size = 0;
    char ptx[] = ".version 8.0\n.target sm_90\n";
    VT_CHECK_EQ("create", cuLinkCreate_v2(0, NULL, NULL, &st), CUDA_SUCCESS);
    VT_CHECK_EQ("complete with nothing added", cuLinkComplete(st, &cubin, &size),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("add data",
                cuLinkAddData_v2(st, CU_JIT_INPUT_PTX, ptx, sizeof ptx, "k.ptx", 0, NULL, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("add file",
                cuLinkAddFile_v2(st, CU_JIT_INPUT_LIBRARY, "/proc/self/exe", 0, NULL, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("add missing file",
                cuLinkAddFile_v2(st, CU_JIT_INPUT_CUBIN, "/nonexistent", 0, NULL, NULL),
                CUDA_ERROR_FILE_NOT_FOUND);
    VT_CHECK_EQ("add bad type",
                cuLinkAddData_v2(st, (CUjitInputType)6, ptx, sizeof ptx, NULL, 0, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("add empty", cuLinkAddData_v2(st, CU_JIT_INPUT_PTX, ptx, 0, NULL, 0, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("complete", cuLinkComplete(st, &cubin, &size), CUDA_SUCCESS);
    VT_CHECK("an image", cubin && size > 0);
    CUmodule m;
    VT_CHECK_EQ("load the linked image", cuModuleLoadData(&m, cubin), CUDA_SUCCESS);
    cuModuleUnload(m);
    VT_CHECK_EQ("complete NULL", cuLinkComplete(st, NULL, &size), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroy", cuLinkDestroy(st), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy twice", cuLinkDestroy(st), CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("add to destroyed",
                cuLinkAddData_v2(st, CU_JIT_INPUT_PTX, ptx, sizeof ptx, NULL, 0, NULL, NULL),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("create NULL", cuLinkCreate_v2(0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("create bad option",
                cuLinkCreate_v2(1, (CUjit_option[]){(CUjit_option)35}, (void *[]){NULL}, &st),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("profiler start", cuProfilerStart(), CUDA_SUCCESS);
    VT_CHECK_EQ("profiler stop", cuProfilerStop(), CUDA_SUCCESS);
}

static void test_textures(void)
{
    CUarray arr, plain;
    CUDA_ARRAY3D_DESCRIPTOR d = {64, 64, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST};
    VT_CHECK_EQ("surface array", cuArray3DCreate_v2(&arr, &d), CUDA_SUCCESS);
    d.Flags = 0;
    VT_CHECK_EQ("plain array", cuArray3DCreate_v2(&plain, &d), CUDA_SUCCESS);
    size_t before = sim_test_used_bytes();
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = arr;
    CUDA_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    t.addressMode[0] = t.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    t.filterMode = CU_TR_FILTER_MODE_LINEAR;
    CUtexObject tex = 0, tex2 = 0;
    CUsurfObject surf = 0;
    VT_CHECK_EQ("texture", cuTexObjectCreate(&tex, &r, &t, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("textures cost no device memory", sim_test_used_bytes(), before);
    CUDA_RESOURCE_DESC got;
    CUDA_TEXTURE_DESC got_t;
    VT_CHECK_EQ("resource", cuTexObjectGetResourceDesc(&got, tex), CUDA_SUCCESS);
    VT_CHECK("same array", got.resType == CU_RESOURCE_TYPE_ARRAY && got.res.array.hArray == arr);
    VT_CHECK_EQ("texture desc", cuTexObjectGetTextureDesc(&got_t, tex), CUDA_SUCCESS);
    VT_CHECK_EQ("linear filter", got_t.filterMode, CU_TR_FILTER_MODE_LINEAR);
    VT_CHECK_EQ("surface", cuSurfObjectCreate(&surf, &r), CUDA_SUCCESS);
    VT_CHECK_EQ("surface resource", cuSurfObjectGetResourceDesc(&got, surf), CUDA_SUCCESS);
    r.res.array.hArray = plain;
    VT_CHECK_EQ("surface needs SURFACE_LDST", cuSurfObjectCreate(&surf, &r),
                CUDA_ERROR_INVALID_VALUE);

    CUdeviceptr lin;
    cuMemAlloc_v2(&lin, 4096);
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_LINEAR;
    r.res.linear.devPtr = lin;
    r.res.linear.format = CU_AD_FORMAT_FLOAT;
    r.res.linear.numChannels = 1;
    r.res.linear.sizeInBytes = 4096;
    VT_CHECK_EQ("linear texture", cuTexObjectCreate(&tex2, &r, &t, NULL), CUDA_SUCCESS);
    VT_CHECK("distinct handles", tex2 != tex && tex2 != 0);
    r.res.linear.sizeInBytes = 8192;
    VT_CHECK_EQ("linear past the allocation", cuTexObjectCreate(&tex2, &r, &t, NULL),
                CUDA_ERROR_INVALID_VALUE);
    r.res.linear.sizeInBytes = 1024;
    r.res.linear.devPtr = lin + 4;
    VT_CHECK_EQ("linear unaligned", cuTexObjectCreate(&tex2, &r, &t, NULL),
                CUDA_ERROR_INVALID_VALUE);
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_PITCH2D;
    r.res.pitch2D.devPtr = lin;
    r.res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
    r.res.pitch2D.numChannels = 4;
    r.res.pitch2D.width = 16;
    r.res.pitch2D.height = 64;
    r.res.pitch2D.pitchInBytes = 64;
    CUtexObject tex3;
    VT_CHECK_EQ("pitched texture", cuTexObjectCreate(&tex3, &r, &t, NULL), CUDA_SUCCESS);
    r.res.pitch2D.height = 65;
    VT_CHECK_EQ("pitched past the allocation", cuTexObjectCreate(&tex3, &r, &t, NULL),
                CUDA_ERROR_INVALID_VALUE);
    r.res.pitch2D.height = 4;
    r.res.pitch2D.pitchInBytes = 48;
    VT_CHECK_EQ("pitch not a multiple of 32", cuTexObjectCreate(&tex3, &r, &t, NULL),
                CUDA_ERROR_INVALID_VALUE);
    r.res.pitch2D.pitchInBytes = 64;
    VT_CHECK_EQ("texture desc NULL", cuTexObjectCreate(&tex3, &r, NULL, NULL),
                CUDA_ERROR_INVALID_VALUE);
    r.flags = 1;
    VT_CHECK_EQ("resource flags", cuTexObjectCreate(&tex3, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    r.flags = 0;
    r.resType = (CUresourcetype)7;
    VT_CHECK_EQ("resource type", cuTexObjectCreate(&tex3, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = (CUarray)&r;
    VT_CHECK_EQ("bad array", cuTexObjectCreate(&tex3, &r, &t, NULL), CUDA_ERROR_INVALID_HANDLE);

    CUmipmappedArray mip;
    CUDA_ARRAY3D_DESCRIPTOR md = {32, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    cuMipmappedArrayCreate(&mip, &md, 2);
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    r.res.mipmap.hMipmappedArray = mip;
    CUtexObject tex4;
    VT_CHECK_EQ("mipmapped texture", cuTexObjectCreate(&tex4, &r, &t, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("mipmapped surface", cuSurfObjectCreate(&surf, &r), CUDA_ERROR_INVALID_VALUE);

    VT_CHECK_EQ("destroy", cuTexObjectDestroy(tex), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy twice", cuTexObjectDestroy(tex), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("resource of destroyed", cuTexObjectGetResourceDesc(&got, tex),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("resource NULL", cuTexObjectGetResourceDesc(NULL, tex2), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("a texture is not a surface", cuSurfObjectDestroy(tex2), CUDA_ERROR_INVALID_VALUE);
    cuTexObjectDestroy(tex2);
    cuTexObjectDestroy(tex3);
    cuTexObjectDestroy(tex4);
    VT_CHECK_EQ("destroy surface", cuSurfObjectDestroy(surf == 0 ? 1 : surf), CUDA_SUCCESS);
    VT_CHECK_EQ("surface resource of destroyed", cuSurfObjectGetResourceDesc(&got, surf),
                CUDA_ERROR_INVALID_VALUE);
    cuMipmappedArrayDestroy(mip);
    cuMemFree_v2(lin);
    cuArrayDestroy(arr);
    cuArrayDestroy(plain);
}

static void *no_context(void *arg)
{
    (void)arg;
    CUmodule m;
    CUfunction f = NULL;
    CUtexObject t;
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    VT_CHECK_EQ("load", cuModuleLoadData(&m, image), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("launch", cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
                CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("texture", cuTexObjectCreate(&t, &r, NULL, NULL), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("profiler", cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
    VT_CHECK_EQ("profiler stop", cuProfilerStop(), CUDA_ERROR_INVALID_CONTEXT);
    return NULL;
}

int main(void)
{
    CUmodule m;
    CUlinkState st;
    VT_CHECK_EQ("module before cuInit", cuModuleLoadData(&m, image), CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("link before cuInit", cuLinkCreate_v2(0, NULL, NULL, &st),
                CUDA_ERROR_NOT_INITIALIZED);
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    size_t before = sim_test_used_bytes();
    test_modules();
    test_libraries();
    test_linker();
    test_textures();
    VT_CHECK_EQ("nothing left charged", sim_test_used_bytes(), before);
    pthread_t t;
    pthread_create(&t, NULL, no_context, NULL);
    pthread_join(t, NULL);
    return vt_test_done();
}

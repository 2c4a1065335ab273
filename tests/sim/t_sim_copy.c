/* SPDX-License-Identifier: MIT */
/* Arrays, pitched copies and sets, mapped host memory and managed-memory hints of the simulated
 * driver: the documented array layout charged to the byte, contents that round-trip through
 * arrays and pitched memory, every copy and set checked against the bounds of its allocation or
 * array (a wrong size is an error as on a GPU), and each entry point's error paths. Run with
 * VTSIM_DEVICE_MEMORY=1G. */
#include <stdint.h>
#include <string.h>
#include "sim_test.h"

#define MiB (1ULL << 20)

static void test_array_layout(void)
{
    size_t before = sim_test_used_bytes();
    CUarray a, b;
    CUDA_ARRAY_DESCRIPTOR d = {100, 10, CU_AD_FORMAT_FLOAT, 4}; /* rows of 1600 bytes */
    VT_CHECK_EQ("2D array", cuArrayCreate_v2(&a, &d), CUDA_SUCCESS);
    VT_CHECK_EQ("rows rounded to 512: 2048 x 10", sim_test_used_bytes() - before, 2048 * 10);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {64, 8, 6, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_CUBEMAP};
    d3.Height = 64; /* a cubemap is square */
    VT_CHECK_EQ("cubemap", cuArray3DCreate_v2(&b, &d3), CUDA_SUCCESS);
    VT_CHECK_EQ("512 x 64 x 6 more", sim_test_used_bytes() - before, 2048 * 10 + 512 * 64 * 6);
    CUDA_ARRAY_DESCRIPTOR got;
    VT_CHECK_EQ("descriptor", cuArrayGetDescriptor_v2(&got, a), CUDA_SUCCESS);
    VT_CHECK("same descriptor", got.Width == 100 && got.Height == 10 && got.NumChannels == 4);
    CUDA_ARRAY3D_DESCRIPTOR got3;
    VT_CHECK_EQ("3D descriptor", cuArray3DGetDescriptor_v2(&got3, b), CUDA_SUCCESS);
    VT_CHECK("cubemap flag", got3.Flags == CUDA_ARRAY3D_CUBEMAP && got3.Depth == 6);
    VT_CHECK_EQ("descriptor NULL", cuArrayGetDescriptor_v2(NULL, a), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("descriptor bad handle", cuArray3DGetDescriptor_v2(&got3, (CUarray)&got),
                CUDA_ERROR_INVALID_HANDLE);
    d3.Height = 32;
    VT_CHECK_EQ("cubemap not square", cuArray3DCreate_v2(&b, &d3), CUDA_ERROR_INVALID_VALUE);
    d.NumChannels = 3;
    VT_CHECK_EQ("3 channels", cuArrayCreate_v2(&a, &d), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("destroy a", cuArrayDestroy(a), CUDA_SUCCESS);
    VT_CHECK_EQ("destroy b", cuArrayDestroy(b), CUDA_SUCCESS);
    VT_CHECK_EQ("all back", sim_test_used_bytes(), before);

    /* a mipmapped 2D array: 256x256 RGBA8 rows of 1024, then 128x128 (512), 64x64 (256 -> 512) */
    CUmipmappedArray m;
    CUarray level;
    CUDA_ARRAY3D_DESCRIPTOR md = {256, 256, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
    VT_CHECK_EQ("mipmapped", cuMipmappedArrayCreate(&m, &md, 3), CUDA_SUCCESS);
    VT_CHECK_EQ("levels charged", sim_test_used_bytes() - before,
                1024 * 256 + 512 * 128 + 512 * 64);
    VT_CHECK_EQ("level 2", cuMipmappedArrayGetLevel(&level, m, 2), CUDA_SUCCESS);
    VT_CHECK_EQ("level descriptor", cuArray3DGetDescriptor_v2(&got3, level), CUDA_SUCCESS);
    VT_CHECK("64 x 64", got3.Width == 64 && got3.Height == 64);
    VT_CHECK_EQ("a level costs nothing more", sim_test_used_bytes() - before,
                1024 * 256 + 512 * 128 + 512 * 64);
    VT_CHECK_EQ("level 3 of 3", cuMipmappedArrayGetLevel(&level, m, 3), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("level NULL", cuMipmappedArrayGetLevel(NULL, m, 0), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("level bad handle", cuMipmappedArrayGetLevel(&level, (CUmipmappedArray)&md, 0),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("a level is not an array to destroy", cuArrayDestroy(level),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("destroy mipmapped", cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
    VT_CHECK_EQ("all back", sim_test_used_bytes(), before);
}

static void test_array_copies(void)
{
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR d = {16, 4, CU_AD_FORMAT_UNSIGNED_INT32, 1}; /* 64-byte rows */
    uint32_t in[64], out[64];
    for (int i = 0; i < 64; i++)
        in[i] = (uint32_t)i * 7u;
    VT_CHECK_EQ("array", cuArrayCreate_v2(&a, &d), CUDA_SUCCESS);
    VT_CHECK_EQ("HtoA", cuMemcpyHtoA_v2(a, 0, in, sizeof in), CUDA_SUCCESS);
    memset(out, 0, sizeof out);
    VT_CHECK_EQ("AtoH", cuMemcpyAtoH_v2(out, a, 0, sizeof out), CUDA_SUCCESS);
    VT_CHECK("array round trip", memcmp(in, out, sizeof in) == 0);
    VT_CHECK_EQ("AtoH at an offset", cuMemcpyAtoH_v2(out, a, 68, 8), CUDA_SUCCESS);
    VT_CHECK("row 1, elements 1 and 2", out[0] == 17 * 7 && out[1] == 18 * 7);
    VT_CHECK_EQ("past the end", cuMemcpyHtoA_v2(a, 200, in, 64), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("HtoA NULL", cuMemcpyHtoA_v2(a, 0, NULL, 4), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("HtoA bad array", cuMemcpyHtoA_v2((CUarray)in, 0, in, 4),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("HtoA async", cuMemcpyHtoAAsync_v2(a, 0, in, 16, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("AtoH async", cuMemcpyAtoHAsync_v2(out, a, 0, 16, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("async bad stream", cuMemcpyAtoHAsync_v2(out, a, 0, 16, (CUstream)in),
                CUDA_ERROR_INVALID_HANDLE);

    CUdeviceptr dev;
    VT_CHECK_EQ("device", cuMemAlloc_v2(&dev, 256), CUDA_SUCCESS);
    VT_CHECK_EQ("AtoD", cuMemcpyAtoD_v2(dev, a, 0, 256), CUDA_SUCCESS);
    memset(out, 0, sizeof out);
    cuMemcpyDtoH_v2(out, dev, 256);
    VT_CHECK("array to device", memcmp(in, out, sizeof in) == 0);
    VT_CHECK_EQ("DtoA: row 1 back in place", cuMemcpyDtoA_v2(a, 64, dev + 64, 64), CUDA_SUCCESS);
    VT_CHECK_EQ("AtoD past the allocation", cuMemcpyAtoD_v2(dev + 128, a, 0, 256),
                CUDA_ERROR_INVALID_VALUE);
    CUarray b;
    VT_CHECK_EQ("array b", cuArrayCreate_v2(&b, &d), CUDA_SUCCESS);
    VT_CHECK_EQ("AtoA", cuMemcpyAtoA_v2(b, 0, a, 0, 64), CUDA_SUCCESS);
    VT_CHECK_EQ("AtoH of b", cuMemcpyAtoH_v2(out, b, 0, 64), CUDA_SUCCESS);
    VT_CHECK("array to array", memcmp(in, out, 64) == 0);

    /* 2D: a 3 x 2 region between pitched device memory and the array */
    CUdeviceptr pitched;
    size_t pitch = 0;
    VT_CHECK_EQ("pitched", cuMemAllocPitch_v2(&pitched, &pitch, 64, 4, 4), CUDA_SUCCESS);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = a;
    c.srcXInBytes = 4;
    c.srcY = 1;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = pitched;
    c.dstPitch = pitch;
    c.WidthInBytes = 12;
    c.Height = 2;
    VT_CHECK_EQ("2D array to device", cuMemcpy2D_v2(&c), CUDA_SUCCESS);
    uint32_t row[3];
    cuMemcpyDtoH_v2(row, pitched, 12);
    VT_CHECK("array row 1 in device row 0", row[0] == 17 * 7 && row[2] == 19 * 7);
    cuMemcpyDtoH_v2(row, pitched + pitch, 12);
    VT_CHECK("array row 2 in device row 1", row[0] == 33 * 7 && row[2] == 35 * 7);
    c.Height = 4;
    VT_CHECK_EQ("rows past the array", cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
    c.Height = 2;
    c.srcXInBytes = 56;
    VT_CHECK_EQ("columns past the array", cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcXInBytes = 0;
    c.dstPitch = 8;
    VT_CHECK_EQ("pitch below the width", cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstPitch = pitch;
    c.dstDevice = pitched + 3 * pitch;
    VT_CHECK_EQ("rows past the allocation", cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstDevice = pitched;
    c.srcMemoryType = (CUmemorytype)9;
    VT_CHECK_EQ("bad memory type", cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_VALUE);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = (CUarray)row;
    VT_CHECK_EQ("bad array", cuMemcpy2D_v2(&c), CUDA_ERROR_INVALID_HANDLE);
    c.srcArray = a;
    VT_CHECK_EQ("unaligned", cuMemcpy2DUnaligned_v2(&c), CUDA_SUCCESS);
    VT_CHECK_EQ("async", cuMemcpy2DAsync_v2(&c, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("ptds", cuMemcpy2D_v2_ptds(&c), CUDA_SUCCESS);
    VT_CHECK_EQ("ptsz", cuMemcpy2DAsync_v2_ptsz(&c, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("async bad stream", cuMemcpy2DAsync_v2(&c, (CUstream)row),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("NULL", cuMemcpy2D_v2(NULL), CUDA_ERROR_INVALID_VALUE);

    /* 3D: host to device, 2 slices of 2 rows of 8 bytes */
    uint8_t host[64], back[64];
    for (int i = 0; i < 64; i++)
        host[i] = (uint8_t)i;
    CUdeviceptr vol;
    VT_CHECK_EQ("volume", cuMemAlloc_v2(&vol, 4 * 16 * 2), CUDA_SUCCESS);
    CUDA_MEMCPY3D v;
    memset(&v, 0, sizeof v);
    v.srcMemoryType = CU_MEMORYTYPE_HOST;
    v.srcHost = host;
    v.srcPitch = 8;
    v.srcHeight = 4;
    v.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    v.dstDevice = vol;
    v.dstPitch = 16;
    v.dstHeight = 4;
    v.WidthInBytes = 8;
    v.Height = 2;
    v.Depth = 2;
    VT_CHECK_EQ("3D", cuMemcpy3D_v2(&v), CUDA_SUCCESS);
    cuMemcpyDtoH_v2(back, vol + 4 * 16, 8);
    VT_CHECK("slice 1, row 0", back[0] == 32 && back[7] == 39);
    v.Depth = 3;
    VT_CHECK_EQ("slices past the allocation", cuMemcpy3D_v2(&v), CUDA_ERROR_INVALID_VALUE);
    v.Depth = 2;
    v.dstHeight = 1;
    VT_CHECK_EQ("height below the rows", cuMemcpy3D_v2(&v), CUDA_ERROR_INVALID_VALUE);
    v.dstHeight = 4;
    VT_CHECK_EQ("3D async", cuMemcpy3DAsync_v2(&v, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("3D ptds", cuMemcpy3D_v2_ptds(&v), CUDA_SUCCESS);
    VT_CHECK_EQ("3D ptsz", cuMemcpy3DAsync_v2_ptsz(&v, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("3D NULL", cuMemcpy3D_v2(NULL), CUDA_ERROR_INVALID_VALUE);

    /* 2D sets */
    VT_CHECK_EQ("set 2D 8", cuMemsetD2D8_v2(pitched, pitch, 0xab, 64, 4), CUDA_SUCCESS);
    uint8_t b8[64];
    cuMemcpyDtoH_v2(b8, pitched + 3 * pitch, 64);
    VT_CHECK("last row set", b8[0] == 0xab && b8[63] == 0xab);
    VT_CHECK_EQ("set 2D 16", cuMemsetD2D16_v2(pitched, pitch, 0x1234, 32, 4), CUDA_SUCCESS);
    VT_CHECK_EQ("set 2D 32", cuMemsetD2D32_v2(pitched, pitch, 0xdeadbeef, 16, 4), CUDA_SUCCESS);
    uint32_t w = 0;
    cuMemcpyDtoH_v2(&w, pitched + pitch, 4);
    VT_CHECK_EQ("32-bit value", w, 0xdeadbeef);
    VT_CHECK_EQ("set 2D async", cuMemsetD2D8Async(pitched, pitch, 1, 64, 4, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("set 2D 16 async", cuMemsetD2D16Async(pitched, pitch, 1, 32, 4, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("set 2D 32 async", cuMemsetD2D32Async(pitched, pitch, 1, 16, 4, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("set 2D rows past", cuMemsetD2D8_v2(pitched, pitch, 0, 64, 5),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set 2D wider than pitch", cuMemsetD2D8_v2(pitched, 32, 0, 64, 2),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set 2D 32 unaligned", cuMemsetD2D32_v2(pitched + 2, pitch, 0, 4, 2),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set 2D async bad stream",
                cuMemsetD2D8Async(pitched, pitch, 0, 4, 2, (CUstream)row),
                CUDA_ERROR_INVALID_HANDLE);

    /* 1D sets and copies added beside the originals */
    VT_CHECK_EQ("set 16", cuMemsetD16_v2(dev, 0x0102, 128), CUDA_SUCCESS);
    VT_CHECK_EQ("set 16 past", cuMemsetD16_v2(dev, 0, 129), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set 8 async", cuMemsetD8Async(dev, 3, 256, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("set 16 async", cuMemsetD16Async(dev, 3, 128, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("set 32 async", cuMemsetD32Async(dev, 3, 64, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("set 32 async past", cuMemsetD32Async(dev, 3, 65, NULL), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("set 8 async bad stream", cuMemsetD8Async(dev, 3, 1, (CUstream)row),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("set ptds", cuMemsetD8_v2_ptds(dev, 1, 256), CUDA_SUCCESS);
    VT_CHECK_EQ("set 32 ptds", cuMemsetD32_v2_ptds(dev, 1, 64), CUDA_SUCCESS);
    VT_CHECK_EQ("set async ptsz", cuMemsetD8Async_ptsz(dev, 1, 256, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("set 32 async ptsz", cuMemsetD32Async_ptsz(dev, 1, 64, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("DtoD async", cuMemcpyDtoDAsync_v2(dev, dev + 128, 128, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("DtoD async past", cuMemcpyDtoDAsync_v2(dev, dev + 128, 129, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("memcpy async", cuMemcpyAsync(dev, (CUdeviceptr)host, 64, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("memcpy async bad stream", cuMemcpyAsync(dev, (CUdeviceptr)host, 64, (CUstream)row),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("HtoD ptds", cuMemcpyHtoD_v2_ptds(dev, host, 64), CUDA_SUCCESS);
    VT_CHECK_EQ("DtoH ptds", cuMemcpyDtoH_v2_ptds(back, dev, 64), CUDA_SUCCESS);
    VT_CHECK("round trip", memcmp(host, back, 64) == 0);
    VT_CHECK_EQ("DtoD ptds", cuMemcpyDtoD_v2_ptds(dev + 64, dev, 64), CUDA_SUCCESS);
    VT_CHECK_EQ("memcpy ptds", cuMemcpy_ptds(dev, dev + 64, 64), CUDA_SUCCESS);
    VT_CHECK_EQ("HtoD async ptsz", cuMemcpyHtoDAsync_v2_ptsz(dev, host, 64, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("DtoH async ptsz", cuMemcpyDtoHAsync_v2_ptsz(back, dev, 64, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("DtoD async ptsz", cuMemcpyDtoDAsync_v2_ptsz(dev, dev + 64, 64, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("memcpy async ptsz", cuMemcpyAsync_ptsz(dev, dev + 64, 64, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("HtoD ptds past", cuMemcpyHtoD_v2_ptds(dev, host, 257), CUDA_ERROR_INVALID_VALUE);

    cuMemFree_v2(vol);
    cuMemFree_v2(pitched);
    cuMemFree_v2(dev);
    cuArrayDestroy(a);
    cuArrayDestroy(b);
}

static void test_mapped_and_managed(void)
{
    void *host;
    CUdeviceptr dptr = 0, managed;
    unsigned flags = 0;
    VT_CHECK_EQ("mapped host", cuMemHostAlloc(&host, 4096, CU_MEMHOSTALLOC_DEVICEMAP),
                CUDA_SUCCESS);
    VT_CHECK_EQ("device pointer", cuMemHostGetDevicePointer_v2(&dptr, host, 0), CUDA_SUCCESS);
    VT_CHECK("unified: the same address", dptr == (CUdeviceptr)host);
    VT_CHECK_EQ("interior pointer", cuMemHostGetDevicePointer_v2(&dptr, (char *)host + 100, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("flags", cuMemHostGetFlags(&flags, host), CUDA_SUCCESS);
    VT_CHECK_EQ("devicemap", flags, CU_MEMHOSTALLOC_DEVICEMAP);
    int x = 7, y = 0;
    VT_CHECK_EQ("write through the device pointer", cuMemcpyHtoD_v2(dptr, &x, 4), CUDA_SUCCESS);
    memcpy(&y, (char *)host + 100, 4);
    VT_CHECK_EQ("seen by the host", y, 7);
    VT_CHECK_EQ("device pointer flags", cuMemHostGetDevicePointer_v2(&dptr, host, 1),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("device pointer of malloc memory", cuMemHostGetDevicePointer_v2(&dptr, &x, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("device pointer NULL", cuMemHostGetDevicePointer_v2(NULL, host, 0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("flags of malloc memory", cuMemHostGetFlags(&flags, &x), CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("flags NULL", cuMemHostGetFlags(NULL, host), CUDA_ERROR_INVALID_VALUE);
    char reg[8192];
    VT_CHECK_EQ("register", cuMemHostRegister_v2(reg, sizeof reg, CU_MEMHOSTREGISTER_DEVICEMAP),
                CUDA_SUCCESS);
    VT_CHECK_EQ("registered device pointer", cuMemHostGetDevicePointer_v2(&dptr, reg, 0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("registered flags", cuMemHostGetFlags(&flags, reg), CUDA_SUCCESS);
    VT_CHECK_EQ("devicemap", flags, CU_MEMHOSTREGISTER_DEVICEMAP);
    cuMemHostUnregister(reg);
    cuMemFreeHost(host);

    VT_CHECK_EQ("managed", cuMemAllocManaged(&managed, MiB, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    CUmemLocation dev0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, bad = {CU_MEM_LOCATION_TYPE_DEVICE, 4};
    VT_CHECK_EQ("prefetch", cuMemPrefetchAsync_v2(managed, MiB, dev0, 0, NULL), CUDA_SUCCESS);
    VT_CHECK_EQ("prefetch ptsz", cuMemPrefetchAsync_v2_ptsz(managed, MiB, dev0, 0, NULL),
                CUDA_SUCCESS);
    VT_CHECK_EQ("prefetch past", cuMemPrefetchAsync_v2(managed, MiB + 1, dev0, 0, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("prefetch bad location", cuMemPrefetchAsync_v2(managed, 64, bad, 0, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("prefetch flags", cuMemPrefetchAsync_v2(managed, 64, dev0, 1, NULL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("prefetch bad stream", cuMemPrefetchAsync_v2(managed, 64, dev0, 0, (CUstream)&x),
                CUDA_ERROR_INVALID_HANDLE);
    VT_CHECK_EQ("advise", cuMemAdvise_v2(managed, MiB, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0),
                CUDA_SUCCESS);
    VT_CHECK_EQ("advise read mostly",
                cuMemAdvise_v2(managed, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, bad), CUDA_SUCCESS);
    VT_CHECK_EQ("advise bad location",
                cuMemAdvise_v2(managed, 64, CU_MEM_ADVISE_SET_ACCESSED_BY, bad),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("advise bad advice", cuMemAdvise_v2(managed, 64, (CUmem_advise)7, dev0),
                CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr plain;
    cuMemAlloc_v2(&plain, 64);
    VT_CHECK_EQ("advise device memory",
                cuMemAdvise_v2(plain, 64, CU_MEM_ADVISE_SET_READ_MOSTLY, dev0),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("attach", cuStreamAttachMemAsync(NULL, managed, 0, CU_MEM_ATTACH_HOST),
                CUDA_SUCCESS);
    VT_CHECK_EQ("attach ptsz", cuStreamAttachMemAsync_ptsz(NULL, managed, 0, CU_MEM_ATTACH_SINGLE),
                CUDA_SUCCESS);
    VT_CHECK_EQ("attach bad flags", cuStreamAttachMemAsync(NULL, managed, 0, 8),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("attach device memory",
                cuStreamAttachMemAsync(NULL, plain, 0, CU_MEM_ATTACH_GLOBAL),
                CUDA_ERROR_INVALID_VALUE);
    VT_CHECK_EQ("attach bad stream",
                cuStreamAttachMemAsync((CUstream)&x, managed, 0, CU_MEM_ATTACH_GLOBAL),
                CUDA_ERROR_INVALID_HANDLE);
    cuMemFree_v2(plain);
    cuMemFree_v2(managed);
}

int main(void)
{
    VT_CHECK_EQ("context", sim_test_context(0), CUDA_SUCCESS);
    size_t before = sim_test_used_bytes();
    test_array_layout();
    test_array_copies();
    test_mapped_and_managed();
    VT_CHECK_EQ("everything given back", sim_test_used_bytes(), before);
    return vt_test_done();
}

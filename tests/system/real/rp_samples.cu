/* SPDX-License-Identifier: MIT */
/* An nvcc -cudart shared program in the style of the CUDA samples' simpleStreams, asyncAPI,
 * simpleCallback and simpleTexture: the samples' device check (cudaGetDeviceCount,
 * cudaDeviceGetAttribute, cudaGetDeviceProperties), kernels launched with <<<...>>> on several
 * streams, events timing each stream, host callbacks, pinned and pitched memory, 2D copies, and
 * a texture over an array. Kernels do not execute on the simulated device, so it checks what the
 * copies moved, not what a kernel computed. Prints what it did; exit 0 on success. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorName(e_));                                                         \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

__global__ void scale(float *p, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= factor;
}

__global__ void sample(cudaTextureObject_t tex, float *out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[y * width + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

static int callbacks;
static void CUDART_CB on_stream_done(cudaStream_t, cudaError_t status, void *arg)
{
    if (status == cudaSuccess)
        __atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

static int find_cuda_device(void)
{
    int count = 0, major = 0, minor = 0, sms = 0;
    CHECK(cudaGetDeviceCount(&count));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    CHECK(cudaSetDevice(0));
    printf("GPU Device 0: \"%s\" with compute capability %d.%d, %d SMs, %zu MiB\n", prop.name,
           major, minor, sms, prop.totalGlobalMem >> 20);
    return 0;
}

int main(void)
{
    if (find_cuda_device() != 0)
        return 1;
    const int n_streams = 4, n = 1 << 20, per = n / n_streams;
    float *h, *d;
    CHECK(cudaMallocHost((void **)&h, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&d, n * sizeof(float)));
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    cudaStream_t streams[4];
    cudaEvent_t start[4], stop[4];
    for (int s = 0; s < n_streams; s++) {
        CHECK(cudaStreamCreate(&streams[s]));
        CHECK(cudaEventCreate(&start[s]));
        CHECK(cudaEventCreate(&stop[s]));
    }
    for (int s = 0; s < n_streams; s++) {
        float *part = d + s * per, *host_part = h + s * per;
        CHECK(cudaEventRecord(start[s], streams[s]));
        CHECK(cudaMemcpyAsync(part, host_part, per * sizeof(float), cudaMemcpyHostToDevice,
                              streams[s]));
        scale<<<(per + 255) / 256, 256, 0, streams[s]>>>(part, 2.0f, per);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(host_part, part, per * sizeof(float), cudaMemcpyDeviceToHost,
                              streams[s]));
        CHECK(cudaStreamAddCallback(streams[s], on_stream_done, &callbacks, 0));
        CHECK(cudaEventRecord(stop[s], streams[s]));
    }
    CHECK(cudaDeviceSynchronize());
    for (int s = 0; s < n_streams; s++) {
        float ms = -1;
        CHECK(cudaEventElapsedTime(&ms, start[s], stop[s]));
        if (ms < 0)
            return 1;
    }
    printf("%d streams, %d callbacks, copies %s\n", n_streams, callbacks,
           h[n - 1] == (float)(n - 1) ? "round-tripped" : "WRONG");

    /* a pitched image, a 2D copy into an array, a texture over it */
    const int width = 256, height = 128; /* rows of 1 KiB: the array's layout adds nothing */
    float *img;
    size_t pitch = 0;
    CHECK(cudaMallocPitch((void **)&img, &pitch, width * sizeof(float), height));
    CHECK(cudaMemcpy2D(img, pitch, h, width * sizeof(float), width * sizeof(float), height,
                       cudaMemcpyHostToDevice));
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &f, width, height, 0));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, img, pitch, width * sizeof(float), height,
                              cudaMemcpyDeviceToDevice));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CHECK(cudaCreateTextureObject(&tex, &rd, &td, NULL));
    float *out;
    CHECK(cudaMalloc((void **)&out, width * height * sizeof(float)));
    dim3 block(16, 16), grid(width / 16, height / 16);
    sample<<<grid, block>>>(tex, out, width, height);
    CHECK(cudaGetLastError());
    CHECK(cudaMemset2D(img, pitch, 0, width * sizeof(float), height));
    CHECK(cudaMemcpy2DFromArray(h, width * sizeof(float), arr, 0, 0, width * sizeof(float), height,
                                cudaMemcpyDeviceToHost));
    printf("texture over a %dx%d array, array copy %s\n", width, height,
           h[width * height - 1] == (float)(width * height - 1) ? "round-tripped" : "WRONG");

    CHECK(cudaDestroyTextureObject(tex));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFree(out));
    CHECK(cudaFree(img));
    for (int s = 0; s < n_streams; s++) {
        CHECK(cudaEventDestroy(start[s]));
        CHECK(cudaEventDestroy(stop[s]));
        CHECK(cudaStreamDestroy(streams[s]));
    }
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    printf("Result = PASS\n");
    return 0;
}

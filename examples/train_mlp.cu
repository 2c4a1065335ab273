// SPDX-License-Identifier: MIT
// A real CUDA C training loop: an MLP (256 -> 512 -> 512 -> 10, ReLU) learns to classify
// synthetic inputs labelled by a fixed random linear "teacher", with matmul, activation,
// softmax cross-entropy and Adam kernels. Its memory has the shape of real training: weights,
// gradients and Adam's m and v (each exactly the size of the weights) once; per step an input
// batch (pinned host staging copied to the device) and one activation tensor per layer, kept
// for backward and freed after it; a workspace for backward's scratch once. Each kind comes from
// its own out-of-line function whose name the default category rules recognize.
// On a GPU the loss falls, and the program fails if it does not. On vramtrace's simulated device
// (docs/simulator.md) kernels do nothing: it says so and the allocations are the same.
//   usage: train_mlp [steps] [batch]        (defaults: 200 steps, batch 128)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t rc_ = (call);                                                                  \
        if (rc_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "train_mlp: %s failed: %s\n", #call, cudaGetErrorString(rc_));    \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

// The allocating functions must stay frames of their own in an optimised build: the in-process
// category rules see function names (docs/categories.md, "What the in-process side cannot see").
// noinline keeps the frame; the CHECK after each call keeps it from being a tail call.
#define CALL_SITE __noinline__

enum { N_LAYERS = 3, IN_DIM = 256, HIDDEN_DIM = 512, N_CLASSES = 10, THREADS = 256 };
static const int dims[N_LAYERS + 1] = {IN_DIM, HIDDEN_DIM, HIDDEN_DIM, N_CLASSES};

// Type names appear in mangled function names, which the rules match: none of these contain a
// category keyword.
struct Net {
    float *w[N_LAYERS];      // weights: W (out x in, row-major) then b (out)
    float *g[N_LAYERS];      // gradients, laid out like w
    float *m[N_LAYERS];      // Adam first moment, laid out like w
    float *v[N_LAYERS];      // Adam second moment, laid out like w
    float *act[N_LAYERS];    // layer outputs of the current step (ReLU applied but for the last)
    float *scratch[2];       // workspace: backward's input gradients, ping-pong (batch x max dim)
    float *dlogits, *losses; // workspace: softmax gradient (batch x classes), per-sample loss
};

static size_t n_params(int l)
{
    return (size_t)dims[l + 1] * dims[l] + dims[l + 1];
}

static unsigned blocks_for(size_t n)
{
    return (unsigned)((n + THREADS - 1) / THREADS);
}

// ---- kernels ----------------------------------------------------------------------------------

// Uniform in [-scale, scale) from a hash of (seed, index): a deterministic initialisation.
__global__ void init_uniform(float *p, size_t n, unsigned seed, float scale)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned h = (unsigned)i * 2654435761u ^ seed * 2246822519u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = scale * ((float)(h & 0xffffff) / 8388608.0f - 1.0f);
}

// y[b][o] = sum_i x[b][i] w[o][i] + bias[o], then ReLU if relu.
__global__ void matmul_forward(const float *x, const float *w, float *y, int batch, int in, int out,
                               int relu)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * out)
        return;
    int b = idx / out, o = idx % out;
    const float *wrow = w + (size_t)o * in, *xrow = x + (size_t)b * in;
    float s = w[(size_t)out * in + o];
    for (int i = 0; i < in; i++)
        s += xrow[i] * wrow[i];
    y[idx] = relu && s < 0.0f ? 0.0f : s;
}

// Per sample: the softmax cross-entropy loss and its gradient (softmax - onehot) / batch.
__global__ void softmax_xent(const float *logits, const int *labels, float *dlogits, float *losses,
                             int batch, int classes)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch)
        return;
    const float *z = logits + (size_t)b * classes;
    float mx = z[0], sum = 0.0f;
    for (int c = 1; c < classes; c++)
        mx = fmaxf(mx, z[c]);
    for (int c = 0; c < classes; c++)
        sum += expf(z[c] - mx);
    losses[b] = logf(sum) + mx - z[labels[b]];
    for (int c = 0; c < classes; c++) {
        float p = expf(z[c] - mx) / sum;
        dlogits[(size_t)b * classes + c] = (p - (c == labels[b] ? 1.0f : 0.0f)) / (float)batch;
    }
}

// dW[o][i] = sum_b dy[b][o] x[b][i]; db[o] = sum_b dy[b][o]. One thread per parameter.
__global__ void matmul_backward_params(const float *dy, const float *x, float *dw, int batch,
                                       int in, int out)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= out * in + out)
        return;
    float s = 0.0f;
    if (idx < out * in) {
        int o = idx / in, i = idx % in;
        for (int b = 0; b < batch; b++)
            s += dy[(size_t)b * out + o] * x[(size_t)b * in + i];
    } else {
        int o = idx - out * in;
        for (int b = 0; b < batch; b++)
            s += dy[(size_t)b * out + o];
    }
    dw[idx] = s;
}

// dx[b][i] = sum_o dy[b][o] w[o][i], masked by the ReLU that produced x (x > 0).
__global__ void matmul_backward_input_relu(const float *dy, const float *w, const float *x,
                                           float *dx, int batch, int in, int out)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * in)
        return;
    int b = idx / in, i = idx % in;
    float s = 0.0f;
    for (int o = 0; o < out; o++)
        s += dy[(size_t)b * out + o] * w[(size_t)o * in + i];
    dx[idx] = x[idx] > 0.0f ? s : 0.0f;
}

__global__ void adam_update(float *p, const float *g, float *m, float *v, size_t n, float lr,
                            float beta1, float beta2, float eps, float bc1, float bc2)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    m[i] = beta1 * m[i] + (1.0f - beta1) * g[i];
    v[i] = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
    p[i] -= lr * (m[i] / bc1) / (sqrtf(v[i] / bc2) + eps);
}

// ---- allocation, one function per category ----------------------------------------------------

CALL_SITE static void alloc_weights(Net *net)
{
    for (int l = 0; l < N_LAYERS; l++) {
        CHECK(cudaMalloc((void **)&net->w[l], n_params(l) * sizeof(float)));
        size_t nw = (size_t)dims[l + 1] * dims[l];
        init_uniform<<<blocks_for(nw), THREADS>>>(net->w[l], nw, 17u + (unsigned)l,
                                                  std::sqrt(6.0f / (float)dims[l]));
        CHECK(cudaMemset(net->w[l] + nw, 0, dims[l + 1] * sizeof(float)));
    }
    CHECK(cudaGetLastError());
}

CALL_SITE static void alloc_gradients(Net *net)
{
    for (int l = 0; l < N_LAYERS; l++)
        CHECK(cudaMalloc((void **)&net->g[l], n_params(l) * sizeof(float)));
    CHECK(cudaGetLastError());
}

CALL_SITE static void alloc_adam_state(Net *net)
{
    for (int l = 0; l < N_LAYERS; l++) {
        CHECK(cudaMalloc((void **)&net->m[l], n_params(l) * sizeof(float)));
        CHECK(cudaMalloc((void **)&net->v[l], n_params(l) * sizeof(float)));
        CHECK(cudaMemset(net->m[l], 0, n_params(l) * sizeof(float)));
        CHECK(cudaMemset(net->v[l], 0, n_params(l) * sizeof(float)));
    }
    CHECK(cudaGetLastError());
}

// backward's scratch: two input-gradient buffers of the widest layer, the softmax gradient and
// the per-sample losses, allocated once like a BLAS workspace.
CALL_SITE static void alloc_workspace(Net *net, int batch)
{
    for (int k = 0; k < 2; k++)
        CHECK(cudaMalloc((void **)&net->scratch[k], (size_t)batch * HIDDEN_DIM * sizeof(float)));
    CHECK(cudaMalloc((void **)&net->dlogits, (size_t)batch * N_CLASSES * sizeof(float)));
    CHECK(cudaMalloc((void **)&net->losses, (size_t)batch * sizeof(float)));
    CHECK(cudaGetLastError());
}

// Pinned host memory for the inputs and labels of one step.
CALL_SITE static void alloc_batch_staging(float **x, int **labels, int batch)
{
    CHECK(cudaMallocHost((void **)x, (size_t)batch * IN_DIM * sizeof(float)));
    CHECK(cudaMallocHost((void **)labels, (size_t)batch * sizeof(int)));
    CHECK(cudaGetLastError());
}

// A deterministic xorshift stream, so that every run sees the same data.
static unsigned rng_state = 2463534242u;
static float rng_uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (float)(rng_state & 0xffffff) / 8388608.0f - 1.0f;
}

// One synthetic batch: x uniform in [-1, 1), the label the argmax of teacher . x. Filled in the
// staging buffers, copied to fresh device buffers (the data category).
CALL_SITE static void load_batch(const float *teacher, float *host_x, int *host_labels, int batch,
                                 float **x, int **labels)
{
    for (int b = 0; b < batch; b++) {
        float *row = host_x + (size_t)b * IN_DIM;
        for (int i = 0; i < IN_DIM; i++)
            row[i] = rng_uniform();
        int best = 0;
        float best_score = -INFINITY;
        for (int c = 0; c < N_CLASSES; c++) {
            float s = 0.0f;
            for (int i = 0; i < IN_DIM; i++)
                s += teacher[c * IN_DIM + i] * row[i];
            if (s > best_score) {
                best_score = s;
                best = c;
            }
        }
        host_labels[b] = best;
    }
    CHECK(cudaMalloc((void **)x, (size_t)batch * IN_DIM * sizeof(float)));
    CHECK(cudaMalloc((void **)labels, (size_t)batch * sizeof(int)));
    CHECK(cudaMemcpy(*x, host_x, (size_t)batch * IN_DIM * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(*labels, host_labels, (size_t)batch * sizeof(int), cudaMemcpyHostToDevice));
}

// Forward: one output tensor per layer, kept for backward. Returns the mean loss of the batch.
CALL_SITE static float forward(Net *net, const float *x, const int *labels, int batch,
                               float *host_losses)
{
    const float *in = x;
    for (int l = 0; l < N_LAYERS; l++) {
        size_t n = (size_t)batch * dims[l + 1];
        CHECK(cudaMalloc((void **)&net->act[l], n * sizeof(float)));
        matmul_forward<<<blocks_for(n), THREADS>>>(in, net->w[l], net->act[l], batch, dims[l],
                                                   dims[l + 1], l < N_LAYERS - 1);
        in = net->act[l];
    }
    softmax_xent<<<blocks_for(batch), THREADS>>>(net->act[N_LAYERS - 1], labels, net->dlogits,
                                                 net->losses, batch, N_CLASSES);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host_losses, net->losses, (size_t)batch * sizeof(float),
                     cudaMemcpyDeviceToHost));
    double sum = 0.0;
    for (int b = 0; b < batch; b++)
        sum += host_losses[b];
    return (float)(sum / batch);
}

// Backward: parameter gradients layer by layer, then the activations are released.
CALL_SITE static void backward(Net *net, const float *x, int batch)
{
    const float *dy = net->dlogits;
    for (int l = N_LAYERS - 1; l >= 0; l--) {
        const float *layer_in = l > 0 ? net->act[l - 1] : x;
        size_t np = n_params(l);
        matmul_backward_params<<<blocks_for(np), THREADS>>>(dy, layer_in, net->g[l], batch, dims[l],
                                                            dims[l + 1]);
        if (l > 0) {
            float *dx = net->scratch[l % 2];
            size_t n = (size_t)batch * dims[l];
            matmul_backward_input_relu<<<blocks_for(n), THREADS>>>(dy, net->w[l], layer_in, dx,
                                                                   batch, dims[l], dims[l + 1]);
            dy = dx;
        }
    }
    CHECK(cudaGetLastError());
    for (int l = N_LAYERS - 1; l >= 0; l--)
        CHECK(cudaFree(net->act[l]));
}

static void adam_step(Net *net, int t)
{
    const float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    float bc1 = 1.0f - std::pow(beta1, (float)t), bc2 = 1.0f - std::pow(beta2, (float)t);
    for (int l = 0; l < N_LAYERS; l++) {
        size_t n = n_params(l);
        adam_update<<<blocks_for(n), THREADS>>>(net->w[l], net->g[l], net->m[l], net->v[l], n, lr,
                                                beta1, beta2, eps, bc1, bc2);
    }
    CHECK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? std::atoi(argv[1]) : 200;
    int batch = argc > 2 ? std::atoi(argv[2]) : 128;
    if (steps <= 0 || batch <= 0) {
        std::fprintf(stderr, "usage: train_mlp [steps>0] [batch>0]\n");
        return 2;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    // The simulated driver names its device "vramtrace simulated GPU" (tests/sim/sim_core.c).
    bool simulated = std::strstr(prop.name, "simulated") != nullptr;
    std::printf("train_mlp: %s, %d steps, batch %d, layers %d-%d-%d-%d\n", prop.name, steps, batch,
                dims[0], dims[1], dims[2], dims[3]);
    if (simulated)
        std::printf("simulated device: kernels do nothing, the loss will not fall\n");

    static float teacher[N_CLASSES * IN_DIM];
    for (int i = 0; i < N_CLASSES * IN_DIM; i++)
        teacher[i] = rng_uniform();
    float *host_losses = (float *)std::calloc((size_t)batch, sizeof(float));
    if (!host_losses) {
        std::fprintf(stderr, "train_mlp: out of host memory\n");
        return 1;
    }

    Net net;
    float *host_x;
    int *host_labels;
    alloc_weights(&net);
    alloc_gradients(&net);
    alloc_adam_state(&net);
    alloc_workspace(&net, batch);
    alloc_batch_staging(&host_x, &host_labels, batch);

    float first = 0.0f, last = 0.0f, smooth = 0.0f;
    const int window = steps < 10 ? 1 : 10;
    auto start = std::chrono::steady_clock::now();
    for (int step = 1; step <= steps; step++) {
        float *x;
        int *labels;
        load_batch(teacher, host_x, host_labels, batch, &x, &labels);
        float loss = forward(&net, x, labels, batch, host_losses);
        backward(&net, x, batch);
        adam_step(&net, step);
        CHECK(cudaFree(x));
        CHECK(cudaFree(labels));
        // Means over the first and the last `window` steps, so that one noisy batch decides
        // nothing.
        if (step <= window)
            first += loss / window;
        if (step > steps - window)
            last += loss / window;
        smooth = step == 1 ? loss : 0.9f * smooth + 0.1f * loss;
        if (step == 1 || step % 50 == 0 || step == steps)
            std::printf("step %d: loss %.4f (smoothed %.4f)\n", step, loss, smooth);
    }
    CHECK(cudaDeviceSynchronize());
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("train_mlp: step_ms=%.3f first_loss=%.4f last_loss=%.4f\n", 1e3 * seconds / steps,
                first, last);

    for (int l = 0; l < N_LAYERS; l++) {
        CHECK(cudaFree(net.w[l]));
        CHECK(cudaFree(net.g[l]));
        CHECK(cudaFree(net.m[l]));
        CHECK(cudaFree(net.v[l]));
    }
    for (int k = 0; k < 2; k++)
        CHECK(cudaFree(net.scratch[k]));
    CHECK(cudaFree(net.dlogits));
    CHECK(cudaFree(net.losses));
    CHECK(cudaFreeHost(host_x));
    CHECK(cudaFreeHost(host_labels));
    std::free(host_losses);

    if (simulated || steps < 20) {
        std::printf("train_mlp: the loss is not checked (%s)\n",
                    simulated ? "simulated device" : "fewer than 20 steps");
        return 0;
    }
    // On a GPU ten steps of Adam at 1e-3 already lower the loss of this task; a loss that does
    // not fall means the kernels did not run or are wrong.
    if (!(last < 0.9f * first) || !std::isfinite(last)) {
        std::printf("train_mlp: FAIL: the loss did not fall (%.4f -> %.4f)\n", first, last);
        return 1;
    }
    std::printf("train_mlp: the loss fell from %.4f to %.4f\n", first, last);
    return 0;
}

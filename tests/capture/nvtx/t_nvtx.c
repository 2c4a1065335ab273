/* SPDX-License-Identifier: MIT */
/* A CUDA program annotated with header-only NVTX v3, as PyTorch and most C++ codes are: it
 * allocates device memory through the simulated driver inside NVTX ranges, and a shared library
 * with its own copy of NVTX (libnvtx_second.so) does the same. Every allocation has its own size,
 * so run_nvtx.sh can tell from the per-category exit report which category each one got. stdout
 * is the transcript of what NVTX returned (it differs only between "a tool tracks pushes" and
 * "no tool"); lines "t_nvtx: ..." on stderr say what this process sees of the injection.
 *   usage: t_nvtx phases|rules */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <nvtx3/nvToolsExt.h>
#include "sim_test.h"

#define NOINLINE __attribute__((noinline))
#define KiB      1024u
#define MiB      (1024u * KiB)

void second_range_alloc(const char *range, size_t bytes, CUdeviceptr *dptr, int *pushed,
                        int *popped); /* libnvtx_second.so */

static CUdeviceptr live[64];
static int n_live;

/* Every allocation goes through here; its name matches no default rule. */
NOINLINE static void device_bytes(size_t bytes)
{
    if (cuMemAlloc_v2(&live[n_live], bytes) == CUDA_SUCCESS)
        n_live++;
    else
        fprintf(stderr, "t_nvtx: cuMemAlloc_v2 of %zu bytes failed\n", bytes);
}

/* "func:*batch*" makes this data under the default rules, unless a range says otherwise. */
NOINLINE static void load_batch(size_t bytes)
{
    device_bytes(bytes);
}

/* Matches no default rule: unknown, or what the phase rules say. */
NOINLINE static void plain(size_t bytes)
{
    device_bytes(bytes);
}

static nvtxEventAttributes_t ascii_attr(const char *message)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

static void *end_range(void *arg)
{
    nvtxRangeEnd(*(nvtxRangeId_t *)arg);
    return NULL;
}

/* How many loaded objects are libvramtrace.so: NVTX's dlopen of NVTX_INJECTION64_PATH must
 * return the preloaded one, not load a second copy (which would need new TLS). */
static int count_vramtrace(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *slash = strrchr(info->dlpi_name, '/');
    if (strcmp(slash ? slash + 1 : info->dlpi_name, "libvramtrace.so") == 0)
        (*(int *)data)++;
    return 0;
}

/* What this process sees of the injection, on stderr (the paths depend on the build). */
static void report_injection(void)
{
    const char *env = getenv("NVTX_INJECTION64_PATH");
    void *entry = dlsym(RTLD_DEFAULT, "InitializeInjectionNvtx2");
    Dl_info info;
    const char *self = entry && dladdr(entry, &info) ? info.dli_fname : NULL;
    if (!env)
        fprintf(stderr, "t_nvtx: NVTX_INJECTION64_PATH unset\n");
    else if (self && strcmp(env, self) == 0)
        fprintf(stderr, "t_nvtx: NVTX_INJECTION64_PATH is the preloaded libvramtrace.so\n");
    else
        fprintf(stderr, "t_nvtx: NVTX_INJECTION64_PATH is %s\n",
                strrchr(env, '/') ? strrchr(env, '/') + 1 : env);
    int n = 0;
    dl_iterate_phdr(count_vramtrace, &n);
    fprintf(stderr, "t_nvtx: libvramtrace.so objects loaded: %d\n", n);
    if (env && self && strcmp(env, self) == 0) {
        void *h = dlopen(env, RTLD_LAZY | RTLD_NOLOAD);
        fprintf(stderr, "t_nvtx: dlopen(NVTX_INJECTION64_PATH) is the preloaded object: %s\n",
                h && dlsym(h, "InitializeInjectionNvtx2") == entry ? "yes" : "no");
        if (h)
            dlclose(h);
    }
}

static void phases(void)
{
    load_batch(1 * MiB); /* data: no range */

    printf("push vramtrace:weights -> %d\n", nvtxRangePushA("vramtrace:weights"));
    load_batch(2 * MiB); /* weights: the range beats the function name */
    printf("push inner -> %d\n", nvtxRangePushA("inner"));
    load_batch(4 * MiB); /* weights: inherited by the nested range */
    printf("pop -> %d\n", nvtxRangePop());
    printf("pop -> %d\n", nvtxRangePop());
    load_batch(512 * KiB); /* data again: the pops restored the rules */

    printf("push vramtrace:optimizer -> %d\n", nvtxRangePushA("vramtrace:optimizer"));
    printf("push vramtrace:gradients -> %d\n", nvtxRangePushA("vramtrace:gradients"));
    load_batch(256 * KiB); /* gradients: the innermost wins */
    printf("pop -> %d\n", nvtxRangePop());
    load_batch(128 * KiB); /* optimizer */
    printf("pop -> %d\n", nvtxRangePop());
    printf("pop with none open -> %d\n", nvtxRangePop());

    nvtxEventAttributes_t a = ascii_attr("vramtrace:activations");
    printf("pushEx ascii -> %d\n", nvtxRangePushEx(&a));
    load_batch(64 * KiB); /* activations */
    printf("pop -> %d\n", nvtxRangePop());

    printf("pushW -> %d\n", nvtxRangePushW(L"vramtrace:workspace"));
    load_batch(32 * KiB); /* workspace: converted from wchar_t */
    printf("pop -> %d\n", nvtxRangePop());

    a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    a.message.unicode = L"vramtrace:weights";
    printf("pushEx unicode -> %d\n", nvtxRangePushEx(&a));
    load_batch(16 * KiB); /* weights */
    printf("pop -> %d\n", nvtxRangePop());

    nvtxStringHandle_t s = nvtxDomainRegisterStringA(NULL, "vramtrace:workspace");
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = s;
    printf("pushEx registered -> %d\n", nvtxRangePushEx(&a));
    load_batch(8 * KiB); /* workspace: a registered string */
    printf("pop -> %d\n", nvtxRangePop());

    /* A domain's depth is its own; its ranges join the same phase path. */
    nvtxDomainHandle_t d = nvtxDomainCreateA("vt.test");
    printf("push outer -> %d\n", nvtxRangePushA("outer"));
    a = ascii_attr("vramtrace:optimizer");
    printf("domain pushEx -> %d\n", nvtxDomainRangePushEx(d, &a));
    load_batch(4 * KiB); /* optimizer */
    printf("domain pop -> %d\n", nvtxDomainRangePop(d));
    printf("domain pop with none open -> %d\n", nvtxDomainRangePop(d));
    printf("pop -> %d\n", nvtxRangePop());
    nvtxDomainDestroy(d);

    /* Start/end ranges are process-wide, not nested: recorded, but no phase. */
    nvtxRangeId_t id = nvtxRangeStartA("vramtrace:weights");
    printf("start -> %s\n", id ? "an id" : "0");
    load_batch(2 * KiB); /* data: a start/end range does not force a category */
    pthread_t t;
    pthread_create(&t, NULL, end_range, &id); /* ended on another thread */
    pthread_join(t, NULL);

    nvtxMarkA("checkpoint");

    /* The second library's own NVTX copy reaches the same handlers and the same thread state. */
    printf("push outer -> %d\n", nvtxRangePushA("outer"));
    int pushed = 0, popped = 0;
    second_range_alloc("vramtrace:gradients", 1 * KiB, &live[n_live++], &pushed, &popped);
    printf("second library push -> %d, pop -> %d\n", pushed, popped);
    printf("pop -> %d\n", nvtxRangePop());
}

static void rules(void)
{
    plain(1 * MiB); /* unknown: no phase */
    printf("push train -> %d\n", nvtxRangePushA("train"));
    plain(2 * MiB); /* data: "data phase:train" */
    printf("push forward -> %d\n", nvtxRangePushA("forward"));
    plain(4 * MiB); /* activations: train/forward */
    printf("push layer1 -> %d\n", nvtxRangePushA("layer1"));
    plain(512 * KiB); /* activations: train/forward/layer1 matches train/forward* */
    printf("pop -> %d\n", nvtxRangePop());
    printf("pop -> %d\n", nvtxRangePop());
    printf("pushW backward -> %d\n", nvtxRangePushW(L"backward"));
    plain(256 * KiB); /* gradients: train/backward */
    printf("pop -> %d\n", nvtxRangePop());
    printf("pop -> %d\n", nvtxRangePop());
    plain(128 * KiB); /* unknown again */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "phases";
    if (sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr, "t_nvtx: no context\n");
        return 1;
    }
    if (strcmp(mode, "phases") == 0) {
        phases();
    } else if (strcmp(mode, "rules") == 0) {
        rules();
    } else {
        fprintf(stderr, "usage: t_nvtx phases|rules\n");
        return 2;
    }
    report_injection();
    while (n_live > 0)
        cuMemFree_v2(live[--n_live]);
    return 0;
}

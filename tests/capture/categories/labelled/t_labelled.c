/* SPDX-License-Identifier: MIT */
/* A labelled set of native call-sites for the built-in category rules: functions named in many
 * styles (snake_case, CamelCase, C++ namespaces and classes as a C++ compiler spells them,
 * anonymous namespaces, lambdas, templates, static functions found only in .symtab), each
 * allocating its own size, plus names that hold a category's letters but not its words
 * (upgrade, payload: unknown is right) and nested calls where the innermost name decides. It
 * prints "label SIZE CATEGORY NAME" for every allocation; run_labelled.sh compares each with
 * the category the trace recorded. One call-site per line below: adding a case is one line.
 *   usage: t_labelled */
#include <stdio.h>
#include "sim_test.h"

#define NOINLINE __attribute__((noinline, used))
#define KiB      1024u

static CUdeviceptr live[128];
static int n_live;
static unsigned n_sites;

/* Every allocation goes through here, so each named function is a frame; "device bytes" is no
 * rule's word. Each call-site gets its own size, 256 KiB and a few more, so a size names it. */
NOINLINE static void device_bytes(const char *label, const char *name)
{
    size_t bytes = 256 * KiB + ++n_sites * 4 * KiB;
    if (cuMemAlloc_v2(&live[n_live], bytes) == CUDA_SUCCESS)
        n_live++;
    else
        fprintf(stderr, "t_labelled: cuMemAlloc_v2 failed\n");
    printf("label %zu %s %s\n", bytes, label, name);
}

#define SITE(storage, name, label)                                                                 \
    NOINLINE storage void name(void);                                                              \
    NOINLINE storage void name(void)                                                               \
    {                                                                                              \
        device_bytes(label, #name);                                                                \
    }

SITE(, load_weights, "weights")
SITE(, LoadWeights, "weights")
SITE(, initParams, "weights")
SITE(, init_parameters, "weights")
SITE(, read_checkpoint, "weights")
SITE(static, restore_ckpt, "weights")
SITE(, model_load_state_dict, "weights")
SITE(, _ZN7weights4loadEv, "weights")                     /* weights::load() */
SITE(static, _ZL12load_weightsv, "weights")               /* a C++ static load_weights() */
SITE(, _ZN5model7Weights4LoadEv, "weights")               /* model::Weights::Load() */
SITE(, _ZN3net6Linear12init_weightsEv, "weights")         /* net::Linear::init_weights() */
SITE(, _ZN5torch2nn6Module15load_state_dictEv, "weights") /* torch::nn::Module::load_state_dict() */
SITE(, compute_grads, "gradients")
SITE(, ComputeGradients, "gradients")
SITE(, backward_pass, "gradients")
SITE(, weight_grad, "gradients")
SITE(static, zero_grad, "gradients")
SITE(, grad_input_buffer, "gradients")
SITE(, conv_backward_data, "gradients")
SITE(, _ZN2nn6Linear8backwardEv, "gradients") /* nn::Linear::backward() */
SITE(, _ZN5torch8autograd14AccumulateGrad5applyEv,
     "gradients")                              /* torch::autograd::AccumulateGrad::apply() */
SITE(, _ZZ8backwardvENKUlvE_clEv, "gradients") /* a lambda in backward() */
SITE(, adam_step, "optimizer")
SITE(, AdamWUpdate, "optimizer")
SITE(, sgd_momentum_buffer, "optimizer")
SITE(, init_optimizer_state, "optimizer")
SITE(static, RmsPropCache, "optimizer")
SITE(, _ZN5optim4Adam4stepEv, "optimizer") /* optim::Adam::step() */
SITE(, _ZN5optim3SGD4stepEv, "optimizer")  /* optim::SGD::step() */
SITE(, _ZN12_GLOBAL__N_112adam_momentsEv,
     "optimizer") /* adam_moments() in an anonymous namespace */
SITE(, load_batch, "data")
SITE(, LoadBatch, "data")
SITE(, prefetch_inputs, "data")
SITE(, copy_input_to_device, "data")
SITE(static, collate_samples, "data")
SITE(, dataset_read, "data")
SITE(, pin_memory_buffer, "data")
SITE(, _ZN4data6Loader10next_batchEv, "data")       /* data::Loader::next_batch() */
SITE(, _ZN12_GLOBAL__N_114prefetch_batchEv, "data") /* prefetch_batch() in an anonymous namespace */
SITE(, forward_layer, "activations")
SITE(, LayerForward, "activations")
SITE(, attention_forward, "activations")
SITE(, alloc_activations, "activations")
SITE(static, mlp_fwd, "activations")
SITE(, compute_logits, "activations")
SITE(, _ZN2nn6Linear7forwardERKNS_6TensorE,
     "activations")                                /* nn::Linear::forward(nn::Tensor const&) */
SITE(, _ZN3net5Block7forwardIfEEvv, "activations") /* void net::Block::forward<float>() */
SITE(, cublas_like_workspace, "workspace")
SITE(, GetWorkspace, "workspace")
SITE(static, scratch_buffer, "workspace")
SITE(, _ZN4gemm9Workspace8allocateEv, "workspace") /* gemm::Workspace::allocate() */
SITE(, upgrade_table, "unknown")
SITE(, optimize_graph, "unknown")
SITE(, payload_buffer, "unknown")
SITE(, parametric_curve, "unknown")
SITE(, downloaded_cache, "unknown")
SITE(static, reload_cache, "unknown")
SITE(, gradual_warmup, "unknown")
SITE(, _Z5trainR9Optimizer,
     "unknown") /* train(Optimizer&): a parameter's type is not the function's name */

/* The innermost named frame decides: the outer function's words would say otherwise. */
#define NESTED(outer, inner, label)                                                                \
    NOINLINE void inner(void);                                                                     \
    NOINLINE void inner(void)                                                                      \
    {                                                                                              \
        device_bytes(label, #outer "/" #inner);                                                    \
    }                                                                                              \
    NOINLINE void outer(void);                                                                     \
    NOINLINE void outer(void)                                                                      \
    {                                                                                              \
        inner();                                                                                   \
    }
NESTED(optimizer_loop, next_batch, "data")
NESTED(weights_update_loop, compute_gradients, "gradients")
NESTED(backward_driver, adam_update, "optimizer")
NESTED(load_everything, forward_activations, "activations")

int main(void)
{
    if (sim_test_context(0) != CUDA_SUCCESS) {
        fprintf(stderr, "t_labelled: no context\n");
        return 1;
    }
    load_weights();
    LoadWeights();
    initParams();
    init_parameters();
    read_checkpoint();
    restore_ckpt();
    model_load_state_dict();
    _ZN7weights4loadEv();
    _ZL12load_weightsv();
    _ZN5model7Weights4LoadEv();
    _ZN3net6Linear12init_weightsEv();
    _ZN5torch2nn6Module15load_state_dictEv();
    compute_grads();
    ComputeGradients();
    backward_pass();
    weight_grad();
    zero_grad();
    grad_input_buffer();
    conv_backward_data();
    _ZN2nn6Linear8backwardEv();
    _ZN5torch8autograd14AccumulateGrad5applyEv();
    _ZZ8backwardvENKUlvE_clEv();
    adam_step();
    AdamWUpdate();
    sgd_momentum_buffer();
    init_optimizer_state();
    RmsPropCache();
    _ZN5optim4Adam4stepEv();
    _ZN5optim3SGD4stepEv();
    _ZN12_GLOBAL__N_112adam_momentsEv();
    load_batch();
    LoadBatch();
    prefetch_inputs();
    copy_input_to_device();
    collate_samples();
    dataset_read();
    pin_memory_buffer();
    _ZN4data6Loader10next_batchEv();
    _ZN12_GLOBAL__N_114prefetch_batchEv();
    forward_layer();
    LayerForward();
    attention_forward();
    alloc_activations();
    mlp_fwd();
    compute_logits();
    _ZN2nn6Linear7forwardERKNS_6TensorE();
    _ZN3net5Block7forwardIfEEvv();
    cublas_like_workspace();
    GetWorkspace();
    scratch_buffer();
    _ZN4gemm9Workspace8allocateEv();
    upgrade_table();
    optimize_graph();
    payload_buffer();
    parametric_curve();
    downloaded_cache();
    reload_cache();
    gradual_warmup();
    _Z5trainR9Optimizer();
    optimizer_loop();
    weights_update_loop();
    backward_driver();
    load_everything();
    while (n_live > 0)
        cuMemFree_v2(live[--n_live]);
    return 0;
}

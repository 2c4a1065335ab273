/* SPDX-License-Identifier: MIT */
/* The part of the NVTX v3 tool-injection ABI that src/nvtx.c uses, declared here so the capture
 * library builds without the CUDA toolkit (as vt_cuda.h does for CUDA). Names and values are
 * NVIDIA's (nvtx3/nvToolsExt.h, nvtx3/nvtxDetail/nvtxTypes.h); tests/capture/nvtx/test_nvtx_abi.c
 * compares every constant, size and offset with the toolkit's headers when they are present.
 * The NVTX ABI is frozen: new ids are only ever appended ("New constants must only be added
 * directly above this line"), so these values hold for every NVTX 3 release. */
#ifndef VT_NVTX_H
#define VT_NVTX_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* ---- nvToolsExt.h --------------------------------------------------------------------------- */
typedef uint64_t nvtxRangeId_t;

/* Opaque to the program; the tool decides what they point to (src/nvtx.c defines both). */
struct nvtxDomainRegistration_st;
typedef struct nvtxDomainRegistration_st nvtxDomainRegistration;
typedef nvtxDomainRegistration *nvtxDomainHandle_t;
struct nvtxStringRegistration_st;
typedef struct nvtxStringRegistration_st nvtxStringRegistration;
typedef nvtxStringRegistration *nvtxStringHandle_t;

typedef enum nvtxMessageType_t {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2, /* wchar_t: UTF-32 on Linux */
    NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;

typedef union nvtxMessageValue_t {
    const char *ascii;
    const wchar_t *unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;

typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size; /* sizeof(nvtxEventAttributes_t) as the program was compiled */
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union payload_t {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType; /* nvtxMessageType_t */
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;

/* What nvtxRangePush/Pop return when no tool tracks them. */
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

/* ---- nvtxTypes.h: callback subscription ------------------------------------------------------ */
typedef void (*NvtxFunctionPointer)(void);       /* cast to the slot's real type */
typedef NvtxFunctionPointer **NvtxFunctionTable; /* array of pointers to the slots */
typedef const void *(*NvtxGetExportTableFunc_t)(uint32_t exportTableId);
typedef int (*NvtxInitializeInjectionNvtxFunc_t)(NvtxGetExportTableFunc_t exportTable);

typedef enum NvtxCallbackModule {
    NVTX_CB_MODULE_INVALID = 0,
    NVTX_CB_MODULE_CORE = 1,
    NVTX_CB_MODULE_CUDA = 2,
    NVTX_CB_MODULE_OPENCL = 3,
    NVTX_CB_MODULE_CUDART = 4,
    NVTX_CB_MODULE_CORE2 = 5,
    NVTX_CB_MODULE_SYNC = 6,
    NVTX_CB_MODULE_FORCE_INT = 0x7fffffff
} NvtxCallbackModule;

typedef enum NvtxCallbackIdCore {
    NVTX_CBID_CORE_INVALID = 0,
    NVTX_CBID_CORE_MarkEx = 1,
    NVTX_CBID_CORE_MarkA = 2,
    NVTX_CBID_CORE_MarkW = 3,
    NVTX_CBID_CORE_RangeStartEx = 4,
    NVTX_CBID_CORE_RangeStartA = 5,
    NVTX_CBID_CORE_RangeStartW = 6,
    NVTX_CBID_CORE_RangeEnd = 7,
    NVTX_CBID_CORE_RangePushEx = 8,
    NVTX_CBID_CORE_RangePushA = 9,
    NVTX_CBID_CORE_RangePushW = 10,
    NVTX_CBID_CORE_RangePop = 11,
    NVTX_CBID_CORE_FORCE_INT = 0x7fffffff
} NvtxCallbackIdCore;

typedef enum NvtxCallbackIdCore2 {
    NVTX_CBID_CORE2_INVALID = 0,
    NVTX_CBID_CORE2_DomainMarkEx = 1,
    NVTX_CBID_CORE2_DomainRangeStartEx = 2,
    NVTX_CBID_CORE2_DomainRangeEnd = 3,
    NVTX_CBID_CORE2_DomainRangePushEx = 4,
    NVTX_CBID_CORE2_DomainRangePop = 5,
    NVTX_CBID_CORE2_DomainRegisterStringA = 10,
    NVTX_CBID_CORE2_DomainRegisterStringW = 11,
    NVTX_CBID_CORE2_DomainCreateA = 12,
    NVTX_CBID_CORE2_DomainCreateW = 13,
    NVTX_CBID_CORE2_DomainDestroy = 14,
    NVTX_CBID_CORE2_FORCE_INT = 0x7fffffff
} NvtxCallbackIdCore2;

typedef enum NvtxExportTableID {
    NVTX_ETID_INVALID = 0,
    NVTX_ETID_CALLBACKS = 1,
    NVTX_ETID_FORCE_INT = 0x7fffffff
} NvtxExportTableID;

typedef struct NvtxExportTableCallbacks {
    size_t struct_size;
    /* *out_table: the module's slots; *out_size: how many ids it has (ids < *out_size). */
    int (*GetModuleFunctionTable)(NvtxCallbackModule callback_module, NvtxFunctionTable *out_table,
                                  unsigned int *out_size);
} NvtxExportTableCallbacks;

/* The tool's entry point, looked up by NVTX with dlsym in NVTX_INJECTION64_PATH's library. */
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

#endif

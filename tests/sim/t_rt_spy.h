/* SPDX-License-Identifier: MIT */
/* The log that t_rt_spy_preload.c (LD_PRELOAD'ed) keeps of every dlopen, every dlsym and every
 * cuGetProcAddress query in the process, read by t_rt_driver_path.c through
 * dlsym(RTLD_DEFAULT, "t_rt_spy_log"). Plain C types only: the spy includes no CUDA header. */
#ifndef T_RT_SPY_H
#define T_RT_SPY_H

#define T_RT_SPY_MAX_EVENTS 4096

typedef enum t_rt_spy_kind_e {
    T_RT_SPY_DLOPEN, /* name: the file; flags: the mode */
    T_RT_SPY_DLSYM,  /* name: the symbol; into_libcuda: the handle is libcuda.so.1's */
    T_RT_SPY_QUERY   /* a cuGetProcAddress[_v2] call: name, version, flags, via */
} t_rt_spy_kind_t;

/* Which cuGetProcAddress pointer a query came through. */
typedef enum t_rt_spy_via_e {
    T_RT_SPY_VIA_DLSYM,      /* the cuGetProcAddress_v2 that dlsym returned */
    T_RT_SPY_VIA_FETCHED_V2, /* the one fetched as ("cuGetProcAddress", >= 12000) */
    T_RT_SPY_VIA_FETCHED_V1  /* the 4-argument one fetched as ("cuGetProcAddress", 11030) */
} t_rt_spy_via_t;

typedef struct t_rt_spy_event_s {
    t_rt_spy_kind_t kind;
    char name[64];
    int version;
    unsigned long long flags;
    int into_libcuda;
    int from_runtime; /* the caller's return address is in a libcudart.so* */
    t_rt_spy_via_t via;
} t_rt_spy_event_t;

typedef struct t_rt_spy_log_s {
    int n_events; /* events past T_RT_SPY_MAX_EVENTS are counted, not kept */
    t_rt_spy_event_t events[T_RT_SPY_MAX_EVENTS];
    void *dlsym_v2;   /* the driver's cuGetProcAddress_v2 as dlsym returned it */
    void *fetched_v2; /* ... and as ("cuGetProcAddress", 12000) returned it */
} t_rt_spy_log_t;

typedef const t_rt_spy_log_t *(*t_rt_spy_log_fn)(void);
#endif

/* A stand-in for CUPTI's header, for the census's tests on machines without CUDA (test_probe_parts.py CensusTest):
 * only what gpu_sanitize_census.c uses, with CUPTI's names. The library behind it is ../src/fake_cupti.c. */
#ifndef FAKE_CUPTI_H
#define FAKE_CUPTI_H
#include "cuda.h"
typedef int CUpti_CallbackDomain;
typedef int CUpti_CallbackId;
typedef void *CUpti_SubscriberHandle;
typedef int CUptiResult;
typedef void (*CUpti_CallbackFunc)(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *);
typedef struct {
    int callbackSite;
    const char *symbolName;
} CUpti_CallbackData;
#define CUPTIAPI
enum { CUPTI_SUCCESS = 0, CUPTI_API_ENTER = 0, CUPTI_API_EXIT = 1 };
enum { CUPTI_CB_DOMAIN_DRIVER_API = 1, CUPTI_CB_DOMAIN_RUNTIME_API = 2 };
enum {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel = 307,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx = 652,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel = 442,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch = 514,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 = 211,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 = 430,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000 = 269
};
CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata);
CUptiResult cuptiEnableCallback(unsigned enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid);
#endif

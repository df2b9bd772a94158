/* A stand-in libcupti for the census's tests (test_probe_parts.py CensusTest): it keeps the subscriber's callback and
 * what was enabled, and fake_launch(domain, cbid, name) calls the callback as CUPTI would at a launch's API entry
 * (and exit, which the census must ignore). Built by the test with the machine's cc. */
#include <stddef.h>
#include "cupti.h"

static CUpti_CallbackFunc subscriber;
static int enabled[1024];

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *handle, CUpti_CallbackFunc callback, void *userdata) {
    (void)userdata;
    subscriber = callback;
    *handle = (CUpti_SubscriberHandle)&subscriber;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(unsigned enable, CUpti_SubscriberHandle handle, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid) {
    (void)handle;
    if (cbid >= 0 && cbid < 1024) enabled[cbid] = (int)enable * domain;
    return CUPTI_SUCCESS;
}

/* 1 when the callback was called (the cbid enabled for that domain), 0 otherwise */
int fake_launch(int domain, int cbid, const char *name) {
    if (subscriber == NULL || cbid < 0 || cbid >= 1024 || enabled[cbid] != domain) return 0;
    CUpti_CallbackData enter = {CUPTI_API_ENTER, name};
    CUpti_CallbackData leave = {CUPTI_API_EXIT, name};
    subscriber(NULL, domain, cbid, &enter);
    subscriber(NULL, domain, cbid, &leave);
    return 1;
}

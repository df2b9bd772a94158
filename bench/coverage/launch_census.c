/*
 * The kernel census of a plain run (issue #49): which distinct kernels a job launches, how often, and when each
 * first appears, counted by a CUPTI callback on the launch APIs. Loaded by the CUDA driver through
 * CUDA_INJECTION64_PATH (it calls InitializeInjection at cuInit), no change to the job. At the process's exit it
 * writes GPU_SANITIZE_CENSUS_DIR/census-PID.jsonl: one line per (API domain, kernel) with the launch count and the
 * global index of its first launch, and a last line with the totals. A CUDA graph launch is counted as one
 * launch of "(graph)": the kernels inside a graph are not seen one by one here.
 *
 * Build (bench/coverage/measure.sh does it on the GPU machine):
 *   gcc -shared -fPIC -O2 -I$CUDA_INC -I$CUPTI_INC launch_census.c -o launch_census.so \
 *       -L$CUPTI_LIB -Wl,-rpath,$CUPTI_LIB -lcupti -lpthread
 * Why C and CUPTI's callback API, not the PyTorch profiler: the profiler records every kernel's activity (a
 * training run's millions of records) and sees only what runs while it is on; a callback that bumps a counter
 * costs about a microsecond a launch and sees the whole run, Triton, CuPy and NVRTC kernels included.
 */
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS (1 << 16) /* distinct (domain, kernel) pairs; a job that launches more is said in the totals */

typedef struct {
    char *name;
    int domain;
    uint64_t launches;
    uint64_t first;
} Slot;

static Slot slots[SLOTS];
static uint64_t sequence;  /* launches seen, in order, all domains */
static uint64_t overflow;  /* launches of kernels that found no free slot */
static uint64_t distinct;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t owner;

static uint64_t hash(const char *s, int domain) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)domain;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    return h;
}

static void count(const char *name, int domain) {
    if (name == NULL) {
        name = "(unnamed)";
    }
    pthread_mutex_lock(&lock);
    uint64_t index = sequence++;
    uint64_t h = hash(name, domain);
    for (uint64_t probe = 0; probe < SLOTS; probe++) {
        Slot *s = &slots[(h + probe) & (SLOTS - 1)];
        if (s->name == NULL) {
            s->name = strdup(name);
            s->domain = domain;
            s->launches = 1;
            s->first = index;
            distinct++;
            pthread_mutex_unlock(&lock);
            return;
        }
        if (s->domain == domain && strcmp(s->name, name) == 0) {
            s->launches++;
            pthread_mutex_unlock(&lock);
            return;
        }
    }
    overflow++;
    pthread_mutex_unlock(&lock);
}

static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
    (void)userdata;
    const CUpti_CallbackData *info = (const CUpti_CallbackData *)data;
    if (info->callbackSite != CUPTI_API_ENTER) {
        return;
    }
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch) {
        count("(graph)", domain);
        return;
    }
    count(info->symbolName, domain);
}

/* JSON string body: quotes, backslashes and control characters escaped (a kernel name is C++, never hostile, but
 * the reader is strict). */
static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static void dump(void) {
    if (getpid() != owner) {
        return; /* a forked child that never used CUDA: its copy of the parent's counts is not its own */
    }
    const char *dir = getenv("GPU_SANITIZE_CENSUS_DIR");
    if (dir == NULL || *dir == '\0') {
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/census-%d.jsonl", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return;
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].name != NULL) {
            fprintf(f, "{\"type\":\"kernel\",\"domain\":\"%s\",\"name\":",
                    slots[i].domain == CUPTI_CB_DOMAIN_DRIVER_API ? "driver" : "runtime");
            json_string(f, slots[i].name);
            fprintf(f, ",\"launches\":%llu,\"first\":%llu}\n", (unsigned long long)slots[i].launches,
                    (unsigned long long)slots[i].first);
        }
    }
    fprintf(f, "{\"type\":\"total\",\"pid\":%d,\"launches\":%llu,\"distinct\":%llu,\"overflow\":%llu}\n",
            (int)getpid(), (unsigned long long)sequence, (unsigned long long)distinct,
            (unsigned long long)overflow);
    pthread_mutex_unlock(&lock);
    fclose(f);
}

static int enable(CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return cuptiEnableCallback(1, sub, domain, cbid) == CUPTI_SUCCESS;
}

int InitializeInjection(void) {
    CUpti_SubscriberHandle sub;
    owner = getpid();
    if (cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_api, NULL) != CUPTI_SUCCESS) {
        fprintf(stderr, "launch_census: cuptiSubscribe failed (another CUPTI subscriber?)\n");
        return 0;
    }
    /* both domains: which one a runtime launch reaches depends on the CUDA version; the reader keeps the domain that
     * saw more launches and says so */
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel);
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
    enable(sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    enable(sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060);
    enable(sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000);
    atexit(dump);
    return 1;
}

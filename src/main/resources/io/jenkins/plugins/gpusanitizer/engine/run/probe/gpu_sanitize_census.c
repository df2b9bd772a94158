/*
 * GPU Sanitizer's kernel census (issue #49): which distinct kernels a plain run launches, in what order and how often,
 * so that the report can say which of them the sanitizer run checked. A CUPTI callback on the launch APIs, loaded by
 * the CUDA driver through CUDA_INJECTION64_PATH (InitializeInjection at cuInit); the probe builds it in the job's own
 * environment (gpu_sanitize_census.py) for the blocking run only. No change to the job.
 *
 * Writes GPU_SANITIZE_CENSUS_DIR/census-PID.jsonl, one JSON object a line, each with one write(2):
 *   {"type":"first","domain":D,"name":N,"index":I}   the moment kernel N is first launched: I launches of domain D came
 *                                                     before it in this process (so a run cut or killed keeps these)
 *   {"type":"kernel","domain":D,"name":N,"launches":L,"first":I}   at the process's exit, one per (domain, kernel)
 *   {"type":"total","pid":P,"launches":{"driver":L,"runtime":L},"distinct":K,"overflow":O}   at exit, last
 * and answers gpu_sanitize_census_distinct() while the process runs (the probe's step-by-step count, issue #49).
 * D is "driver" or "runtime": a runtime launch reaches the driver's callback too on CUDA 12 and 13, so the reader keeps
 * the domain that saw more (cuBLASLt and Triton launch through the driver only). A CUDA graph launch is one launch of
 * "(graph)": the kernels inside a graph are not seen one by one.
 *
 * Why C and CUPTI's callback API, not the PyTorch profiler: the profiler records every kernel's activity (a training
 * run's millions of records) and sees only while it is on; a callback that bumps a counter costs about a microsecond a
 * launch (word_language_model's LSTM: 15.0 s plain, 14.9 s with it, H100) and sees the whole run, Triton, CuPy and
 * NVRTC kernels included.
 */
#include <cupti.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS (1 << 16) /* distinct (domain, kernel) pairs; a job that launches more is said in the totals */
#define LINE 8192

typedef struct {
    char *name;
    int domain;
    uint64_t launches;
    uint64_t first;
} Slot;

static Slot slots[SLOTS];
static uint64_t sequence[2]; /* launches seen, in order, per domain: 0 driver, 1 runtime */
static uint64_t overflow;
static uint64_t distinct;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t owner;
static int out = -1;
static int subscribed;

static int slot_domain(CUpti_CallbackDomain domain) { return domain == CUPTI_CB_DOMAIN_DRIVER_API ? 0 : 1; }
static const char *domain_name(int d) { return d == 0 ? "driver" : "runtime"; }

static uint64_t hash(const char *s, int domain) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)domain;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    return h;
}

/* JSON string body into buf at *at: quotes, backslashes and control characters escaped; a name too long for the line
 * is cut (the reader takes a cut name as a prefix). */
static void json_string(char *buf, size_t size, size_t *at, const char *s) {
    size_t n = *at;
    if (n + 1 < size) buf[n++] = '"';
    for (; *s && n + 8 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(buf + n, size - n, "\\u%04x", c);
        } else {
            buf[n++] = (char)c;
        }
    }
    if (n + 1 < size) buf[n++] = '"';
    *at = n;
}

static void emit(const char *buf, size_t n) {
    if (out >= 0 && getpid() == owner) {
        ssize_t ignored = write(out, buf, n);
        (void)ignored;
    }
}

static void first_seen(const char *name, int domain, uint64_t index) {
    char buf[LINE];
    size_t n = (size_t)snprintf(buf, sizeof buf, "{\"type\":\"first\",\"domain\":\"%s\",\"name\":", domain_name(domain));
    json_string(buf, sizeof buf - 40, &n, name);
    n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"index\":%llu}\n", (unsigned long long)index);
    emit(buf, n);
}

static void count(const char *name, CUpti_CallbackDomain cupti_domain) {
    int domain = slot_domain(cupti_domain);
    if (name == NULL) {
        name = "(unnamed)";
    }
    pthread_mutex_lock(&lock);
    uint64_t index = sequence[domain]++;
    uint64_t h = hash(name, domain);
    for (uint64_t probe = 0; probe < SLOTS; probe++) {
        Slot *s = &slots[(h + probe) & (SLOTS - 1)];
        if (s->name == NULL) {
            s->name = strdup(name);
            s->domain = domain;
            s->launches = 1;
            s->first = index;
            __atomic_add_fetch(&distinct, 1, __ATOMIC_RELAXED); /* read without the lock, below */
            first_seen(name, domain, index);
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

static void dump(void) {
    if (getpid() != owner || out < 0) {
        return; /* a forked child: its copy of the parent's counts is not its own */
    }
    char buf[LINE];
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS; i++) {
        if (slots[i].name != NULL) {
            size_t n = (size_t)snprintf(buf, sizeof buf, "{\"type\":\"kernel\",\"domain\":\"%s\",\"name\":",
                                        domain_name(slots[i].domain));
            json_string(buf, sizeof buf - 60, &n, slots[i].name);
            n += (size_t)snprintf(buf + n, sizeof buf - n, ",\"launches\":%llu,\"first\":%llu}\n",
                                  (unsigned long long)slots[i].launches, (unsigned long long)slots[i].first);
            emit(buf, n);
        }
    }
    size_t n = (size_t)snprintf(buf, sizeof buf,
                                "{\"type\":\"total\",\"pid\":%d,\"launches\":{\"driver\":%llu,\"runtime\":%llu},"
                                "\"distinct\":%llu,\"overflow\":%llu}\n",
                                (int)getpid(), (unsigned long long)sequence[0], (unsigned long long)sequence[1],
                                (unsigned long long)distinct, (unsigned long long)overflow);
    emit(buf, n);
    pthread_mutex_unlock(&lock);
}

/* The distinct (domain, kernel) pairs seen so far, or -1 when the census is not counting in this process (not
 * subscribed, or a forked child): the probe reads it at each optimizer step and backward pass (gpu_sanitize_coverage.py)
 * to say after which step the plain run launched no new kernel. */
__attribute__((visibility("default"))) long long gpu_sanitize_census_distinct(void) {
    if (!__atomic_load_n(&subscribed, __ATOMIC_ACQUIRE) || getpid() != owner) {
        return -1;
    }
    return (long long)__atomic_load_n(&distinct, __ATOMIC_RELAXED);
}

static int enable(CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    return cuptiEnableCallback(1, sub, domain, cbid) == CUPTI_SUCCESS;
}

int InitializeInjection(void) {
    CUpti_SubscriberHandle sub;
    owner = getpid();
    const char *dir = getenv("GPU_SANITIZE_CENSUS_DIR");
    if (dir == NULL || *dir == '\0') {
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/census-%d.jsonl", dir, (int)owner);
    out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (out < 0) {
        return 1;
    }
    if (cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_api, NULL) != CUPTI_SUCCESS) {
        const char *e = "{\"type\":\"error\",\"message\":\"cuptiSubscribe failed (another CUPTI subscriber?)\"}\n";
        emit(e, strlen(e));
        return 1;
    }
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel);
    enable(sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch);
    enable(sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    enable(sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060);
    enable(sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000);
    atexit(dump);
    __atomic_store_n(&subscribed, 1, __ATOMIC_RELEASE);
    return 1;
}

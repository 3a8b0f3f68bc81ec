/* cuda_util.c — device buffers, errors and provenance for the CUDA backends. */
#include "backends/cuda/cuda_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/env_number.h"
#include "common/isolate.h"

int fpd_device_grow(struct fpd_device_buffer *b, size_t bytes, char *why, size_t why_size)
{
    if (bytes <= b->cap && b->p)
        return FPD_OK;
    fpd_device_free(b);
    cudaError_t rc = cudaMalloc(&b->p, bytes ? bytes : 1);
    if (rc != cudaSuccess) {
        snprintf(why, why_size, "cudaMalloc of %zu bytes: %s", bytes, cudaGetErrorString(rc));
        b->p = NULL;
        return FPD_ERR_BACKEND;
    }
    b->cap = bytes;
    return FPD_OK;
}

void fpd_device_free(struct fpd_device_buffer *b)
{
    if (b->p) /* cudaFree(NULL) would create a CUDA context, in a process that may have none */
        cudaFree(b->p);
    b->p = NULL;
    b->cap = 0;
}

/* What a probe process learned of the device: CUDA is never initialized in fpdiv's own process,
 * whose forks (fuzz workers, isolated checks) could not use it afterwards. */
struct device_probe {
    int status; /* FPD_OK, or FPD_ERR_UNAVAILABLE with why */
    char why[256];
    char gpu[256];
    int sm_count, cc_major, cc_minor, runtime, driver;
};

static struct device_probe probed;
static bool probe_done;

/* In the probe's child: fills the device_probe at ctx. */
static int probe_in_child(void *ctx)
{
    struct device_probe *d = ctx;
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess) {
        snprintf(d->why, sizeof d->why, "no usable CUDA device: %s", cudaGetErrorString(rc));
        return 0;
    }
    if (count == 0) {
        snprintf(d->why, sizeof d->why, "no CUDA device on this machine");
        return 0;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
        snprintf(d->gpu, sizeof d->gpu, "%s", prop.name);
        d->sm_count = prop.multiProcessorCount;
        d->cc_major = prop.major;
        d->cc_minor = prop.minor;
    }
    cudaRuntimeGetVersion(&d->runtime);
    cudaDriverGetVersion(&d->driver);
    d->status = FPD_OK;
    return 0;
}

/* How long the probe may take (seconds): CUDA's first initialization on a many-GPU machine can
 * take tens of seconds, and a broken driver can hang in it for ever. FPDIV_CUDA_PROBE_TIMEOUT
 * overrides it (0: no limit); a value that is not a number of seconds is refused, with why. */
#define PROBE_TIMEOUT 120.0

static bool probe_timeout(double *timeout, char *why, size_t why_size)
{
    return fpd_env_seconds("FPDIV_CUDA_PROBE_TIMEOUT", PROBE_TIMEOUT, true, timeout, why, why_size) == FPD_OK;
}

/* Once per process, in an isolated child that answers in shared memory: a child that crashes or
 * hangs (a broken driver) makes the device unavailable, with the reason. */
static const struct device_probe *device_probe(void)
{
    if (probe_done)
        return &probed;
    probe_done = true;
    probed = (struct device_probe){.status = FPD_ERR_UNAVAILABLE};
    double timeout;
    if (!probe_timeout(&timeout, probed.why, sizeof probed.why))
        return &probed;
    struct device_probe *answer =
        mmap(NULL, sizeof *answer, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (answer == MAP_FAILED) {
        snprintf(probed.why, sizeof probed.why, "cannot probe the CUDA device: %s", strerror(errno));
        return &probed;
    }
    *answer = (struct device_probe){.status = FPD_ERR_UNAVAILABLE};
    char why[192];
    if (fpd_run_isolated(probe_in_child, answer, timeout, why, sizeof why) == 0)
        probed = *answer;
    else
        snprintf(probed.why, sizeof probed.why, "the CUDA device probe failed: %s", why);
    munmap(answer, sizeof *answer);
    return &probed;
}

int fpd_cuda_require_device(char *why, size_t why_size)
{
    const struct device_probe *d = device_probe();
    if (d->status != FPD_OK)
        snprintf(why, why_size, "%s", d->why);
    return d->status;
}

int fpd_cuda_check(cudaError_t rc, const char *what, char *why, size_t why_size)
{
    if (rc == cudaSuccess)
        return FPD_OK;
    snprintf(why, why_size, "%s: %s", what, cudaGetErrorString(rc));
    return FPD_ERR_BACKEND;
}

int fpd_cublas_check(cublasStatus_t rc, const char *what, char *why, size_t why_size)
{
    if (rc == CUBLAS_STATUS_SUCCESS)
        return FPD_OK;
    snprintf(why, why_size, "%s: %s (%s)", what, cublasGetStatusName(rc), cublasGetStatusString(rc));
    return FPD_ERR_BACKEND;
}

bool fpd_cuda_context_lost(void)
{
    (void)cudaGetLastError(); /* a launch's own error, which does not outlive it */
    return cudaDeviceSynchronize() != cudaSuccess;
}

int fpd_cuda_compute_capability(void)
{
    const struct device_probe *d = device_probe();
    return d->status == FPD_OK ? d->cc_major * 10 + d->cc_minor : 0;
}

const char *fpd_cuda_tensor_core_model(int compute_capability)
{
    /* the GPUs tensor-cores.md models, by compute capability (A2 and A30 behave as A100) */
    static const struct {
        int cc;
        const char *model;
    } models[] = {{70, "tc-v100"}, {80, "tc-a100"}, {86, "tc-a100"}, {89, "tc-ada"}, {90, "tc-h100"}, {100, "tc-b200"}};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (models[i].cc == compute_capability)
            return models[i].model;
    return NULL;
}

void fpd_cuda_device_provenance(fpd_provenance_fn emit, void *ctx)
{
    const struct device_probe *d = device_probe();
    if (d->status != FPD_OK)
        return;
    char buf[64];
    if (d->gpu[0]) {
        emit(ctx, "gpu", d->gpu);
        snprintf(buf, sizeof buf, "%d", d->sm_count);
        emit(ctx, "sm_count", buf);
        snprintf(buf, sizeof buf, "%d.%d", d->cc_major, d->cc_minor);
        emit(ctx, "compute_capability", buf);
    }
    snprintf(buf, sizeof buf, "%d.%d", d->runtime / 1000, d->runtime % 1000 / 10);
    emit(ctx, "cuda_runtime", buf);
    snprintf(buf, sizeof buf, "%d.%d", d->driver / 1000, d->driver % 1000 / 10);
    emit(ctx, "cuda_driver", buf);
}

cudaDataType fpd_cuda_type(enum fpd_dtype t)
{
    static const cudaDataType types[FPD_DTYPE_COUNT] = {
        [FPD_F64] = CUDA_R_64F, [FPD_F32] = CUDA_R_32F, [FPD_F16] = CUDA_R_16F, [FPD_BF16] = CUDA_R_16BF};
    return types[t];
}

/*
 * fake_libcuda.c — a stand-in for the CUDA driver (built as libcuda.so.1) that crashes or hangs
 * the moment the CUDA runtime calls into it, as a broken driver can: the CLI tests put it first on
 * LD_LIBRARY_PATH to check that the CUDA plugin's device probe survives both.
 * FAKE_CUDA_DRIVER=crash or hang picks the failure.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int misbehave(void)
{
    const char *how = getenv("FAKE_CUDA_DRIVER");
    if (how && strcmp(how, "hang") == 0)
        for (;;)
            pause();
    raise(SIGSEGV);
    return 3; /* CUDA_ERROR_NOT_INITIALIZED, should the signal be ignored */
}

/* The runtime resolves the driver's entry points through these, or calls cuInit first. */
int cuInit(unsigned flags)
{
    (void)flags;
    return misbehave();
}

int cuDriverGetVersion(int *version)
{
    (void)version;
    return misbehave();
}

int cuGetProcAddress(const char *symbol, void **fn, int version, unsigned long long flags)
{
    (void)symbol, (void)fn, (void)version, (void)flags;
    return misbehave();
}

int cuGetProcAddress_v2(const char *symbol, void **fn, int version, unsigned long long flags, void *status)
{
    (void)symbol, (void)fn, (void)version, (void)flags, (void)status;
    return misbehave();
}

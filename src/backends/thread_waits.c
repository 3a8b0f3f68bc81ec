/* thread_waits.c — the variables that put idle library threads to sleep (thread_waits.h). */
#include "backends/thread_waits.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* What each runtime reads, and the value that makes an idle thread sleep at once (or at its least). */
static struct {
    const char *variable, *value;
    bool users; /* set by the user: left as it is */
} waits[] = {
    {"OMP_WAIT_POLICY", "passive", false},     /* OpenMP's own: libgomp and Intel OpenMP alike */
    {"GOMP_SPINCOUNT", "0", false},            /* libgomp: spins before sleeping */
    {"KMP_BLOCKTIME", "0", false},             /* Intel OpenMP (oneMKL): milliseconds spinning */
    {"OPENBLAS_THREAD_TIMEOUT", "4", false},   /* OpenBLAS's pool: 2^4 cycles, its least */
};

void fpd_thread_waits_apply(void)
{
    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++) {
        waits[i].users = getenv(waits[i].variable) != NULL;
        if (!waits[i].users)
            setenv(waits[i].variable, waits[i].value, 0);
    }
}

json_t *fpd_thread_waits_json(void)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < sizeof waits / sizeof waits[0]; i++) {
        const char *value = getenv(waits[i].variable);
        char text[256];
        snprintf(text, sizeof text, "%.200s%s", value ? value : "(unset)", waits[i].users ? " (the user's)" : "");
        json_object_set_new(o, waits[i].variable, json_string(text));
    }
    return o;
}

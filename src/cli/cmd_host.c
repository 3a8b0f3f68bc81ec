/* cmd_host.c — `fpdiv __host NAME`: serve one backend to the fpdiv that started this process
 * (host.h). Not for users: fpdiv starts it with the socket and shared memory it expects. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/host.h"
#include "cli/cmd.h"

int fpd_cmd_host(int argc, char **argv)
{
    if (argc != 2 && !(argc == 3 && strcmp(argv[2], "proven") == 0)) {
        fpd_console_error("__host", "fpdiv starts this itself, with a backend's name");
        return FPD_EXIT_USAGE;
    }
    fpd_host_set_serving();
    if (argc == 3)
        fpd_host_set_proven();
    struct fpd_backend_slot *slot = fpd_registry_find(argv[1]);
    char why[512];
    const char *unavailable = NULL;
    if (!slot) {
        snprintf(why, sizeof why, "unknown backend '%s' in the host process", argv[1]);
        unavailable = why;
    } else if (fpd_backend_acquire(slot) != FPD_OK) {
        snprintf(why, sizeof why, "%s", slot->why);
        unavailable = why;
    }
    int rc = fpd_host_serve(slot, unavailable) == FPD_OK ? FPD_EXIT_OK : FPD_EXIT_INTERNAL;
    /* The fpdiv it served has gone. A host leaves at once, without exit handlers: a leak checker's
     * or a library's report at exit would land, unasked, on the stderr it shares with that fpdiv. */
    fflush(NULL);
    _exit(rc);
}

/* env_number.c — numbers from the environment: see env_number.h. */
#include "common/env_number.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "fpdiv_backend.h"

int fpd_env_seconds(const char *name, double fallback, bool zero_allowed, double *out, char *why, size_t why_size)
{
    const char *text = getenv(name);
    *out = fallback;
    if (!text || !*text)
        return FPD_OK;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    /* as a person writes seconds: digits, a point, an exponent; no sign, no hex, no inf or nan */
    bool plain = strspn(text, "0123456789.eE") == strlen(text) && text[0] != 'e' && text[0] != 'E';
    if (!plain || *end || errno == ERANGE || !(v >= 0 && v <= FPD_ENV_SECONDS_MAX) || (!zero_allowed && !(v > 0))) {
        char shown[160];
        snprintf(why, why_size, "%s='%s': expected seconds, a number %s %g%s", name,
                 fpd_printable(text, shown, sizeof shown), zero_allowed ? "from 0 to" : "above 0, at most",
                 FPD_ENV_SECONDS_MAX, zero_allowed ? " (0: no limit)" : "");
        return FPD_ERR_INPUT;
    }
    *out = v;
    return FPD_OK;
}

/* shard.c — the shard of a campaign, from --shard or from a scheduler's environment. */
#include "engine/shard.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fpdiv_backend.h"

/* 1 and *out when `name` holds a decimal number, 0 when it is unset or empty, -1 when it is not a
 * number. */
static int env_u64(const char *name, uint64_t *out)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return 0;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end || errno || v[0] == '-')
        return -1;
    *out = x;
    return 1;
}

void fpd_shard_given(uint64_t index, uint64_t count, struct fpd_shard *s)
{
    *s = (struct fpd_shard){.index = index, .count = count};
    snprintf(s->source, sizeof s->source, "--shard");
}

int fpd_shard_from_environment(uint64_t completion_count, struct fpd_shard *s, char *why, size_t why_size)
{
    *s = (struct fpd_shard){.index = 0, .count = 1};
    snprintf(s->source, sizeof s->source, "no sharding");
    uint64_t id, count, min = 0;
    if (env_u64("SLURM_ARRAY_TASK_ID", &id) > 0 && env_u64("SLURM_ARRAY_TASK_COUNT", &count) > 0) {
        env_u64("SLURM_ARRAY_TASK_MIN", &min);
        *s = (struct fpd_shard){.index = id - min, .count = count};
        snprintf(s->source, sizeof s->source, "SLURM_ARRAY_TASK_ID/_COUNT/_MIN");
    } else if (env_u64("JOB_COMPLETION_INDEX", &id) > 0) {
        if (!completion_count) {
            snprintf(why, why_size, "JOB_COMPLETION_INDEX is set: give the number of indexes with --shard-count");
            return FPD_ERR_INPUT;
        }
        *s = (struct fpd_shard){.index = id, .count = completion_count};
        snprintf(s->source, sizeof s->source, "JOB_COMPLETION_INDEX and --shard-count");
    } else if (env_u64("CI_NODE_INDEX", &id) > 0 && env_u64("CI_NODE_TOTAL", &count) > 0) {
        *s = (struct fpd_shard){.index = id - 1, .count = count}; /* GitLab counts from 1 */
        snprintf(s->source, sizeof s->source, "CI_NODE_INDEX/CI_NODE_TOTAL");
    }
    if (s->count == 0 || s->index >= s->count) {
        snprintf(why, why_size, "shard %" PRIu64 " of %" PRIu64 " (from %s) does not exist", s->index, s->count,
                 s->source);
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

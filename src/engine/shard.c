/* shard.c — the shard of a campaign, from --shard or from a scheduler's environment. */
#include "engine/shard.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
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

/* The value of a variable that is set, as a number: FPD_OK, or FPD_ERR_INPUT naming it. *set says
 * whether it was. */
static int env_number(const char *name, uint64_t *out, bool *set, char *why, size_t why_size)
{
    int found = env_u64(name, out);
    *set = found > 0;
    if (found < 0)
        snprintf(why, why_size, "%s='%.40s': expected a non-negative decimal number", name, getenv(name));
    return found < 0 ? FPD_ERR_INPUT : FPD_OK;
}

int fpd_shard_from_environment(uint64_t completion_count, struct fpd_shard *s, char *why, size_t why_size)
{
    *s = (struct fpd_shard){.index = 0, .count = 1};
    snprintf(s->source, sizeof s->source, "no sharding");
    uint64_t id = 0, count = 0, min = 0, step = 1;
    bool has_id, has_count, has_min, has_step;
    if (env_number("SLURM_ARRAY_TASK_ID", &id, &has_id, why, why_size) != FPD_OK ||
        env_number("SLURM_ARRAY_TASK_COUNT", &count, &has_count, why, why_size) != FPD_OK ||
        env_number("SLURM_ARRAY_TASK_MIN", &min, &has_min, why, why_size) != FPD_OK ||
        env_number("SLURM_ARRAY_TASK_STEP", &step, &has_step, why, why_size) != FPD_OK)
        return FPD_ERR_INPUT;
    if (has_id != has_count) { /* half an array's description: running unsharded would be a mistake */
        snprintf(why, why_size, "%s is set without %s", has_id ? "SLURM_ARRAY_TASK_ID" : "SLURM_ARRAY_TASK_COUNT",
                 has_id ? "SLURM_ARRAY_TASK_COUNT" : "SLURM_ARRAY_TASK_ID");
        return FPD_ERR_INPUT;
    }
    if (has_id) {
        /* an array 1-7:2 runs tasks 1, 3, 5, 7: shards 0 to 3 */
        if (min > id || step == 0 || (id - min) % step != 0) {
            snprintf(why, why_size, "SLURM_ARRAY_TASK_ID %" PRIu64 " is no task of the array from %" PRIu64
                     " in steps of %" PRIu64, id, min, step);
            return FPD_ERR_INPUT;
        }
        *s = (struct fpd_shard){.index = (id - min) / step, .count = count};
        snprintf(s->source, sizeof s->source, "SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_STEP");
    } else {
        if (env_number("JOB_COMPLETION_INDEX", &id, &has_id, why, why_size) != FPD_OK)
            return FPD_ERR_INPUT;
        if (has_id) {
            if (!completion_count) {
                snprintf(why, why_size, "JOB_COMPLETION_INDEX is set: give the number of indexes with --shard-count");
                return FPD_ERR_INPUT;
            }
            *s = (struct fpd_shard){.index = id, .count = completion_count};
            snprintf(s->source, sizeof s->source, "JOB_COMPLETION_INDEX and --shard-count");
        } else {
            if (env_number("CI_NODE_INDEX", &id, &has_id, why, why_size) != FPD_OK ||
                env_number("CI_NODE_TOTAL", &count, &has_count, why, why_size) != FPD_OK)
                return FPD_ERR_INPUT;
            if (has_id != has_count) {
                snprintf(why, why_size, "%s is set without %s", has_id ? "CI_NODE_INDEX" : "CI_NODE_TOTAL",
                         has_id ? "CI_NODE_TOTAL" : "CI_NODE_INDEX");
                return FPD_ERR_INPUT;
            }
            if (has_id) {
                if (id == 0) {
                    snprintf(why, why_size, "CI_NODE_INDEX is 0: GitLab counts its nodes from 1");
                    return FPD_ERR_INPUT;
                }
                *s = (struct fpd_shard){.index = id - 1, .count = count};
                snprintf(s->source, sizeof s->source, "CI_NODE_INDEX/CI_NODE_TOTAL");
            }
        }
    }
    if (s->count == 0 || s->index >= s->count || s->count > FPD_SHARD_COUNT_MAX) {
        snprintf(why, why_size, "shard %" PRIu64 " of %" PRIu64 " (from %s) does not exist%s", s->index, s->count,
                 s->source, s->count > FPD_SHARD_COUNT_MAX ? ": a campaign has 2^32 case indices" : "");
        return FPD_ERR_INPUT;
    }
    return FPD_OK;
}

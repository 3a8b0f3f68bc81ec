/*
 * shard.h — which part of a campaign this run is: --shard I/N, or what a scheduler says.
 *
 * Shard I of N runs case indices I, I + N, I + 2N, …: together the N shards run exactly the cases
 * of one run. Without --shard, the variables of an array job are read: Slurm's
 * SLURM_ARRAY_TASK_ID/_COUNT (and _MIN, _STEP), Kubernetes' JOB_COMPLETION_INDEX (whose count is not in
 * the environment: --shard-count gives it), GitLab's CI_NODE_INDEX/_TOTAL (counted from 1).
 */
#ifndef FPD_SHARD_H
#define FPD_SHARD_H

#include <stddef.h>
#include <stdint.h>

/* A campaign's case indices are 32-bit: more shards than indices would run nothing. */
#define FPD_SHARD_COUNT_MAX (1ull << 32)

struct fpd_shard {
    uint64_t index, count;
    char source[96]; /* where it came from: "--shard", "SLURM_ARRAY_TASK_ID/_COUNT/_MIN/_STEP", … */
};

/* The shard `index` of `count` given on the command line (the caller has checked index < count). */
void fpd_shard_given(uint64_t index, uint64_t count, struct fpd_shard *s);
/* The shard from the scheduler's environment, else 0 of 1 ("no sharding"). `completion_count`:
 * --shard-count, 0 when not given. FPD_ERR_INPUT with why when the environment names a shard that
 * does not exist, a variable is set to something that is not a number, or JOB_COMPLETION_INDEX is
 * set without a count. */
int fpd_shard_from_environment(uint64_t completion_count, struct fpd_shard *s, char *why, size_t why_size);

#endif

/* The worker pool: every index answered once, crashes and hangs attributed to their check. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/isolate.h"
#include "common/workers.h"

#define END 300

/* Runs the pool to the end: how often each index was answered and lost, and the last loss's reason. */
struct tally {
    int answered[END], lost[END];
    char reason[END][160];
};

static void drain(struct fpd_pool *pool, struct tally *t)
{
    memset(t, 0, sizeof *t);
    for (;;) {
        struct fpd_pool_event ev;
        cr_assert_eq(fpd_pool_next(pool, 0.1, &ev), FPD_OK);
        if (ev.type == FPD_EVENT_DONE)
            break;
        if (ev.type == FPD_EVENT_MESSAGE && ev.msg.type == FPD_MSG_ANSWER)
            t->answered[ev.msg.index]++;
        if (ev.type == FPD_EVENT_LOST) {
            t->lost[ev.index]++;
            snprintf(t->reason[ev.index], sizeof t->reason[ev.index], "%s", ev.reason);
        }
    }
    fpd_pool_free(pool);
}

/* 7 crashes before answering; 12 crashes after answering (not lost, but its worker is replaced);
 * 20 hangs (the timeout kills it); the rest answer at once. */
static int work(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    (void)ctx;
    if (index == 7)
        raise(SIGSEGV);
    if (index == 20)
        sleep(30);
    if (fpd_worker_send(ch, FPD_MSG_ANSWER, index, NULL, 0) != FPD_OK)
        return FPD_ERR_INTERNAL;
    if (index == 12)
        abort();
    return FPD_OK;
}

Test(workers, every_index_once_and_losses_attributed)
{
    alarm(30); /* a hang fails the test (Criterion's .timeout leaks in its runner under LSan) */
    struct fpd_pool pool;
    cr_assert_eq(fpd_pool_start(&pool, 2, 0, 1, END, 0, 0.5, work, NULL), FPD_OK);
    static struct tally t;
    drain(&pool, &t);
    for (uint32_t i = 0; i < END; i++) {
        bool crash = i == 7 || i == 20;
        cr_expect_eq(t.answered[i], !crash, "index %u answered %d times", i, t.answered[i]);
        cr_expect_eq(t.lost[i], crash, "index %u lost %d times", i, t.lost[i]);
    }
    cr_expect(strstr(t.reason[7], "signal 11"), "%s", t.reason[7]);
    cr_expect(strstr(t.reason[20], "timed out"), "%s", t.reason[20]);
}

/* Answers, then hangs (as saving a finding may, calling the backend again): the timeout still
 * applies, the answered check is not lost, and the next index runs in a replacement. */
static int hang_after_answer(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    (void)ctx;
    int rc = fpd_worker_send(ch, FPD_MSG_ANSWER, index, NULL, 0);
    if (index == 5)
        sleep(30);
    return rc;
}

Test(workers, a_hang_after_answering_is_timed_out)
{
    alarm(20); /* a hang fails the test (Criterion's .timeout leaks in its runner under LSan) */
    struct fpd_pool pool;
    double t0 = fpd_now();
    cr_assert_eq(fpd_pool_start(&pool, 1, 0, 1, 10, 0, 0.5, hang_after_answer, NULL), FPD_OK);
    static struct tally t;
    drain(&pool, &t);
    for (int i = 0; i < 10; i++) {
        cr_expect_eq(t.answered[i], 1, "index %d answered %d times", i, t.answered[i]);
        cr_expect_eq(t.lost[i], 0, "index %d lost: %s", i, t.reason[i]);
    }
    cr_expect_lt(fpd_now() - t0, 10, "the hang ran its course instead of being timed out");
}

static int slow(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    (void)ctx;
    usleep(2000);
    return fpd_worker_send(ch, FPD_MSG_ANSWER, index, NULL, 0);
}

/* A stop right after the start loses nothing: workers that never began a check report none. */
Test(workers, a_stop_before_any_check_loses_nothing)
{
    alarm(20); /* a hang fails the test (Criterion's .timeout leaks in its runner under LSan) */
    struct fpd_pool pool;
    cr_assert_eq(fpd_pool_start(&pool, 4, 0, 1, END, 0, 0, slow, NULL), FPD_OK);
    fpd_pool_stop(&pool);
    static struct tally t;
    drain(&pool, &t);
    for (uint32_t i = 0; i < END; i++)
        cr_expect_eq(t.lost[i], 0, "lost %u: %s", i, t.reason[i]);
}

/* Freeing a pool whose workers still run kills them instead of waiting for them forever. */
Test(workers, freeing_a_running_pool_returns)
{
    alarm(20); /* a hang fails the test (Criterion's .timeout leaks in its runner under LSan) */
    struct fpd_pool pool;
    cr_assert_eq(fpd_pool_start(&pool, 2, 0, 1, 1000000, 0, 0, slow, NULL), FPD_OK);
    struct fpd_pool_event ev;
    cr_assert_eq(fpd_pool_next(&pool, 1.0, &ev), FPD_OK);
    fpd_pool_free(&pool);
}

/* A deadline already past: every worker leaves at once, and none reports a check it never ran. */
Test(workers, a_past_deadline_loses_nothing)
{
    alarm(20); /* a hang fails the test (Criterion's .timeout leaks in its runner under LSan) */
    struct fpd_pool pool;
    cr_assert_eq(fpd_pool_start(&pool, 4, 0, 1, END, fpd_now() - 1, 0, slow, NULL), FPD_OK);
    static struct tally t;
    drain(&pool, &t);
    for (uint32_t i = 0; i < END; i++)
        cr_expect_eq(t.lost[i], 0, "lost %u: %s", i, t.reason[i]);
}

static int exits_7(void *ctx)
{
    (void)ctx;
    return 7;
}
static int crashes(void *ctx)
{
    (void)ctx;
    raise(SIGSEGV);
    return 0;
}
static int hangs(void *ctx)
{
    (void)ctx;
    sleep(30);
    return 0;
}

Test(workers, isolated_runs_report_exit_crash_and_hang)
{
    alarm(20); /* a hang fails the test (Criterion's .timeout leaks in its runner under LSan) */
    char why[256];
    cr_expect_eq(fpd_run_isolated(exits_7, NULL, 5, why, sizeof why), 7);
    cr_expect_eq(fpd_run_isolated(crashes, NULL, 5, why, sizeof why), -1);
    cr_expect(strstr(why, "signal 11"), "%s", why);
    double t0 = fpd_now();
    cr_expect_eq(fpd_run_isolated(hangs, NULL, 0.3, why, sizeof why), -1);
    cr_expect(strstr(why, "timed out after 0.3 s"), "%s", why);
    cr_expect_lt(fpd_now() - t0, 5);
}

/* A payload reaches the pool as it was sent, whatever its bytes and size up to the limit, with
 * its type; a larger one is refused, not cut. */
static int payloads(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    (void)ctx;
    unsigned char bytes[FPD_WORKER_PAYLOAD + 1];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 7 + index);
    size_t size = index * 37 % (FPD_WORKER_PAYLOAD + 1);
    if (fpd_worker_send(ch, FPD_MSG_NOTE, index, bytes, sizeof bytes) != FPD_ERR_INTERNAL)
        return FPD_ERR_INTERNAL;
    if (fpd_worker_send(ch, FPD_MSG_NOTE, index, bytes, size) != FPD_OK)
        return FPD_ERR_INTERNAL;
    return fpd_worker_send(ch, FPD_MSG_ANSWER, index, bytes, size);
}

Test(workers, payloads_pass_through_untouched)
{
    alarm(20);
    struct fpd_pool pool;
    cr_assert_eq(fpd_pool_start(&pool, 2, 0, 1, END, 0, 0, payloads, NULL), FPD_OK);
    size_t notes = 0, answers = 0;
    for (;;) {
        struct fpd_pool_event ev;
        cr_assert_eq(fpd_pool_next(&pool, 0.1, &ev), FPD_OK);
        if (ev.type == FPD_EVENT_DONE)
            break;
        cr_assert_neq(ev.type, FPD_EVENT_LOST, "lost %u: %s", ev.index, ev.reason);
        if (ev.type != FPD_EVENT_MESSAGE)
            continue;
        uint32_t index = ev.msg.index;
        cr_assert_eq(ev.msg.size, index * 37 % (FPD_WORKER_PAYLOAD + 1), "index %u", index);
        for (size_t i = 0; i < ev.msg.size; i++)
            cr_assert_eq(ev.msg.payload[i], (unsigned char)(i * 7 + index), "index %u byte %zu", index, i);
        notes += ev.msg.type == FPD_MSG_NOTE;
        answers += ev.msg.type == FPD_MSG_ANSWER;
    }
    fpd_pool_free(&pool);
    cr_expect_eq(notes, END);
    cr_expect_eq(answers, END);
}

/* The worker pool: every index answered once, crashes and hangs attributed to their check. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "workers.h"

#define END 300

/* 7 crashes before answering; 12 crashes after answering (not lost, but its worker is replaced);
 * 20 hangs (the timeout kills it); the rest answer at once. */
static int work(void *ctx, uint32_t index, struct fpd_worker_channel *ch)
{
    (void)ctx;
    if (index == 7)
        raise(SIGSEGV);
    if (index == 20)
        sleep(30);
    struct fpd_worker_msg m = {.type = FPD_MSG_RESULT, .index = index};
    if (fpd_worker_send(ch, &m) != FPD_OK)
        return FPD_ERR_INTERNAL;
    if (index == 12)
        abort();
    return FPD_OK;
}

Test(workers, every_index_once_and_losses_attributed, .timeout = 30)
{
    struct fpd_pool pool;
    cr_assert_eq(fpd_pool_start(&pool, 2, 0, 1, END, 0, 0.5, work, NULL), FPD_OK);
    int answered[END] = {0}, lost[END] = {0};
    char reason[END][160];
    for (;;) {
        struct fpd_pool_event ev;
        cr_assert_eq(fpd_pool_next(&pool, 0.1, &ev), FPD_OK);
        if (ev.type == FPD_EVENT_DONE)
            break;
        if (ev.type == FPD_EVENT_MESSAGE && ev.msg.type == FPD_MSG_RESULT)
            answered[ev.msg.index]++;
        if (ev.type == FPD_EVENT_LOST) {
            lost[ev.index]++;
            strcpy(reason[ev.index], ev.reason);
        }
    }
    fpd_pool_free(&pool);
    for (uint32_t i = 0; i < END; i++) {
        bool crash = i == 7 || i == 20;
        cr_expect_eq(answered[i], !crash, "index %u answered %d times", i, answered[i]);
        cr_expect_eq(lost[i], crash, "index %u lost %d times", i, lost[i]);
    }
    cr_expect(strstr(reason[7], "signal 11"), "%s", reason[7]);
    cr_expect(strstr(reason[20], "timed out"), "%s", reason[20]);
}

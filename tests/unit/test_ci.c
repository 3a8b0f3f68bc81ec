/* test_ci.c — the CI reports keep nothing half-made when memory runs out.
 *
 * The unit-test binary is linked with --wrap=strdup,free (Makefile): strdup can be made to fail
 * at its Nth call from here on, and the frees of what it returned are seen. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fpdiv_backend.h"
#include "report/ci.h"

char *__real_strdup(const char *s);
void __real_free(void *p);

static int strdups_until_failure = -1; /* -1: never fails */
static void *copies[8];
static int n_copies, n_freed;

char *__wrap_strdup(const char *s)
{
    if (strdups_until_failure == 0)
        return NULL;
    if (strdups_until_failure > 0)
        strdups_until_failure--;
    char *copy = __real_strdup(s);
    if (copy && n_copies < 8)
        copies[n_copies++] = copy;
    return copy;
}

void __wrap_free(void *p)
{
    for (int i = 0; p && i < n_copies; i++)
        if (copies[i] == p)
            n_freed++, copies[i] = NULL;
    __real_free(p);
}

static void fail_strdup_after(int successes)
{
    strdups_until_failure = successes;
    n_copies = n_freed = 0;
}

Test(ci, a_case_that_cannot_be_made_frees_its_half)
{
    struct fpd_ci_report r = {0};
    fail_strdup_after(1); /* the class name is copied, the name is not */
    cr_expect_null(fpd_ci_case(&r, "fpdiv.addmm", "seq"));
    strdups_until_failure = -1;
    cr_expect_eq(r.n_cases, 0u);
    cr_expect_eq(n_copies, 1);
    cr_expect_eq(n_freed, 1, "the class name's copy was not freed");
    struct fpd_ci_case *c = fpd_ci_case(&r, "fpdiv.addmm", "seq");
    cr_assert_not_null(c);
    cr_expect_eq(r.n_cases, 1u);
    fpd_ci_free(&r);
}

Test(ci, a_failure_that_cannot_be_recorded_is_not_counted)
{
    struct fpd_ci_report r = {0};
    struct fpd_ci_case *c = fpd_ci_case(&r, "fpdiv.addmm", "seq");
    cr_assert_not_null(c);
    fail_strdup_after(2); /* kind and message copied, details not */
    cr_expect_eq(fpd_ci_fail(c, "bound", "lost precision", "fpdiv check ..."), FPD_ERR_NOMEM);
    strdups_until_failure = -1;
    cr_expect_eq(c->n_failures, 0u, "a failure without its details was counted");
    cr_expect_eq(n_freed, 2, "%d of the 2 copies made were freed", n_freed);
    cr_expect_eq(fpd_ci_fail(c, "bound", "lost precision", "fpdiv check ..."), FPD_OK);
    cr_expect_eq(c->n_failures, 1u);
    fpd_ci_free(&r);
}

/* isolate.c — one function in a child process: fork, a pipe that tells its answer from its exit,
 * and the deadline. */
#define _GNU_SOURCE
#include "common/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/scratch.h"

void fpd_stdout_to_stderr(void)
{
    fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
}

void fpd_describe_death(int status, bool timed_out, double timeout, char *buf, size_t size)
{
    if (timed_out)
        snprintf(buf, size, "timed out after %g s (worker killed)", timeout);
    else if (WIFSIGNALED(status))
        snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(buf, size, "worker exited with status %d in the middle of the check", WEXITSTATUS(status));
}

int fpd_run_isolated(int (*fn)(void *ctx), void *ctx, double timeout, char *why, size_t why_size)
{
    /* The child holds the write end: its exit wakes the parent at once. It writes one byte there
     * when fn returns, so an exit from inside fn (status 0 included) is not taken for an answer. */
    int gone[2];
    if (pipe2(gone, O_CLOEXEC) != 0) {
        snprintf(why, why_size, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL); /* nothing buffered in the parent is written twice */
    pid_t pid = fork();
    if (pid < 0) {
        close(gone[0]);
        close(gone[1]);
        snprintf(why, why_size, "cannot start a worker process: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* killed with fpdiv: its timeout is fpdiv's to enforce */
        fpd_scratch_use_huge_pages(true); /* it makes its buffers afresh, for one job */
        close(gone[0]);
        int rc = fn(ctx);
        fflush(NULL);
        ssize_t told = write(gone[1], "", 1); /* if this fails, the parent reports an early exit */
        (void)told;
        _exit(rc & 0xff);
    }
    close(gone[1]);
    double deadline = timeout > 0 ? fpd_now() + timeout : 0;
    bool timed_out = false, finished = false;
    int status = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            close(gone[0]);
            snprintf(why, why_size, "lost the worker process: %s", strerror(errno));
            return -1;
        }
        if (!timed_out && deadline > 0 && fpd_now() > deadline) {
            kill(pid, SIGKILL);
            timed_out = true;
        }
        /* until the pipe closes (the child is gone), or a tenth of a second for the deadline and for
         * a child whose own children still hold the pipe */
        struct pollfd wait_for = {.fd = gone[0], .events = POLLIN};
        if (poll(&wait_for, 1, 100) > 0) {
            char byte;
            ssize_t got = read(gone[0], &byte, 1);
            finished |= got == 1;
            if (got == 0) { /* EOF: the child has exited, or is about to */
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                    ;
                break;
            }
        }
    }
    /* reaped before its byte was read: it is in the pipe, which no one can write to any more */
    struct pollfd last = {.fd = gone[0], .events = POLLIN};
    char byte;
    if (!finished && poll(&last, 1, 0) > 0 && read(gone[0], &byte, 1) == 1)
        finished = true;
    close(gone[0]);
    if (WIFEXITED(status) && !finished) {
        snprintf(why, why_size, "exited with status %d before it finished", WEXITSTATUS(status));
        return -1;
    }
    if (WIFEXITED(status)) /* it finished, even if just as the timeout struck */
        return WEXITSTATUS(status);
    fpd_describe_death(status, timed_out, timeout, why, why_size);
    return -1;
}

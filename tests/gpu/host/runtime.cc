/*
 * runtime.cc — the host shim's launches (cuda_host.h): a block's threads as fibers, barriers as
 * switches to a scheduler that checks every thread waits at the same one, and the CUDA runtime's
 * error state. Single-threaded: launch from one thread only.
 *
 * A launch of a large grid runs millions of threads, each a fiber: ucontext's swapcontext makes
 * a system call per switch (the signal mask), so on x86-64 a switch is the few instructions that
 * save and restore the callee-saved registers (switch_stacks below): the 16.8 million threads of
 * launch::rows_past_the_grid_limit took 7.9 s with swapcontext, 0.57 s with it. Where
 * control-flow protection is compiled in (-fcf-protection: shadow stacks), ucontext is used.
 */
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cuda_host.h"
#include "host_runtime.h"

#if defined(__SANITIZE_ADDRESS__)
#define FPD_HOST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FPD_HOST_ASAN 1
#endif
#endif
#ifdef FPD_HOST_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace fpd_host {

const place *here;

namespace {

/* Room for the kernels' frames, and AddressSanitizer's redzones around them. */
constexpr size_t STACK_BYTES = 256 << 10;

enum class state { ready, waiting, done };

#if defined(__x86_64__) && !defined(__CET__)
/* Saves the callee-saved registers on the current stack, stores its pointer at *save and goes on
 * with the stack at load, whose registers it pops (System V x86-64: rbx, rbp, r12-r15). */
extern "C" void fpd_host_switch_stacks(void **save, void *load);
asm(".text\n"
    ".p2align 4\n"
    "fpd_host_switch_stacks:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n");

struct context {
    void *sp;
};

void switch_context(context *from, context *to) { fpd_host_switch_stacks(&from->sp, to->sp); }

/* A context that starts entry() on the stack [bottom, bottom + size): six zero registers, then
 * entry as the return address, with the alignment of a function's entry. */
void make_context(context *c, char *bottom, size_t size, void (*entry)())
{
    uintptr_t top = ((uintptr_t)bottom + size) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = nullptr;          /* entry's own return address: it never returns */
    *--sp = (void *)entry;
    for (int r = 0; r < 6; r++)
        *--sp = nullptr;
    c->sp = sp;
}
#else
struct context {
    ucontext_t uc;
};

void switch_context(context *from, context *to) { swapcontext(&from->uc, &to->uc); }

void make_context(context *c, char *bottom, size_t size, void (*entry)())
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = bottom;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = nullptr;
    makecontext(&c->uc, entry, 0);
}
#endif

struct fiber {
    context ctx;
    place where;
    state now;
    const char *file; /* the barrier it waits at */
    int line;
    char *stack;
    void *fake_stack; /* AddressSanitizer's, while switched out */
};

struct block_run {
    context scheduler;
    const void *scheduler_bottom;
    size_t scheduler_size;
    fiber *running;
    void (*body)(void *);
    void *ctx;
    bool trapped;
};

block_run run;
std::vector<fiber> fibers;
std::vector<char *> stacks; /* each with a guard page below it, kept for the next launches */
std::string failure;
cudaError_t last_error = cudaSuccess, sticky_error = cudaSuccess;
fpd_host_schedule schedule = FPD_HOST_FORWARD;
std::mt19937_64 shuffle_rng;
const fpd_tc_arith *tensor_core_f16, *tensor_core_bf16;

/* AddressSanitizer must be told of every switch between stacks (its fake stacks live per fiber). */
void start_switch(void **fake_stack_save, const void *bottom, size_t size)
{
#ifdef FPD_HOST_ASAN
    __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
    (void)fake_stack_save, (void)bottom, (void)size;
#endif
}

void finish_switch(void *fake_stack_save, const void **bottom_old, size_t *size_old)
{
#ifdef FPD_HOST_ASAN
    __sanitizer_finish_switch_fiber(fake_stack_save, bottom_old, size_old);
#else
    (void)fake_stack_save, (void)bottom_old, (void)size_old;
#endif
}

/* From a fiber back to the scheduler; a fiber that has ended passes ending, and never returns. */
void to_scheduler(fiber *f, bool ending)
{
    start_switch(ending ? nullptr : &f->fake_stack, run.scheduler_bottom, run.scheduler_size);
    switch_context(&f->ctx, &run.scheduler);
    finish_switch(f->fake_stack, nullptr, nullptr);
}

void fiber_main()
{
    finish_switch(nullptr, &run.scheduler_bottom, &run.scheduler_size);
    fiber *f = run.running;
    run.body(run.ctx);
    f->now = state::done;
    to_scheduler(f, true);
}

void resume(fiber *f)
{
    run.running = f;
    here = &f->where;
    void *fake = nullptr;
    start_switch(&fake, f->stack, STACK_BYTES);
    switch_context(&run.scheduler, &f->ctx);
    finish_switch(fake, nullptr, nullptr);
}

char *new_stack()
{
    long page = sysconf(_SC_PAGESIZE);
    void *p = mmap(nullptr, STACK_BYTES + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("host shim: a fiber's stack");
        abort();
    }
    mprotect(p, page, PROT_NONE); /* an overflowing kernel faults here instead of writing on */
    return (char *)p + page;
}

std::string thread_name(const place &w)
{
    char buf[96];
    snprintf(buf, sizeof buf, "thread (%u,%u,%u) of block (%u,%u,%u)", w.thread_idx.x, w.thread_idx.y, w.thread_idx.z,
             w.block_idx.x, w.block_idx.y, w.block_idx.z);
    return buf;
}

void fail(cudaError_t error, bool sticky, const char *kernel, const std::string &why)
{
    failure = std::string(kernel) + ": " + why;
    fpd_host_raise(error, sticky);
}

std::vector<size_t> order(size_t count)
{
    std::vector<size_t> o(count);
    for (size_t t = 0; t < count; t++)
        o[t] = schedule == FPD_HOST_REVERSE ? count - 1 - t : t;
    if (schedule == FPD_HOST_SHUFFLED)
        std::shuffle(o.begin(), o.end(), shuffle_rng);
    return o;
}

/* One block, to its end; false (with the failure recorded) on a divergent barrier or a trap. */
bool run_block(const char *kernel, const place &shape, uint3 block_idx)
{
    size_t count = (size_t)shape.block_dim.x * shape.block_dim.y * shape.block_dim.z;
    while (stacks.size() < count)
        stacks.push_back(new_stack());
    fibers.resize(count);
    for (size_t t = 0; t < count; t++) {
        fiber &f = fibers[t];
        f.where = shape;
        f.where.block_idx = block_idx;
        f.where.thread_idx = {unsigned(t % shape.block_dim.x), unsigned(t / shape.block_dim.x % shape.block_dim.y),
                              unsigned(t / shape.block_dim.x / shape.block_dim.y)};
        f.now = state::ready;
        f.stack = stacks[t];
        f.fake_stack = nullptr;
        make_context(&f.ctx, f.stack, STACK_BYTES, fiber_main);
    }
    for (;;) {
        for (size_t t : order(count)) {
            if (fibers[t].now != state::ready)
                continue;
            resume(&fibers[t]);
            if (run.trapped)
                return false;
        }
        const fiber *waiter = nullptr, *ended = nullptr, *elsewhere = nullptr;
        for (const fiber &f : fibers) {
            if (f.now == state::done)
                ended = ended ? ended : &f;
            else if (!waiter)
                waiter = &f;
            else if (f.line != waiter->line || f.file != waiter->file)
                elsewhere = elsewhere ? elsewhere : &f;
        }
        if (!waiter)
            return true;
        std::string at = std::string(waiter->file) + ":" + std::to_string(waiter->line);
        if (ended || elsewhere) {
            std::string other = ended ? thread_name(ended->where) + " has ended"
                                      : thread_name(elsewhere->where) + " waits at " + elsewhere->file + ":" +
                                            std::to_string(elsewhere->line);
            fail(cudaErrorLaunchFailure, true, kernel,
                 "divergent barrier: " + thread_name(waiter->where) + " waits at " + at + " while " + other);
            return false; /* the waiting fibers are dropped, as a hung GPU's would be */
        }
        for (fiber &f : fibers)
            f.now = state::ready;
    }
}

} // namespace

void barrier(const char *file, int line)
{
    fiber *f = run.running;
    f->now = state::waiting;
    f->file = file;
    f->line = line;
    to_scheduler(f, false);
}

void trap(const char *file, int line)
{
    failure = std::string("__trap() at ") + file + ":" + std::to_string(line);
    fpd_host_raise(cudaErrorLaunchFailure, 1);
    run.trapped = true;
    run.running->now = state::done;
    to_scheduler(run.running, true);
    abort(); /* never resumed */
}

cudaError_t launch_erased(const char *kernel, dim3 grid, dim3 block, size_t shared, cudaStream_t stream,
                          void (*body)(void *), void *ctx)
{
    (void)stream; /* launches are synchronous */
    if (sticky_error != cudaSuccess) {
        fail(sticky_error, true, kernel, "an earlier fault left the device unusable");
        return sticky_error;
    }
    unsigned long long threads = (unsigned long long)block.x * block.y * block.z;
    if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.x > 2147483647u || grid.y > 65535 || grid.z > 65535) {
        char buf[160];
        snprintf(buf, sizeof buf, "grid (%u,%u,%u) of blocks (%u,%u,%u) is past a GPU's limits", grid.x, grid.y,
                 grid.z, block.x, block.y, block.z);
        fail(cudaErrorInvalidConfiguration, false, kernel, buf);
        return cudaErrorInvalidConfiguration;
    }
    if (shared != 0) {
        fail(cudaErrorNotSupported, false, kernel, "dynamic shared memory is not modelled");
        return cudaErrorNotSupported;
    }
    run = block_run{};
    run.body = body;
    run.ctx = ctx;
    place shape{{0, 0, 0}, {0, 0, 0}, block, grid};
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++)
                if (!run_block(kernel, shape, {x, y, z}))
                    return sticky_error;
    return cudaSuccess;
}

} // namespace fpd_host

using namespace fpd_host;

extern "C" {

void fpd_host_set_schedule(enum fpd_host_schedule s, unsigned long long seed)
{
    schedule = s;
    shuffle_rng.seed(seed);
}

const char *fpd_host_last_failure(void) { return failure.c_str(); }

void fpd_host_raise(cudaError_t error, int sticky)
{
    last_error = error;
    if (sticky)
        sticky_error = error;
}

cudaError_t fpd_host_sticky_error(void) { return sticky_error; }

void fpd_host_reset(void)
{
    last_error = sticky_error = cudaSuccess;
    failure.clear();
}

void fpd_host_set_tensor_core(const struct fpd_tc_arith *f16, const struct fpd_tc_arith *bf16)
{
    tensor_core_f16 = f16;
    tensor_core_bf16 = bf16;
}

const struct fpd_tc_arith *fpd_host_tensor_core(int is_bf16) { return is_bf16 ? tensor_core_bf16 : tensor_core_f16; }

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error != cudaSuccess ? last_error : sticky_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error != cudaSuccess ? last_error : sticky_error; }

/* The runtime's own names and texts, for the codes the shim and the stand-in runtime raise. */
static const struct {
    cudaError_t code;
    const char *name, *text;
} errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
};

const char *cudaGetErrorName(cudaError_t error)
{
    for (const auto &e : errors)
        if (e.code == error)
            return e.name;
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
    for (const auto &e : errors)
        if (e.code == error)
            return e.text;
    return "unknown error";
}

} // extern "C"

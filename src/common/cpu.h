/*
 * cpu.h — what this CPU is, as far as a BLAS's results can depend on it: vendor, model, the
 * x86-64 ISA level and the features libraries choose their kernels by, and the L2 cache size
 * (OpenBLAS sizes some of its oldest cores' blocks by it). Read once with CPUID on x86-64, from
 * /proc/cpuinfo elsewhere.
 */
#ifndef FPD_CPU_H
#define FPD_CPU_H

#include <jansson.h>

struct fpd_cpu {
    char vendor[16];    /* "AuthenticAMD", "GenuineIntel", or the architecture elsewhere */
    char model[64];     /* the brand string: "AMD EPYC 9R14" */
    unsigned family, model_number, stepping;
    char isa[16];       /* "x86-64-v4" … "x86-64" (psABI levels, with the OS's register support), or "" */
    char features[320]; /* the kernel-choosing features present, space-separated: "sse3 … avx512_bf16" */
    unsigned l2_kib;    /* per core; 0: unknown */
};

/* This machine's CPU (computed once). */
const struct fpd_cpu *fpd_cpu_this(void);

/* As a JSON object: vendor, model, family, model_number, stepping, isa, features, l2_kib. */
json_t *fpd_cpu_json(const struct fpd_cpu *cpu);
/* One line: "AMD EPYC 9R14 (AuthenticAMD family 26 model 2 stepping 1), x86-64-v4, L2 1024 KiB". */
const char *fpd_cpu_describe(const struct fpd_cpu *cpu, char *buf, size_t size);

#endif

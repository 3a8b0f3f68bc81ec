/* cpu.c — the CPU's identity: CPUID on x86-64, /proc/cpuinfo elsewhere. */
#include "common/cpu.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>

enum reg { EAX, EBX, ECX, EDX };

/* XCR0 state an instruction set needs the OS to save: without it the instructions fault. */
#define XCR0_YMM 0x6u    /* SSE and AVX state */
#define XCR0_ZMM 0xe6u   /* and the AVX-512 opmask and upper ZMM state */
#define XCR0_TILE 0x60000u

/* The features BLAS libraries choose kernels by (OpenBLAS's cores need them: Bulldozer FMA4,
 * Opteron 3DNow!, SkylakeX AVX-512), and those the psABI levels are made of. */
static const struct feature {
    const char *name;
    unsigned leaf, subleaf;
    enum reg reg;
    unsigned bit;
    unsigned xcr0; /* OS-saved state it needs, or 0 */
} features[] = {
    {"sse3", 1, 0, ECX, 0, 0},          {"ssse3", 1, 0, ECX, 9, 0},
    {"sse4_1", 1, 0, ECX, 19, 0},       {"sse4_2", 1, 0, ECX, 20, 0},
    {"popcnt", 1, 0, ECX, 23, 0},       {"cx16", 1, 0, ECX, 13, 0},
    {"movbe", 1, 0, ECX, 22, 0},        {"lahf", 0x80000001, 0, ECX, 0, 0},
    {"lzcnt", 0x80000001, 0, ECX, 5, 0}, {"sse4a", 0x80000001, 0, ECX, 6, 0},
    {"3dnow", 0x80000001, 0, EDX, 31, 0}, {"avx", 1, 0, ECX, 28, XCR0_YMM},
    {"f16c", 1, 0, ECX, 29, XCR0_YMM},  {"fma", 1, 0, ECX, 12, XCR0_YMM},
    {"fma4", 0x80000001, 0, ECX, 16, XCR0_YMM}, {"xop", 0x80000001, 0, ECX, 11, XCR0_YMM},
    {"bmi1", 7, 0, EBX, 3, 0},          {"bmi2", 7, 0, EBX, 8, 0},
    {"avx2", 7, 0, EBX, 5, XCR0_YMM},   {"avx_vnni", 7, 1, EAX, 4, XCR0_YMM},
    {"avx512f", 7, 0, EBX, 16, XCR0_ZMM}, {"avx512dq", 7, 0, EBX, 17, XCR0_ZMM},
    {"avx512cd", 7, 0, EBX, 28, XCR0_ZMM}, {"avx512bw", 7, 0, EBX, 30, XCR0_ZMM},
    {"avx512vl", 7, 0, EBX, 31, XCR0_ZMM}, {"avx512_vnni", 7, 0, ECX, 11, XCR0_ZMM},
    {"avx512_bf16", 7, 1, EAX, 5, XCR0_ZMM}, {"avx512_fp16", 7, 0, EDX, 23, XCR0_ZMM},
    {"amx_bf16", 7, 0, EDX, 22, XCR0_TILE}, {"amx_tile", 7, 0, EDX, 24, XCR0_TILE},
};

/* The x86-64 psABI micro-architecture levels, highest first: each needs all of its features. */
static const struct level {
    const char *name;
    const char *needs;
} levels[] = {
    {"x86-64-v4", "avx512f avx512bw avx512cd avx512dq avx512vl"},
    {"x86-64-v3", "avx avx2 bmi1 bmi2 f16c fma lzcnt movbe"},
    {"x86-64-v2", "cx16 lahf popcnt sse3 sse4_1 sse4_2 ssse3"},
};

static bool cpuid(unsigned leaf, unsigned subleaf, unsigned r[4])
{
    unsigned max = __get_cpuid_max(leaf & 0x80000000u, NULL);
    if (max < leaf)
        return false;
    __cpuid_count(leaf, subleaf, r[EAX], r[EBX], r[ECX], r[EDX]);
    return true;
}

static unsigned os_saved_state(void)
{
    unsigned r[4];
    if (!cpuid(1, 0, r) || !(r[ECX] & (1u << 27))) /* OSXSAVE: the OS uses XSAVE, XGETBV works */
        return 0;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return lo;
}

static bool has_feature(const char *features, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = features; (p = strstr(p, name)) != NULL; p += len)
        if ((p == features || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return true;
    return false;
}

static void identify(struct fpd_cpu *cpu)
{
    unsigned r[4];
    if (cpuid(0, 0, r)) {
        memcpy(cpu->vendor, &r[EBX], 4), memcpy(cpu->vendor + 4, &r[EDX], 4), memcpy(cpu->vendor + 8, &r[ECX], 4);
        cpu->vendor[12] = '\0';
    }
    if (cpuid(1, 0, r)) { /* the displayed family and model: base plus extended fields */
        unsigned base_family = (r[EAX] >> 8) & 0xf, base_model = (r[EAX] >> 4) & 0xf;
        cpu->family = base_family + (base_family == 0xf ? (r[EAX] >> 20) & 0xff : 0);
        cpu->model_number = base_model | (base_family == 0x6 || base_family == 0xf ? ((r[EAX] >> 16) & 0xf) << 4 : 0);
        cpu->stepping = r[EAX] & 0xf;
    }
    char brand[49] = "";
    for (unsigned i = 0; i < 3 && cpuid(0x80000002 + i, 0, r); i++)
        memcpy(brand + 16 * i, r, 16);
    const char *start = brand + strspn(brand, " ");
    size_t len = strlen(start);
    while (len > 0 && start[len - 1] == ' ')
        len--;
    snprintf(cpu->model, sizeof cpu->model, "%.*s", (int)len, start);
    if (cpuid(0x80000006, 0, r))
        cpu->l2_kib = r[ECX] >> 16;

    unsigned xcr0 = os_saved_state();
    size_t used = 0;
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++) {
        const struct feature *f = &features[i];
        if (!cpuid(f->leaf, f->subleaf, r) || !(r[f->reg] & (1u << f->bit)) || (xcr0 & f->xcr0) != f->xcr0)
            continue;
        int n = snprintf(cpu->features + used, sizeof cpu->features - used, "%s%s", used ? " " : "", f->name);
        if (n > 0 && (size_t)n < sizeof cpu->features - used)
            used += (size_t)n;
    }
    snprintf(cpu->isa, sizeof cpu->isa, "x86-64");
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        char needs[96];
        snprintf(needs, sizeof needs, "%s", levels[i].needs);
        bool all = true;
        for (char *save = NULL, *name = strtok_r(needs, " ", &save); name; name = strtok_r(NULL, " ", &save))
            all &= has_feature(cpu->features, name);
        if (all) {
            snprintf(cpu->isa, sizeof cpu->isa, "%s", levels[i].name);
            break;
        }
    }
}

#else

/* Elsewhere the model name is what /proc/cpuinfo says, and the architecture stands for the vendor. */
static void identify(struct fpd_cpu *cpu)
{
#if defined(__aarch64__)
    snprintf(cpu->vendor, sizeof cpu->vendor, "aarch64");
#endif
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0)) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(cpu->model, sizeof cpu->model, "%s", colon);
            break;
        }
    }
    fclose(f);
}

#endif

const struct fpd_cpu *fpd_cpu_this(void)
{
    static struct fpd_cpu cpu;
    static bool known;
    if (!known) {
        identify(&cpu);
        if (!cpu.model[0])
            snprintf(cpu.model, sizeof cpu.model, "unknown");
        known = true;
    }
    return &cpu;
}

json_t *fpd_cpu_json(const struct fpd_cpu *cpu)
{
    return json_pack("{s:s,s:s,s:I,s:I,s:I,s:s,s:s,s:I}", "vendor", cpu->vendor, "model", cpu->model, "family",
                     (json_int_t)cpu->family, "model_number", (json_int_t)cpu->model_number, "stepping",
                     (json_int_t)cpu->stepping, "isa", cpu->isa, "features", cpu->features, "l2_kib",
                     (json_int_t)cpu->l2_kib);
}

const char *fpd_cpu_describe(const struct fpd_cpu *cpu, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s", cpu->model);
    if (cpu->vendor[0] && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, " (%s family %u model %u stepping %u)", cpu->vendor, cpu->family,
                      cpu->model_number, cpu->stepping);
    if (cpu->isa[0] && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, ", %s", cpu->isa);
    if (cpu->l2_kib && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, ", L2 %u KiB", cpu->l2_kib);
    return buf;
}

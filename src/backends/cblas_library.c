/* cblas_library.c — loading a CBLAS library so that its names answer for it alone, and calling it. */
#define _GNU_SOURCE /* dladdr, dlinfo */
#include "backends/cblas_library.h"
#include "backends/host.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/isolate.h"
#include "fpdiv_backend.h"

/* How builds name their symbols: plain CBLAS, ILP64 OpenBLAS (cblas_sgemm64_), and numpy's
 * scipy-openblas, which prefixes them too. */
static const struct naming {
    const char *prefix, *suffix;
    bool ilp64;
} namings[] = {
    {"", "", false},
    {"", "64_", true},
    {"scipy_", "64_", true},
    {"scipy_", "", false},
};

/* Whether the ELF file at path exports a symbol whose name starts with `prefix`, read from its
 * dynamic symbol table without loading it (no code of it runs; a FIFO is not waited on). */
static bool elf_exports(const char *path, const char *prefix)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        if (fd >= 0)
            close(fd);
        return false;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED)
        return false;
    bool found = false;
    const Elf64_Ehdr *eh = (const void *)file;
    bool elf64 = memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64;
    for (size_t i = 0; elf64 && !found && eh->e_shoff < size && i < eh->e_shnum; i++) {
        const Elf64_Shdr *sh = (const void *)(file + eh->e_shoff + i * sizeof *sh);
        if ((const unsigned char *)(sh + 1) > file + size || sh->sh_type != SHT_DYNSYM || sh->sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strtab = (const void *)(file + eh->e_shoff + sh->sh_link * sizeof *sh);
        if ((const unsigned char *)(strtab + 1) > file + size || sh->sh_offset > size ||
            sh->sh_size > size - sh->sh_offset || strtab->sh_offset > size || strtab->sh_size > size - strtab->sh_offset)
            continue;
        const Elf64_Sym *syms = (const void *)(file + sh->sh_offset);
        const char *names = (const char *)file + strtab->sh_offset;
        for (size_t s = 0; !found && s < sh->sh_size / sizeof *syms; s++) {
            if (syms[s].st_shndx == SHN_UNDEF || syms[s].st_name >= strtab->sh_size)
                continue;
            const char *name = names + syms[s].st_name;
            size_t room = strtab->sh_size - syms[s].st_name;
            if (memchr(name, '\0', room) && strncmp(name, prefix, strlen(prefix)) == 0)
                found = true;
        }
    }
    munmap((void *)file, size);
    return found;
}

bool fpd_cblas_file_is_openblas(const char *path)
{
    return elf_exports(path, "openblas_get_corename") || elf_exports(path, "scipy_openblas_get_corename");
}

static void *find(const struct fpd_cblas *lib, const char *name)
{
    char full[96];
    snprintf(full, sizeof full, "%s%s%s", lib->symbol_prefix, name, lib->symbol_suffix);
    return dlsym(lib->handle, full);
}

/* OpenBLAS: "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH …", its core, its thread count. */
static void describe_openblas(struct fpd_cblas *lib)
{
    const char *(*config)(void) = (const char *(*)(void))find(lib, "openblas_get_config");
    const char *(*corename)(void) = (const char *(*)(void))find(lib, "openblas_get_corename");
    int (*threads)(void) = (int (*)(void))find(lib, "openblas_get_num_threads");
    if (!config)
        return;
    char version[32] = "unknown";
    snprintf(lib->config, sizeof lib->config, "%s", config());
    sscanf(lib->config, "OpenBLAS %31s", version);
    snprintf(lib->library, sizeof lib->library, "OpenBLAS");
    snprintf(lib->version, sizeof lib->version, "%s", version);
    if (corename)
        snprintf(lib->kernel_set, sizeof lib->kernel_set, "%s", corename());
    if (threads)
        lib->default_threads = threads();
    lib->set_threads_int = (void (*)(int))find(lib, "openblas_set_num_threads");
}

/* oneMKL's code paths, by their MKL_CBWR names and mkl_cbwr.h's numbers (AVX512_MIC ones are
 * obsolete aliases of AVX2). OFF is MKL's default, without conditional numerical reproducibility:
 * MKL_CBWR unset (set to anything, OFF included, MKL takes AUTO, whose bits differ from OFF's). */
static const struct {
    int branch;
    const char *name;
} mkl_branches[] = {
    {1, "OFF"}, {2, "AUTO"}, {3, "COMPATIBLE"}, {4, "SSE2"}, {6, "SSSE3"}, {7, "SSE4_1"}, {8, "SSE4_2"}, {9, "AVX"}, {10, "AVX2"},
    {12, "AVX512"}, {14, "AVX512_E1"},
};

static const char *mkl_branch_name(int branch)
{
    for (size_t i = 0; i < sizeof mkl_branches / sizeof mkl_branches[0]; i++)
        if (mkl_branches[i].branch == (branch & 0xffff)) /* without MKL_CBWR_STRICT */
            return mkl_branches[i].name;
    return NULL;
}

/* oneMKL: "Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build …", and its code path:
 * the branch MKL_CBWR set (the same bits on every CPU that runs it), else AUTO, the CPU's own. */
static void describe_mkl(struct fpd_cblas *lib)
{
    void (*version_string)(char *, int) = (void (*)(char *, int))find(lib, "MKL_Get_Version_String");
    int (*threads)(void) = (int (*)(void))find(lib, "MKL_Get_Max_Threads");
    if (!version_string)
        return;
    /* OFF, the default, is the variable unset: oneMKL reads any value, OFF included, as AUTO. It
     * reads the variable at its first call, which is the next line's */
    const char *cbwr = getenv("MKL_CBWR");
    if (cbwr && strcasecmp(cbwr, "OFF") == 0)
        unsetenv("MKL_CBWR");
    version_string(lib->config, (int)sizeof lib->config);
    lib->config[sizeof lib->config - 1] = '\0';
    const char *v = strstr(lib->config, "Version ");
    char version[32] = "unknown";
    if (v)
        sscanf(v, "Version %31[0-9.]", version);
    snprintf(lib->library, sizeof lib->library, "oneMKL");
    snprintf(lib->version, sizeof lib->version, "%s", version);
    if (threads)
        lib->default_threads = threads();
    lib->set_threads_int = (void (*)(int))find(lib, "MKL_Set_Num_Threads");
    /* the C entry points: in the single dynamic library, mkl_cbwr_get is the Fortran one (by reference) */
    int (*cbwr_get)(int) = (int (*)(int))find(lib, "MKL_CBWR_Get");
    int (*auto_branch)(void) = (int (*)(void))find(lib, "MKL_CBWR_Get_Auto_Branch");
    const char *set = cbwr_get ? mkl_branch_name(cbwr_get(1 /* MKL_CBWR_BRANCH */)) : NULL;
    snprintf(lib->kernel_set, sizeof lib->kernel_set, "%s", set ? set : "unknown");
    if (auto_branch && mkl_branch_name(auto_branch()))
        snprintf(lib->native_branch, sizeof lib->native_branch, "%s", mkl_branch_name(auto_branch()));
    /* the code path: the CPU's, or what these chose (MKL_CBWR makes results the same on every CPU
     * that has the named instructions) */
    static const char *const chooser[] = {"MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS"};
    for (size_t i = 0; i < sizeof chooser / sizeof chooser[0]; i++) {
        const char *v = getenv(chooser[i]);
        size_t used = strlen(lib->settings);
        if (v && *v)
            snprintf(lib->settings + used, sizeof lib->settings - used, "%s%s=%.60s", used ? " " : "", chooser[i], v);
    }
}

/* The number BLIS gives its configuration `name` in the library at hand, or -1 when it has none of
 * that name. BLIS numbers its configurations in an enumeration whose order changes between
 * versions, and bli_arch_string reads a table of that enumeration's size without a bound: the walk
 * stops at "generic", which every version has last. */
static int blis_arch_number(const char *(*arch_name)(int), const char *name)
{
    for (int id = 0; id < 64; id++) {
        const char *s = arch_name(id);
        if (!s)
            return -1;
        if (strcasecmp(s, name) == 0)
            return id;
        if (strcmp(s, "generic") == 0)
            return -1;
    }
    return -1;
}

struct blis_start {
    void (*init)(void);
    int (*arch_id)(void);
};

static int start_blis(void *ctx)
{
    const struct blis_start *b = ctx;
    b->init();
    b->arch_id();
    return 0;
}

/* BLIS: its version, and the configuration (kernel set) it chose for the CPU, or was made to take:
 * BLIS_ARCH_TYPE as fpdiv sets it names a configuration ("haswell"), which BLIS reads as a number,
 * once, when it initializes (here). The variable is given that number for that moment only, so
 * that processes started later see the name. FPD_ERR_UNAVAILABLE where the library has no
 * configuration of that name: it would abort at its first call. */
static int describe_blis(struct fpd_cblas *lib, char *why, size_t why_size)
{
    const char *(*version)(void) = (const char *(*)(void))find(lib, "bli_info_get_version_str");
    void (*init)(void) = (void (*)(void))find(lib, "bli_init");
    int (*arch_id)(void) = (int (*)(void))find(lib, "bli_arch_query_id");
    const char *(*arch_name)(int) = (const char *(*)(int))find(lib, "bli_arch_string");
    int64_t (*threads)(void) = (int64_t (*)(void))find(lib, "bli_thread_get_num_threads");
    if (!version)
        return FPD_OK;
    snprintf(lib->library, sizeof lib->library, "BLIS");
    snprintf(lib->version, sizeof lib->version, "%s", version());
    const char *asked = getenv("BLIS_ARCH_TYPE");
    char name[48] = "";
    if (asked && !*asked) /* BLIS reads an empty value as 0, its first configuration (skx) */
        unsetenv("BLIS_ARCH_TYPE");
    else if (asked) {
        int id = arch_name && init && arch_id ? blis_arch_number(arch_name, asked) : -1;
        if (id < 0) {
            snprintf(why, why_size, "BLIS_ARCH_TYPE=%.40s: this BLIS (%s) has no configuration of that name", asked,
                     lib->version);
            return FPD_ERR_UNAVAILABLE;
        }
        char number[16], death[160];
        snprintf(name, sizeof name, "%s", asked);
        snprintf(number, sizeof number, "%d", id);
        setenv("BLIS_ARCH_TYPE", number, 1);
        snprintf(lib->settings, sizeof lib->settings, "BLIS_ARCH_TYPE=%s (%s)", name, number);
        /* a configuration the build left out aborts BLIS as it starts: tried in a child first */
        if (!fpd_host_proven() &&
            fpd_run_isolated(start_blis, &(struct blis_start){init, arch_id}, 60, death, sizeof death) != 0) {
            setenv("BLIS_ARCH_TYPE", name, 1);
            snprintf(why, why_size, "BLIS_ARCH_TYPE=%.40s: this BLIS (%s) cannot start on that configuration: %s",
                     name, lib->version, death);
            return FPD_ERR_UNAVAILABLE;
        }
    }
    if (init) /* before the query: with BLIS_ARCH_TYPE set, a query before it aborts */
        init();
    if (arch_id && arch_name)
        snprintf(lib->kernel_set, sizeof lib->kernel_set, "%s", arch_name(arch_id()));
    if (name[0])
        setenv("BLIS_ARCH_TYPE", name, 1);
    if (threads) /* -1 when no count is set: BLIS then runs one thread (BLIS_NUM_THREADS sets one) */
        lib->default_threads = threads() > 0 ? (int)threads() : 1;
    lib->set_threads_long = (void (*)(int64_t))find(lib, "bli_thread_set_num_threads");
    return FPD_OK;
}

/* A library that does not say its version (the reference BLAS) may carry it in its file's name:
 * libblas.so.3.11.0. */
static void version_of_file(struct fpd_cblas *lib)
{
    const char *so = strstr(lib->path, ".so.");
    if (so && strchr(so + 4, '.') && strspn(so + 4, "0123456789.") == strlen(so + 4))
        snprintf(lib->version, sizeof lib->version, "%.63s", so + 4);
}

/* The names through which a BLAS reaches its own code, which another library's could answer for. */
static const char *const blas_names[] = {"sgemm_", "dgemm_", "cblas_sgemm", "cblas_dgemm", "sgemv_", "sdot_"};

bool fpd_cblas_global_names(char *owner, size_t owner_size)
{
    for (size_t i = 0; i < sizeof blas_names / sizeof blas_names[0]; i++) {
        void *p = dlsym(RTLD_DEFAULT, blas_names[i]);
        Dl_info info;
        if (!p)
            continue;
        snprintf(owner, owner_size, "%s (%s)", blas_names[i],
                 dladdr(p, &info) && info.dli_fname ? info.dli_fname : "a library of this process");
        return true;
    }
    return false;
}

static int load_handle(const char *path, struct fpd_cblas *lib, char *why, size_t why_size)
{
    struct stat st; /* a FIFO or a device would block the loader, or feed it what it pleases */
    if (strchr(path, '/') && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "cannot load %s: not a regular file", path);
        return FPD_ERR_UNAVAILABLE;
    }
    /* RTLD_LOCAL: its names stay out of the global scope, where they could answer for another's;
     * RTLD_NOW: its own calls are bound now, to itself, before anything can make names global */
    lib->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib->handle) {
        const char *e = dlerror();
        snprintf(why, why_size, "cannot load %s: %s", path, e ? e : "unknown error");
        return FPD_ERR_UNAVAILABLE;
    }
    return FPD_OK;
}

int fpd_cblas_load(const char *path, struct fpd_cblas *lib, char *why, size_t why_size)
{
    *lib = (struct fpd_cblas){0};
    snprintf(lib->path, sizeof lib->path, "%s", path);
    if (load_handle(path, lib, why, why_size) != FPD_OK)
        return FPD_ERR_UNAVAILABLE;
    /* the file the loader found for a name alone, and where symbolic links (alternatives) lead */
    struct link_map *map = NULL;
    char *real = NULL;
    if (dlinfo(lib->handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name[0])
        real = realpath(map->l_name, NULL);
    if (real) {
        snprintf(lib->path, sizeof lib->path, "%s", real);
        free(real);
    }
    for (size_t i = 0; i < sizeof namings / sizeof namings[0] && !lib->sgemm; i++) {
        snprintf(lib->symbol_prefix, sizeof lib->symbol_prefix, "%s", namings[i].prefix);
        snprintf(lib->symbol_suffix, sizeof lib->symbol_suffix, "%s", namings[i].suffix);
        lib->ilp64 = namings[i].ilp64;
        lib->sgemm = find(lib, "cblas_sgemm");
    }
    lib->dgemm = lib->sgemm ? find(lib, "cblas_dgemm") : NULL;
    if (!lib->sgemm || !lib->dgemm) {
        snprintf(why, why_size, "%s exports no %s: not a CBLAS library", path,
                 lib->sgemm ? "cblas_dgemm" : "cblas_sgemm (nor an ILP64 or scipy-openblas name of it)");
        fpd_cblas_unload(lib);
        return FPD_ERR_UNAVAILABLE;
    }
    lib->sbgemm = find(lib, "cblas_sbgemm");
    lib->gemm_bf16 = find(lib, "cblas_gemm_bf16bf16f32");
    lib->gemm_f16 = find(lib, "cblas_gemm_f16f16f32");
    lib->gemv[0] = find(lib, "cblas_sgemv"), lib->gemv[1] = find(lib, "cblas_dgemv");
    lib->dot[0] = find(lib, "cblas_sdot"), lib->dot[1] = find(lib, "cblas_ddot");
    lib->syrk[0] = find(lib, "cblas_ssyrk"), lib->syrk[1] = find(lib, "cblas_dsyrk");
    lib->gemmt[0] = find(lib, "cblas_sgemmt"), lib->gemmt[1] = find(lib, "cblas_dgemmt");
    lib->default_threads = 1;
    describe_openblas(lib);
    describe_mkl(lib);
    if (describe_blis(lib, why, why_size) != FPD_OK) {
        fpd_cblas_unload(lib);
        return FPD_ERR_UNAVAILABLE;
    }
    if (!lib->version[0])
        version_of_file(lib);
    return FPD_OK;
}

void fpd_cblas_unload(struct fpd_cblas *lib)
{
    /* a library's threads may still be parked in its code: unloading it could pull the code from
     * under them, so its namespace stays for the life of the process */
    lib->handle = NULL;
}

void fpd_cblas_set_threads(const struct fpd_cblas *lib, int threads)
{
    if (threads <= 0)
        return;
    if (lib->set_threads_int)
        lib->set_threads_int(threads);
    else if (lib->set_threads_long)
        lib->set_threads_long(threads);
}

bool fpd_cblas_fits(const struct fpd_cblas *lib, const size_t *dims, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (dims[i] > (lib->ilp64 ? (size_t)INT64_MAX : (size_t)INT_MAX))
            return false;
    return true;
}

typedef void (*gemm32_fn)(int, int, int, int32_t, int32_t, int32_t, float, const void *, int32_t, const void *,
                          int32_t, float, float *, int32_t);
typedef void (*gemm64_fn)(int, int, int, int64_t, int64_t, int64_t, float, const void *, int64_t, const void *,
                          int64_t, float, float *, int64_t);
typedef void (*dgemm32_fn)(int, int, int, int32_t, int32_t, int32_t, double, const double *, int32_t, const double *,
                           int32_t, double, double *, int32_t);
typedef void (*dgemm64_fn)(int, int, int, int64_t, int64_t, int64_t, double, const double *, int64_t, const double *,
                           int64_t, double, double *, int64_t);

static int transpose(bool t) { return t ? FPD_CBLAS_TRANS : FPD_CBLAS_NO_TRANS; }

/* A row-major GEMM's arguments as the entry of `order` takes them: the column-major one computes
 * C^T = op(B)^T op(A)^T, n x m, on the same memory. */
struct gemm_call {
    int order, trans_a, trans_b;
    size_t m, n, lda, ldb;
    const void *a, *b;
};

static struct gemm_call gemm_call(bool col_major, bool trans_a, bool trans_b, size_t m, size_t n, const void *a,
                                  size_t lda, const void *b, size_t ldb)
{
    if (!col_major)
        return (struct gemm_call){FPD_CBLAS_ROW_MAJOR, transpose(trans_a), transpose(trans_b), m, n, lda, ldb, a, b};
    return (struct gemm_call){FPD_CBLAS_COL_MAJOR, transpose(trans_b), transpose(trans_a), n, m, ldb, lda, b, a};
}

void fpd_cblas_gemm_f32(const struct fpd_cblas *lib, const void *fn, bool col_major, bool trans_a, bool trans_b,
                        size_t m, size_t n, size_t k, float alpha, const void *a, size_t lda, const void *b,
                        size_t ldb, float beta, float *c, size_t ldc)
{
    struct gemm_call g = gemm_call(col_major, trans_a, trans_b, m, n, a, lda, b, ldb);
    if (lib->ilp64)
        ((gemm64_fn)(uintptr_t)fn)(g.order, g.trans_a, g.trans_b, (int64_t)g.m, (int64_t)g.n, (int64_t)k, alpha, g.a,
                                   (int64_t)g.lda, g.b, (int64_t)g.ldb, beta, c, (int64_t)ldc);
    else
        ((gemm32_fn)(uintptr_t)fn)(g.order, g.trans_a, g.trans_b, (int32_t)g.m, (int32_t)g.n, (int32_t)k, alpha, g.a,
                                   (int32_t)g.lda, g.b, (int32_t)g.ldb, beta, c, (int32_t)ldc);
}

void fpd_cblas_dgemm(const struct fpd_cblas *lib, bool col_major, bool trans_a, bool trans_b, size_t m, size_t n,
                     size_t k, double alpha, const double *a, size_t lda, const double *b, size_t ldb, double beta,
                     double *c, size_t ldc)
{
    struct gemm_call g = gemm_call(col_major, trans_a, trans_b, m, n, a, lda, b, ldb);
    if (lib->ilp64)
        ((dgemm64_fn)(uintptr_t)lib->dgemm)(g.order, g.trans_a, g.trans_b, (int64_t)g.m, (int64_t)g.n, (int64_t)k,
                                            alpha, g.a, (int64_t)g.lda, g.b, (int64_t)g.ldb, beta, c, (int64_t)ldc);
    else
        ((dgemm32_fn)(uintptr_t)lib->dgemm)(g.order, g.trans_a, g.trans_b, (int32_t)g.m, (int32_t)g.n, (int32_t)k,
                                            alpha, g.a, (int32_t)g.lda, g.b, (int32_t)g.ldb, beta, c, (int32_t)ldc);
}

/* The level-2 and level-1 entry points, by precision and integer width. */
typedef void (*sgemv32_fn)(int, int, int32_t, int32_t, float, const void *, int32_t, const void *, int32_t, float,
                           void *, int32_t);
typedef void (*sgemv64_fn)(int, int, int64_t, int64_t, float, const void *, int64_t, const void *, int64_t, float,
                           void *, int64_t);
typedef void (*dgemv32_fn)(int, int, int32_t, int32_t, double, const void *, int32_t, const void *, int32_t, double,
                           void *, int32_t);
typedef void (*dgemv64_fn)(int, int, int64_t, int64_t, double, const void *, int64_t, const void *, int64_t, double,
                           void *, int64_t);
typedef float (*sdot32_fn)(int32_t, const void *, int32_t, const void *, int32_t);
typedef float (*sdot64_fn)(int64_t, const void *, int64_t, const void *, int64_t);
typedef double (*ddot32_fn)(int32_t, const void *, int32_t, const void *, int32_t);
typedef double (*ddot64_fn)(int64_t, const void *, int64_t, const void *, int64_t);

void fpd_cblas_gemv(const struct fpd_cblas *lib, bool f64, int order, bool trans, size_t rows, size_t cols,
                    const void *a, size_t lda, const void *x, ptrdiff_t incx, double beta, void *y, ptrdiff_t incy)
{
    void *fn = lib->gemv[f64];
    int t = transpose(trans);
    if (f64 && lib->ilp64)
        ((dgemv64_fn)(uintptr_t)fn)(order, t, (int64_t)rows, (int64_t)cols, 1.0, a, (int64_t)lda, x, (int64_t)incx,
                                    beta, y, (int64_t)incy);
    else if (f64)
        ((dgemv32_fn)(uintptr_t)fn)(order, t, (int32_t)rows, (int32_t)cols, 1.0, a, (int32_t)lda, x, (int32_t)incx,
                                    beta, y, (int32_t)incy);
    else if (lib->ilp64)
        ((sgemv64_fn)(uintptr_t)fn)(order, t, (int64_t)rows, (int64_t)cols, 1.0f, a, (int64_t)lda, x, (int64_t)incx,
                                    (float)beta, y, (int64_t)incy);
    else
        ((sgemv32_fn)(uintptr_t)fn)(order, t, (int32_t)rows, (int32_t)cols, 1.0f, a, (int32_t)lda, x, (int32_t)incx,
                                    (float)beta, y, (int32_t)incy);
}

typedef void (*ssyrk32_fn)(int, int, int, int32_t, int32_t, float, const void *, int32_t, float, void *, int32_t);
typedef void (*ssyrk64_fn)(int, int, int, int64_t, int64_t, float, const void *, int64_t, float, void *, int64_t);
typedef void (*dsyrk32_fn)(int, int, int, int32_t, int32_t, double, const void *, int32_t, double, void *, int32_t);
typedef void (*dsyrk64_fn)(int, int, int, int64_t, int64_t, double, const void *, int64_t, double, void *, int64_t);

void fpd_cblas_syrk(const struct fpd_cblas *lib, bool f64, bool upper, bool trans, size_t n, size_t k, const void *a,
                    size_t lda, void *c, size_t ldc)
{
    void *fn = lib->syrk[f64];
    int t = transpose(trans), uplo = upper ? FPD_CBLAS_UPPER : FPD_CBLAS_LOWER;
    if (f64 && lib->ilp64)
        ((dsyrk64_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, t, (int64_t)n, (int64_t)k, 1.0, a, (int64_t)lda,
                                    0.0, c, (int64_t)ldc);
    else if (f64)
        ((dsyrk32_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, t, (int32_t)n, (int32_t)k, 1.0, a, (int32_t)lda,
                                    0.0, c, (int32_t)ldc);
    else if (lib->ilp64)
        ((ssyrk64_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, t, (int64_t)n, (int64_t)k, 1.0f, a,
                                    (int64_t)lda, 0.0f, c, (int64_t)ldc);
    else
        ((ssyrk32_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, t, (int32_t)n, (int32_t)k, 1.0f, a,
                                    (int32_t)lda, 0.0f, c, (int32_t)ldc);
}

typedef void (*sgemmt32_fn)(int, int, int, int, int32_t, int32_t, float, const void *, int32_t, const void *, int32_t,
                            float, void *, int32_t);
typedef void (*sgemmt64_fn)(int, int, int, int, int64_t, int64_t, float, const void *, int64_t, const void *, int64_t,
                            float, void *, int64_t);
typedef void (*dgemmt32_fn)(int, int, int, int, int32_t, int32_t, double, const void *, int32_t, const void *,
                            int32_t, double, void *, int32_t);
typedef void (*dgemmt64_fn)(int, int, int, int, int64_t, int64_t, double, const void *, int64_t, const void *,
                            int64_t, double, void *, int64_t);

void fpd_cblas_gemmt(const struct fpd_cblas *lib, bool f64, bool upper, bool trans_a, bool trans_b, size_t n, size_t k,
                     const void *a, size_t lda, const void *b, size_t ldb, void *c, size_t ldc)
{
    void *fn = lib->gemmt[f64];
    int uplo = upper ? FPD_CBLAS_UPPER : FPD_CBLAS_LOWER, ta = transpose(trans_a), tb = transpose(trans_b);
    if (f64 && lib->ilp64)
        ((dgemmt64_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, ta, tb, (int64_t)n, (int64_t)k, 1.0, a, (int64_t)lda, b,
                                     (int64_t)ldb, 0.0, c, (int64_t)ldc);
    else if (f64)
        ((dgemmt32_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, ta, tb, (int32_t)n, (int32_t)k, 1.0, a, (int32_t)lda, b,
                                     (int32_t)ldb, 0.0, c, (int32_t)ldc);
    else if (lib->ilp64)
        ((sgemmt64_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, ta, tb, (int64_t)n, (int64_t)k, 1.0f, a, (int64_t)lda,
                                     b, (int64_t)ldb, 0.0f, c, (int64_t)ldc);
    else
        ((sgemmt32_fn)(uintptr_t)fn)(FPD_CBLAS_ROW_MAJOR, uplo, ta, tb, (int32_t)n, (int32_t)k, 1.0f, a, (int32_t)lda,
                                     b, (int32_t)ldb, 0.0f, c, (int32_t)ldc);
}

double fpd_cblas_dot(const struct fpd_cblas *lib, bool f64, size_t n, const void *x, ptrdiff_t incx, const void *y,
                     ptrdiff_t incy)
{
    void *fn = lib->dot[f64];
    if (f64)
        return lib->ilp64 ? ((ddot64_fn)(uintptr_t)fn)((int64_t)n, x, (int64_t)incx, y, (int64_t)incy)
                          : ((ddot32_fn)(uintptr_t)fn)((int32_t)n, x, (int32_t)incx, y, (int32_t)incy);
    return lib->ilp64 ? ((sdot64_fn)(uintptr_t)fn)((int64_t)n, x, (int64_t)incx, y, (int64_t)incy)
                      : ((sdot32_fn)(uintptr_t)fn)((int32_t)n, x, (int32_t)incx, y, (int32_t)incy);
}

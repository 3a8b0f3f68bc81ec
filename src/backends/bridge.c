/* bridge.c — the client of the bridge's servers: JSON lines out, JSON lines in, operands shared. */
#define _GNU_SOURCE
#include "backends/bridge.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/server.h"
#include "common/clock.h"
#include "common/dtype.h"

extern char **environ;

/* MAX_REQUEST_GEMMS: the answer to a request fits a line, a reason of up to 400 characters for
 * each, every one of them escaped in JSON (\uXXXX: 6 bytes) */
enum { BRIDGE_PROTOCOL = 2, MAX_LINE = 1 << 18, MAX_DTYPES = 32, MAX_REQUEST_GEMMS = 64 };
_Static_assert(MAX_REQUEST_GEMMS * (400 * 6 + 64) < MAX_LINE, "an answer to a request must fit a line");

/* What the server writes of each GEMM of a request as it goes, a byte each at the start of the
 * shared memory: where it died or hung, they say which GEMM it was at. */
enum gemm_progress { GEMM_WAITING, GEMM_RUNNING, GEMM_DONE, GEMM_RAISED };

/* A request's GEMMs are described in the shared memory, after the progress bytes: a row of
 * GEMM_FIELDS 64-bit integers each, where JSON would cost the two sides more than a small GEMM.
 * The server's hello names the fields, types, routes and executions in the order it reads them,
 * which must be these. Offsets are in bytes, the rest in elements; bias -1: none; alpha_exp,
 * beta_exp and alpha_negative 0 unless the server said it has "scalars" (fpd_gemm_args). */
enum gemm_field {
    F_IN, F_OUT, F_ACC, F_BATCH, F_M, F_N, F_K, F_THREADS, F_ROUTE, F_EXECUTION,
    F_A, F_A_TRANS, F_A_LD, F_A_STRIDE, F_B, F_B_TRANS, F_B_LD, F_B_STRIDE, F_C, F_C_LD, F_C_STRIDE, F_BIAS,
    F_ALPHA_EXP, F_BETA_EXP, F_ALPHA_NEGATIVE, GEMM_FIELDS
};
static const char *const field_names[GEMM_FIELDS] = {
    "in", "out", "acc", "batch", "m", "n", "k", "threads", "route", "execution",
    "a", "a_trans", "a_ld", "a_stride", "b", "b_trans", "b_ld", "b_stride", "c", "c_ld", "c_stride", "bias",
    "alpha_exp", "beta_exp", "alpha_negative"};
enum { TABLE_AT = 64, OPERANDS_AT = TABLE_AT + MAX_REQUEST_GEMMS * GEMM_FIELDS * 8 };

struct fpd_bridge {
    struct fpd_server server;
    struct fpd_bridge_spec spec; /* its strings are the copies below */
    char label[160], python[1024], script[1024], framework[1024];
    uint64_t seq;
    struct fpd_dtypes dtypes[MAX_DTYPES];
    size_t n_dtypes;
    json_t *features, *provenance;
    char line[MAX_LINE]; /* what has come in of the current line */
    size_t line_len;
};


/* The next line from the server, parsed: FPD_OK, or FPD_ERR_BACKEND with why (then reaped). The
 * server has spec.timeout seconds, and as long again each time `moving` (when given) says it got on. */
static int receive(struct fpd_bridge *b, json_t **out, bool (*moving)(void *), void *ctx, char *why, size_t why_size)
{
    double timeout = b->spec.timeout;
    struct fpd_server_patience patience = {timeout > 0 ? fpd_now() + timeout : 0, timeout, moving, ctx};
    for (;;) {
        char *end = memchr(b->line, '\n', b->line_len);
        if (end) {
            size_t len = (size_t)(end - b->line);
            json_error_t error;
            *out = json_loadb(b->line, len, 0, &error);
            memmove(b->line, end + 1, b->line_len - len - 1);
            b->line_len -= len + 1;
            if (!json_is_object(*out)) {
                json_decref(*out);
                fpd_server_reap(&b->server, "sent a line that is no JSON object (killed)", why, why_size);
                return FPD_ERR_BACKEND;
            }
            return FPD_OK;
        }
        if (b->line_len == sizeof b->line) {
            fpd_server_reap(&b->server, "sent a line longer than 256 KiB (killed)", why, why_size);
            return FPD_ERR_BACKEND;
        }
        int rc = fpd_server_wait(&b->server, &patience, why, why_size);
        if (rc != FPD_OK)
            return rc;
        ssize_t got = read(b->server.sock, b->line + b->line_len, sizeof b->line - b->line_len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) { /* the other end is gone: the server died */
            fpd_server_reap(&b->server, NULL, why, why_size);
            return FPD_ERR_BACKEND;
        }
        b->line_len += (size_t)got;
    }
}

/* The message and its newline in one write: a line that arrives in two wakes its reader twice. */
static int send_line(struct fpd_bridge *b, json_t *msg, char *why, size_t why_size)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    size_t len = text ? strlen(text) : 0, sent = 0;
    char *line = text ? realloc(text, len + 2) : NULL;
    if (!line) {
        free(text);
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    memcpy(line + len, "\n", 2);
    int rc = FPD_OK;
    while (rc == FPD_OK && sent < len + 1) {
        ssize_t put = send(b->server.sock, line + sent, len + 1 - sent, MSG_NOSIGNAL);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0) {
            fpd_server_reap(&b->server, "could not be sent a request (killed)", why, why_size);
            rc = FPD_ERR_BACKEND;
        }
        sent += (size_t)(put > 0 ? put : 0);
    }
    free(line);
    return rc;
}

/* The hello's dtypes ([["bf16", "bf16", "f32"], …]); false when malformed. */
static bool read_dtypes(struct fpd_bridge *b, json_t *list)
{
    size_t i;
    json_t *entry;
    if (!json_is_array(list) || json_array_size(list) > MAX_DTYPES)
        return false;
    json_array_foreach(list, i, entry) {
        enum fpd_dtype t[3];
        for (size_t j = 0; j < 3; j++)
            if (!json_is_array(entry) || json_array_size(entry) != 3 ||
                fpd_dtype_parse(json_string_value(json_array_get(entry, j)) ? json_string_value(json_array_get(entry, j)) : "",
                                &t[j]) != FPD_OK)
                return false;
        b->dtypes[b->n_dtypes++] = (struct fpd_dtypes){t[0], t[1], t[2]};
    }
    return true;
}

/* Whether `names` (a JSON array) is the `count` names of `table`, in order. */
static bool same_names(json_t *names, const char *const *table, size_t count)
{
    if (!json_is_array(names) || json_array_size(names) != count)
        return false;
    for (size_t i = 0; i < count; i++) {
        const char *name = json_string_value(json_array_get(names, i));
        if (!name || strcmp(name, table[i]) != 0)
            return false;
    }
    return true;
}

/* The hello's "codes": the fields of a GEMM's row, and the types, routes and executions by their
 * numbers there, as the server reads them. */
static bool same_codes(json_t *codes)
{
    const char *dtypes[FPD_DTYPE_COUNT];
    for (int t = 0; t < FPD_DTYPE_COUNT; t++)
        dtypes[t] = fpd_dtype_info((enum fpd_dtype)t)->name;
    return same_names(json_object_get(codes, "fields"), field_names, GEMM_FIELDS) &&
           same_names(json_object_get(codes, "dtype"), dtypes, FPD_DTYPE_COUNT) &&
           same_names(json_object_get(codes, "route"), fpd_route_names, FPD_ROUTE_COUNT) &&
           same_names(json_object_get(codes, "execution"), fpd_execution_names, FPD_EXEC_COMPILED + 1);
}

/* The hello: FPD_OK, FPD_ERR_UNAVAILABLE with the server's own reason, or FPD_ERR_BACKEND. */
static int read_hello(struct fpd_bridge *b, char *why, size_t why_size)
{
    json_t *hello;
    int rc = receive(b, &hello, NULL, NULL, why, why_size);
    if (rc != FPD_OK)
        return rc;
    const char *error = json_string_value(json_object_get(hello, "error"));
    if (json_integer_value(json_object_get(hello, "hello")) != BRIDGE_PROTOCOL) {
        snprintf(why, why_size, "the bridge server for %s speaks another protocol than %d", b->label, BRIDGE_PROTOCOL);
        rc = FPD_ERR_BACKEND;
    } else if (error) {
        snprintf(why, why_size, "%.400s", error);
        rc = FPD_ERR_UNAVAILABLE;
    } else if (!read_dtypes(b, json_object_get(hello, "dtypes")) || !json_is_array(json_object_get(hello, "features")) ||
               !json_is_object(json_object_get(hello, "provenance"))) {
        snprintf(why, why_size, "the bridge server for %s sent a malformed hello", b->label);
        rc = FPD_ERR_BACKEND;
    } else if (!same_codes(json_object_get(hello, "codes"))) {
        snprintf(why, why_size, "the bridge server for %s reads the GEMMs' fields or codes otherwise than fpdiv writes "
                                "them (its hello's \"codes\")", b->label);
        rc = FPD_ERR_BACKEND;
    } else {
        b->features = json_incref(json_object_get(hello, "features"));
        b->provenance = json_incref(json_object_get(hello, "provenance"));
    }
    json_decref(hello);
    if (rc != FPD_OK)
        fpd_server_retire(&b->server);
    return rc;
}

int fpd_bridge_start(const struct fpd_bridge_spec *spec, struct fpd_bridge **out, char *why, size_t why_size)
{
    *out = NULL;
    struct fpd_bridge *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(why, why_size, "out of memory");
        return FPD_ERR_NOMEM;
    }
    snprintf(b->label, sizeof b->label, "%s", spec->label);
    snprintf(b->python, sizeof b->python, "%s", spec->python);
    snprintf(b->script, sizeof b->script, "%s", spec->server);
    snprintf(b->framework, sizeof b->framework, "%s", spec->framework);
    b->spec = (struct fpd_bridge_spec){b->label, b->python, b->script, b->framework, spec->timeout};
    char *argv[] = {b->python, b->script, b->framework, NULL};
    int rc = fpd_server_start(&b->server, "bridge server", b->label, argv, environ, SOCK_STREAM, why, why_size);
    if (rc == FPD_OK)
        rc = read_hello(b, why, why_size);
    if (rc != FPD_OK) {
        fpd_bridge_stop(b);
        return rc;
    }
    *out = b;
    return FPD_OK;
}

int fpd_bridge_renew(struct fpd_bridge **b, char *why, size_t why_size)
{
    if (fpd_server_usable(&(*b)->server))
        return FPD_OK;
    struct fpd_bridge *fresh;
    int rc = fpd_bridge_start(&(*b)->spec, &fresh, why, why_size);
    if (rc != FPD_OK)
        return rc;
    fpd_bridge_stop(*b);
    *b = fresh;
    return FPD_OK;
}

/* GEMM g's row in the table, its operands staged as l says. */
static void describe(int64_t *row, const struct fpd_gemm_args *g, const struct fpd_server_layout *l)
{
    int64_t fields[GEMM_FIELDS] = {
        [F_IN] = g->dt.in, [F_OUT] = g->dt.out, [F_ACC] = g->dt.acc, [F_BATCH] = (int64_t)g->batch,
        [F_M] = (int64_t)g->m, [F_N] = (int64_t)g->n, [F_K] = (int64_t)g->k, [F_THREADS] = g->threads,
        [F_ROUTE] = g->route, [F_EXECUTION] = g->execution,
        [F_A] = (int64_t)l->a, [F_A_TRANS] = g->trans_a, [F_A_LD] = (int64_t)g->lda, [F_A_STRIDE] = (int64_t)g->stride_a,
        [F_B] = (int64_t)l->b, [F_B_TRANS] = g->trans_b, [F_B_LD] = (int64_t)g->ldb, [F_B_STRIDE] = (int64_t)g->stride_b,
        [F_C] = (int64_t)l->c, [F_C_LD] = (int64_t)g->ldc, [F_C_STRIDE] = (int64_t)g->stride_c,
        [F_BIAS] = g->bias ? (int64_t)l->bias : -1,
        [F_ALPHA_EXP] = g->alpha_exp, [F_BETA_EXP] = g->beta_exp, [F_ALPHA_NEGATIVE] = g->alpha_negative,
    };
    memcpy(row, fields, sizeof fields);
}

/* A request under way: its GEMMs (indices into the caller's arrays) and where their operands lie. */
struct request {
    struct fpd_bridge *b;
    size_t count, index[MAX_REQUEST_GEMMS];
    struct fpd_server_layout layout[MAX_REQUEST_GEMMS];
    size_t finished; /* how many the server had finished when last looked at */
};

static size_t finished_gemms(const struct request *r)
{
    size_t done = 0;
    for (size_t j = 0; j < r->count; j++)
        done += r->b->server.map[j] >= GEMM_DONE;
    return done;
}

/* For the answer's deadline: a request of many GEMMs may take as long as each is given. */
static bool getting_on(void *ctx)
{
    struct request *r = ctx;
    size_t now = finished_gemms(r);
    bool moved = now > r->finished;
    r->finished = now;
    return moved;
}

/* The server died or hung (and was killed) during the request, `death` saying how: what it
 * finished stands; the GEMM it was at failed with that reason; those it had not begun are left
 * unsettled, for another server. So that every request settles one whatever its progress bytes
 * say, a death with none at work (or bytes that are none of ours) is the first unfinished one's. */
static void settle_after_death(struct request *r, const struct fpd_gemm_args *const *args, int *status, char *why,
                               size_t why_size, const char *death)
{
    bool blamed = false;
    size_t first_unfinished = r->count;
    for (size_t j = 0; j < r->count; j++) {
        size_t i = r->index[j];
        unsigned char progress = r->b->server.map ? r->b->server.map[j] : GEMM_WAITING;
        if (progress == GEMM_DONE) {
            status[i] = fpd_server_unstage(&r->b->server, args[i], &r->layout[j], why + i * why_size, why_size);
            continue;
        }
        if (first_unfinished == r->count)
            first_unfinished = j;
        if (progress == GEMM_RUNNING || progress == GEMM_RAISED) {
            snprintf(why + i * why_size, why_size, "%s%.400s",
                     progress == GEMM_RAISED ? "it raised an exception, whose reason was lost: " : "", death);
            status[i] = FPD_ERR_BACKEND;
            blamed = true;
        }
    }
    if (!blamed && first_unfinished < r->count) {
        size_t i = r->index[first_unfinished];
        snprintf(why + i * why_size, why_size, "%.400s", death);
        status[i] = FPD_ERR_BACKEND;
    }
}

/* Its answer: {"seq": S, "results": [{"ok": true} or {"ok": false, "why": "..."}, one per GEMM]}. */
static int read_answer(struct request *r, const struct fpd_gemm_args *const *args, int *status, char *why,
                       size_t why_size, char *death, size_t death_size)
{
    struct fpd_bridge *b = r->b;
    for (;;) {
        json_t *answer;
        int rc = receive(b, &answer, getting_on, r, death, death_size);
        if (rc != FPD_OK)
            return rc;
        if ((uint64_t)json_integer_value(json_object_get(answer, "seq")) != b->seq) {
            json_decref(answer); /* an answer to an earlier request it was given up on */
            continue;
        }
        json_t *results = json_object_get(answer, "results");
        bool well_formed = json_is_array(results) && json_array_size(results) == r->count;
        for (size_t j = 0; well_formed && j < r->count; j++)
            well_formed = json_is_boolean(json_object_get(json_array_get(results, j), "ok"));
        for (size_t j = 0; well_formed && j < r->count; j++) {
            size_t i = r->index[j];
            json_t *result = json_array_get(results, j);
            if (json_is_true(json_object_get(result, "ok"))) {
                status[i] = fpd_server_unstage(&b->server, args[i], &r->layout[j], why + i * why_size, why_size);
            } else { /* the framework's own failure, in its words */
                const char *said = json_string_value(json_object_get(result, "why"));
                snprintf(why + i * why_size, why_size, "%s: %.400s", b->label, said ? said : "failed, without a reason");
                status[i] = FPD_ERR_BACKEND;
            }
        }
        json_decref(answer);
        if (well_formed)
            return FPD_OK;
        fpd_server_reap(&b->server, "sent an answer without a result for each GEMM (killed)", death, death_size);
        for (size_t j = 0; j < r->count; j++) { /* what it says of them is not to be trusted */
            snprintf(why + r->index[j] * why_size, why_size, "%s", death);
            status[r->index[j]] = FPD_ERR_BACKEND;
        }
        return FPD_OK;
    }
}

/* Sends up to MAX_REQUEST_GEMMS of the unsettled GEMMs from `next` on in one request and settles
 * what it can of them; the index after the last one sent. `concurrent`: the server runs them from
 * as many threads at once. */
static size_t send_request(struct fpd_bridge *b, size_t count, const struct fpd_gemm_args *const *args, size_t next,
                           int *status, char *why, size_t why_size, bool concurrent)
{
    struct request *r = calloc(1, sizeof *r);
    int64_t *table = malloc(MAX_REQUEST_GEMMS * GEMM_FIELDS * sizeof *table);
    if (!r || !table) {
        free(r);
        free(table);
        status[next] = FPD_ERR_NOMEM;
        snprintf(why + next * why_size, why_size, "out of memory");
        return next + 1;
    }
    r->b = b;
    size_t at = OPERANDS_AT;
    for (; next < count && r->count < MAX_REQUEST_GEMMS; next++) {
        const struct fpd_gemm_args *g = args[next];
        if (status[next] != FPD_BRIDGE_UNSETTLED)
            continue;
        if (g->route >= FPD_ROUTE_COUNT || g->execution > FPD_EXEC_COMPILED) {
            snprintf(why + next * why_size, why_size, "%s: no such route or execution", b->label);
            status[next] = FPD_ERR_BACKEND;
            continue;
        }
        struct fpd_server_layout *l = &r->layout[r->count];
        if (fpd_server_stage(&b->server, g, at, l) != FPD_OK) {
            snprintf(why + next * why_size, why_size, "out of memory for the operands shared with the bridge server for %s",
                     b->label);
            status[next] = FPD_ERR_NOMEM;
            continue;
        }
        at = l->end;
        describe(table + r->count * GEMM_FIELDS, g, l);
        r->index[r->count++] = next;
    }
    if (r->count > 0) {
        memset(b->server.map, GEMM_WAITING, r->count);
        memcpy(b->server.map + TABLE_AT, table, r->count * GEMM_FIELDS * sizeof *table);
        json_t *msg = json_pack("{s:s,s:I,s:I,s:i,s:i,s:I,s:b}", "op", "gemm", "seq", (json_int_t)++b->seq, "memory",
                                (json_int_t)b->server.map_size, "progress", 0, "table", TABLE_AT, "count",
                                (json_int_t)r->count, "concurrent", concurrent);
        char death[400];
        int rc = msg ? send_line(b, msg, death, sizeof death) : FPD_ERR_NOMEM;
        json_decref(msg);
        if (rc == FPD_OK)
            rc = read_answer(r, args, status, why, why_size, death, sizeof death);
        if (rc == FPD_ERR_NOMEM)
            snprintf(death, sizeof death, "out of memory");
        if (rc != FPD_OK)
            settle_after_death(r, args, status, why, why_size, death);
    }
    free(table);
    free(r);
    return next;
}

void fpd_bridge_gemm_many(struct fpd_bridge *b, size_t count, const struct fpd_gemm_args *const *args, int *status,
                          char *why, size_t why_size)
{
    for (size_t next = 0; next < count && fpd_server_usable(&b->server);)
        next = send_request(b, count, args, next, status, why, why_size, false);
}

void fpd_bridge_gemm_concurrent(struct fpd_bridge *b, size_t count, const struct fpd_gemm_args *const *args,
                                int *status, char *why, size_t why_size)
{
    if (count > MAX_REQUEST_GEMMS) { /* never: callers are at most 8 */
        for (size_t i = 0; i < count; i++) {
            status[i] = FPD_ERR_BACKEND;
            snprintf(why + i * why_size, why_size, "%s: more callers at once than a request holds", b->label);
        }
        return;
    }
    if (fpd_server_usable(&b->server))
        send_request(b, count, args, 0, status, why, why_size, true);
}

bool fpd_bridge_supports(const struct fpd_bridge *b, const struct fpd_dtypes *dt)
{
    for (size_t i = 0; i < b->n_dtypes; i++)
        if (fpd_dtypes_equal(&b->dtypes[i], dt))
            return true;
    return false;
}

bool fpd_bridge_has_feature(const struct fpd_bridge *b, const char *feature)
{
    size_t i;
    json_t *f;
    json_array_foreach(b->features, i, f) {
        if (json_is_string(f) && strcmp(json_string_value(f), feature) == 0)
            return true;
    }
    return false;
}

void fpd_bridge_provenance(const struct fpd_bridge *b, fpd_provenance_fn emit, void *ctx)
{
    const char *key;
    json_t *value;
    json_object_foreach(b->provenance, key, value) {
        if (json_is_string(value))
            emit(ctx, key, json_string_value(value));
    }
}

void fpd_bridge_stop(struct fpd_bridge *b)
{
    if (!b)
        return;
    if (fpd_server_usable(&b->server)) {
        json_t *bye = json_pack("{s:s}", "op", "bye");
        char ignored[256];
        if (bye)
            send_line(b, bye, ignored, sizeof ignored);
        json_decref(bye);
    }
    fpd_server_retire(&b->server);
    json_decref(b->features);
    json_decref(b->provenance);
    free(b);
}

/* environment.c — a result's environment, as JSON and as report lines. */
#include "engine/environment.h"

#include <string.h>

#include "backends/thread_waits.h"
#include "common/cpu.h"
#include "common/version.h"
#include "cpu/vector_width.h"

static void emit_json(void *ctx, const char *key, const char *value)
{
    json_object_set_new(ctx, key, json_string(value ? value : ""));
}

json_t *fpd_backend_environment_json(struct fpd_backend_slot *slot)
{
    json_t *p = json_object();
    if (slot->state == FPD_SLOT_OPEN && slot->impl->provenance)
        slot->impl->provenance(slot->handle, emit_json, p);
    return p;
}

json_t *fpd_environment_of(struct fpd_backend_slot *const *slots, size_t n, int threads, unsigned generator)
{
    json_t *backends = json_object();
    for (size_t i = 0; i < n; i++) {
        json_t *b = fpd_backend_environment_json(slots[i]);
        if ((slots[i]->impl->features & FPD_FEAT_THREADS) && threads > 0)
            json_object_set_new(b, "threads", json_integer(threads));
        json_object_set_new(backends, slots[i]->impl->name, b);
    }
    return json_pack("{s:s,s:i,s:o,s:s,s:o,s:o}", "fpdiv", FPD_VERSION, "generator", (int)generator, "cpu",
                     fpd_cpu_json(fpd_cpu_this()), "vector_width", fpd_vector_width_name(fpd_vector_width()),
                     "thread_waits", fpd_thread_waits_json(), "backends", backends);
}

json_t *fpd_environment_json(const struct fpd_check *chk)
{
    return fpd_environment_of(chk->backends, (size_t)chk->relation->backends, fpd_check_threads(chk),
                              chk->c.recipe.generator);
}

char *fpd_environment_text(const struct fpd_check *chk)
{
    json_t *e = fpd_environment_json(chk);
    char *text = e ? json_dumps(e, JSON_COMPACT) : NULL;
    json_decref(e);
    return text;
}

json_t *fpd_checker_environment(const struct fpd_checker *ck, const struct fpd_check *chk)
{
    json_t *made_there = ck->environment_text ? json_loads(ck->environment_text, 0, NULL) : NULL;
    return made_there ? made_there : fpd_environment_json(chk);
}

/* The standard keys first, in words; the rest as key=value ("threads", a number, is the thread
 * count, which `threads` gives). */
const char *fpd_provenance_line(json_t *p, int threads, char *buf, size_t size)
{
    const char *library = json_string_value(json_object_get(p, "library"));
    const char *version = json_string_value(json_object_get(p, "version"));
    const char *kernel_set = json_string_value(json_object_get(p, "kernel_set"));
    size_t used = 0;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        int n_ = snprintf(buf + used, size - used, __VA_ARGS__);                                                       \
        used = n_ < 0 ? used : used + (size_t)n_ < size ? used + (size_t)n_ : size - 1;                               \
    } while (0)
    buf[0] = '\0';
    if (library)
        ADD("%s%s%s", library, version ? " " : "", version ? version : "");
    if (kernel_set)
        ADD("%skernel set %s", used ? ", " : "", kernel_set);
    if (threads > 0)
        ADD("%s%d thread%s", used ? ", " : "", threads, threads == 1 ? "" : "s");
    const char *key;
    json_t *value;
    json_object_foreach(p, key, value)
    {
        if (json_is_string(value) && strcmp(key, "library") != 0 && strcmp(key, "version") != 0 &&
            strcmp(key, "kernel_set") != 0)
            ADD("%s%s=%s", used ? "; " : "", key, json_string_value(value));
    }
#undef ADD
    return buf;
}

const char *fpd_backend_environment_line(struct fpd_backend_slot *slot, int threads, char *buf, size_t size)
{
    json_t *p = fpd_backend_environment_json(slot);
    fpd_provenance_line(p, slot->impl->features & FPD_FEAT_THREADS ? threads : 0, buf, size);
    json_decref(p);
    return buf;
}

/*
 * array.h — growable arrays: room for one more item, or for `need`, in an array that doubles.
 *
 *     if (!FPD_ARRAY_RESERVE(list->items, list->cap, list->n + 1))
 *         return FPD_ERR_NOMEM;
 *     list->items[list->n++] = item;
 */
#ifndef FPD_ARRAY_H
#define FPD_ARRAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes *items (an array of `size`-byte items with room for *cap) hold at least `need`: the room
 * doubles, from 16. False when memory or size_t runs out, with the array as it was. `items_ptr`
 * points at the array's pointer, whatever its type. */
static inline bool fpd_array_reserve(void *items_ptr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t grown = *cap ? *cap : 16;
    while (grown < need)
        grown = grown <= SIZE_MAX / 2 ? grown * 2 : need;
    if (grown > SIZE_MAX / size)
        return false;
    void *items;
    memcpy(&items, items_ptr, sizeof items);
    void *p = realloc(items, grown * size);
    if (!p)
        return false;
    memcpy(items_ptr, &p, sizeof p);
    *cap = grown;
    return true;
}

#define FPD_ARRAY_RESERVE(items, cap, need) fpd_array_reserve(&(items), &(cap), (need), sizeof *(items))

#endif

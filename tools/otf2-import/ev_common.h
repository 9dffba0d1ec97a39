/*
 * tools/otf2-import/ev_common.h - shorthand shared by the event callbacks.
 *
 * Every OTF2 event callback starts with the same five parameters (EV_ARGS)
 * and the same prologue (EV_BEGIN: ev_begin checks and converts the time).
 */
#ifndef NVTXW_OTF2_EV_COMMON_H
#define NVTXW_OTF2_EV_COMMON_H

#include "otf2_import.h"

#define EV_ARGS                                                                                    \
    OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *user_data,            \
        OTF2_AttributeList *attributes

#define EV_BEGIN(kind)                                                                             \
    loc_ctx* c = user_data;                                                                        \
    (void)location, (void)position;                                                                \
    do {                                                                                           \
        OTF2_CallbackCode begin_ = ev_begin(c, (kind), time);                                      \
        if (begin_ != OTF2_CALLBACK_SUCCESS)                                                       \
            return begin_;                                                                         \
    } while (0)

/* A registered string handle as a payload value. */
#define HANDLE(h) ((uint64_t)(uintptr_t)(h))
/* The name of an event (registered "otf2:<Kind>"). */
#define NAME(c, k) HANDLE((c)->im->names[(k)])
/* A paradigm's category. */
#define PARADIGM(c, p) ((uint64_t)(c)->im->paradigm_category[(p)&0xFFu])
/* A signed value as a payload value. */
#define SIGNED(v) ((uint64_t)(int64_t)(v))
/* OTF2's undefined uint32 (a root, a rank) as -1. */
#define RANK(v) ((v) == OTF2_UNDEFINED_UINT32 ? (uint64_t)-1 : (uint64_t)(v))

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Writes a mark/push of schema `es`: time, name, category, then `...`. */
#define EV_MARK(kind, es, category, ...)                                                           \
    do {                                                                                           \
        const uint64_t v_[] = {(uint64_t)c->now, NAME(c, (kind)), (category), __VA_ARGS__};        \
        return ev_write(c, (kind), (es), v_, COUNT_OF(v_), attributes);                            \
    } while (0)

#endif /* NVTXW_OTF2_EV_COMMON_H */

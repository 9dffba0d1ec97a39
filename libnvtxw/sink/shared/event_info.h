/*
 * sink/shared/event_info.h - the event summary shared by the sinks that analyse
 * events (stats, sqlite): one validating walk (core_event_visit) yields the
 * schema role, the range timestamps, the range ID, category, color and
 * message. Rules in event_info.c.
 */
#ifndef NVTXW_SINK_SHARED_EVENT_INFO_H
#define NVTXW_SINK_SHARED_EVENT_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "core/sink.h"

/* event_info_walk flags. */
enum {
    /* Also read the members of nested (non-array) structs as if they were
     * top-level entries. Without it only top-level entries count. */
    EVENT_INFO_STRUCT_MEMBERS = 1
};

typedef struct event_info {
    unsigned role; /* NVTXW_PAYLOAD_SCHEMA_ROLE of the first payload having one */
    int has_begin, has_end, has_point, has_range_id, has_message;
    int64_t begin, end;                 /* TIMESTAMP | RANGE_BEGIN, TIMESTAMP | RANGE_END */
    int64_t point;                      /* the first TIMESTAMP with MARK or no role */
    uint64_t range_id, category, color; /* category, color: 0 when absent */
    int has_scope;                      /* a SCOPE_ID entry was seen */
    uint64_t scope;                     /* the first SCOPE_ID entry (the task of a task event) */
    /* The message: `message_length` bytes at offset `message` of the text
     * buffer given to event_info_walk (NUL-terminated there). */
    size_t message, message_length;
    /* Handle of the last registered-string message (0 for UTF-8 text); kept
     * when a later handle 0 clears the message. */
    uint64_t message_handle;
} event_info;

/*
 * Walks `event` once with core_event_visit (NVTXW_VISIT_ALLOW_FOREIGN_POINTERS)
 * and fills `info` and `facts`. The message text is appended to `text`, past
 * its length at the call. Returns core_event_visit's status; on failure
 * `text` may hold partial text (cut it back to discard the event).
 */
nvtxwResultCode_t event_info_walk(const core_event* event, unsigned flags, strbuf* text,
                                  event_info* info, core_event_facts* facts);

/* The time of one side of a range: END (end_side) or BEGIN, else the point.
 * Returns 0, leaving *time alone, when the event has neither. */
int event_info_time(const event_info* info, int end_side, int64_t* time);

#endif /* NVTXW_SINK_SHARED_EVENT_INFO_H */

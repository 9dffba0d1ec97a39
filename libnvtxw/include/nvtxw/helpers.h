/*
 * nvtxw/helpers.h - NVIDIA's NVTXW helper functions (nvtxw3_event_helpers.h,
 * nvtxw3_setup_helpers.h, nvtxw3_counter_helpers.h), as
 * static inline functions with NVIDIA's names and behaviour, so producers
 * built on the official helpers send the same calls and bytes through us.
 *
 * Contracts shared by every helper:
 *  - stateless: no mutable globals (schema tables are static const), so they
 *    are as thread-safe as the backend calls they make;
 *  - arguments are checked first; a bad one returns
 *    NVTXW_RESULT_INVALID_ARGUMENT without any backend call, and when the
 *    program links libnvtxw (found through a weak reference on ELF systems
 *    with GCC or Clang) leaves "cannot call HELPER: CONDITION" in
 *    nvtxw_last_error(); through the loader alone there is no message, as
 *    with NVIDIA's helpers;
 *  - backend results are returned unchanged (NOT_SUPPORTED included);
 *  - pointers handed to the backend are borrowed for the call only (the
 *    UTF-8 message payload points straight at the caller's buffer).
 *
 * Coexistence: the three groups are wrapped in the guard macros of NVIDIA's
 * headers (NVTXW_EVENT_HELPERS_API, NVTXW_SETUP_HELPERS_API,
 * NVTXW_COUNTER_HELPERS_API), so a group already defined by NVIDIA's header
 * is skipped here and vice versa. The helper types come from
 * nvtxw/helper_types.h.
 */
#ifndef NVTXW_HELPERS_H
#define NVTXW_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nvtxw/abi.h"
#include "nvtxw/helper_types.h"
#include "nvtxw/loader.h"

#if !defined(NVTXW_INLINE_STATIC)
#define NVTXW_INLINE_STATIC static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The message of a refused helper call (nvtxw/error.h), when libnvtxw is
 * linked: a weak reference, so programs that only load a backend through
 * the loader still link. NVTXW_NO_HELPER_MESSAGES turns it off. */
#if defined(__GNUC__) && defined(__ELF__) && !defined(NVTXW_NO_HELPER_MESSAGES)
void nvtxw_helper_refused(const char* helper, const char* condition) __attribute__((weak));
#define NVTXW_HELPER_REFUSE_(helper, condition)                                                    \
    (nvtxw_helper_refused ? nvtxw_helper_refused(helper, condition) : (void)0,                     \
     NVTXW_RESULT_INVALID_ARGUMENT)
#else
#define NVTXW_HELPER_REFUSE_(helper, condition) NVTXW_RESULT_INVALID_ARGUMENT
#endif

/* ======================= Event helpers ======================= */
#if !defined(NVTXW_EVENT_HELPERS_API)
#define NVTXW_EVENT_HELPERS_API

/* Stores the handles in `writer`; copies *schemaIds by value (NULL clears the
 * IDs). Only `writer` is checked; the write functions check the rest. */
NVTXW_INLINE_STATIC nvtxwResultCode_t
nvtxwEventWriterInit(nvtxwEventWriter_t* writer, const nvtxwInterface_t* iface,
                     nvtxwStreamHandle_t stream, const nvtxwEventHelperSchemaIds_t* schemaIds) {
    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwEventWriterInit", "writer == NULL");
    writer->iface = iface;
    writer->stream = stream;
    if (schemaIds != NVTX_NULLPTR)
        writer->schemaIds = *schemaIds;
    else
        memset(&writer->schemaIds, 0, sizeof writer->schemaIds);
    return NVTXW_RESULT_SUCCESS;
}

/* One helper schema: which mask bits select it, its attr values and where its
 * ID goes in nvtxwEventHelperSchemaIds_t. Implementation detail. */
typedef struct nvtxw_helper_schema_desc {
    uint32_t selector;
    uint64_t flags;
    uint64_t type;
    const nvtxPayloadSchemaEntry_t* entries;
    size_t numEntries;
    size_t payloadStaticSize;
    size_t idOffset;
} nvtxw_helper_schema_desc_t;

#define NVTXW_HELPER_SCHEMA_COUNT 13

/* Mask bits of the schemas whose events carry a UTF-8 message payload. */
#define NVTXW_HELPER_SCHEMA_UTF8_BITS                                                              \
    (NVTXW_EVENT_HELPER_SCHEMA_MARK_UTF8 | NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_UTF8 |          \
     NVTXW_EVENT_HELPER_SCHEMA_RANGE_STARTEND_UTF8 | NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_UTF8 |   \
     NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_UTF8)

#define NVTXW_HELPER_ENTRY_(flags, type, name, offset)                                             \
    { (flags), (type), (name), NVTX_NULLPTR, 0, (offset), NVTX_NULLPTR, NVTX_NULLPTR }
#define NVTXW_HELPER_TS_(role, payload, field)                                                     \
    NVTXW_HELPER_ENTRY_(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | (role), NVTX_PAYLOAD_ENTRY_TYPE_INT64, \
                        #field, offsetof(payload, field))
#define NVTXW_HELPER_COLOR_(payload)                                                               \
    NVTXW_HELPER_ENTRY_(0, NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB, "color",                            \
                        offsetof(payload, attr.color))
#define NVTXW_HELPER_CATEGORY_(payload)                                                            \
    NVTXW_HELPER_ENTRY_(0, NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY, "category",                           \
                        offsetof(payload, attr.category))
#define NVTXW_HELPER_RANGEID_(payload)                                                             \
    NVTXW_HELPER_ENTRY_(0, NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID, "rangeId", offsetof(payload, rangeId))
#define NVTXW_HELPER_MSGREG_(payload)                                                              \
    NVTXW_HELPER_ENTRY_(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE,                                     \
                        NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "message",          \
                        offsetof(payload, attr.message))
#define NVTXW_HELPER_DESC_(bit, role, entries, payload, id)                                        \
    {                                                                                              \
        (bit), (role), NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, (entries),                                 \
            sizeof(entries) / sizeof((entries)[0]), sizeof(payload),                               \
            offsetof(nvtxwEventHelperSchemaIds_t, id)                                              \
    }

/* The 13 helper schemas, in registration order (index 12, the
 * shared UTF-8 message schema, last). A data table, hence the length. */
NVTXW_INLINE_STATIC const nvtxw_helper_schema_desc_t* nvtxw_helper_schema_descs(void) {
    static const nvtxPayloadSchemaEntry_t markUtf8[] = {
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_MARK, nvtxwEventUtf8Payload_t, timestamp),
        NVTXW_HELPER_COLOR_(nvtxwEventUtf8Payload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwEventUtf8Payload_t)};
    static const nvtxPayloadSchemaEntry_t markReg[] = {
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_MARK, nvtxwEventRegStringPayload_t, timestamp),
        NVTXW_HELPER_COLOR_(nvtxwEventRegStringPayload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwEventRegStringPayload_t),
        NVTXW_HELPER_MSGREG_(nvtxwEventRegStringPayload_t)};
    static const nvtxPayloadSchemaEntry_t rangeUtf8[] = {
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxwRangeEventUtf8Payload_t,
                         timestampBegin),
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, nvtxwRangeEventUtf8Payload_t,
                         timestampEnd),
        NVTXW_HELPER_COLOR_(nvtxwRangeEventUtf8Payload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwRangeEventUtf8Payload_t)};
    static const nvtxPayloadSchemaEntry_t rangeReg[] = {
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxwRangeEventRegStringPayload_t,
                         timestampBegin),
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, nvtxwRangeEventRegStringPayload_t,
                         timestampEnd),
        NVTXW_HELPER_COLOR_(nvtxwRangeEventRegStringPayload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwRangeEventRegStringPayload_t),
        NVTXW_HELPER_MSGREG_(nvtxwRangeEventRegStringPayload_t)};
    static const nvtxPayloadSchemaEntry_t pushUtf8[] = {
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxwEventUtf8Payload_t, timestamp),
        NVTXW_HELPER_COLOR_(nvtxwEventUtf8Payload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwEventUtf8Payload_t)};
    static const nvtxPayloadSchemaEntry_t pushReg[] = {
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxwEventRegStringPayload_t,
                         timestamp),
        NVTXW_HELPER_COLOR_(nvtxwEventRegStringPayload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwEventRegStringPayload_t),
        NVTXW_HELPER_MSGREG_(nvtxwEventRegStringPayload_t)};
    static const nvtxPayloadSchemaEntry_t pop[] = {
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, nvtxwRangePopPayload_t, timestamp)};
    static const nvtxPayloadSchemaEntry_t startUtf8[] = {
        NVTXW_HELPER_RANGEID_(nvtxwRangeIdEventUtf8Payload_t),
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxwRangeIdEventUtf8Payload_t,
                         timestamp),
        NVTXW_HELPER_COLOR_(nvtxwRangeIdEventUtf8Payload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwRangeIdEventUtf8Payload_t)};
    static const nvtxPayloadSchemaEntry_t startReg[] = {
        NVTXW_HELPER_RANGEID_(nvtxwRangeIdEventRegStringPayload_t),
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, nvtxwRangeIdEventRegStringPayload_t,
                         timestamp),
        NVTXW_HELPER_COLOR_(nvtxwRangeIdEventRegStringPayload_t),
        NVTXW_HELPER_CATEGORY_(nvtxwRangeIdEventRegStringPayload_t),
        NVTXW_HELPER_MSGREG_(nvtxwRangeIdEventRegStringPayload_t)};
    static const nvtxPayloadSchemaEntry_t end[] = {
        NVTXW_HELPER_RANGEID_(nvtxwRangeEndPayload_t),
        NVTXW_HELPER_TS_(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, nvtxwRangeEndPayload_t, timestamp)};
    /* The message payload is the caller's bytes; the backend bounds the
     * zero-terminated scan by the payload size. */
    static const nvtxPayloadSchemaEntry_t message[] = {NVTXW_HELPER_ENTRY_(
        NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED,
        NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "message", 0)};
    static const nvtxw_helper_schema_desc_t descs[NVTXW_HELPER_SCHEMA_COUNT] = {
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_MARK_UTF8, NVTX_PAYLOAD_SCHEMA_FLAG_MARK,
                           markUtf8, nvtxwEventUtf8Payload_t, markUtf8),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_MARK_REG_STRING, NVTX_PAYLOAD_SCHEMA_FLAG_MARK,
                           markReg, nvtxwEventRegStringPayload_t, markRegString),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_UTF8,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, rangeUtf8,
                           nvtxwRangeEventUtf8Payload_t, rangePushPopUtf8),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_REG_STRING,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, rangeReg,
                           nvtxwRangeEventRegStringPayload_t, rangePushPopRegString),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_STARTEND_UTF8,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND, rangeUtf8,
                           nvtxwRangeEventUtf8Payload_t, rangeStartEndUtf8),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_STARTEND_REG_STRING,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND, rangeReg,
                           nvtxwRangeEventRegStringPayload_t, rangeStartEndRegString),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_UTF8,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH, pushUtf8, nvtxwEventUtf8Payload_t,
                           rangePushUtf8),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_REG_STRING,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH, pushReg,
                           nvtxwEventRegStringPayload_t, rangePushRegString),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_POP, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP,
                           pop, nvtxwRangePopPayload_t, rangePop),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_UTF8,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START, startUtf8,
                           nvtxwRangeIdEventUtf8Payload_t, rangeStartUtf8),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_REG_STRING,
                           NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START, startReg,
                           nvtxwRangeIdEventRegStringPayload_t, rangeStartRegString),
        NVTXW_HELPER_DESC_(NVTXW_EVENT_HELPER_SCHEMA_RANGE_END, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END,
                           end, nvtxwRangeEndPayload_t, rangeEnd),
        {NVTXW_HELPER_SCHEMA_UTF8_BITS, 0, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, message, 1, 0,
         offsetof(nvtxwEventHelperSchemaIds_t, eventMessageUtf8)}};
    return descs;
}

#undef NVTXW_HELPER_ENTRY_
#undef NVTXW_HELPER_TS_
#undef NVTXW_HELPER_COLOR_
#undef NVTXW_HELPER_CATEGORY_
#undef NVTXW_HELPER_RANGEID_
#undef NVTXW_HELPER_MSGREG_
#undef NVTXW_HELPER_DESC_

/*
 * Registers the helper schemas selected by `schemaMask` (NVTXW_EVENT_HELPER_
 * SCHEMA_* bits; the shared UTF-8 message schema comes along with any UTF-8
 * bit and is registered last) in `domain`, each with dynamic ID and
 * fieldMask TYPE|FLAGS|ENTRIES|NUM_ENTRIES|STATIC_SIZE. *schemaIdsOut is
 * zeroed first; unselected IDs stay 0. Stops at, and returns, the first
 * failing SchemaRegister result. Mask 0 or bits outside
 * NVTXW_EVENT_HELPER_SCHEMA_ALL: INVALID_ARGUMENT.
 */
NVTXW_INLINE_STATIC nvtxwResultCode_t
nvtxwEventSchemasRegister(const nvtxwInterface_t* iface, nvtxDomainHandle_t domain,
                          uint32_t schemaMask, nvtxwEventHelperSchemaIds_t* schemaIdsOut) {
    const nvtxw_helper_schema_desc_t* descs = nvtxw_helper_schema_descs();
    nvtxPayloadSchemaAttr_t attr;
    size_t i;

    if (iface == NVTX_NULLPTR || iface->SchemaRegister == NVTX_NULLPTR || domain == NVTX_NULLPTR ||
        schemaIdsOut == NVTX_NULLPTR || schemaMask == 0 ||
        (schemaMask & ~(uint32_t)NVTXW_EVENT_HELPER_SCHEMA_ALL) != 0)
        return NVTXW_HELPER_REFUSE_("nvtxwEventSchemasRegister",
                                    "one of these holds: iface == NULL, iface->SchemaRegister == "
                                    "NULL, domain == NULL, schemaIdsOut == NULL, schemaMask == 0, "
                                    "(schemaMask & ~(uint32_t)NVTXW_EVENT_HELPER_SCHEMA_ALL) != 0");
    memset(schemaIdsOut, 0, sizeof *schemaIdsOut);
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    for (i = 0; i < NVTXW_HELPER_SCHEMA_COUNT; ++i) {
        const nvtxw_helper_schema_desc_t* desc = &descs[i];
        uint64_t* idOut = (uint64_t*)(void*)((char*)schemaIdsOut + desc->idOffset);
        nvtxwResultCode_t result;

        if ((schemaMask & desc->selector) == 0)
            continue;
        attr.type = desc->type;
        attr.flags = desc->flags;
        attr.entries = desc->entries;
        attr.numEntries = desc->numEntries;
        attr.payloadStaticSize = desc->payloadStaticSize;
        result = iface->SchemaRegister(domain, &attr, idOut);
        if (result != NVTXW_RESULT_SUCCESS)
            return result;
    }
    return NVTXW_RESULT_SUCCESS;
}

/* Non-zero when `writer`'s table, EventWrite member and stream are usable
 * with event schema `schemaId` (0 = not registered). */
NVTXW_INLINE_STATIC int nvtxw_helper_writer_ready(const nvtxwEventWriter_t* writer,
                                                  uint64_t schemaId) {
    return writer->iface != NVTX_NULLPTR && writer->iface->EventWrite != NVTX_NULLPTR &&
           writer->stream != NVTX_NULLPTR && schemaId != 0;
}

/* Writes one registered-string event: a single payload. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxw_helper_write_one(const nvtxwEventWriter_t* writer,
                                                             uint64_t schemaId, const void* payload,
                                                             size_t size) {
    nvtxPayloadData_t data;

    if (!nvtxw_helper_writer_ready(writer, schemaId) || payload == NVTX_NULLPTR || size == 0)
        return NVTXW_HELPER_REFUSE_("an event write helper",
                                    "one of these holds: the writer has no table, EventWrite or "
                                    "stream, or not its helper schema, payload == NULL, size == 0");
    data.schemaId = schemaId;
    data.size = size;
    data.payload = payload;
    return writer->iface->EventWrite(writer->stream, &data, 1);
}

/* Writes one UTF-8 event: the fixed header, then the message as its own
 * payload pointing at the caller's bytes (length = messageLength, or strlen
 * when 0). A NULL or empty message travels as {id, 1, ""}: payloads of size
 * 0 are ignored by backends, and the event must still carry a message. */
NVTXW_INLINE_STATIC nvtxwResultCode_t
nvtxw_helper_write_utf8(const nvtxwEventWriter_t* writer, uint64_t schemaId, const void* header,
                        size_t headerSize, const nvtxwEventAttributesUtf8_t* attr) {
    nvtxPayloadData_t data[2];
    size_t length = 0;

    if (!nvtxw_helper_writer_ready(writer, schemaId) || writer->schemaIds.eventMessageUtf8 == 0 ||
        header == NVTX_NULLPTR || headerSize == 0)
        return NVTXW_HELPER_REFUSE_(
            "a UTF-8 event write helper",
            "one of these holds: the writer has no table, EventWrite or stream, or not its helper "
            "schema, writer->schemaIds.eventMessageUtf8 == 0, header == NULL, headerSize == 0");
    if (attr->message != NVTX_NULLPTR)
        length = attr->messageLength != 0 ? attr->messageLength : strlen(attr->message);
    data[0].schemaId = schemaId;
    data[0].size = headerSize;
    data[0].payload = header;
    data[1].schemaId = writer->schemaIds.eventMessageUtf8;
    data[1].size = length != 0 ? length : 1;
    data[1].payload = length != 0 ? (const void*)attr->message : (const void*)"";
    return writer->iface->EventWrite(writer->stream, data, 2);
}

/* ---- Write functions. Each zeroes its payload struct, fills it and sends
 * it; the timestamps use the stream's default time domain. */

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwMarkWriteUtf8(const nvtxwEventWriter_t* writer,
                                                         int64_t timestamp,
                                                         nvtxwEventAttributesUtf8_t attr) {
    nvtxwEventUtf8Payload_t header;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwMarkWriteUtf8", "writer == NULL");
    memset(&header, 0, sizeof header);
    header.timestamp = timestamp;
    header.attr.color = attr.color;
    header.attr.category = attr.category;
    return nvtxw_helper_write_utf8(writer, writer->schemaIds.markUtf8, &header, sizeof header,
                                   &attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwMarkWrite(const nvtxwEventWriter_t* writer,
                                                     int64_t timestamp,
                                                     nvtxwEventAttributes_t attr) {
    nvtxwEventRegStringPayload_t payload;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwMarkWrite", "writer == NULL");
    memset(&payload, 0, sizeof payload);
    payload.timestamp = timestamp;
    payload.attr = attr;
    return nvtxw_helper_write_one(writer, writer->schemaIds.markRegString, &payload,
                                  sizeof payload);
}

/* Complete range (push/pop or start/end role): both timestamps in one event. */
NVTXW_INLINE_STATIC nvtxwResultCode_t
nvtxw_helper_range_utf8(const nvtxwEventWriter_t* writer, uint64_t schemaId, int64_t begin,
                        int64_t end, const nvtxwEventAttributesUtf8_t* attr) {
    nvtxwRangeEventUtf8Payload_t header;

    memset(&header, 0, sizeof header);
    header.timestampBegin = begin;
    header.timestampEnd = end;
    header.attr.color = attr->color;
    header.attr.category = attr->category;
    return nvtxw_helper_write_utf8(writer, schemaId, &header, sizeof header, attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxw_helper_range_reg(const nvtxwEventWriter_t* writer,
                                                             uint64_t schemaId, int64_t begin,
                                                             int64_t end,
                                                             const nvtxwEventAttributes_t* attr) {
    nvtxwRangeEventRegStringPayload_t payload;

    memset(&payload, 0, sizeof payload);
    payload.timestampBegin = begin;
    payload.timestampEnd = end;
    payload.attr = *attr;
    return nvtxw_helper_write_one(writer, schemaId, &payload, sizeof payload);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangePushPopWriteUtf8(const nvtxwEventWriter_t* writer,
                                                                 int64_t timestampBegin,
                                                                 int64_t timestampEnd,
                                                                 nvtxwEventAttributesUtf8_t attr) {
    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangePushPopWriteUtf8", "writer == NULL");
    return nvtxw_helper_range_utf8(writer, writer->schemaIds.rangePushPopUtf8, timestampBegin,
                                   timestampEnd, &attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangePushPopWrite(const nvtxwEventWriter_t* writer,
                                                             int64_t timestampBegin,
                                                             int64_t timestampEnd,
                                                             nvtxwEventAttributes_t attr) {
    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangePushPopWrite", "writer == NULL");
    return nvtxw_helper_range_reg(writer, writer->schemaIds.rangePushPopRegString, timestampBegin,
                                  timestampEnd, &attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangeStartEndWriteUtf8(const nvtxwEventWriter_t* writer,
                                                                  int64_t timestampBegin,
                                                                  int64_t timestampEnd,
                                                                  nvtxwEventAttributesUtf8_t attr) {
    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangeStartEndWriteUtf8", "writer == NULL");
    return nvtxw_helper_range_utf8(writer, writer->schemaIds.rangeStartEndUtf8, timestampBegin,
                                   timestampEnd, &attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangeStartEndWrite(const nvtxwEventWriter_t* writer,
                                                              int64_t timestampBegin,
                                                              int64_t timestampEnd,
                                                              nvtxwEventAttributes_t attr) {
    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangeStartEndWrite", "writer == NULL");
    return nvtxw_helper_range_reg(writer, writer->schemaIds.rangeStartEndRegString, timestampBegin,
                                  timestampEnd, &attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangePushWriteUtf8(const nvtxwEventWriter_t* writer,
                                                              int64_t timestamp,
                                                              nvtxwEventAttributesUtf8_t attr) {
    nvtxwEventUtf8Payload_t header;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangePushWriteUtf8", "writer == NULL");
    memset(&header, 0, sizeof header);
    header.timestamp = timestamp;
    header.attr.color = attr.color;
    header.attr.category = attr.category;
    return nvtxw_helper_write_utf8(writer, writer->schemaIds.rangePushUtf8, &header, sizeof header,
                                   &attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangePushWrite(const nvtxwEventWriter_t* writer,
                                                          int64_t timestamp,
                                                          nvtxwEventAttributes_t attr) {
    nvtxwEventRegStringPayload_t payload;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangePushWrite", "writer == NULL");
    memset(&payload, 0, sizeof payload);
    payload.timestamp = timestamp;
    payload.attr = attr;
    return nvtxw_helper_write_one(writer, writer->schemaIds.rangePushRegString, &payload,
                                  sizeof payload);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangePopWrite(const nvtxwEventWriter_t* writer,
                                                         int64_t timestamp) {
    nvtxwRangePopPayload_t payload;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangePopWrite", "writer == NULL");
    memset(&payload, 0, sizeof payload);
    payload.timestamp = timestamp;
    return nvtxw_helper_write_one(writer, writer->schemaIds.rangePop, &payload, sizeof payload);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangeStartWriteUtf8(const nvtxwEventWriter_t* writer,
                                                               int64_t timestamp,
                                                               nvtxRangeId_t rangeId,
                                                               nvtxwEventAttributesUtf8_t attr) {
    nvtxwRangeIdEventUtf8Payload_t header;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangeStartWriteUtf8", "writer == NULL");
    memset(&header, 0, sizeof header);
    header.rangeId = rangeId;
    header.timestamp = timestamp;
    header.attr.color = attr.color;
    header.attr.category = attr.category;
    return nvtxw_helper_write_utf8(writer, writer->schemaIds.rangeStartUtf8, &header, sizeof header,
                                   &attr);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangeStartWrite(const nvtxwEventWriter_t* writer,
                                                           int64_t timestamp, nvtxRangeId_t rangeId,
                                                           nvtxwEventAttributes_t attr) {
    nvtxwRangeIdEventRegStringPayload_t payload;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangeStartWrite", "writer == NULL");
    memset(&payload, 0, sizeof payload);
    payload.rangeId = rangeId;
    payload.timestamp = timestamp;
    payload.attr = attr;
    return nvtxw_helper_write_one(writer, writer->schemaIds.rangeStartRegString, &payload,
                                  sizeof payload);
}

NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwRangeEndWrite(const nvtxwEventWriter_t* writer,
                                                         int64_t timestamp, nvtxRangeId_t rangeId) {
    nvtxwRangeEndPayload_t payload;

    if (writer == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwRangeEndWrite", "writer == NULL");
    memset(&payload, 0, sizeof payload);
    payload.rangeId = rangeId;
    payload.timestamp = timestamp;
    return nvtxw_helper_write_one(writer, writer->schemaIds.rangeEnd, &payload, sizeof payload);
}

#endif /* NVTXW_EVENT_HELPERS_API */

/* ========================= Setup helpers ========================= */
#if !defined(NVTXW_SETUP_HELPERS_API)
#define NVTXW_SETUP_HELPERS_API

/* Zero-fills *attr and sets structSize. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwSessionAttributesInit(nvtxwSessionAttributes_t* attr) {
    if (attr == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwSessionAttributesInit", "attr == NULL");
    memset(attr, 0, sizeof *attr);
    attr->structSize = sizeof *attr;
    return NVTXW_RESULT_SUCCESS;
}

/* Zero-fills *attr and sets structSize. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwDomainAttributesInit(nvtxwDomainAttributes_t* attr) {
    if (attr == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwDomainAttributesInit", "attr == NULL");
    memset(attr, 0, sizeof *attr);
    attr->structSize = sizeof *attr;
    return NVTXW_RESULT_SUCCESS;
}

/* Zero-fills *attr, sets structSize and the documented defaults: no scope,
 * no time domain, no ordering claims. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwStreamAttributesInit(nvtxwStreamAttributes_t* attr) {
    if (attr == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwStreamAttributesInit", "attr == NULL");
    memset(attr, 0, sizeof *attr);
    attr->structSize = sizeof *attr;
    attr->scopeId = NVTX_SCOPE_NONE;
    attr->timeDomainId = NVTX_TIME_DOMAIN_ID_NONE;
    attr->orderInterleaving = NVTXW_STREAM_ORDER_INTERLEAVING_NONE;
    attr->orderingType = NVTXW_STREAM_ORDERING_TYPE_UNKNOWN;
    attr->orderingSkid = NVTXW_STREAM_ORDERING_SKID_NONE;
    return NVTXW_RESULT_SUCCESS;
}

/*
 * Loads a backend with nvtxwLoad(library, ...) and asks it for the version 2
 * table. Outputs are cleared first. On any failure the backend is unloaded
 * again and the code returned (INTERFACE_VERSION_NOT_SUPPORTED when the
 * backend claimed success but gave no table). *moduleOut keeps the backend
 * loaded until nvtxwUnload; NULL moduleOut keeps it loaded until exit.
 */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwLoadInterface(const char* library,
                                                         const nvtxwInterface_t** interfaceOut,
                                                         nvtxwModuleHandle_t* moduleOut) {
    nvtxwGetInterface_t getInterface = NVTX_NULLPTR;
    nvtxwModuleHandle_t module = NVTX_NULLPTR;
    const void* iface = NVTX_NULLPTR;
    nvtxwResultCode_t result;

    if (interfaceOut == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwLoadInterface", "interfaceOut == NULL");
    *interfaceOut = NVTX_NULLPTR;
    if (moduleOut != NVTX_NULLPTR)
        *moduleOut = NVTX_NULLPTR;
    result = nvtxwLoad(library, &getInterface, &module);
    if (result != NVTXW_RESULT_SUCCESS)
        return result;
    if (getInterface == NVTX_NULLPTR) {
        nvtxwUnload(module);
        return NVTXW_RESULT_LIBRARY_LOAD_FAILED;
    }
    result = getInterface(NVTXW_INTERFACE_VERSION, &iface);
    if (result != NVTXW_RESULT_SUCCESS || iface == NVTX_NULLPTR) {
        nvtxwUnload(module);
        return result != NVTXW_RESULT_SUCCESS ? result
                                              : NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED;
    }
    *interfaceOut = (const nvtxwInterface_t*)iface;
    if (moduleOut != NVTX_NULLPTR)
        *moduleOut = module;
    return NVTXW_RESULT_SUCCESS;
}

/* nvtxwLoadInterface with the default search (NVTXW3_LIBRARY still wins). */
NVTXW_INLINE_STATIC nvtxwResultCode_t
nvtxwLoadInterfaceDefault(const nvtxwInterface_t** interfaceOut, nvtxwModuleHandle_t* moduleOut) {
    return nvtxwLoadInterface(NVTX_NULLPTR, interfaceOut, moduleOut);
}

/* Registers (or finds) domain `domainName`; NULL or "" = the session's
 * default domain. *domainOut is cleared before the call. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwDomainRegister(const nvtxwInterface_t* iface,
                                                          nvtxwSessionHandle_t session,
                                                          const char* domainName,
                                                          nvtxDomainHandle_t* domainOut) {
    nvtxwDomainAttributes_t attr;

    if (iface == NVTX_NULLPTR || iface->DomainRegister == NVTX_NULLPTR || session == NVTX_NULLPTR ||
        domainOut == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwDomainRegister",
                                    "one of these holds: iface == NULL, iface->DomainRegister == "
                                    "NULL, session == NULL, domainOut == NULL");
    *domainOut = NVTX_NULLPTR;
    nvtxwDomainAttributesInit(&attr);
    attr.name = domainName;
    return iface->DomainRegister(session, &attr, domainOut);
}

/* Names category `category` (non-zero: 0 means "no category") in `domain`. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwCategoryRegister(const nvtxwInterface_t* iface,
                                                            nvtxDomainHandle_t domain,
                                                            uint32_t category, const char* name) {
    if (iface == NVTX_NULLPTR || iface->CategoryRegister == NVTX_NULLPTR ||
        domain == NVTX_NULLPTR || name == NVTX_NULLPTR || category == 0)
        return NVTXW_HELPER_REFUSE_("nvtxwCategoryRegister",
                                    "one of these holds: iface == NULL, iface->CategoryRegister == "
                                    "NULL, domain == NULL, name == NULL, category == 0");
    return iface->CategoryRegister(domain, category, name);
}

/* Registers scope `scopePath` under the root with a dynamic ID. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwScopeRegister(const nvtxwInterface_t* iface,
                                                         nvtxDomainHandle_t domain,
                                                         const char* scopePath,
                                                         uint64_t* scopeIdOut) {
    nvtxScopeAttr_t attr;

    if (iface == NVTX_NULLPTR || iface->ScopeRegister == NVTX_NULLPTR || domain == NVTX_NULLPTR ||
        scopeIdOut == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwScopeRegister",
                                    "one of these holds: iface == NULL, iface->ScopeRegister == "
                                    "NULL, domain == NULL, scopeIdOut == NULL");
    *scopeIdOut = NVTX_SCOPE_NONE;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.path = scopePath;
    attr.parentScope = NVTX_SCOPE_ROOT;
    attr.scopeId = NVTX_SCOPE_NONE;
    return iface->ScopeRegister(domain, &attr, scopeIdOut);
}

/* Registers a time domain for predefined clock `timestampTypeId`
 * (NVTX_TIMESTAMP_TYPE_*), with a dynamic ID and nothing else set. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwTimeDomainRegister(const nvtxwInterface_t* iface,
                                                              nvtxDomainHandle_t domain,
                                                              uint64_t timestampTypeId,
                                                              uint64_t* timeDomainIdOut) {
    nvtxTimeDomainAttr_t attr;

    if (iface == NVTX_NULLPTR || iface->TimeDomainRegister == NVTX_NULLPTR ||
        domain == NVTX_NULLPTR || timeDomainIdOut == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwTimeDomainRegister",
                                    "one of these holds: iface == NULL, iface->TimeDomainRegister "
                                    "== NULL, domain == NULL, timeDomainIdOut == NULL");
    *timeDomainIdOut = NVTX_TIME_DOMAIN_ID_NONE;
    memset(&attr, 0, sizeof attr);
    attr.timestampTypeId = timestampTypeId;
    return iface->TimeDomainRegister(domain, &attr, timeDomainIdOut);
}

/*
 * Opens stream `streamName` on `domain` (NULL = session default domain) with
 * default time domain `timeDomainId`. A non-empty `scopePath` is registered
 * first (in `domain`, or in the default domain when `domain` is NULL) and
 * becomes the stream's default scope.
 */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwStreamOpen(const nvtxwInterface_t* iface,
                                                      nvtxwSessionHandle_t session,
                                                      const char* streamName,
                                                      nvtxDomainHandle_t domain,
                                                      const char* scopePath, uint64_t timeDomainId,
                                                      nvtxwStreamHandle_t* streamOut) {
    nvtxwStreamAttributes_t attr;
    uint64_t scopeId = NVTX_SCOPE_NONE;
    nvtxwResultCode_t result;

    if (iface == NVTX_NULLPTR || iface->StreamOpen == NVTX_NULLPTR || session == NVTX_NULLPTR ||
        streamOut == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwStreamOpen",
                                    "one of these holds: iface == NULL, iface->StreamOpen == NULL, "
                                    "session == NULL, streamOut == NULL");
    *streamOut = NVTX_NULLPTR;
    if (scopePath != NVTX_NULLPTR && scopePath[0] != '\0') {
        nvtxDomainHandle_t scopeDomain = domain;
        if (scopeDomain == NVTX_NULLPTR) {
            result = nvtxwDomainRegister(iface, session, NVTX_NULLPTR, &scopeDomain);
            if (result != NVTXW_RESULT_SUCCESS)
                return result;
        }
        result = nvtxwScopeRegister(iface, scopeDomain, scopePath, &scopeId);
        if (result != NVTXW_RESULT_SUCCESS)
            return result;
    }
    nvtxwStreamAttributesInit(&attr);
    attr.name = streamName;
    attr.domain = domain;
    attr.scopeId = scopeId;
    attr.timeDomainId = timeDomainId;
    return iface->StreamOpen(session, &attr, streamOut);
}

/*
 * Registers all helper schemas in `domain` (passed as is: a NULL domain makes
 * the registration fail), opens a stream on it as nvtxwStreamOpen does and
 * fills *writerOut (zeroed first). For several streams of one domain, prefer
 * one nvtxwEventSchemasRegister and a writer per stream.
 */
NVTXW_INLINE_STATIC nvtxwResultCode_t
nvtxwEventWriterOpen(const nvtxwInterface_t* iface, nvtxwSessionHandle_t session,
                     const char* streamName, nvtxDomainHandle_t domain, const char* scopePath,
                     uint64_t timeDomainId, nvtxwEventWriter_t* writerOut) {
    nvtxwEventHelperSchemaIds_t schemaIds;
    nvtxwStreamHandle_t stream = NVTX_NULLPTR;
    nvtxwResultCode_t result;

    if (iface == NVTX_NULLPTR || iface->SchemaRegister == NVTX_NULLPTR ||
        iface->StreamOpen == NVTX_NULLPTR || session == NVTX_NULLPTR || writerOut == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_(
            "nvtxwEventWriterOpen",
            "one of these holds: iface == NULL, iface->SchemaRegister == NULL, iface->StreamOpen "
            "== NULL, session == NULL, writerOut == NULL");
    memset(writerOut, 0, sizeof *writerOut);
    result = nvtxwEventSchemasRegister(iface, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &schemaIds);
    if (result != NVTXW_RESULT_SUCCESS)
        return result;
    result = nvtxwStreamOpen(iface, session, streamName, domain, scopePath, timeDomainId, &stream);
    if (result != NVTXW_RESULT_SUCCESS)
        return result;
    return nvtxwEventWriterInit(writerOut, iface, stream, &schemaIds);
}

#endif /* NVTXW_SETUP_HELPERS_API */

/* ======================== Counter helpers ======================== */
#if !defined(NVTXW_COUNTER_HELPERS_API)
#define NVTXW_COUNTER_HELPERS_API

/* Registers counter `name` with sample layout `schemaId` (a predefined scalar
 * entry type such as NVTX_PAYLOAD_ENTRY_TYPE_INT64, or a schema ID; not 0),
 * a dynamic counter ID and no scope. `semantics` may be NULL.
 * *counterIdOut is set to NVTX_COUNTER_ID_NONE before the call. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwCounterRegister(const nvtxwInterface_t* iface,
                                                           nvtxDomainHandle_t domain,
                                                           const char* name, uint64_t schemaId,
                                                           const nvtxSemanticsHeader_t* semantics,
                                                           uint64_t* counterIdOut) {
    nvtxCounterAttr_t attr;

    if (iface == NVTX_NULLPTR || iface->CounterRegister == NVTX_NULLPTR || domain == NVTX_NULLPTR ||
        schemaId == 0 || counterIdOut == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_("nvtxwCounterRegister",
                                    "one of these holds: iface == NULL, iface->CounterRegister == "
                                    "NULL, domain == NULL, schemaId == 0, counterIdOut == NULL");
    *counterIdOut = NVTX_COUNTER_ID_NONE;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.schemaId = schemaId;
    attr.name = name;
    attr.scopeId = NVTX_SCOPE_NONE;
    attr.semantics = semantics;
    attr.counterId = NVTX_COUNTER_ID_NONE;
    return iface->CounterRegister(domain, &attr, counterIdOut);
}

/* nvtxwCounterRegister with an int64 sample. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwCounterInt64Register(
    const nvtxwInterface_t* iface, nvtxDomainHandle_t domain, const char* name,
    const nvtxSemanticsHeader_t* semantics, uint64_t* counterIdOut) {
    return nvtxwCounterRegister(iface, domain, name, NVTX_PAYLOAD_ENTRY_TYPE_INT64, semantics,
                                counterIdOut);
}

/* nvtxwCounterRegister with a double sample. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwCounterFloat64Register(
    const nvtxwInterface_t* iface, nvtxDomainHandle_t domain, const char* name,
    const nvtxSemanticsHeader_t* semantics, uint64_t* counterIdOut) {
    return nvtxwCounterRegister(iface, domain, name, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, semantics,
                                counterIdOut);
}

/* Writes one int64 sample (8 bytes) of counter `counterId`. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwCounterInt64Write(const nvtxwInterface_t* iface,
                                                             nvtxwStreamHandle_t stream,
                                                             int64_t timestamp, uint64_t counterId,
                                                             int64_t value) {
    if (iface == NVTX_NULLPTR || iface->CounterWrite == NVTX_NULLPTR || stream == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_(
            "nvtxwCounterInt64Write",
            "one of these holds: iface == NULL, iface->CounterWrite == NULL, stream == NULL");
    return iface->CounterWrite(stream, timestamp, counterId, &value, sizeof value);
}

/* Writes one double sample (8 bytes) of counter `counterId`. */
NVTXW_INLINE_STATIC nvtxwResultCode_t nvtxwCounterFloat64Write(const nvtxwInterface_t* iface,
                                                               nvtxwStreamHandle_t stream,
                                                               int64_t timestamp,
                                                               uint64_t counterId, double value) {
    if (iface == NVTX_NULLPTR || iface->CounterWrite == NVTX_NULLPTR || stream == NVTX_NULLPTR)
        return NVTXW_HELPER_REFUSE_(
            "nvtxwCounterFloat64Write",
            "one of these holds: iface == NULL, iface->CounterWrite == NULL, stream == NULL");
    return iface->CounterWrite(stream, timestamp, counterId, &value, sizeof value);
}

#endif /* NVTXW_COUNTER_HELPERS_API */

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_HELPERS_H */

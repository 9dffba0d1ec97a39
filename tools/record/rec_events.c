/*
 * tools/record/rec_events.c - NVTX's core and domain calls as NVTXW events
 * on the calling thread's stream (rec_session.c), timestamped when called
 * (the clock is read first, rec_clock.c).
 *
 * An event is the NVTXW helper schemas' payload (nvtxw/helpers.h: the
 * times, color, category, range ID), then the message (UTF-8 text, or the
 * registered string handle inside the first payload), then, when the
 * attributes carry one, the NVTX payload value as a payload of its own
 * (schema "nvtx payload": one field "payload" of the value's type).
 * Push/pop ranges are written as their two halves; start/end ranges as
 * theirs, matched by the range ID this library hands out (the thread's
 * number and its count of ranges started), so an end may come from any
 * thread.
 *
 * Misuse never reaches libnvtxw as a crash: a NULL message is an empty
 * one, wide strings are converted with invalid code points replaced, a pop
 * without a push, an end of an ID never handed out, an unknown domain
 * handle or attributes NVTX would not have built are counted and dropped
 * (rec_session.c prints the counts at exit).
 */
#define _GNU_SOURCE /* clock_gettime in rec_internal.h */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nvtxw/helpers.h"
#include "nvtxw/resource.h"
#include "rec_internal.h"

/* The event's attributes, whatever form they came in. */
typedef struct rec_attr {
    uint32_t color, category;
    int value_type; /* REC_NVTX_PAYLOAD_*, 0: none */
    unsigned char value[8];
    const char* text; /* UTF-8 message, NULL: none (or a registered one) */
    size_t length;
    nvtxStringHandle_t registered; /* 0: none */
    char wide[256];                /* a converted wide message, when it fits */
    char* heap;                    /* when it does not */
    /* the payload extension's payloads (nvtxMarkPayload...), after ours */
    const nvtxPayloadData_t* extra;
    size_t extra_count;
} rec_attr;

/* Payloads of one payload-extension call, at most (more: misuse). */
#define REC_MAX_EXTRA_PAYLOADS 61

enum { KIND_MARK, KIND_PUSH, KIND_START };

size_t rec_wide_to_utf8(const wchar_t* text, char* out, size_t size) {
    size_t n = 0;
    for (; *text != 0; text++) {
        uint32_t c = (uint32_t)*text;
        unsigned char bytes[4];
        size_t k;
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            c = 0xFFFD;
        if (c < 0x80)
            bytes[0] = (unsigned char)c, k = 1;
        else if (c < 0x800)
            bytes[0] = (unsigned char)(0xC0 | c >> 6),
            bytes[1] = (unsigned char)(0x80 | (c & 0x3F)), k = 2;
        else if (c < 0x10000)
            bytes[0] = (unsigned char)(0xE0 | c >> 12),
            bytes[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F)),
            bytes[2] = (unsigned char)(0x80 | (c & 0x3F)), k = 3;
        else
            bytes[0] = (unsigned char)(0xF0 | c >> 18),
            bytes[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F)),
            bytes[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F)),
            bytes[3] = (unsigned char)(0x80 | (c & 0x3F)), k = 4;
        if (n + k >= size)
            break;
        memcpy(out + n, bytes, k);
        n += k;
    }
    if (size > 0)
        out[n] = '\0';
    return n;
}

/* Empty attributes; `wide` is left as it is (it is written before use). */
static void attr_init(rec_attr* a) {
    a->color = a->category = 0;
    a->value_type = 0;
    a->text = NULL;
    a->length = 0;
    a->registered = 0;
    a->heap = NULL;
    a->extra = NULL;
    a->extra_count = 0;
}

static void attr_text(rec_attr* a, const char* text) {
    a->text = text != NULL ? text : "";
    a->length = strlen(a->text);
}

/* A wide message: converted into a->wide, or a->heap when longer. */
static void attr_wide(rec_attr* a, const wchar_t* text) {
    size_t need;
    if (text == NULL) {
        attr_text(a, "");
        return;
    }
    need = wcslen(text) * 4 + 1;
    if (need > sizeof a->wide && (a->heap = malloc(need)) != NULL) {
        a->length = rec_wide_to_utf8(text, a->heap, need);
        a->text = a->heap;
        return;
    }
    a->length = rec_wide_to_utf8(text, a->wide, sizeof a->wide);
    a->text = a->wide;
}

/* Which fields of an NVTX attribute struct of `size` bytes are there. */
#define HAS_FIELD(size, field)                                                                     \
    ((size) >=                                                                                     \
     offsetof(rec_nvtx_event_attributes, field) + sizeof(((rec_nvtx_event_attributes*)0)->field))

/* nvtxEventAttributes_t into `a`; 0, or -1 for attributes NVTX would not
 * have built (counted by the caller). */
static int attr_from_nvtx(rec_attr* a, const rec_nvtx_event_attributes* e) {
    size_t size;
    if (e == NULL || (size = e->size) < offsetof(rec_nvtx_event_attributes, category) + 4)
        return -1;
    a->category = e->category;
    if (HAS_FIELD(size, color) && e->color_type == REC_NVTX_COLOR_ARGB)
        a->color = e->color;
    if (HAS_FIELD(size, payload) && e->payload_type > 0 &&
        e->payload_type < REC_NVTX_PAYLOAD_TYPES) {
        a->value_type = e->payload_type;
        memcpy(a->value, &e->payload, 8);
    }
    if (!HAS_FIELD(size, message))
        return 0;
    switch (e->message_type) {
    case REC_NVTX_MESSAGE_ASCII:
        attr_text(a, e->message.ascii);
        break;
    case REC_NVTX_MESSAGE_UNICODE:
        attr_wide(a, e->message.unicode);
        break;
    case REC_NVTX_MESSAGE_REGISTERED:
        a->registered = e->message.registered;
        break;
    default:
        break; /* no message */
    }
    return 0;
}

/* Writes the event's payloads: the first, then the message when it is
 * text, then the value, then the payload extension's. */
static void write_event(rec_stream* s, const rec_domain* d, const rec_attr* a, const void* head,
                        size_t head_size, uint64_t head_schema) {
    nvtxPayloadData_t payloads[3 + REC_MAX_EXTRA_PAYLOADS];
    size_t n = 0, i;
    payloads[n++] = (nvtxPayloadData_t){head_schema, head_size, head};
    if (a->text != NULL)
        payloads[n++] = a->length != 0
                            ? (nvtxPayloadData_t){d->ids.eventMessageUtf8, a->length, a->text}
                            : (nvtxPayloadData_t){d->ids.eventMessageUtf8, 1, ""};
    if (a->value_type != 0)
        payloads[n++] =
            (nvtxPayloadData_t){d->value_schema[a->value_type],
                                a->value_type >= REC_NVTX_PAYLOAD_UINT32 ? 4u : 8u, a->value};
    for (i = 0; i < a->extra_count; i++)
        payloads[n++] = a->extra[i];
    nvtxwResultCode_t status = s->writer.iface->EventWrite(s->writer.stream, payloads, n);
    if (status != NVTXW_RESULT_SUCCESS)
        rec_refused(status);
}

/* A mark, or the begin half of a push/pop or start/end range. */
static void write_begin(rec_stream* s, const rec_domain* d, int kind, int64_t ts, const rec_attr* a,
                        nvtxRangeId_t id) {
    const nvtxwEventHelperSchemaIds_t* ids = &d->ids;
    /* the UTF-8 forms, unless the message is a registered string: an
     * event without a message then has no message field at all */
    int text = a->registered == 0;
    if (kind == KIND_START) {
        nvtxwRangeIdEventRegStringPayload_t p;
        memset(&p, 0, sizeof p);
        p.rangeId = id;
        p.timestamp = ts;
        p.attr.color = a->color, p.attr.category = a->category, p.attr.message = a->registered;
        /* the UTF-8 form is the same struct without the handle */
        write_event(s, d, a, &p, text ? sizeof(nvtxwRangeIdEventUtf8Payload_t) : sizeof p,
                    text ? ids->rangeStartUtf8 : ids->rangeStartRegString);
    } else {
        nvtxwEventRegStringPayload_t p;
        memset(&p, 0, sizeof p);
        p.timestamp = ts;
        p.attr.color = a->color, p.attr.category = a->category, p.attr.message = a->registered;
        if (kind == KIND_MARK)
            write_event(s, d, a, &p, text ? sizeof(nvtxwEventUtf8Payload_t) : sizeof p,
                        text ? ids->markUtf8 : ids->markRegString);
        else
            write_event(s, d, a, &p, text ? sizeof(nvtxwEventUtf8Payload_t) : sizeof p,
                        text ? ids->rangePushUtf8 : ids->rangePushRegString);
    }
}

static void attr_done(rec_attr* a) {
    if (a->heap != NULL)
        free(a->heap);
}

/* An end half (pop, range end): its payload, then the payload
 * extension's (`extra`, at most REC_MAX_EXTRA_PAYLOADS). */
static void write_end(rec_stream* s, uint64_t schema, const void* data, size_t size,
                      const nvtxPayloadData_t* extra, size_t extra_count) {
    nvtxPayloadData_t payloads[1 + REC_MAX_EXTRA_PAYLOADS];
    nvtxwResultCode_t status;
    size_t i;
    payloads[0] = (nvtxPayloadData_t){schema, size, data};
    for (i = 0; i < extra_count; i++)
        payloads[1 + i] = extra[i];
    status = s->writer.iface->EventWrite(s->writer.stream, payloads, 1 + extra_count);
    if (status != NVTXW_RESULT_SUCCESS)
        rec_refused(status);
}

/* ---- the calls ------------------------------------------------------------ */

static void mark(nvtxDomainHandle_t domain, rec_attr* a, uint64_t raw) {
    rec_domain* d = rec_domain_of(domain);
    rec_thread* t = NULL;
    rec_stream* s = d != NULL ? rec_stream_of(d, &t) : NULL;
    if (s != NULL)
        write_begin(s, d, KIND_MARK, rec_clock_ns(t, raw), a, 0);
    attr_done(a);
}

static int push(nvtxDomainHandle_t domain, rec_attr* a, uint64_t raw) {
    rec_domain* d = rec_domain_of(domain);
    rec_thread* t = NULL;
    rec_stream* s = d != NULL ? rec_stream_of(d, &t) : NULL;
    int level = -1;
    if (s != NULL) {
        write_begin(s, d, KIND_PUSH, rec_clock_ns(t, raw), a, 0);
        level = s->depth < INT32_MAX ? (int)s->depth : INT32_MAX;
        s->depth++;
    }
    attr_done(a);
    return level;
}

static int pop(nvtxDomainHandle_t domain, const nvtxPayloadData_t* extra, size_t extra_count) {
    uint64_t raw = rec_clock_raw();
    rec_domain* d = rec_domain_of(domain);
    rec_thread* t = NULL;
    rec_stream* s = d != NULL ? rec_stream_of(d, &t) : NULL;
    nvtxwRangePopPayload_t p;
    if (s == NULL)
        return -1;
    if (s->depth == 0) {
        rec_misuse(REC_MISUSE_POP_WITHOUT_PUSH);
        return -1;
    }
    p.timestamp = rec_clock_ns(t, raw);
    write_end(s, d->ids.rangePop, &p, sizeof p, extra, extra_count);
    s->depth--;
    return s->depth < INT32_MAX ? (int)s->depth : INT32_MAX;
}

/* Range IDs: the thread's number + 1 above bit 40, its count below. */
#define RANGE_THREAD_SHIFT 40

static nvtxRangeId_t start(nvtxDomainHandle_t domain, rec_attr* a, uint64_t raw) {
    rec_domain* d = rec_domain_of(domain);
    rec_thread* t = NULL;
    rec_stream* s = d != NULL ? rec_stream_of(d, &t) : NULL;
    nvtxRangeId_t id = 0;
    if (s != NULL) {
        id = (uint64_t)(t->index + 1) << RANGE_THREAD_SHIFT | ++t->ranges_started;
        write_begin(s, d, KIND_START, rec_clock_ns(t, raw), a, id);
    }
    attr_done(a);
    return id;
}

static void end(nvtxDomainHandle_t domain, nvtxRangeId_t id, const nvtxPayloadData_t* extra,
                size_t extra_count, uint64_t raw) {
    rec_domain* d = rec_domain_of(domain);
    rec_thread* t = NULL;
    rec_stream* s = d != NULL ? rec_stream_of(d, &t) : NULL;
    uint64_t thread = id >> RANGE_THREAD_SHIFT;
    nvtxwRangeEndPayload_t p;
    if (s == NULL)
        return;
    if (thread == 0 || thread > atomic_load(&rec.thread_count) ||
        (id & (((uint64_t)1 << RANGE_THREAD_SHIFT) - 1)) == 0) {
        rec_misuse(REC_MISUSE_UNKNOWN_RANGE);
        return;
    }
    p.rangeId = id;
    p.timestamp = rec_clock_ns(t, raw);
    write_end(s, d->ids.rangeEnd, &p, sizeof p, extra, extra_count);
}

/* ---- for the other modules (rec_sync.c) ---------------------------------- */

nvtxRangeId_t rec_named_event(rec_domain* d, int range, const char* text,
                              nvtxStringHandle_t registered, const nvtxPayloadData_t* extra,
                              uint64_t raw) {
    nvtxDomainHandle_t handle = (nvtxDomainHandle_t)(uintptr_t)d->index;
    rec_attr a;
    attr_init(&a);
    if (registered != NULL)
        a.registered = registered;
    else
        attr_text(&a, text);
    a.extra = extra;
    a.extra_count = extra != NULL;
    if (range)
        return start(handle, &a, raw);
    mark(handle, &a, raw);
    return 0;
}

void rec_named_end(rec_domain* d, nvtxRangeId_t id, uint64_t raw) {
    end((nvtxDomainHandle_t)(uintptr_t)d->index, id, NULL, 0, raw);
}

/* The attributes of an Ex call; NULL when NVTX would not have built them. */
static rec_attr* ex_attr(rec_attr* a, const rec_nvtx_event_attributes* e) {
    attr_init(a);
    if (attr_from_nvtx(a, e) == 0)
        return a;
    rec_misuse(REC_MISUSE_BAD_ATTRIBUTES);
    return NULL;
}

static rec_attr* text_attr(rec_attr* a, const char* text) {
    attr_init(a);
    attr_text(a, text);
    return a;
}

static rec_attr* wide_attr(rec_attr* a, const wchar_t* text) {
    attr_init(a);
    attr_wide(a, text);
    return a;
}

/* core module */
static void MarkEx(const rec_nvtx_event_attributes* e) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    if (ex_attr(&a, e) != NULL)
        mark(NULL, &a, raw);
}
static void MarkA(const char* message) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    mark(NULL, text_attr(&a, message), raw);
}
static void MarkW(const wchar_t* message) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    mark(NULL, wide_attr(&a, message), raw);
}
static nvtxRangeId_t RangeStartEx(const rec_nvtx_event_attributes* e) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return ex_attr(&a, e) != NULL ? start(NULL, &a, raw) : 0;
}
static nvtxRangeId_t RangeStartA(const char* message) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return start(NULL, text_attr(&a, message), raw);
}
static nvtxRangeId_t RangeStartW(const wchar_t* message) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return start(NULL, wide_attr(&a, message), raw);
}
static void RangeEnd(nvtxRangeId_t id) { end(NULL, id, NULL, 0, rec_clock_raw()); }
static int RangePushEx(const rec_nvtx_event_attributes* e) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return ex_attr(&a, e) != NULL ? push(NULL, &a, raw) : -1;
}
static int RangePushA(const char* message) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return push(NULL, text_attr(&a, message), raw);
}
static int RangePushW(const wchar_t* message) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return push(NULL, wide_attr(&a, message), raw);
}
static int RangePop(void) { return pop(NULL, NULL, 0); }

static void name_category(nvtxDomainHandle_t domain, uint32_t category, const char* name) {
    rec_domain* d = rec_domain_of(domain);
    if (d == NULL || name == NULL || category == 0 || !atomic_load(&rec.active))
        return;
    nvtxwResultCode_t status;
    pthread_mutex_lock(&rec.lock);
    status = nvtxwCategoryRegister(rec.iface, d->handle, category, name);
    pthread_mutex_unlock(&rec.lock);
    if (status != NVTXW_RESULT_SUCCESS)
        rec_refused(status);
}

static void name_category_wide(nvtxDomainHandle_t domain, uint32_t category, const wchar_t* name) {
    rec_attr a;
    if (name != NULL) {
        wide_attr(&a, name);
        name_category(domain, category, a.text);
        attr_done(&a);
    }
}

static void NameCategoryA(uint32_t category, const char* name) {
    name_category(NULL, category, name);
}
static void NameCategoryW(uint32_t category, const wchar_t* name) {
    name_category_wide(NULL, category, name);
}
static void NameOsThreadA(uint32_t tid, const char* name) {
    if (name != NULL)
        rec_thread_name(tid, name);
}
static void NameOsThreadW(uint32_t tid, const wchar_t* name) {
    rec_attr a;
    if (name != NULL) {
        wide_attr(&a, name);
        rec_thread_name(tid, a.text);
        attr_done(&a);
    }
}

/* core2 module: the domain forms */
static void DomainMarkEx(nvtxDomainHandle_t domain, const rec_nvtx_event_attributes* e) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    if (ex_attr(&a, e) != NULL)
        mark(domain, &a, raw);
}
static nvtxRangeId_t DomainRangeStartEx(nvtxDomainHandle_t domain,
                                        const rec_nvtx_event_attributes* e) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return ex_attr(&a, e) != NULL ? start(domain, &a, raw) : 0;
}
static void DomainRangeEnd(nvtxDomainHandle_t domain, nvtxRangeId_t id) {
    end(domain, id, NULL, 0, rec_clock_raw());
}
static int DomainRangePushEx(nvtxDomainHandle_t domain, const rec_nvtx_event_attributes* e) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return ex_attr(&a, e) != NULL ? push(domain, &a, raw) : -1;
}
static int DomainRangePop(nvtxDomainHandle_t domain) { return pop(domain, NULL, 0); }
static void DomainNameCategoryA(nvtxDomainHandle_t domain, uint32_t category, const char* name) {
    name_category(domain, category, name);
}
static void DomainNameCategoryW(nvtxDomainHandle_t domain, uint32_t category, const wchar_t* name) {
    name_category_wide(domain, category, name);
}

static nvtxStringHandle_t register_string(nvtxDomainHandle_t domain, const char* text) {
    rec_domain* d = rec_domain_of(domain);
    nvtxStringHandle_t handle = 0;
    if (d == NULL || text == NULL || !atomic_load(&rec.active))
        return 0;
    nvtxwResultCode_t status;
    pthread_mutex_lock(&rec.lock);
    status = rec.iface->StringRegister(d->handle, text, &handle);
    pthread_mutex_unlock(&rec.lock);
    if (status != NVTXW_RESULT_SUCCESS) {
        rec_refused(status);
        return 0;
    }
    return handle;
}

static nvtxStringHandle_t DomainRegisterStringA(nvtxDomainHandle_t domain, const char* text) {
    return register_string(domain, text);
}
static nvtxStringHandle_t DomainRegisterStringW(nvtxDomainHandle_t domain, const wchar_t* text) {
    rec_attr a;
    nvtxStringHandle_t handle;
    if (text == NULL)
        return 0;
    wide_attr(&a, text);
    handle = register_string(domain, a.text);
    attr_done(&a);
    return handle;
}
static nvtxDomainHandle_t DomainCreateA(const char* name) { return rec_domain_create(name); }
static nvtxDomainHandle_t DomainCreateW(const wchar_t* name) {
    rec_attr a;
    nvtxDomainHandle_t handle;
    if (name == NULL)
        return rec_domain_create(NULL);
    wide_attr(&a, name);
    handle = rec_domain_create(a.text);
    attr_done(&a);
    return handle;
}
/* nvtxDomainResourceCreate: the resource's name registered in the domain
 * (NVTXW's ResourceRegister takes the same struct, nvtxw/resource.h; a
 * wide name goes as its UTF-8). The handle (NVTX's nvtxResourceHandle_t)
 * only has to be told apart from NULL: NVTX hands it back to
 * ResourceDestroy, and a name, once given, stays. */
static void* DomainResourceCreate(nvtxDomainHandle_t domain,
                                  const nvtxw_resource_attributes_t* attr) {
    static _Atomic uintptr_t resources;
    rec_domain* d = rec_domain_of(domain);
    nvtxw_resource_attributes_t copy;
    nvtxwResultCode_t status;
    rec_attr a;
    if (d == NULL || !atomic_load(&rec.active))
        return NULL;
    if (attr == NULL) {
        rec_misuse(REC_MISUSE_BAD_ATTRIBUTES);
        return NULL;
    }
    attr_init(&a);
    if (attr->size >= sizeof copy && attr->messageType == NVTXW_MESSAGE_TYPE_UNICODE) {
        copy = *attr;
        attr_wide(&a, attr->message.unicode);
        copy.messageType = NVTXW_MESSAGE_TYPE_ASCII;
        copy.message.ascii = a.text;
        attr = &copy;
    }
    pthread_mutex_lock(&rec.lock);
    status = rec.iface->ResourceRegister(d->handle, (const nvtxResourceAttributes_t*)attr);
    pthread_mutex_unlock(&rec.lock);
    attr_done(&a);
    if (status != NVTXW_RESULT_SUCCESS) {
        rec_refused(status);
        return NULL;
    }
    return (void*)(atomic_fetch_add(&resources, 1) + 1);
}

static void DomainResourceDestroy(void* resource) { (void)resource; }

/* A domain stays: its events are in the report already. */
static void DomainDestroy(nvtxDomainHandle_t domain) { (void)domain; }
static void Initialize(const void* reserved) { (void)reserved; }

/* payload extension (nvToolsExtPayload.h): schemas and enums are
 * registered in the domain as NVTXW registers them (the same structs);
 * an event is the helper schemas' payload (its time, no message) and then
 * the program's payloads, which libnvtxw checks against their schemas and
 * copies deep during the call (a payload that does not validate is
 * refused: counted, the event dropped). */
/* Whether a payload-extension call's payloads can be written (counted as
 * misuse when not). */
static int extra_ok(const nvtxPayloadData_t* payloads, size_t count) {
    if ((payloads != NULL || count == 0) && count <= REC_MAX_EXTRA_PAYLOADS)
        return 1;
    rec_misuse(REC_MISUSE_BAD_ATTRIBUTES);
    return 0;
}

/* The attributes of a begin half or a mark: no message, the payloads. */
static rec_attr* extra_attr(rec_attr* a, const nvtxPayloadData_t* payloads, size_t count) {
    if (!extra_ok(payloads, count))
        return NULL;
    attr_init(a);
    a->extra = payloads;
    a->extra_count = count;
    return a;
}

static uint64_t register_in(nvtxDomainHandle_t domain, const void* attr, int is_enum) {
    rec_domain* d = rec_domain_of(domain);
    nvtxwResultCode_t status;
    uint64_t id = 0;
    if (d == NULL || attr == NULL || !atomic_load(&rec.active))
        return 0;
    pthread_mutex_lock(&rec.lock);
    status = is_enum ? rec.iface->EnumRegister(d->handle, attr, &id)
                     : rec.iface->SchemaRegister(d->handle, attr, &id);
    pthread_mutex_unlock(&rec.lock);
    if (status != NVTXW_RESULT_SUCCESS) {
        rec_refused(status);
        return 0;
    }
    return id;
}

static uint64_t PayloadSchemaRegister(nvtxDomainHandle_t domain,
                                      const nvtxPayloadSchemaAttr_t* attr) {
    return register_in(domain, attr, 0);
}
static uint64_t PayloadEnumRegister(nvtxDomainHandle_t domain, const nvtxPayloadEnumAttr_t* attr) {
    return register_in(domain, attr, 1);
}
static void MarkPayload(nvtxDomainHandle_t domain, const nvtxPayloadData_t* payloads,
                        size_t count) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    if (extra_attr(&a, payloads, count) != NULL)
        mark(domain, &a, raw);
}
static int RangePushPayload(nvtxDomainHandle_t domain, const nvtxPayloadData_t* payloads,
                            size_t count) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return extra_attr(&a, payloads, count) != NULL ? push(domain, &a, raw) : -1;
}
static int RangePopPayload(nvtxDomainHandle_t domain, const nvtxPayloadData_t* payloads,
                           size_t count) {
    return extra_ok(payloads, count) ? pop(domain, payloads, count) : -1;
}
static nvtxRangeId_t RangeStartPayload(nvtxDomainHandle_t domain, const nvtxPayloadData_t* payloads,
                                       size_t count) {
    rec_attr a;
    uint64_t raw = rec_clock_raw();
    return extra_attr(&a, payloads, count) != NULL ? start(domain, &a, raw) : 0;
}
static void RangeEndPayload(nvtxDomainHandle_t domain, nvtxRangeId_t id,
                            const nvtxPayloadData_t* payloads, size_t count) {
    uint64_t raw = rec_clock_raw();
    if (extra_ok(payloads, count))
        end(domain, id, payloads, count, raw);
}
static uint8_t DomainIsEnabled(nvtxDomainHandle_t domain) {
    (void)domain;
    return atomic_load(&rec.active) && !atomic_load(&rec.stopped);
}

void rec_fill_payload(intptr_t* slots, size_t count) {
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_SchemaRegister, PayloadSchemaRegister);
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_EnumRegister, PayloadEnumRegister);
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_MarkPayload, MarkPayload);
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_RangePushPayload, RangePushPayload);
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_RangePopPayload, RangePopPayload);
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_RangeStartPayload, RangeStartPayload);
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_RangeEndPayload, RangeEndPayload);
    REC_SLOT(slots, count, REC_NVTX_PAYLOAD_DomainIsEnabled, DomainIsEnabled);
}

void rec_fill_core(rec_nvtx_table table, unsigned size) {
    REC_SET(table, size, REC_NVTX_CORE_MarkEx, MarkEx);
    REC_SET(table, size, REC_NVTX_CORE_MarkA, MarkA);
    REC_SET(table, size, REC_NVTX_CORE_MarkW, MarkW);
    REC_SET(table, size, REC_NVTX_CORE_RangeStartEx, RangeStartEx);
    REC_SET(table, size, REC_NVTX_CORE_RangeStartA, RangeStartA);
    REC_SET(table, size, REC_NVTX_CORE_RangeStartW, RangeStartW);
    REC_SET(table, size, REC_NVTX_CORE_RangeEnd, RangeEnd);
    REC_SET(table, size, REC_NVTX_CORE_RangePushEx, RangePushEx);
    REC_SET(table, size, REC_NVTX_CORE_RangePushA, RangePushA);
    REC_SET(table, size, REC_NVTX_CORE_RangePushW, RangePushW);
    REC_SET(table, size, REC_NVTX_CORE_RangePop, RangePop);
    REC_SET(table, size, REC_NVTX_CORE_NameCategoryA, NameCategoryA);
    REC_SET(table, size, REC_NVTX_CORE_NameCategoryW, NameCategoryW);
    REC_SET(table, size, REC_NVTX_CORE_NameOsThreadA, NameOsThreadA);
    REC_SET(table, size, REC_NVTX_CORE_NameOsThreadW, NameOsThreadW);
}

void rec_fill_core2(rec_nvtx_table table, unsigned size) {
    REC_SET(table, size, REC_NVTX_CORE2_DomainMarkEx, DomainMarkEx);
    REC_SET(table, size, REC_NVTX_CORE2_DomainRangeStartEx, DomainRangeStartEx);
    REC_SET(table, size, REC_NVTX_CORE2_DomainRangeEnd, DomainRangeEnd);
    REC_SET(table, size, REC_NVTX_CORE2_DomainRangePushEx, DomainRangePushEx);
    REC_SET(table, size, REC_NVTX_CORE2_DomainRangePop, DomainRangePop);
    REC_SET(table, size, REC_NVTX_CORE2_DomainResourceCreate, DomainResourceCreate);
    REC_SET(table, size, REC_NVTX_CORE2_DomainResourceDestroy, DomainResourceDestroy);
    REC_SET(table, size, REC_NVTX_CORE2_DomainNameCategoryA, DomainNameCategoryA);
    REC_SET(table, size, REC_NVTX_CORE2_DomainNameCategoryW, DomainNameCategoryW);
    REC_SET(table, size, REC_NVTX_CORE2_DomainRegisterStringA, DomainRegisterStringA);
    REC_SET(table, size, REC_NVTX_CORE2_DomainRegisterStringW, DomainRegisterStringW);
    REC_SET(table, size, REC_NVTX_CORE2_DomainCreateA, DomainCreateA);
    REC_SET(table, size, REC_NVTX_CORE2_DomainCreateW, DomainCreateW);
    REC_SET(table, size, REC_NVTX_CORE2_DomainDestroy, DomainDestroy);
    REC_SET(table, size, REC_NVTX_CORE2_Initialize, Initialize);
}

/*
 * sink/perfetto/perfetto_pb.c - the out-of-line parts of the protobuf
 * writer (perfetto_pb.h): closing a nested message, and strings made
 * well-formed UTF-8.
 */
#include "config.h"

#include "common/utf8.h"
#include "sink/perfetto/perfetto_pb.h"

int pb_close_long(strbuf* b, size_t mark) {
    size_t length = b->length - mark, extra = 0;
    uint8_t prefix[VARINT_MAX_BYTES];
    size_t prefix_length = varint_put(prefix, length);
    if (prefix_length > 1) {
        extra = prefix_length - 1;
        if (pb_room(b, extra) != 0)
            return -1;
        memmove(b->data + mark + extra, b->data + mark, length);
        b->length += extra;
    }
    memcpy(b->data + mark - 1, prefix, prefix_length);
    return 0;
}

/* Bytes of `text` once every byte that starts no well-formed sequence is
 * replaced by U+FFFD (3 bytes). */
static size_t repaired_length(const unsigned char* text, size_t length) {
    size_t i = 0, total = 0, n;
    while (i < length) {
        n = utf8_sequence_length(text + i, length - i);
        total += n != 0 ? n : 3;
        i += n != 0 ? n : 1;
    }
    return total;
}

int pb_string(strbuf* b, uint32_t number, const char* text, size_t length) {
    const unsigned char* s = (const unsigned char*)text;
    size_t i, n, ascii = 0, size;
    while (ascii < length && s[ascii] < 0x80)
        ascii++;
    if (ascii == length)
        return pb_bytes(b, number, text, length);
    size = repaired_length(s, length);
    if (pb_room(b, PB_FIELD_MAX + size) != 0)
        return -1;
    pb_put_tag(b, number, PB_LEN);
    pb_put_varint(b, size);
    for (i = 0; i < length; i += n != 0 ? n : 1) {
        n = utf8_sequence_length(s + i, length - i);
        if (n != 0)
            memcpy(b->data + b->length, s + i, n);
        else
            memcpy(b->data + b->length, "\xEF\xBF\xBD", 3); /* U+FFFD */
        b->length += n != 0 ? n : 3;
    }
    return 0;
}

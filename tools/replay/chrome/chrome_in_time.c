/*
 * tools/replay/chrome/chrome_in_time.c - Trace Event Format numbers as exact
 * integers (chrome_in.h): microsecond timestamps to nanoseconds, and event
 * IDs to 64-bit values.
 *
 * Grammar of a time (JSON number text, also accepted inside a JSON string):
 *     time     = [ "-" | "+" ] digits [ "." digits ] [ ("e" | "E") [ "-" | "+" ] digits ]
 * The value is read as decimal digits with a decimal point position, the
 * exponent moves the point, and the nanosecond result keeps three more
 * digits than the microseconds; the digits beyond are rounded half to even.
 * No floating point is involved, so 1700000000123456.789 us is exactly
 * 1700000000123456789 ns, which a double cannot hold.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "chrome_in.h"

/* Splits `text` into its significant digits (at most `cap`, leading zeros
 * dropped; digits beyond `cap` only matter as "non-zero rest") and the
 * position of the decimal point relative to them. 0, or -1. */
typedef struct decimal {
    char digits[40];
    int count;       /* digits kept */
    int sticky;      /* a non-zero digit was dropped beyond the kept ones */
    long long point; /* digits[0..point) are the integer part */
    int negative;
} decimal;

static void keep_digit(decimal* d, char c, int before_point) {
    if (d->count == 0 && c == '0') {
        if (!before_point)
            d->point--; /* 0.00x: the point moves left of the first digit */
        return;
    }
    if (d->count < (int)sizeof d->digits)
        d->digits[d->count++] = c;
    else if (c != '0')
        d->sticky = 1;
    if (before_point)
        d->point++;
}

static int parse_exponent(const char* p, const char* end, long long* exp) {
    int negative = 0;
    long long value = 0;
    if (p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';
    if (p == end)
        return -1;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        if (value < 100000000)
            value = value * 10 + (*p - '0');
    }
    *exp = negative ? -value : value;
    return 0;
}

static int parse_decimal(const char* text, size_t len, decimal* d) {
    const char* p = text;
    const char* end = text + len;
    int digits = 0, seen_point = 0;
    long long exp = 0;
    memset(d, 0, sizeof *d);
    if (p < end && (*p == '-' || *p == '+'))
        d->negative = *p++ == '-';
    for (; p < end && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.' && !seen_point) {
            seen_point = 1;
        } else if (*p >= '0' && *p <= '9') {
            keep_digit(d, *p, !seen_point);
            digits++;
        } else {
            return -1;
        }
    }
    if (digits == 0 || (p < end && parse_exponent(p + 1, end, &exp) != 0))
        return -1;
    d->point += exp;
    return 0;
}

/* Rounds half to even: digit `first` of the rest, `rest_nonzero` for the
 * digits after it, `last_odd` for the kept value. */
static int round_up(int first, int rest_nonzero, int last_odd) {
    if (first != 5)
        return first > 5;
    return rest_nonzero || last_odd;
}

/* The common form, "-"? digits ("." up to three digits)?, with at most 15
 * integer digits: exact without rounding, one multiplication. 0, or -1 for
 * anything else (the general parse decides). Every timestamp and duration
 * of an event comes here. */
static int time_plain(const char* text, size_t len, int64_t* out) {
    static const uint64_t scale[4] = {1000, 100, 10, 1};
    const char *p = text, *end = text + len, *digits;
    uint64_t whole = 0, fraction = 0;
    int negative = 0, fraction_digits = 0;
    if (p < end && *p == '-')
        negative = 1, p++;
    for (digits = p; p < end && *p >= '0' && *p <= '9' && p - digits < 15; p++)
        whole = whole * 10 + (uint64_t)(*p - '0');
    if (p == digits)
        return -1;
    if (p < end && *p == '.') {
        for (p++; p < end && *p >= '0' && *p <= '9' && fraction_digits < 3; p++, fraction_digits++)
            fraction = fraction * 10 + (uint64_t)(*p - '0');
        if (fraction_digits == 0)
            return -1;
    }
    if (p != end)
        return -1; /* a 16th digit, a 4th decimal, an exponent: the general parse */
    whole = whole * 1000 + fraction * scale[fraction_digits]; /* below 10^18 */
    *out = negative ? -(int64_t)whole : (int64_t)whole;
    return 0;
}

int chrome_time_to_ns(const char* text, size_t len, int64_t* out) {
    decimal d;
    uint64_t value = 0;
    long long whole; /* how many digits form the integer nanoseconds */
    int first = 0, rest = 0;
    if (time_plain(text, len, out) == 0)
        return 0;
    if (parse_decimal(text, len, &d) != 0)
        return -1;
    whole = d.point + 3;
    if (whole > 19 && d.count > 0)
        return -1; /* at least 10^19 ns: beyond int64 */
    for (long long i = 0; i < whole; i++)
        value = value * 10 + (uint64_t)(i < d.count ? d.digits[i] - '0' : 0);
    /* The first dropped digit decides, the ones after it break a tie; below
     * the first kept digit (whole < 0) everything is under half a ns. */
    if (whole >= 0 && whole < d.count)
        first = d.digits[whole] - '0';
    for (long long i = whole < 0 ? 0 : whole + 1; i < d.count; i++)
        rest |= d.digits[i] != '0';
    rest |= d.sticky;
    if (round_up(first, rest, (int)(value & 1)))
        value++;
    if (value > (uint64_t)INT64_MAX + (uint64_t)d.negative)
        return -1;
    *out = d.negative ? (int64_t)(0 - value) : (int64_t)value;
    return 0;
}

/* FNV-1a: a stable 64-bit value for an ID string that is not a number. */
static uint64_t hash_text(const char* text, size_t len) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int parse_unsigned(const char* text, size_t len, int base, uint64_t* out) {
    uint64_t value = 0;
    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        int digit = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : 99;
        if (digit >= base || value > (UINT64_MAX - (uint64_t)digit) / (uint64_t)base)
            return -1;
        value = value * (uint64_t)base + (uint64_t)digit;
    }
    *out = value;
    return 0;
}

uint64_t chrome_id_value(const char* text, size_t len) {
    uint64_t value;
    if (len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') &&
        parse_unsigned(text + 2, len - 2, 16, &value) == 0)
        return value;
    if (parse_unsigned(text, len, 10, &value) == 0)
        return value;
    if (len > 1 && text[0] == '-' && parse_unsigned(text + 1, len - 1, 10, &value) == 0)
        return 0 - value;
    value = hash_text(text, len);
    return value != 0 ? value : 1;
}

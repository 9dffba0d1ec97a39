/*
 * abi_fact_record.h - how the three ABI comparison translation units
 * (abi_nvidia_order1.c, abi_nvidia_order2.c, abi_nvidia_test.c) record the
 * facts of abi_facts.inc. Each unit includes its headers in its own order,
 * defines RES_T (the resource struct it measures) and the RES_* names, then
 * includes this file and abi_facts.inc. Needs <stddef.h> and <stdint.h>.
 */
#ifndef NVTXW_TEST_ABI_FACT_RECORD_H
#define NVTXW_TEST_ABI_FACT_RECORD_H

/* One fact: a layout number or a macro value, with the type of a macro. */
struct abi_fact {
    const char* name;
    int64_t value;
    int type; /* TYPE_CODE of a macro's expression or a member; 0 for layouts */
};

#define TYPE_CODE(x)                                                                               \
    _Generic((x), char : 1, signed char : 2, unsigned char : 3, short : 4, unsigned short : 5,     \
             int : 6, unsigned int : 7, long : 8, unsigned long : 9, long long : 10,               \
             unsigned long long : 11, float : 12, double : 13, default : 0)

/* Each fact of abi_facts.inc becomes one or two struct abi_fact entries,
 * each followed by a comma. */
#define FACT_SIZE(T)                                                                               \
    {"sizeof(" #T ")", (int64_t)sizeof(T), 0}, {"alignof(" #T ")", (int64_t) _Alignof(T), 0},
#define FACT_FIELD(T, m)                                                                           \
    {"offsetof(" #T ", " #m ")", (int64_t)offsetof(T, m), 0},                                      \
        {"member(" #T ", " #m ")", (int64_t)sizeof(((T*)0)->m), TYPE_CODE(((T*)0)->m)},
#define FACT_TYPE(T) {"type(" #T ")", TYPE_CODE((T)0), 0},
#define FACT_VALUE(M) {#M, (int64_t)(M), TYPE_CODE(M)},
#define FACT_RES_SIZE()                                                                            \
    {"sizeof(resource_attributes)", (int64_t)sizeof(RES_T), 0},                                    \
        {"alignof(resource_attributes)", (int64_t) _Alignof(RES_T), 0},
#define FACT_RES_FIELD(m)                                                                          \
    {"offsetof(resource_attributes, " #m ")", (int64_t)offsetof(RES_T, m), 0},                     \
        {"member(resource_attributes, " #m ")", (int64_t)sizeof(((RES_T*)0)->m),                   \
         TYPE_CODE(((RES_T*)0)->m)},
#define FACT_RES_VALUE(name, M) {#name, (int64_t)(M), TYPE_CODE(M)},

#endif /* NVTXW_TEST_ABI_FACT_RECORD_H */

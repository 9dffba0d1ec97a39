/*
 * tools/otf2-import/ev_metric.c - Metric records into counter samples.
 *
 * A Metric record names a metric class (synchronous metrics, sampled on
 * the recording location) or a metric instance (asynchronous metrics with
 * their own scope), and carries one value per member; each member is one
 * counter (register_counters), so the record becomes one CounterWrite per
 * member at the record's time. The value types must be the members'.
 */
#include "config.h"

#include <inttypes.h>

#include "ev_common.h"

static OTF2_CallbackCode on_metric(EV_ARGS, OTF2_MetricRef metric, uint8_t count,
                                   const OTF2_Type* types, const OTF2_MetricValue* values) {
    metric_def* m;
    EV_BEGIN(EK_Metric);
    if ((m = def_table_find(&c->im->defs.metrics, metric, NULL)) == NULL)
        return ev_fail(c, EK_Metric, "unknown metric %" PRIu32, (uint32_t)metric);
    if (count != m->count)
        return ev_fail(c, EK_Metric,
                       "metric %" PRIu32 " has %u values, its class has %" PRIu32 " members",
                       (uint32_t)metric, (unsigned)count, m->count);
    if (attributes != NULL && OTF2_AttributeList_GetNumberOfElements(attributes) > 0)
        c->skipped[EK_COUNT]++; /* counter samples carry no payload */
    for (uint8_t i = 0; i < count; i++) {
        nvtxwResultCode_t rc;
        if (types[i] != m->value_types[i])
            return ev_fail(c, EK_Metric,
                           "metric %" PRIu32 " value %u has type %u, the member "
                           "is defined as %u",
                           (uint32_t)metric, (unsigned)i, (unsigned)types[i],
                           (unsigned)m->value_types[i]);
        rc = c->im->t->CounterWrite(c->stream, c->now, m->counter_base + i, &values[i],
                                    sizeof values[i]);
        if (rc != NVTXW_RESULT_SUCCESS)
            return ev_fail(c, EK_Metric, "cannot write the sample: %s", nvtxw_last_error());
    }
    return OTF2_CALLBACK_SUCCESS;
}

void ev_metric_set(OTF2_EvtReaderCallbacks* cb) {
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_metric);
}

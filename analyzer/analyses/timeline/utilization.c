/* GPU utilisation over time, per device, from the trace's GPU activity: the run is cut into
 * PS_UTIL_BUCKETS equal slices and each slice gets the share of its time during which the device ran at least
 * one kernel, copy or memset (the union over its streams, as HTA's idle/busy split counts it). For charts
 * (the HTML report) and anyone reading the JSON's gpu_utilization_timeline. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/report.h"
#include "model/model.h"
#include "model/view.h"

/* Add the busy interval [a, b) to the device's slices. */
static void add_busy(struct ps_util_series *u, int64_t a, int64_t b)
{
    int64_t end = u->start_ns + u->bucket_ns * PS_UTIL_BUCKETS;
    a = a < u->start_ns ? u->start_ns : a;
    b = b > end ? end : b;
    for (int64_t i = (a - u->start_ns) / u->bucket_ns; a < b && i < PS_UTIL_BUCKETS; i++) {
        int64_t bucket_end = u->start_ns + (i + 1) * u->bucket_ns, piece_end = b < bucket_end ? b : bucket_end;
        u->busy_ns[i] += piece_end - a;
        a = piece_end;
    }
}

int ps_util_compute(struct ps_report *r)
{
    const struct ps_model *m = r->m;
    const struct ps_view *rows = r->all;
    int64_t span = r->run_end_ns - r->run_start_ns;
    if (!r->has_gpu || span <= 0)
        return 0;
    int64_t bucket = (span + PS_UTIL_BUCKETS - 1) / PS_UTIL_BUCKETS;
    for (size_t d = 0; d < r->ndevs; d++) {
        struct ps_util_series *v = realloc(r->util, (r->nutil + 1) * sizeof *v);
        if (!v)
            return -ENOMEM;
        r->util = v;
        struct ps_util_series *u = &r->util[r->nutil++];
        memset(u, 0, sizeof *u);
        u->device = r->devs[d].device;
        u->start_ns = r->run_start_ns;
        u->bucket_ns = bucket;
        int64_t cur_a = 0, cur_b = INT64_MIN;   /* the union's open interval; ops come sorted by start */
        for (size_t i = 0; i < rows->ngpu; i++) {
            const struct ps_gpu_op op = ps_view_gpu(rows, i);
            if (op.kind == PS_GPU_SYNC || m->streams.v[op.stream].device != u->device || op.end_ns <= op.start_ns)
                continue;
            if (op.start_ns > cur_b) {
                if (cur_b > INT64_MIN)
                    add_busy(u, cur_a, cur_b);
                cur_a = op.start_ns;
                cur_b = op.end_ns;
            } else if (op.end_ns > cur_b) {
                cur_b = op.end_ns;
            }
        }
        if (cur_b > INT64_MIN)
            add_busy(u, cur_a, cur_b);
    }
    return 0;
}

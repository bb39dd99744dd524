/* The legacy (pre-Kineto) PyTorch profiler JSON: a JSON array of `X` events without `cat`,
 * "pid": "CPU functions" and numeric thread ids, as Debian 12's python3-torch 1.13 writes it
 * (torch/autograd/profiler_util.py export_chrome_trace). Usage: test_legacy_profiler CASE [FIXTURE]. */
#include "cases.h"
#include "analyses/report.h"
#include "analyses/ranks.h"
#include "tinyfs.h"

static const char *fixture;

/* fixtures/legacy_profiler_cpu.json (written by fixtures/gen_legacy_profiler.py with python3-torch 1.13): its
 * step and DataLoader events, read by hand from the file:
 *   ProfilerStep#0  ts 337  dur 719    enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ ts 353  dur 149
 *   ProfilerStep#1  ts 1075 dur 246    enumerate(DataLoader)#...                                  ts 1083 dur 61
 * No GPU rows: each step is DataLoader + host compute ("kernel"). Average step (719 + 246) / 2 = 482.5 µs, DataLoader
 * (149 + 61) / 2 = 105 µs: compute 78.2 % < 80 %, so the verdict is the largest cause, data-loading. */
static void fixture_steps_and_dataloader(void)
{
    struct ps_model *m = tiny_read(fixture);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_EQ(m->format, PS_FORMAT_KINETO);
    CHECK_EQ(m->unplaced_events, 0);
    CHECK_EQ(m->gpu.n, 0);
    struct ps_report r;
    struct ps_report_opts o;
    char err[256];
    ps_report_opts_default(&o);
    CHECK_EQ(ps_ranks_report_compute(&r, m, &o, err, sizeof err), 0);
    CHECK_EQ(r.nsteps, 2);
    CHECK_EQ(r.whole_run, 0);
    if (r.nsteps == 2) {
        CHECK_STR(ps_model_str(m, r.steps[0].name), "ProfilerStep#0");
        CHECK_EQ(r.steps[0].end_ns - r.steps[0].start_ns, 719000);
        CHECK_EQ(r.steps[1].end_ns - r.steps[1].start_ns, 246000);
        CHECK_EQ(r.steps[0].cat_ns[PS_CAT_DATALOADER], 149000);
        CHECK_EQ(r.steps[1].cat_ns[PS_CAT_DATALOADER], 61000);
        CHECK_EQ(r.avg.cat_ns[PS_CAT_DATALOADER], 105000);
        CHECK_EQ(r.avg_dur_ns, 482500);
    }
    CHECK_STR(ps_bottleneck_name[r.bottleneck], "data-loading");
    ps_report_fini(&r);
    ps_model_free(m);
}

/* A file none of whose events can be placed names the counts by actual reason, not a generic example:
 * 2 events of another device runtime (not modelled), 1 kernel whose pid is no device index. */
static void unplaced_message_counts_reasons(void)
{
    const char text[] = "[{\"ph\": \"X\", \"cat\": \"xpu_runtime\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1},"
                        " {\"ph\": \"X\", \"cat\": \"xpu_runtime\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1},"
                        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 4294967295, \"tid\": 7, \"ts\": 0, \"dur\": 1}]";
    const char *err = tiny_read_err(tiny_write("unplaced.json", text, strlen(text)));
    CHECK_CONTAINS(err, "none of its 3 trace events could be placed");
    CHECK_CONTAINS(err, "xpu_runtime (category not modelled): 2");
    CHECK_CONTAINS(err, "kernel with a pid that is no device index: 1");
}

/* Legacy remote events carry "tid": " node_id:0, thread_id:1 " (no numeric thread): counted as unplaced with
 * that reason, while the local events around them are read. */
static void legacy_remote_thread_is_unplaced(void)
{
    const char text[] = "[{\"name\": \"ProfilerStep#0\", \"ph\": \"X\", \"ts\": 10, \"dur\": 50, \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}},"
                        " {\"name\": \"rpc\", \"ph\": \"X\", \"ts\": 12, \"dur\": 5, \"tid\": \" node_id:0, thread_id:1 \", \"pid\": \"CPU functions\", \"args\": {}}]";
    struct ps_model *m = tiny_read(tiny_write("remote.json", text, strlen(text)));
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_EQ(m->ranges.n, 1);
    CHECK_EQ(m->unplaced_events, 1);
    ps_model_free(m);
}

static int tiny_setup(void)
{
    tiny_init();
    return 0;
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "fixture_steps_and_dataloader", .fn = fixture_steps_and_dataloader },
        { "unplaced_message_counts_reasons", .fn = unplaced_message_counts_reasons },
        { "legacy_remote_thread_is_unplaced", .fn = legacy_remote_thread_is_unplaced },
    };
    static const struct case_hooks hooks = { .setup = tiny_setup, .teardown = tiny_cleanup };
    fixture = argc > 2 ? argv[2] : "";
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, &hooks);
}

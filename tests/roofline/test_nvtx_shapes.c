/* PyTorch emit_nvtx range text (analyses/nvtx_shapes.h) built from the documented format: torch.autograd.profiler.
 * emit_nvtx's docstring ("[[arg0.size(0), arg0.size(1), ...], [arg1.size(0), ...], ...]", "[]" for a non-tensor
 * argument) and torch/csrc/profiler/util.cpp getNvtxStr (", seq = N", ", op_id = N", ", sizes = ",
 * ", input_op_ids = [(id,nr), ...]", in that order). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "analyses/nvtx_shapes.h"

static void documented_examples(void)
{
    struct ps_nvtx_op op;
    char buf[256];
    CHECK_EQ(ps_nvtx_op_parse("aten::addmm, seq = 12, sizes = [[64], [32, 128], [128, 64], [], []]", &op), 0);
    CHECK_EQ(op.name_len, strlen("aten::addmm"));
    CHECK_EQ(op.seq, 12);
    CHECK_EQ(op.ninputs, 5);
    CHECK_EQ(op.ndims[0], 1);
    CHECK_EQ(op.dims[1][0], 32);
    CHECK_EQ(op.dims[1][1], 128);
    CHECK_EQ(op.dims[2][1], 64);
    CHECK_EQ(op.ndims[3], 0);
    ps_nvtx_op_dims_text(&op, buf, sizeof buf);
    CHECK_STR("as Kineto's Input Dims", buf, "[[64], [32, 128], [128, 64], [], []]");

    CHECK_EQ(ps_nvtx_op_parse("aten::mm, seq = 3, op_id = 77, sizes = [[32, 64], [64, 16]], "
                              "input_op_ids = [(70,0), (71,0)]", &op), 0);
    CHECK_EQ(op.op_id, 77);
    CHECK_EQ(op.ninputs, 2);
    CHECK_EQ(op.dims[1][1], 16);

    CHECK_EQ(ps_nvtx_op_parse("aten::empty", &op), 0);   /* no suffix: record_shapes off and no sequence number */
    CHECK_EQ(op.name_len, strlen("aten::empty"));
    CHECK_EQ(op.seq, -1);
    CHECK(!op.has_sizes);

    CHECK_EQ(ps_nvtx_op_parse("aten::view, sizes = [[2, 3], []]", &op), 0);   /* sequence_nr -1: no seq */
    CHECK_EQ(op.seq, -1);
    CHECK_EQ(op.ninputs, 2);

    /* a backward function's range: its name holds ": " but no ", " */
    CHECK_EQ(ps_nvtx_op_parse("autograd::engine::evaluate_function: MmBackward0, seq = 5", &op), 0);
    CHECK_EQ(op.name_len, strlen("autograd::engine::evaluate_function: MmBackward0"));
    CHECK_EQ(op.seq, 5);
    CHECK_EQ(ps_nvtx_op_parse("aten::mm, sizes = []", &op), 0);   /* an op without arguments */
    CHECK(op.has_sizes && op.ninputs == 0);
}

static void malformed_text_keeps_only_the_name(void)
{
    static const char *const bad[] = {
        "aten::mm, sizes = [[32, x]]",
        "aten::mm, seq = 3, sizes = [[1]",          /* cut */
        "aten::mm, seq = 3 and more",
        "aten::mm, sizes = [[1]], seq = 3",          /* out of PyTorch's order */
        "aten::mm, sizes = [[-1]]",
        "aten::mm, seq = ",
        "aten::mm, sizes = [[1],[2]]",               /* PyTorch separates with ", " */
        "aten::mm, sizes = [[99999999999999999999]]",
        "aten::mm, input_op_ids = [(1,)]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ps_nvtx_op op;
        CHECK_EQ(bad[i], ps_nvtx_op_parse(bad[i], &op), -EINVAL);
        CHECK_EQ(bad[i], op.name_len, strlen("aten::mm"));
        CHECK(op.ninputs == 0 && !op.has_sizes && op.seq == -1, "%s", bad[i]);
    }
}

static void many_inputs_and_dims_are_cut_and_said(void)
{
    char text[512] = "aten::cat, seq = 1, sizes = [";
    for (int i = 0; i < 20; i++)
        strcat(text, i ? ", [1, 2]" : "[1, 2, 3, 4, 5, 6, 7, 8, 9]");
    strcat(text, "]");
    struct ps_nvtx_op op;
    CHECK_EQ(ps_nvtx_op_parse(text, &op), 0);
    CHECK_EQ(op.ninputs, PS_NVTX_MAX_INPUTS);
    CHECK_EQ(op.ndims[0], PS_NVTX_MAX_DIMS);
    CHECK_EQ(op.dims[0][7], 8);
    CHECK(op.truncated);
}

/* getNvtxStr's format applied to random shapes (the generator's shapes are the ground truth). */
static void random_shapes_round_trip(void)
{
    srand(19);
    for (int t = 0; t < 500; t++) {
        int n = rand() % 6, nd[6];
        long long d[6][4];
        char text[512];
        int len = snprintf(text, sizeof text, "aten::op%d", t);
        if (t % 3)
            len += snprintf(text + len, sizeof text - (size_t)len, ", seq = %d", t);
        if (t % 5 == 0)
            len += snprintf(text + len, sizeof text - (size_t)len, ", op_id = %d", t + 1);
        len += snprintf(text + len, sizeof text - (size_t)len, ", sizes = [");
        for (int i = 0; i < n; i++) {
            nd[i] = rand() % 5;
            len += snprintf(text + len, sizeof text - (size_t)len, "%s[", i ? ", " : "");
            for (int k = 0; k < nd[i]; k++) {
                d[i][k] = rand() % 70000;
                len += snprintf(text + len, sizeof text - (size_t)len, "%s%lld", k ? ", " : "", d[i][k]);
            }
            len += snprintf(text + len, sizeof text - (size_t)len, "]");
        }
        snprintf(text + len, sizeof text - (size_t)len, "]");
        struct ps_nvtx_op op;
        int ok = ps_nvtx_op_parse(text, &op) == 0 && (int)op.ninputs == n && op.seq == (t % 3 ? t : -1);
        for (int i = 0; ok && i < n; i++) {
            ok = op.ndims[i] == nd[i];
            for (int k = 0; ok && k < nd[i]; k++)
                ok = op.dims[i][k] == d[i][k];
        }
        CHECK(ok, "%s", text);
    }
}

static const struct {
    const char *name;
    void (*fn)(void);
} cases[] = {
    { "documented_examples", documented_examples },
    { "malformed_text_keeps_only_the_name", malformed_text_keeps_only_the_name },
    { "many_inputs_and_dims_are_cut_and_said", many_inputs_and_dims_are_cut_and_said },
    { "random_shapes_round_trip", random_shapes_round_trip },
};

int main(int argc, char **argv)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc < 2 || !strcmp(argv[1], cases[i].name))
            cases[i].fn();
    return check_failures ? 1 : 0;
}

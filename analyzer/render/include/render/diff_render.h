/* Renderers of `perfscope diff`: text, Markdown (`md`) and JSON (docs/diff.md lists its keys); each only
 * formats a struct ps_diff. */
#ifndef PS_DIFF_RENDER_H
#define PS_DIFF_RENDER_H

#include <stdio.h>

#include "analyses/diff.h"

struct ps_diff_input {
    const struct ps_diff *diff;
    const char *before_path, *after_path;
    int top;                       /* kernels listed (text, md); 0: all. JSON lists all */
};

struct ps_diff_renderer {
    const char *name;              /* the --format value */
    int (*write)(const struct ps_diff_input *in, FILE *out);   /* 0, or -EIO / -ENOMEM */
};

/* The diff renderer called `name` ("text", "json", "md"), NULL when there is none. */
const struct ps_diff_renderer *ps_diff_renderer_find(const char *name);

#endif

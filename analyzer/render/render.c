/* The table of `perfscope report`'s output formats. */
#include <string.h>

#include "render/render.h"

static const struct ps_renderer renderers[] = {
    { "text", "for a terminal (default; 100 columns)", ps_render_text },
    { "json", "the stable machine-readable report (docs/report.md)", ps_render_json },
};

int ps_report_write_json(const struct ps_report *r, FILE *out)
{
    const struct ps_render_opts o = { 0 };
    return ps_render_json(r, &o, out);
}

int ps_report_write_text(const struct ps_report *r, FILE *out)
{
    const struct ps_render_opts o = { 0 };
    return ps_render_text(r, &o, out);
}

const struct ps_renderer *ps_renderer_find(const char *name)
{
    for (size_t i = 0; i < sizeof renderers / sizeof renderers[0]; i++)
        if (strcmp(renderers[i].name, name) == 0)
            return &renderers[i];
    return NULL;
}

const struct ps_renderer *ps_renderer_at(size_t i)
{
    return i < sizeof renderers / sizeof renderers[0] ? &renderers[i] : NULL;
}

/* The table of output formats of `perfscope report` and `perfscope diff` (render/render.h): the only file that
 * calls the formats' writers (text/, json/, md/, html/); nothing below calls back into it. */
#include <string.h>

#include "render/render.h"

static const struct ps_renderer renderers[] = {
    { "text", "for a terminal (the default)", ps_render_text, ps_render_ranks_text, ps_render_diff_text },
    { "json", "stable keys (docs/report.md, docs/diff.md)", ps_render_json, ps_render_ranks_json,
      ps_render_diff_json },
    { "md", "GitHub-flavoured Markdown for pull requests and issues", ps_render_md, ps_render_ranks_md,
      ps_render_diff_md },
    { "html", "one self-contained page with inline SVG charts", ps_render_html, ps_render_ranks_html, NULL },
};

int ps_report_write_json(FILE *out, const struct ps_report *r)
{
    const struct ps_render_opts o = { 0 };
    return ps_render_json(out, r, &o);
}

int ps_report_write_text(FILE *out, const struct ps_report *r)
{
    const struct ps_render_opts o = { .sections = PS_TEXT_ALL };
    return ps_render_text(out, r, &o);
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

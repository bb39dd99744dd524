/* The table of `perfscope report`'s output formats. */
#include <string.h>

#include "render/render.h"

static const struct ps_renderer renderers[] = {
    { "text", ps_report_write_text },
    { "json", ps_report_write_json },
};

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

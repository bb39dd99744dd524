/* The CUPTI record layouts perfscope relies on (probe/cupti_layout.h): every field the converter reads sits at the
 * offset the published 13.0-13.4 struct pages give (hand-computed there), in the headers this build compiles
 * against; and each record's size reaches past the last field read. A header with a moved field fails here
 * before it can make the probe read the wrong bytes on a GPU. */
#include <stddef.h>
#include <stdio.h>

#include <cupti.h>

#include "cupti_layout.h"

int main(void)
{
    int bad = 0, n = 0;
#define CHECK_OFFSET(type, field, documented) \
    n++; \
    if (offsetof(type, field) != (documented)) { \
        fprintf(stderr, "%s.%s: offset %zu in these headers, %d documented\n", #type, #field, \
                offsetof(type, field), (documented)); \
        bad++; \
    }
    PS_CUPTI_DOCUMENTED_OFFSETS(CHECK_OFFSET)
    /* The 13.0 sizes (the later records are longer: each appends to these). */
    static const struct { const char *name; size_t got, want; } sizes[] = {
        { "CUpti_ActivityKernel10", sizeof(CUpti_ActivityKernel10), 216 },
        { "CUpti_ActivityMemcpy6", sizeof(CUpti_ActivityMemcpy6), 96 },
        { "CUpti_ActivityDevice5", sizeof(CUpti_ActivityDevice5), 184 },
        { "CUpti_ActivityContext3", sizeof(CUpti_ActivityContext3), 32 },
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].got != sizes[i].want) {
            fprintf(stderr, "sizeof(%s) = %zu, documented %zu\n", sizes[i].name, sizes[i].got, sizes[i].want);
            bad++;
        }
    if (bad) {
        fprintf(stderr, "%d of %d layout facts differ from the documented CUPTI 13.x layouts\n", bad,
                n + (int)(sizeof sizes / sizeof sizes[0]));
        return 1;
    }
    printf("%d field offsets and 4 record sizes match the documented CUPTI 13.0-13.4 layouts\n", n);
    return 0;
}

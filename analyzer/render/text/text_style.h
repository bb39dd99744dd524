/* Terminal text for the text report: names escaped so a trace cannot forge a line or a terminal escape,
 * ANSI colours when asked for, and lines folded to a width (perfscope's text fits 100 columns). */
#ifndef PS_TEXT_STYLE_H
#define PS_TEXT_STYLE_H

#include <stdint.h>
#include <stdio.h>

#include "render/render.h"   /* PS_TEXT_WIDTH */

/* SGR colours used by the text report; written only when colour is on. */
#define PS_SGR_BOLD "1"
#define PS_SGR_RED "1;31"
#define PS_SGR_YELLOW "33"
#define PS_SGR_GREEN "32"
#define PS_SGR_DIM "2"

/* Start colour `sgr` ("1;31") when `on`; ps_sgr_end ends it. */
void ps_sgr(FILE *f, int on, const char *sgr);
void ps_sgr_end(FILE *f, int on);

/* Print name `s` escaped (ps_text_escape). width 0: whole, or shortened when longer than PS_NAME_SHOWN_MAX
 * characters (ps_name_shown); else padded to `width` characters, a longer one cut in the middle ("head...tail")
 * so the distinctive tail of names sharing a long prefix stays visible. */
void ps_put_name(FILE *f, const char *s, int width);
/* Print text `s` (a message that may quote names from the trace) escaped and whole. */
void ps_put_text(FILE *f, const char *s);

/* A share of `whole` in a `width`-character column after a space: "12.34%", or N/A over a zero-length window
 * (JSON: null; never a fake 0.00 %). */
void ps_text_share(FILE *f, int64_t part, int64_t whole, int width);
/* A range name as evidence groups it: without an emit_nvtx suffix (ps_names_base_len), escaped, whole. */
void ps_text_base_name(FILE *f, const char *s);

/* End a table row whose numbers took `numbers_cols` columns with `name` escaped and in full (cut in the middle, two
 * kernel names could look alike): after two spaces when the row then fits PS_TEXT_WIDTH, else on a line of its
 * own indented by 2. */
void ps_text_row_name(FILE *f, size_t numbers_cols, const char *name);

/* Copy `text` (lines ending in '\n') to `out`, folding each line longer than `width` columns: at the last
 * space within the width that is not inside a 'quoted command' (so it can be copied whole), else after the last
 * ',', ';', '(' or '<', else at the width; continuation lines are indented two more than the line's own indent
 * (at most 24). width 0 copies as is. Returns 0 or -EIO. */
int ps_text_fold(FILE *out, const char *text, size_t len, size_t width);

#endif

/* What `perfscope top` draws, as text lines with one style each, for a screen of cols x rows: built from the
 * state without ncurses (screen.c only paints the lines), so tests check the layout at any size. */
#ifndef PS_TUI_LAYOUT_H
#define PS_TUI_LAYOUT_H

#include "tui/top.h"

enum tui_style { TUI_S_NORMAL, TUI_S_TITLE, TUI_S_HEADER, TUI_S_GOOD, TUI_S_WARN, TUI_S_BAD, TUI_S_DIM, TUI_S_N };

#define TUI_LINE_BYTES 1024         /* a line of up to ~300 columns of 3-byte characters */
#define TUI_FRAME_MAX 200

struct tui_line {
    int style;                      /* enum tui_style */
    char text[TUI_LINE_BYTES];      /* UTF-8, at most cols columns */
};

struct tui_frame {
    int cols, rows;
    int n;                          /* lines filled, <= rows and <= TUI_FRAME_MAX */
    struct tui_line line[TUI_FRAME_MAX];
};

/* Lay out the whole screen: title, GPU summary, host summary, the selected panel (or the help), and the key /
 * status line as the last row. Every line fits `cols` columns; at most `rows` lines. */
void tui_layout_build(const struct tui_top *t, int cols, int rows, struct tui_frame *f);

#endif

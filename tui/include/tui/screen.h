/* The one module of `perfscope top` that touches ncurses: terminal set-up and restore, colours (only on a colour
 * terminal, never with NO_COLOR set), painting a frame built by layout.c, keys and resizes. */
#ifndef PS_TUI_SCREEN_H
#define PS_TUI_SCREEN_H

#include <stddef.h>

#include "tui/layout.h"

struct tui_screen;

enum { TUI_KEY_NONE = -1, TUI_KEY_RESIZE = 0x1000 };

/* Take over the terminal (stdin/stdout must be a terminal). 0 and *out, or -ENOTTY / -ENOMEM with one line in
 * err. `no_color`: the user asked for none (NO_COLOR). */
int tui_screen_open(struct tui_screen **out, int no_color, char *err, size_t errlen);
/* Give the terminal back as it was (endwin). NULL is a no-op. */
void tui_screen_close(struct tui_screen *s);
int tui_screen_color(const struct tui_screen *s);     /* 1 when colours are in use */
void tui_screen_size(const struct tui_screen *s, int *cols, int *rows);
void tui_screen_draw(struct tui_screen *s, const struct tui_frame *f);
/* Wait up to timeout_ms for a key: its code ('q', '\t', '+', ...), TUI_KEY_RESIZE after the terminal was
 * resized, or TUI_KEY_NONE on timeout or interruption by a signal. */
int tui_screen_key(struct tui_screen *s, int timeout_ms);
/* 1 when the next typed key is q or Q (taken), 0 otherwise (a key other than q is put back for tui_screen_key).
 * Never waits: for a long computation to notice a quit key. */
int tui_screen_take_quit_key(struct tui_screen *s);

#endif

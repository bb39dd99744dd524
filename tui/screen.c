/* ncurses set-up, colours, painting and keys (see screen.h). Resizes arrive as KEY_RESIZE (ncurses' own SIGWINCH
 * handler); the caller rebuilds the frame for the new size. */
#include "tui/screen.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct tui_screen {
    int color;
};

int tui_screen_open(struct tui_screen **out, int no_color, char *err, size_t errlen)
{
    if (!err)
        errlen = 0;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, errlen, "not a terminal (use --iterations N --snapshot json to run without one)");
        return -ENOTTY;
    }
    struct tui_screen *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    if (!newterm(NULL, stdout, stdin)) {
        snprintf(err, errlen, "cannot use the terminal '%s' (set TERM)", getenv("TERM") ? getenv("TERM") : "");
        free(s);
        return -ENOTTY;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    if (!no_color && has_colors() && start_color() == OK) {
        use_default_colors();
        init_pair(TUI_S_TITLE, COLOR_CYAN, -1);
        init_pair(TUI_S_HEADER, COLOR_BLUE, -1);
        init_pair(TUI_S_GOOD, COLOR_GREEN, -1);
        init_pair(TUI_S_WARN, COLOR_YELLOW, -1);
        init_pair(TUI_S_BAD, COLOR_RED, -1);
        s->color = 1;
    }
    *out = s;
    return 0;
}

void tui_screen_close(struct tui_screen *s)
{
    if (!s)
        return;
    endwin();
    delscreen(set_term(NULL));
    free(s);
}

int tui_screen_color(const struct tui_screen *s)
{
    return s->color;
}

void tui_screen_size(const struct tui_screen *s, int *cols, int *rows)
{
    (void)s;
    *cols = COLS;
    *rows = LINES;
}

static attr_t style_attr(const struct tui_screen *s, int style)
{
    attr_t a = style == TUI_S_TITLE || style == TUI_S_HEADER ? A_BOLD : style == TUI_S_DIM ? A_DIM : A_NORMAL;
    if (style == TUI_S_BAD && !s->color)
        a |= A_BOLD;
    if (s->color && style != TUI_S_NORMAL && style != TUI_S_DIM)
        a |= COLOR_PAIR(style);
    return a;
}

void tui_screen_draw(struct tui_screen *s, const struct tui_frame *f)
{
    erase();
    for (int i = 0; i < f->n && i < LINES; i++) {
        attr_t a = style_attr(s, f->line[i].style);
        attron(a);
        mvaddnstr(i, 0, f->line[i].text, -1);
        attroff(a);
    }
    refresh();
}

int tui_screen_take_quit_key(struct tui_screen *s)
{
    (void)s;
    timeout(0);
    int c = getch();
    if (c == 'q' || c == 'Q')
        return 1;
    if (c != ERR)
        ungetch(c);
    return 0;
}

int tui_screen_key(struct tui_screen *s, int timeout_ms)
{
    (void)s;
    timeout(timeout_ms < 0 ? 0 : timeout_ms);
    int c = getch();
    if (c == ERR)
        return TUI_KEY_NONE;
    if (c == KEY_RESIZE)
        return TUI_KEY_RESIZE;
    return c;
}

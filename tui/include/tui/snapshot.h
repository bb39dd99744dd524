/* `perfscope top --snapshot json`: the state after the last iteration as one JSON object (keys documented in
 * docs/top.md; absent values null, never a fake 0). ncurses-free. */
#ifndef PS_TUI_SNAPSHOT_H
#define PS_TUI_SNAPSHOT_H

#include <stdio.h>

#include "tui/top.h"

/* Write the object and a newline to out. 0, or -EIO (write failed) / -ENOMEM. */
int tui_snapshot_write(const struct tui_top *t, FILE *out);

#endif

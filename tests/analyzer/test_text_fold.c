/* Folding the text report to 100 columns (render/text/text_style.c), by hand: where a long line breaks, how the
 * continuation is indented, what is never split (a number and its " %", a quoted command), and that colour
 * escapes take no column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "text/text_style.h"

static char *fold(const char *in, size_t width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ps_text_fold(f, in, strlen(in), width);
    fclose(f);
    return buf;
}

#define EXPECT(in, width, want)                                                                                    \
    do {                                                                                                           \
        char *got_ = fold((in), (width));                                                                          \
        CHECK(!strcmp(got_, (want)), "fold(%zu) of\n%s\ngave\n%s\nwant\n%s", (size_t)(width), (in), got_, (want)); \
        free(got_);                                                                                                \
    } while (0)

int main(void)
{
    /* width 20: "aaaa bbbb cccc dddd" is 19 columns and fits; one more word breaks at the last space that fits,
     * the continuation indented by 2 (the line's own indent 0 + 2) */
    EXPECT("aaaa bbbb cccc dddd\n", 20, "aaaa bbbb cccc dddd\n");
    EXPECT("aaaa bbbb cccc dddd eeee\n", 20, "aaaa bbbb cccc dddd\n  eeee\n");
    /* an indented line hangs 2 more than its indent */
    EXPECT("    aaa bbb ccc ddd eee\n", 20, "    aaa bbb ccc ddd\n      eee\n");
    /* "45.53 %" is not split: the break moves before the number */
    EXPECT("utilisation is 45.53 %\n", 21, "utilisation is\n  45.53 %\n");
    /* a quoted command is not split; one longer than the line goes whole on a line of its own */
    EXPECT("run 'perfscope record --recover /a/very/long/path/x.sqlite' now\n", 20,
           "run\n  'perfscope record --recover /a/very/long/path/x.sqlite'\n  now\n");
    /* an apostrophe inside a word opens no quote */
    EXPECT("the program's rings are kept\n", 16, "the program's\n  rings are kept\n");
    /* a word longer than the line: broken after ',' ';' '(' '<' when one fits, else at the width: width 8, line 2
     * holds 6 columns after its indent of 2, "float>" */
    EXPECT("f<int,float>(x)\n", 8, "f<int,\n  float>\n  (x)\n");
    EXPECT("abcdefghijkl\n", 5, "abcde\n  fgh\n  ijk\n  l\n");
    /* SGR escapes take no column */
    EXPECT("\x1b[1mVerdict:\x1b[0m abc def\n", 16, "\x1b[1mVerdict:\x1b[0m abc def\n");
    /* "data µs" in colour is 7 columns (the escapes none, µ one): it fits 7, and folds at its space under 7 */
    EXPECT("\x1b[1;31mdata\x1b[0m \xc2\xb5s\n", 7, "\x1b[1;31mdata\x1b[0m \xc2\xb5s\n");
    EXPECT("\x1b[1;31mdata\x1b[0m \xc2\xb5s\n", 6, "\x1b[1;31mdata\x1b[0m\n  \xc2\xb5s\n");
    /* width 0: unchanged */
    EXPECT("a b c d e f g h i j k l m n o p q r s t u v w x y z\n", 0,
           "a b c d e f g h i j k l m n o p q r s t u v w x y z\n");
    return check_failures ? 1 : 0;
}

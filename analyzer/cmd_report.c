/* `perfscope report FILE`: placeholder until the readers and analyses land. */
#include <stdio.h>

#include "../cli/commands.h"

int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "perfscope report: not built yet\n");
    return 1;
}

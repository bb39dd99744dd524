/* `perfscope record`: placeholder until the collector lands. */
#include <stdio.h>

#include "../cli/commands.h"

int cmd_record(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "perfscope record: not built yet\n");
    return 1;
}

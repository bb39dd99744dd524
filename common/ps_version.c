/* perfscope's version string (set by CMake from project(VERSION)). */
#include "ps_version.h"

const char *ps_version(void)
{
    return PS_VERSION;
}

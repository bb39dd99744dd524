/* perfscope's version string, recorded in every trace and report. */
#ifndef PS_VERSION_H
#define PS_VERSION_H

const char *ps_version(void);

#endif

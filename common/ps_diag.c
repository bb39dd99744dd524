/* The diagnostics hook and the err-buffer helper (see ps_diag.h). */
#include "ps_diag.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;
static ps_diag_fn diag_hook;
static void *diag_ctx;

void ps_diag_set_hook(ps_diag_fn fn, void *ctx)
{
    pthread_mutex_lock(&diag_lock);
    diag_hook = fn;
    diag_ctx = ctx;
    pthread_mutex_unlock(&diag_lock);
}

void ps_diag(const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    pthread_mutex_lock(&diag_lock);
    if (diag_hook)
        diag_hook(diag_ctx, line);
    else
        fprintf(stderr, "%s\n", line);
    pthread_mutex_unlock(&diag_lock);
}

int ps_err(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

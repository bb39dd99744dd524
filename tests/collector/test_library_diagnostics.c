/* The collector's library modules never print (so that `perfscope top`, which installs a ps_diag hook, never has
 * its screen torn by a stray line on stderr): warnings go through common/ps_diag, errors come back in the
 * caller's buffer. Each case makes one module warn or fail, and checks where the message went and that nothing
 * reached stderr. Usage: test_library_diagnostics CASE. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases.h"
#include "ps_diag.h"
#include "collector/python_hook.h"
#include "collector/recover.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
                                        exit(1); } } while (0)

static char got[8][1024];
static int ngot;

static void hook(void *ctx, const char *line)
{
    (void)ctx;
    if (ngot < 8)
        snprintf(got[ngot++], sizeof got[0], "%s", line);
}

/* Run fn with the hook installed and stderr sent to a file; returns how many bytes reached stderr. */
static long with_hook(void (*fn)(void))
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/ps_test_diag_%d.err", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    CHECK(saved >= 0 && dup2(fd, 2) == 2);
    ngot = 0;
    ps_diag_set_hook(hook, NULL);
    fn();
    ps_diag_set_hook(NULL, NULL);
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    struct stat st;
    CHECK(fstat(fd, &st) == 0);
    close(fd);
    unlink(path);
    return (long)st.st_size;
}

static int status;
static char err[256];

static void recover_missing_trace(void)
{
    struct ps_recovery res;
    status = ps_record_recover("/nonexistent-perfscope-dir/run.sqlite", &res, err, sizeof err);
}

static void recover_missing_trace_is_an_error_in_the_callers_buffer(void)
{
    CHECK(with_hook(recover_missing_trace) == 0);
    CHECK(status == -ENOENT);
    CHECK(ngot == 0);
    char want[256];
    snprintf(want, sizeof want, "/nonexistent-perfscope-dir/run.sqlite: cannot open: %s", strerror(ENOENT));
    CHECK(strcmp(err, want) == 0);
}

static void pyhook_without_probe(void)
{
    char applied[32];
    char *cmd[] = { "python3", "train.py", NULL };
    status = ps_pyhook_setenv(PS_PYHOOK_ON, cmd, NULL, applied, sizeof applied);
}

static void pyhook_probe_without_hook_files(void)
{
    char applied[32];
    char *cmd[] = { "python3", "train.py", NULL };
    status = ps_pyhook_setenv(PS_PYHOOK_ON, cmd, "/nonexistent-perfscope-dir/lib/libperfscope_probe.so", applied,
                              sizeof applied);
}

static void python_hook_warnings_go_to_the_hook(void)
{
    CHECK(with_hook(pyhook_without_probe) == 0);
    CHECK(status == 0 && ngot == 1);
    CHECK(strncmp(got[0], "perfscope record: warning: no probe, so no Python hook", 54) == 0);
    CHECK(getenv("PERFSCOPE_PYTHON_HOOKS") == NULL);
    CHECK(with_hook(pyhook_probe_without_hook_files) == 0);
    CHECK(status == 0 && ngot == 1);
    CHECK(strstr(got[0], "the Python hook is not installed next to the probe "
                         "(/nonexistent-perfscope-dir/lib/python/perfscope_hook/torch_hooks.py: ") != NULL);
    CHECK(strchr(got[0], '\n') == NULL);
}

/* ps_err writes the message only where there is room for it, cut to fit, and hands back the code unchanged: a NULL
 * buffer or a zero length is no message, never a crash; nothing reaches stderr or the hook. */
static void err_helper(void)
{
    char small[8] = "xxxxxxx", big[64];
    status = ps_err(big, sizeof big, -EINVAL, "%s: entry %d: bad", "a.json", 3);
    CHECK(status == -EINVAL && strcmp(big, "a.json: entry 3: bad") == 0);
    CHECK(ps_err(small, sizeof small, -ENOMEM, "out of memory while analysing %s", "x") == -ENOMEM);
    CHECK(strcmp(small, "out of ") == 0);   /* 7 bytes and the NUL */
    CHECK(ps_err(NULL, 64, -ENOENT, "%s", "ignored") == -ENOENT);
    small[0] = 'y';
    CHECK(ps_err(small, 0, -EIO, "%s", "ignored") == -EIO && small[0] == 'y');
}

static void err_helper_writes_only_the_callers_buffer(void)
{
    CHECK(with_hook(err_helper) == 0);
    CHECK(ngot == 0);
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "recover_missing_trace_is_an_error_in_the_callers_buffer",
          .fn = recover_missing_trace_is_an_error_in_the_callers_buffer },
        { "python_hook_warnings_go_to_the_hook", .fn = python_hook_warnings_go_to_the_hook },
        { "err_helper_writes_only_the_callers_buffer", .fn = err_helper_writes_only_the_callers_buffer },
    };
    return run_cases(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : NULL, NULL, NULL);
}

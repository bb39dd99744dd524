/* Detect a Python command and point it at perfscope's Python hook (python_hook.h). The hook itself is
 * python/perfscope_hook; record only decides whether to load it and says where it is. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/python_hook.h"
#include "ps_diag.h"

#define ENV_MODE "PERFSCOPE_PYTHON_HOOKS"
#define ENV_STACK_HZ "PERFSCOPE_PYTHON_STACK_HZ"   /* python/perfscope_hook/stacks.py reads it */

int ps_pyhook_parse(const char *s, enum ps_pyhook_mode *out)
{
    static const struct { const char *name; enum ps_pyhook_mode mode; } modes[] = {
        { "auto", PS_PYHOOK_AUTO }, { "on", PS_PYHOOK_ON }, { "off", PS_PYHOOK_OFF }, { "modules", PS_PYHOOK_MODULES },
        { "shapes", PS_PYHOOK_SHAPES },
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(s, modes[i].name) == 0) {
            *out = modes[i].mode;
            return 0;
        }
    return -EINVAL;
}

/* python, python3, python3.11, pypy3, each optionally ending in -dbg; `len` bytes of `name` (a basename). */
static int python_name(const char *name, size_t len)
{
    size_t stem = 0;
    if (len >= 6 && strncmp(name, "python", 6) == 0)
        stem = 6;
    else if (len >= 4 && strncmp(name, "pypy", 4) == 0)
        stem = 4;
    else
        return 0;
    if (len >= stem + 4 && strncmp(name + len - 4, "-dbg", 4) == 0)
        len -= 4;
    for (size_t i = stem; i < len; i++)
        if ((name[i] < '0' || name[i] > '9') && name[i] != '.')
            return 0;
    return 1;
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Resolve `prog` as execvp would (a name without '/' is looked up on PATH) into buf. 0, -ENAMETOOLONG, or -ENOENT
 * when no executable of that name is on PATH. */
static int resolve(const char *prog, char *buf, size_t len)
{
    if (strchr(prog, '/'))
        return snprintf(buf, len, "%s", prog) < (int)len ? 0 : -ENAMETOOLONG;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;; ) {
        const char *colon = strchr(p, ':');
        size_t dl = colon ? (size_t)(colon - p) : strlen(p);
        int n = dl ? snprintf(buf, len, "%.*s/%s", (int)dl, p, prog) : snprintf(buf, len, "./%s", prog);
        if (n > 0 && (size_t)n < len && access(buf, X_OK) == 0)
            return 0;
        if (!colon)
            return -ENOENT;
        p = colon + 1;
    }
}

/* The #! line of `path` names Python, directly or through env. */
static int python_shebang(const char *path)
{
    char line[257];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n < 3 || line[0] != '#' || line[1] != '!')
        return 0;
    line[n] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    char *save = NULL, *word = strtok_r(line + 2, " \t", &save);
    if (!word)
        return 0;
    if (strcmp(base(word), "env") == 0) {
        while ((word = strtok_r(NULL, " \t", &save)) && (word[0] == '-' || strchr(word, '=')))
            ;                       /* env -S, env VAR=x */
        if (!word)
            return 0;
    }
    return python_name(base(word), strlen(base(word)));
}

int ps_pyhook_is_python(char *const *cmd)
{
    if (!cmd || !cmd[0])
        return 0;
    const char *b = base(cmd[0]);
    if (python_name(b, strlen(b)))
        return 1;
    if (strcmp(b, "env") == 0) {
        size_t i = 1;
        while (cmd[i] && (cmd[i][0] == '-' || strchr(cmd[i], '=')))
            i++;
        return cmd[i] ? ps_pyhook_is_python(cmd + i) : 0;
    }
    char path[PATH_MAX];
    return resolve(cmd[0], path, sizeof path) == 0 && python_shebang(path);
}

int ps_pyhook_setenv(enum ps_pyhook_mode mode, char *const *cmd, const char *probe, char *applied, size_t len)
{
    int want = mode == PS_PYHOOK_ON || mode == PS_PYHOOK_MODULES || mode == PS_PYHOOK_SHAPES ||
               (mode == PS_PYHOOK_AUTO && ps_pyhook_is_python(cmd));
    const char *named = mode == PS_PYHOOK_MODULES ? "modules" : mode == PS_PYHOOK_SHAPES ? "shapes" : NULL;
    snprintf(applied, len, "off");
    if (!want || !probe) {
        if (want)
            ps_diag("perfscope record: warning: no probe, so no Python hook: PyTorch steps and DataLoader "
                    "fetches are not recorded");
        return unsetenv(ENV_MODE) ? -errno : 0;
    }
    char dir[PATH_MAX], check[PATH_MAX + 64];
    const char *slash = strrchr(probe, '/');
    if (!slash || snprintf(dir, sizeof dir, "%.*s/python", (int)(slash - probe), probe) >= (int)sizeof dir)
        return unsetenv(ENV_MODE) ? -errno : 0;
    snprintf(check, sizeof check, "%s/perfscope_hook/torch_hooks.py", dir);
    if (access(check, R_OK) != 0) {
        ps_diag("perfscope record: warning: the Python hook is not installed next to the probe (%s: %s): "
                "PyTorch steps and DataLoader fetches are not recorded (rebuild, or install python/ there)",
                check, strerror(errno));
        return unsetenv(ENV_MODE) ? -errno : 0;
    }
    const char *old = getenv("PYTHONPATH");
    size_t n = strlen(dir) + (old ? strlen(old) : 0) + 2;
    char *path = malloc(n);
    if (!path)
        return -ENOMEM;
    if (old && *old)
        snprintf(path, n, "%s:%s", dir, old);
    else
        snprintf(path, n, "%s", dir);
    int rc = setenv("PYTHONPATH", path, 1) || setenv(ENV_MODE, named ? named : "1", 1) ? -errno : 0;
    free(path);
    if (!rc)
        snprintf(applied, len, "%s", named ? named : "default");
    return rc;
}

int ps_pyhook_set_stack_hz(double hz)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", hz);
    return setenv(ENV_STACK_HZ, buf, 1) ? -errno : 0;
}

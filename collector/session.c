/* The recording session (see session.h): directory, probe path, output-name expansion. */
#include "collector/session.h"
#include "ps_text_escape.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_diag.h"
#include "ps_env.h"
#include "ps_file.h"

/* mkdir that accepts an existing directory only if it is ours, private and not a link. */
static int private_dir(const char *path)
{
    if (mkdir(path, 0700) == 0)
        return 0;
    if (errno != EEXIST)
        return -errno;
    struct stat st;
    if (lstat(path, &st) != 0)
        return -errno;
    if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
        return -EPERM;
    return 0;
}

void ps_session_dir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

unsigned ps_session_report_probe_failures(const char *dir)
{
    unsigned count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        unsigned pid;
        int end = 0;
        if (sscanf(de->d_name, PS_PROBE_FAILED_FMT "%n", &pid, &end) != 1 || !end || de->d_name[end])
            continue;
        char path[PATH_MAX], why[512] = "";
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "re");
        if (f) {
            if (!fgets(why, sizeof why, f))
                why[0] = '\0';
            fclose(f);
        }
        why[strcspn(why, "\n")] = '\0';
        for (char *p = why; *p; p++)      /* the probe wrote it, but keep the terminal safe anyway */
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
        ps_diag("perfscope record: warning: process %u: the probe could not record (%s): its NVTX and "
                "CUDA activity is missing from the trace", pid, *why ? why : "no reason given");
        count++;
    }
    closedir(d);
    return count;
}

/* The trace a dead recorder's session directory `dir` can still be recovered into (its rings and the trace
 * named in it exist), copied to buf; else 0. */
static int recoverable(const char *dir, char *buf, size_t len)
{
    struct stat st;
    if (ps_session_read_trace_name(dir, buf, len) != 0 || stat(buf, &st) != 0)
        return 0;
    DIR *d = opendir(dir);
    int rings = 0;
    struct dirent *de;
    while (d && !rings && (de = readdir(d))) {
        unsigned pid, n;
        int end = 0;
        rings = sscanf(de->d_name, PS_RING_FILE_FMT "%n", &pid, &n, &end) == 2 && end && !de->d_name[end];
    }
    if (d)
        closedir(d);
    return rings;
}

/* Remove the session directories in `base` left by recorders that died without cleaning up (kill -9):
 * only entries that look like ours (a decimal pid name, a directory of this user, mode 0700) whose pid no
 * longer exists. A live recorder's directory, or anything else, is left alone; so is a dead one whose rings
 * can still be recovered into its trace: it is named, with the command that does it. */
static void remove_stale_sessions(const char *base)
{
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        errno = 0;
        long pid = strtol(de->d_name, &end, 10);
        if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end || errno || pid > INT32_MAX || pid == getpid())
            continue;
        char path[PATH_MAX + 256];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", base, de->d_name);
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
            (st.st_mode & 07777) != 0700)
            continue;
        char trace[PATH_MAX];
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            if (recoverable(path, trace, sizeof trace))
                ps_diag("perfscope record: warning: a perfscope record (pid %ld) died before writing all "
                        "that its program recorded; the rest is kept in %s: add it to its trace with "
                        "'perfscope record --recover %s' (or remove that directory)", pid, path, trace);
            else
                ps_session_dir_remove(path);
        }
    }
    closedir(d);
}

void ps_session_base_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    if (xdg && *xdg == '/' && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) && access(xdg, W_OK) == 0)
        snprintf(buf, len, "%s/perfscope", xdg);
    else
        snprintf(buf, len, "/tmp/perfscope-%u", (unsigned)getuid());
}

int ps_session_read_trace_name(const char *dir, char *buf, size_t len)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/" PS_SESSION_TRACE_FILE, dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] ? 0 : -ENODATA;
}

int ps_session_write_trace_name(const char *dir, const char *trace)
{
    char path[PATH_MAX], tmp[PATH_MAX], abs[PATH_MAX];
    if (!realpath(trace, abs))
        return -errno;
    snprintf(path, sizeof path, "%s/%s", dir, PS_SESSION_TRACE_FILE);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, PS_SESSION_TRACE_FILE);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    size_t n = strlen(abs);
    abs[n++] = '\n';
    int rc = write(fd, abs, n) == (ssize_t)n ? 0 : -EIO;
    close(fd);
    if (!rc && rename(tmp, path) != 0)
        rc = -errno;
    if (rc)
        unlink(tmp);
    return rc;
}

int ps_session_dir_create(char *buf, size_t len, char *err, size_t errlen)
{
    char base[PATH_MAX];
    if (!err)
        errlen = 0;
    ps_session_base_dir(base, sizeof base);
    int rc = private_dir(base);
    if (rc) {
        snprintf(err, errlen, "cannot use the session directory %s: %s (it must be a directory of yours with mode "
                              "0700; remove it or set XDG_RUNTIME_DIR)", base, strerror(-rc));
        return rc;
    }
    remove_stale_sessions(base);
    if ((size_t)snprintf(buf, len, "%s/%d", base, (int)getpid()) >= len) {
        snprintf(err, errlen, "cannot create the session directory in %s: %s", base, strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    if (mkdir(buf, 0700) != 0 && errno == EEXIST) {
        ps_session_dir_remove(buf);     /* left by a dead recorder that had our pid */
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            goto fail;
    }
    if ((rc = private_dir(buf)) == 0)
        return 0;
    errno = -rc;
fail:
    rc = -errno;
    snprintf(err, errlen, "cannot create the session directory %s: %s", buf, strerror(-rc));
    return rc;
}

/* 1 if `path` is a 64-bit ELF shared object that defines InitializeInjectionNvtx2, the NVTX injection entry
 * point the probe exports (probe/probe.map), in its dynamic symbol table (System V gABI, "Symbol Table").
 * Programs that use NVTX only hold that name as a string. Read, not loaded: loading runs library code. */
static int looks_like_probe(const char *path)
{
    static const char want[] = "InitializeInjectionNvtx2";
    int found = 0, fd = ps_file_open_regular(path, O_RDONLY, "a library", NULL, 0);   /* never a FIFO's wait */
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    if (fd < 0)
        return 0;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_DYN || eh.e_shentsize != sizeof *sh ||
        eh.e_shnum == 0 || eh.e_shnum > 4096 || !(sh = calloc(eh.e_shnum, sizeof *sh)) ||
        pread(fd, sh, eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff) != (ssize_t)(eh.e_shnum * sizeof *sh))
        goto out;
    for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh.e_shnum || sh[i].sh_entsize != sizeof(Elf64_Sym))
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        for (uint64_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym) && k < (1u << 20) && !found; k++) {
            Elf64_Sym sym;
            char name[sizeof want];
            if (pread(fd, &sym, sizeof sym, (off_t)(sh[i].sh_offset + k * sizeof sym)) != (ssize_t)sizeof sym)
                break;
            if (sym.st_shndx == SHN_UNDEF || sym.st_name >= str->sh_size ||
                pread(fd, name, sizeof name, (off_t)(str->sh_offset + sym.st_name)) != (ssize_t)sizeof name)
                continue;
            found = memcmp(name, want, sizeof want) == 0;
        }
    }
out:
    free(sh);
    close(fd);
    return found;
}

int ps_session_find_probe(char *buf, size_t len, char *tried, size_t tried_len)
{
    static const char *const rel[] = { "", "/../probe", "/../lib/perfscope", "/../lib" };
    char cand[PATH_MAX + 64], bindir[PATH_MAX];
    size_t used = 0;
    tried[0] = '\0';
    const char *env = getenv("PERFSCOPE_PROBE");
    enum { NREL = sizeof rel / sizeof rel[0] };
    const char *list[NREL];
    char store[NREL][sizeof cand];
    int n = 0;
    if (env && *env) {
        /* Named explicitly: use it or stop, never fall back to another probe. */
        snprintf(tried, tried_len, "%s", env);
        if (access(env, R_OK) != 0 || !realpath(env, cand))
            return -errno;
        if (!looks_like_probe(cand))
            return -ENOEXEC;
        if (strlen(cand) >= len)
            return -ENAMETOOLONG;
        strcpy(buf, cand);
        return 0;
    }
    ssize_t bl = readlink("/proc/self/exe", bindir, sizeof bindir - 1);
    if (bl > 0) {
        bindir[bl] = '\0';
        char *slash = strrchr(bindir, '/');
        if (slash)
            *slash = '\0';
        for (size_t i = 0; i < NREL; i++) {
            snprintf(store[i], sizeof store[i], "%s%s/libperfscope_probe.so", bindir, rel[i]);
            list[n++] = store[i];
        }
    }
    for (int i = 0; i < n; i++) {
        if (access(list[i], R_OK) == 0 && realpath(list[i], cand) && strlen(cand) < len) {
            strcpy(buf, cand);
            return 0;
        }
        int w = snprintf(tried + used, tried_len - used, "%s%s", used ? ", " : "", list[i]);
        if (w > 0 && (size_t)w < tried_len - used)
            used += (size_t)w;
    }
    return -ENOENT;
}

const char *ps_session_rank_env(void)
{
    static const char *const vars[] = { "RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* A rank as %r pastes it into a file name: decimal digits only (RANK, OMPI_COMM_WORLD_RANK and SLURM_PROCID are
 * non-negative integers), so a variable can never add a directory ("../x") or a control character to the name. */
static int rank_is_digits(const char *v)
{
    size_t n = strspn(v, "0123456789");
    return n > 0 && n <= 10 && v[n] == '\0';
}

static int rank_refused(const char *pattern, const char *value, char *err, size_t errlen)
{
    char shown[128];
    ps_text_escape(value, shown, sizeof shown, NULL);
    snprintf(err, errlen, "-o %.200s: %%r: the rank variable holds '%s', not a rank (decimal digits only)", pattern,
             shown);
    return -EINVAL;
}

int ps_session_expand_output(const char *pattern, char *buf, size_t len, char *err, size_t errlen)
{
    if (!err)
        errlen = 0;
    size_t o = 0;
    for (const char *p = pattern; *p; p++) {
        char tmp[256];
        const char *add = tmp;
        if (*p != '%') {
            tmp[0] = *p;
            tmp[1] = '\0';
        } else {
            switch (*++p) {
            case 'p':
                snprintf(tmp, sizeof tmp, "%d", (int)getpid());
                break;
            case 'h':
                if (gethostname(tmp, sizeof tmp) != 0)
                    strcpy(tmp, "localhost");
                tmp[sizeof tmp - 1] = '\0';
                break;
            case 'r':
                add = ps_session_rank_env() ? ps_session_rank_env() : "0";
                if (!rank_is_digits(add))
                    return rank_refused(pattern, add, err, errlen);
                break;
            case '%':
                strcpy(tmp, "%");
                break;
            default:
                snprintf(err, errlen, "-o %s: unknown '%%%s' (use %%p pid, %%h host, %%r rank, %%%% a percent sign)",
                         pattern, *p ? (char[]){ *p, 0 } : "");
                return -EINVAL;
            }
        }
        size_t al = strlen(add);
        if (o + al >= len) {
            /* the name itself would fill the message: its start and its length say which one */
            snprintf(err, errlen, "-o %.40s...: the file name is too long (over %zu bytes%s)", pattern, len - 1,
                     strchr(pattern, '%') ? " once %p, %h and %r are expanded" : "");
            return -ENAMETOOLONG;
        }
        memcpy(buf + o, add, al);
        o += al;
    }
    buf[o] = '\0';
    return 0;
}

/* 1 when CMD's name is the path of a directory, or a name without '/' whose first match on $PATH (as
 * execvp searches it, empty entries meaning the current directory) is a directory; else 0. */
int ps_session_names_a_directory(const char *name)
{
    struct stat st;
    if (strchr(name, '/'))
        return stat(name, &st) == 0 && S_ISDIR(st.st_mode);
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/bin:/usr/bin"; ; p++) {
        size_t len = strcspn(p, ":");
        char cand[PATH_MAX];
        if (snprintf(cand, sizeof cand, "%.*s%s%s", (int)len, p, len ? "/" : "", name) < (int)sizeof cand &&
            stat(cand, &st) == 0)
            return S_ISDIR(st.st_mode);
        p += len;
        if (!*p)
            return 0;
    }
}

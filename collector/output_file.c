/* The trace file record writes: claiming it and removing it (output_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/output_file.h"

/* What an existing output is, for refusing to replace it: NULL for a regular file (or a link to one, or a
 * dangling link), else a phrase naming the kind. */
static const char *not_regular(const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return NULL;
    return S_ISDIR(st->st_mode) ? "a directory" : S_ISCHR(st->st_mode) ? "a character device" :
           S_ISBLK(st->st_mode) ? "a block device" : S_ISFIFO(st->st_mode) ? "a FIFO" :
           S_ISSOCK(st->st_mode) ? "a socket" : "not a regular file";
}

/* An existing trace may be replaced (-f) unless another recorder holds its lock (it is being written). */
static int may_replace(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return errno == ENOENT || errno == ELOOP ? 0 : -errno;
    int rc = flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : -errno;
    if (rc == -EWOULDBLOCK)
        fprintf(stderr, "perfscope record: %s is being written by another perfscope record right now; refusing "
                        "to replace it (give each recording its own -o, e.g. with %%p or %%r)\n", path);
    else if (!rc)
        unlink(path);               /* while locked: a recorder that created it and locks it next sees it gone */
    close(fd);
    return rc == -EWOULDBLOCK ? -EBUSY : 0;
}

/* See output_file.h. */
int ps_output_claim(const char *path, int force)
{
    struct stat st, target;
    if (lstat(path, &st) == 0) {
        const char *kind = not_regular(&st);
        int link = S_ISLNK(st.st_mode);
        if (link)
            kind = stat(path, &target) == 0 ? not_regular(&target) : NULL;
        if (kind) {
            fprintf(stderr, "perfscope record: %s %s %s; refusing to replace it (use -o with a file name)\n",
                    path, link ? "is a symbolic link to" : "is", kind);
            return -EEXIST;
        }
        if (!force) {
            fprintf(stderr, "perfscope record: %s already exists (use -f to overwrite it, or -o to write "
                            "elsewhere)\n", path);
            return -EEXIST;
        }
        int rc = link ? (unlink(path), 0) : may_replace(path);
        if (rc)
            return rc;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int rc = -errno;
        fprintf(stderr, "perfscope record: cannot create %s: %s (%s)\n", path, strerror(-rc),
                rc == -EEXIST ? "another perfscope record or program created it at the same moment: give each recording its own -o"
                              : "use -o to write elsewhere");
        return rc;
    }
    /* Between the create and the lock another recorder may have replaced it: then it is theirs. */
    struct stat mine;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &mine) != 0 || stat(path, &st) != 0 ||
        st.st_dev != mine.st_dev || st.st_ino != mine.st_ino) {
        close(fd);
        fprintf(stderr, "perfscope record: another perfscope record took %s at the same moment; refusing to "
                        "share it (give each recording its own -o, e.g. with %%p or %%r)\n", path);
        return -EBUSY;
    }
    /* Side files of an earlier trace: removed only now that the name is ours (another recorder's are its own). */
    static const char *const side[] = { "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < 3; i++) {
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s%s", path, side[i]);
        if (lstat(p, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
            unlink(p);
    }
    return fd;
}
/* See output_file.h. */
void ps_output_unlink(const char *path)
{
    static const char *const side[] = { "", "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < 4; i++) {
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s%s", path, side[i]);
        unlink(p);
    }
}

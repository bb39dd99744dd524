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

/* The kind of a file that is not a regular one, as a phrase; NULL for a regular file. */
static const char *not_regular(const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return NULL;
    return S_ISDIR(st->st_mode) ? "a directory" : S_ISCHR(st->st_mode) ? "a character device" :
           S_ISBLK(st->st_mode) ? "a block device" : S_ISFIFO(st->st_mode) ? "a FIFO" :
           S_ISSOCK(st->st_mode) ? "a socket" : "not a regular file";
}

int ps_output_not_regular(const char *path, char *what, size_t len)
{
    struct stat st, target;
    if (lstat(path, &st) != 0)
        return 0;
    int link = S_ISLNK(st.st_mode);
    const char *kind = link ? (stat(path, &target) == 0 ? not_regular(&target) : NULL) : not_regular(&st);
    if (kind)
        snprintf(what, len, "%s %s", link ? "is a symbolic link to" : "is", kind);
    return kind != NULL;
}

/* An existing trace may be replaced (-f) unless another recorder holds its lock (it is being written). */
static int may_replace(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno != ENOENT && errno != ELOOP) {
        int rc = -errno;
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(-rc));
        return rc;
    }
    if (fd < 0)
        return 0;
    int rc = 0;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        snprintf(err, errlen, "%s is being written by another perfscope record right now; refusing to replace it "
                              "(give each recording its own -o, e.g. with %%p or %%r)", path);
        rc = -EBUSY;
    } else if (unlink(path) != 0) {  /* while locked: a recorder that created it and locks it next sees it gone */
        rc = -errno;
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(-rc));
    }
    close(fd);
    return rc;
}

/* See output_file.h. */
int ps_output_claim(const char *path, int force, char *err, size_t errlen)
{
    struct stat st;
    char what[64];
    if (!err)
        errlen = 0;
    if (ps_output_not_regular(path, what, sizeof what)) {
        snprintf(err, errlen, "%s %s; refusing to replace it (use -o with a file name)", path, what);
        return -EINVAL;
    }
    if (lstat(path, &st) == 0) {
        int link = S_ISLNK(st.st_mode);
        if (!force) {
            snprintf(err, errlen, "%s exists (use -f to overwrite)", path);
            return -EEXIST;
        }
        int rc = link ? (unlink(path), 0) : may_replace(path, err, errlen);
        if (rc)
            return rc;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot create %s: %s (%s)", path, strerror(-rc),
                 rc == -EEXIST ? "another perfscope record or program created it at the same moment: give each "
                                 "recording its own -o"
                               : "use -o to write elsewhere");
        return rc;
    }
    /* Between the create and the lock another recorder may have replaced it: then it is theirs. */
    struct stat mine;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fstat(fd, &mine) != 0 || stat(path, &st) != 0 ||
        st.st_dev != mine.st_dev || st.st_ino != mine.st_ino) {
        close(fd);
        snprintf(err, errlen, "another perfscope record took %s at the same moment; refusing to share it (give "
                              "each recording its own -o, e.g. with %%p or %%r)", path);
        return -EBUSY;
    }
    /* Side files of an earlier trace: removed only now that the name is ours (another recorder's are its own). */
    static const char *const side[] = { "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
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
    for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s%s", path, side[i]);
        unlink(p);
    }
}

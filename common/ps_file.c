/* Opening a named file that must be a regular one (ps_file.h). No printing: the probe compiles this file too. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ps_file.h"

const char *ps_file_kind(unsigned mode)
{
    if (S_ISREG(mode))
        return NULL;
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a pipe or FIFO" : S_ISCHR(mode) ? "a character device"
         : S_ISBLK(mode) ? "a block device" : S_ISSOCK(mode) ? "a socket" : "not a plain file";
}

int ps_file_open_regular(const char *path, int flags, const char *what, char *err, size_t errlen)
{
    struct stat st;
    int rc;
    if (!err)
        errlen = 0;
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
        return rc;
    }
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        rc = -EISDIR;
        snprintf(err, errlen, "%s: is a directory, not %s", path, what);
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = -EINVAL;
        snprintf(err, errlen, "%s: not a regular file (%s): perfscope reads regular files; write it to a file "
                              "first and give that file's name", path, ps_file_kind(st.st_mode));
        goto fail;
    }
    if (!(flags & O_NONBLOCK)) {
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
            rc = -errno;
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
            goto fail;
        }
    }
    return fd;
fail:
    close(fd);
    return rc;
}

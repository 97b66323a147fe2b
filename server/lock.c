/*
 * lock.c — one billboardd per database (lock.h).
 */
#include "lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "privfile.h"

int bb_lock_take(const char *path, int *fd, char *why, size_t whylen)
{
    *fd = -1;
    if (bb_private_file(path, why, whylen) != BB_OK)
        return BB_EIO;
    *fd = open(path, O_RDWR | O_CLOEXEC);
    if (*fd < 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return BB_EIO;
    }
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
        return BB_OK;
    int e = errno;
    close(*fd);
    *fd = -1;
    if (e == EWOULDBLOCK) {
        snprintf(why, whylen,
                 "%s is served by another billboardd (it holds the file's lock): "
                 "one daemon per database",
                 path);
        return BB_ECONFLICT;
    }
    snprintf(why, whylen, "%s: cannot lock: %s", path, strerror(e));
    return BB_EIO;
}

void bb_lock_release(int fd)
{
    if (fd >= 0)
        close(fd);
}

/*
 * privfile.c — a file only its owner may read (privfile.h).
 */
#include "privfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Takes group and other permissions from an existing file; ENOENT is fine. */
static int tighten(const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return BB_OK;
        if (why && whylen)
            snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return BB_EIO;
    }
    if (!(st.st_mode & 077))
        return BB_OK;
    if (chmod(path, st.st_mode & 0600) != 0) {
        if (why && whylen)
            snprintf(why, whylen,
                     "%s is readable by others (mode %04o) and cannot be made "
                     "private: %s",
                     path, (unsigned)(st.st_mode & 07777), strerror(errno));
        return BB_EIO;
    }
    return BB_OK;
}

int bb_private_file(const char *path, char *why, size_t whylen)
{
    static const char *const side[] = {"-wal", "-shm", "-journal"};
    char p[4096];
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        /* The umask may have taken the owner's bits too. */
        int ok = fchmod(fd, 0600) == 0;
        ok = close(fd) == 0 && ok;
        if (!ok) {
            if (why && whylen)
                snprintf(why, whylen, "%s: %s", path, strerror(errno));
            return BB_EIO;
        }
    } else if (errno != EEXIST) {
        if (why && whylen)
            snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return BB_EIO;
    } else if (tighten(path, why, whylen) != BB_OK) {
        return BB_EIO;
    }
    for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
        if ((size_t)snprintf(p, sizeof(p), "%s%s", path, side[i]) >= sizeof(p)) {
            if (why && whylen)
                snprintf(why, whylen, "%s: path too long", path);
            return BB_EIO;
        }
        if (tighten(p, why, whylen) != BB_OK)
            return BB_EIO;
    }
    return BB_OK;
}

/*
 * privfile.h — a file only its owner may read: the daemon's database and
 * the clinic's local state hold patients' features.
 *
 * Library-internal to both sides (server/db.c, client/statestore.c).
 */
#ifndef BB_PRIVFILE_H
#define BB_PRIVFILE_H

#include <stddef.h>

#include "billboard/err.h"

/* Makes path (an SQLite database) private before SQLite opens it: creates
 * it empty with mode 0600 whatever the umask if it does not exist, and
 * takes the group's and others' permissions away from it and from
 * path-wal, path-shm and path-journal where they exist (an older build
 * created them 0644). SQLite creates -wal, -shm and -journal with the mode
 * of the database file (os_unix.c, findCreateFileMode), so they follow.
 * Keeps no descriptor open, and closes one only on a file it created: the
 * process may hold SQLite connections to path, whose POSIX locks any
 * close() of that file would drop. BB_OK, or BB_EIO with the reason in why. */
int bb_private_file(const char *path, char *why, size_t whylen) BB_WARN_UNUSED;

#endif

/*
 * lock.h — one billboardd per database.
 *
 * Two daemons on one file would each keep an engine of their own, draw
 * their own noise and number episodes twice. The daemon takes an exclusive
 * flock(2) on the database file before SQLite opens it and holds it until
 * it exits; a second daemon (or --restore's check) finds it taken. flock
 * locks are apart from the POSIX locks SQLite takes on the same file
 * (Linux, local file systems).
 */
#ifndef BB_LOCK_H
#define BB_LOCK_H

#include <stddef.h>

#include "billboard/err.h"

/* Makes path private, creating it if needed (privfile.h), and locks it. *fd receives the
 * descriptor holding the lock. BB_ECONFLICT if another process holds it,
 * BB_EIO otherwise; the reason is in why. */
int bb_lock_take(const char *path, int *fd, char *why, size_t whylen) BB_WARN_UNUSED;

/* Releases the lock: call only after every SQLite connection to the file
 * in this process is closed, since closing any descriptor of a file drops
 * the process's POSIX locks on it, SQLite's included. fd < 0: no-op. */
void bb_lock_release(int fd);

#endif

/*
 * entropy.h — the health of the random source the mechanism noise is keyed
 * from (engine/rng.h: libsodium's randombytes, which on Linux is
 * getrandom(2)).
 *
 * A check draws 64 bytes with getrandom(2) and fails if the call fails,
 * returns fewer bytes than asked, or returns the same byte 64 times (a
 * stuck source). billboardd checks before keying its stream (a failure
 * stops the start), before beginning every update, and once a second
 * while serving; while the last check failed it takes no episode and
 * begins no update (no noise is drawn, nothing is published), /readyz
 * answers 503 with the reason, and the log says when it fails and when it
 * recovers. It never falls back to a weaker source. Any thread may call
 * any function.
 */
#ifndef BB_ENTROPY_H
#define BB_ENTROPY_H

#include <pthread.h>
#include <stddef.h>

#include "billboard/err.h"

struct bb_entropy {
    pthread_mutex_t mu;
    int failed;    /* the last check failed */
    char why[200]; /* its reason */
};

void bb_entropy_init(struct bb_entropy *e);
void bb_entropy_release(struct bb_entropy *e);

/* Checks the source now and records the outcome, logging a change on
 * stderr. BB_OK if healthy, else BB_EIO. */
int bb_entropy_check(struct bb_entropy *e);

/* 1 if the last check failed, its reason copied to why (n bytes); else 0. */
int bb_entropy_failed(struct bb_entropy *e, char *why, size_t n);

#endif

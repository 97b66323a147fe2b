/*
 * entropy.c — the random source's health check (entropy.h).
 */
#include "entropy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <sodium.h>

#define PROBE 64

void bb_entropy_init(struct bb_entropy *e)
{
    pthread_mutex_init(&e->mu, NULL);
    e->failed = 0;
    e->why[0] = '\0';
}

void bb_entropy_release(struct bb_entropy *e)
{
    pthread_mutex_destroy(&e->mu);
}

/* One probe: "" if healthy, else why. */
static void probe(char *why, size_t n)
{
    unsigned char buf[PROBE];
    ssize_t got;
    why[0] = '\0';
    do
        got = getrandom(buf, sizeof(buf), 0);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        snprintf(why, n, "getrandom failed: %s", strerror(errno));
    } else if ((size_t)got < sizeof(buf)) {
        snprintf(why, n, "getrandom returned %zd of %d bytes", got, PROBE);
    } else {
        size_t same = 1;
        while (same < sizeof(buf) && buf[same] == buf[0])
            same++;
        if (same == sizeof(buf))
            snprintf(why, n, "getrandom returned %d equal bytes", PROBE);
    }
    sodium_memzero(buf, sizeof(buf));
}

int bb_entropy_check(struct bb_entropy *e)
{
    char why[sizeof(e->why)];
    probe(why, sizeof(why));
    int failed = why[0] != '\0';
    pthread_mutex_lock(&e->mu);
    if (failed && !e->failed)
        fprintf(stderr,
                "billboardd: the random source failed (%s): taking no episode and publishing "
                "nothing until it recovers\n",
                why);
    else if (!failed && e->failed)
        fprintf(stderr, "billboardd: the random source is healthy again\n");
    e->failed = failed;
    memcpy(e->why, why, sizeof(why));
    pthread_mutex_unlock(&e->mu);
    return failed ? BB_EIO : BB_OK;
}

int bb_entropy_failed(struct bb_entropy *e, char *why, size_t n)
{
    pthread_mutex_lock(&e->mu);
    int failed = e->failed;
    if (failed && why && n)
        snprintf(why, n, "%s", e->why);
    pthread_mutex_unlock(&e->mu);
    return failed;
}

/*
 * fault.h — named fault points for the crash tests (tests/integration/
 * 32-fault-points.sh), compiled in only by `make FAULTS=1` (into
 * build-fault/); in every other build BB_FAULT_POINT() is empty and
 * BB_FAULT_HIT() is 0.
 *
 *   BB_FAULT_POINT("name")   kills the process with SIGKILL here, as a
 *                            power cut would, when $BILLBOARD_FAULT is name
 *                            and this is the $BILLBOARD_FAULT_AFTER-th time
 *                            (default 1) the point is reached.
 *   BB_FAULT_HIT("name")     1 when $BILLBOARD_FAULT is name (a simulated
 *                            failure the caller then handles), else 0.
 *
 * Only the process's own environment decides; nothing else is read.
 */
#ifndef BB_FAULT_H
#define BB_FAULT_H

#ifdef BB_FAULTS
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int bb_fault_hit(const char *name)
{
    const char *f = getenv("BILLBOARD_FAULT");
    return f && strcmp(f, name) == 0;
}

static inline void bb_fault_point(const char *name)
{
    static atomic_long hits;
    if (!bb_fault_hit(name))
        return;
    const char *after = getenv("BILLBOARD_FAULT_AFTER");
    long n = after ? strtol(after, NULL, 10) : 1;
    if (atomic_fetch_add(&hits, 1) + 1 < n)
        return;
    static const char msg[] = "billboardd: fault point reached: killing the process\n";
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing more to say */
    }
    kill(getpid(), SIGKILL);
    _exit(137);
}

#define BB_FAULT_POINT(name) bb_fault_point(name)
#define BB_FAULT_HIT(name) bb_fault_hit(name)
#else
#define BB_FAULT_POINT(name) ((void)0)
#define BB_FAULT_HIT(name) 0
#endif

#endif

/*
 * testutil.h — shared helpers for the cmocka unit tests.
 */
#ifndef BB_TESTUTIL_H
#define BB_TESTUTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* |got - want| <= rel * max(|want|, tiny): a stated relative tolerance. */
#define assert_rel(got, want, rel)                                                             \
    do {                                                                                       \
        double g_ = (got), w_ = (want);                                                        \
        double s_ = fabs(w_) > 1e-300 ? fabs(w_) : 1e-300;                                     \
        if (!(fabs(g_ - w_) <= (rel) * s_))                                                    \
            fail_msg("%s = %.17g, want %.17g (rel tol %g)", #got, g_, w_, (double)(rel));      \
    } while (0)

#endif

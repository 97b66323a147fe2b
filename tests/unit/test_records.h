/*
 * test_records.h — for unit tests: an in-memory store of mechanism records
 * that behaves like billboardd's mech_state table (one record per step and
 * slot, a newer one replaces it), owning copies of the bytes.
 */
#ifndef BB_TEST_RECORDS_H
#define BB_TEST_RECORDS_H

#include <stdlib.h>
#include <string.h>

#include "engine/mech.h"

#define TEST_RECORDS_MAX 512

struct test_records {
    struct bb_mech_record rec[TEST_RECORDS_MAX];
    size_t n;
};

/* Stores the n records r (upsert by step and slot). */
static inline void test_records_put(struct test_records *s, const struct bb_mech_record *r,
                                    size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < s->n && !(s->rec[j].step == r[i].step && s->rec[j].slot == r[i].slot))
            j++;
        assert_true(j < TEST_RECORDS_MAX);
        if (j == s->n)
            s->n++;
        else
            free((void *)s->rec[j].bytes);
        void *b = malloc(r[i].len ? r[i].len : 1);
        assert_non_null(b);
        memcpy(b, r[i].bytes, r[i].len);
        s->rec[j] = r[i];
        s->rec[j].bytes = b;
    }
}

static inline void test_records_free(struct test_records *s)
{
    for (size_t i = 0; i < s->n; i++)
        free((void *)s->rec[i].bytes);
    s->n = 0;
}

#endif

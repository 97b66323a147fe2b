/*
 * job.h — one unit of work for the single writer (writer.h): what an HTTP
 * thread hands over, what the writer answers, and how it says it is done.
 * Its own header so that a request (reply.h) can hold one without the
 * writer's dependencies.
 */
#ifndef BB_JOB_H
#define BB_JOB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "billboard/clinic.h"
#include "billboard/codec.h"

#define BB_IDEM_KEY_MAX 128
#define BB_JOB_HASH     32 /* bytes of BLAKE2b; BB_DB_HASH (writer.h checks) */

enum bb_job_kind { BB_JOB_EPISODE, BB_JOB_CLINIC_ADD, BB_JOB_CLINIC_REVOKE };

struct bb_job {
    enum bb_job_kind kind;
    /* --- input, set by the submitter --- */
    int64_t clinic;                         /* episode: the submitter; revoke: the target */
    char key[BB_IDEM_KEY_MAX + 1];          /* episode: Idempotency-Key */
    unsigned char body_hash[BB_JOB_HASH];   /* episode: BLAKE2b of the raw body */
    struct bb_episode_buf ep;               /* episode: owned by the job's owner */
    char name[BB_CLINIC_NAME_MAX + 1];      /* clinic add */
    unsigned char token_hash[BB_AUTH_HASH]; /* clinic add */
    /* --- output, set by the writer before done() --- */
    int err;         /* BB_OK or the error (problem.h) */
    unsigned status; /* on BB_OK: 201 or 204 */
    char *resp;      /* on BB_OK: JSON body, malloc'd, owner frees */
    size_t resp_len;
    int replayed;                /* the answer of an earlier request */
    int64_t id, created;         /* clinic add: the new clinic */
    int revoked_here;            /* revoke: the writer refused the clinic in memory
                                    ahead of the commit (undone if the commit fails) */
    char field[96], detail[160]; /* on error: JSON pointer, reason */
    /* --- completion --- */
    void (*done)(struct bb_job *j); /* called on the writer thread */
    void *ctx;                      /* for done() */
    atomic_int finished;
    struct bb_job *next;
};

#endif

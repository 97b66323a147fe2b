/*
 * store.h — the curator's in-memory copy of every episode, laid out for LSVI.
 *
 * Episodes live in blocks of BB_STORE_BLOCK; within a block, step h holds
 * the A*d features of every episode contiguously (the rows LSVI turns into
 * Q-values with one triangular solve), the chosen rows (for y_h), rewards
 * and actions. Blocks never move once allocated and the block table is sized
 * for K_max up front, so a reader (the LSVI worker) may read episodes
 * [0, n) while a single writer appends episode n and beyond.
 */
#ifndef BB_STORE_H
#define BB_STORE_H

#include "billboard/err.h"
#include "billboard/episode.h"

#define BB_STORE_BLOCK 4096

struct bb_store_block {
    double *feat;    /* H * B * A * d: step h, episode i, action a, coordinate j */
    double *chosen;  /* H * B * d: the chosen action's row */
    double *reward;  /* H * B */
    int *action;     /* H * B */
};

struct bb_store {
    int H, A, d;
    long K_max;
    long n;                       /* episodes stored */
    long nblocks;                 /* table size: ceil(K_max / B) */
    struct bb_store_block *block; /* owned */
};

int bb_store_init(struct bb_store *s, int H, int A, int d, long K_max) BB_WARN_UNUSED;
void bb_store_release(struct bb_store *s);

/* Appends a validated episode (copied). BB_EFULL past K_max, BB_ENOMEM. */
int bb_store_append(struct bb_store *s, const struct bb_episode *e) BB_WARN_UNUSED;

/* Step h (0-based) of block b: the feature rows, chosen rows and rewards of
 * its episodes. Borrowed. */
const double *bb_store_feat(const struct bb_store *s, long b, int h);
const double *bb_store_chosen(const struct bb_store *s, long b, int h);
const double *bb_store_reward(const struct bb_store *s, long b, int h);
const int *bb_store_action(const struct bb_store *s, long b, int h);

/* Number of episodes of block b among the first n. */
long bb_store_block_len(long b, long n);

#endif

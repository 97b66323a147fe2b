/*
 * billboard/episode.h — one episode on the wire, and its validation (DESIGN.md §3).
 *
 * The privacy proof rests on these bounds, so out-of-range input is rejected,
 * never clipped: every feature row (every action's, not only the chosen one)
 * has ||phi||_2 <= 1, every reward is in [0, 1], every number is finite,
 * every action index is in [0, A).
 */
#ifndef BILLBOARD_EPISODE_H
#define BILLBOARD_EPISODE_H

#include <stddef.h>

#include "billboard/err.h"

/* One episode, borrowed arrays: features H*A*d ([h][a][j]), action H, reward H. */
struct bb_episode {
    const double *features;
    const int *action;
    const double *reward;
};

/* Checks one feature row phi (d numbers, borrowed): every number finite and
 * ||phi||_2 <= 1. Returns BB_OK, or BB_EINVAL with a reason in why (may be
 * NULL). The one check of a feature row: episodes and recommendations. */
int bb_feature_row_check(const double *phi, int d, char *why, size_t whylen) BB_WARN_UNUSED;

/* Checks e against the sizes H, A, d. On failure returns BB_EINVAL and
 * writes the JSON pointer of the offending field (e.g. "/steps/2/features/1",
 * steps 0-based as in the JSON array) to field and a reason to why; both may
 * be NULL. */
int bb_episode_check(const struct bb_episode *e, int H, int A, int d, char *field,
                     size_t fieldlen, char *why, size_t whylen) BB_WARN_UNUSED;

#endif

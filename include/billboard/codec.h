/*
 * billboard/codec.h — the JSON wire format shared by billboardd and libbillboard.
 *
 * Billboard (GET /v1/billboard):
 *   {"version": v, "episode": k, "H": H, "d": d, "A": A, "beta": b,
 *    "steps": [{"h": 1, "w": [d numbers], "gram": [[d numbers] x d]}, ...],
 *    "privacy": {"rho", "epsilon", "delta", "rho_spent", "updates",
 *                "max_updates", "episodes", "max_episodes"}}
 * Numbers are printed with 17 significant digits so they read back to the
 * same double; infinite values (non-private runs) are null. The encoding is
 * canonical: the same billboard always gives the same bytes.
 *
 * Episode (POST /v1/episodes):
 *   {"billboard_version": v,
 *    "steps": [{"features": [[d numbers] x A], "action": i, "reward": r} x H]}
 */
#ifndef BILLBOARD_CODEC_H
#define BILLBOARD_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/billboard.h"
#include "billboard/episode.h"
#include "billboard/err.h"

/* Canonical JSON of b. Returns a NUL-terminated buffer the caller owns
 * (free()), its length in *len; NULL on ENOMEM. */
char *bb_billboard_to_json(const struct bb_billboard *b, size_t *len);

/* Parses a billboard. out must be zeroed or released; on success it is
 * initialised (not factored) and the caller releases it. On error returns
 * BB_EPROTO with a reason in why (may be NULL) and out stays zeroed. */
int bb_billboard_from_json(const char *buf, size_t len, struct bb_billboard *out, char *why,
                           size_t whylen) BB_WARN_UNUSED;

/* An episode owning its arrays (H*A*d features, H actions, H rewards). */
struct bb_episode_buf {
    int H, A, d;
    uint64_t billboard_version;
    double *features;
    int *action;
    double *reward;
};

int bb_episode_buf_init(struct bb_episode_buf *e, int H, int A, int d) BB_WARN_UNUSED;
void bb_episode_buf_release(struct bb_episode_buf *e);
/* A borrowed view of e for bb_episode_check() and the engine. */
struct bb_episode bb_episode_buf_view(const struct bb_episode_buf *e);

/* JSON of an episode, caller frees; NULL on ENOMEM. */
char *bb_episode_to_json(const struct bb_episode_buf *e, size_t *len);

/* Parses an episode body for sizes H, A, d into out (initialised here; the
 * caller releases it in every case).
 *   BB_EPROTO: not JSON, duplicate keys, NaN/Infinity, numbers that
 *              overflow a double, a body that is not a JSON object
 *              -> HTTP 400; why says what.
 *   BB_EINVAL: an object of the wrong shape or out-of-range values
 *              (missing or unknown field, wrong dimension,
 *              norm > 1, reward outside [0,1], action out of range)
 *              -> HTTP 422; field receives the JSON pointer of the culprit
 *              ("/steps/2/features/1/3", ...).
 * Validation is complete: BB_OK means bb_episode_check() passes. */
int bb_episode_from_json(const char *buf, size_t len, int H, int A, int d,
                         struct bb_episode_buf *out, char *field, size_t fieldlen, char *why,
                         size_t whylen) BB_WARN_UNUSED;

#endif

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
 * and the receipt of an accepted one (201):
 *   {"episode": k, "billboard_version": v}
 *
 * Recommendation (POST /v1/recommend):
 *   request   {"h": h, "features": [[d numbers] x A], "billboard_version": v}
 *             (billboard_version optional; absent or null: the current one)
 *   response  {"action": a, "q": [A numbers], "billboard_version": v}
 *
 * The privacy budget (GET /v1/privacy): billboard/privacy.h; the
 * configuration (GET /v1/config): billboard/config_info.h; the clinics
 * (/v1/clinics): billboard/clinic.h.
 *
 * Every decoder rejects duplicate keys, NaN, Infinity and numbers that
 * overflow a double as BB_EPROTO.
 */
#ifndef BILLBOARD_CODEC_H
#define BILLBOARD_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "billboard/billboard.h"
#include "billboard/episode.h"
#include "billboard/err.h"
#include "billboard/privacy.h"

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

/* --- the receipt of an accepted episode ------------------------------- */

struct bb_receipt {
    uint64_t episode;           /* k, the episode's place in commit order */
    uint64_t billboard_version; /* the version the daemon served when it took it */
};

/* JSON of r, caller frees; NULL on ENOMEM. */
char *bb_receipt_to_json(const struct bb_receipt *r, size_t *len);

/* Parses a receipt. BB_EPROTO (reason in why, may be NULL) unless episode
 * is a non-negative integer; a missing billboard_version reads as
 * UINT64_MAX. */
int bb_receipt_from_json(const char *buf, size_t len, struct bb_receipt *out, char *why,
                         size_t whylen) BB_WARN_UNUSED;

/* --- recommendation --------------------------------------------------- */

/* A recommendation request; features owned (A*d, row a at a*d). */
struct bb_recommend_req {
    int h;           /* step, 1..H */
    int64_t version; /* billboard version asked for; -1: the current one */
    int A, d;
    double *features;
    char *episode_key; /* owned; NULL when absent: the episode the step
                        * belongs to (bb_billboard_act_episode) */
};

/* JSON of a request for step h with features (A*d, borrowed); version < 0
 * leaves billboard_version out. Caller frees; NULL on ENOMEM. */
char *bb_recommend_req_to_json(int h, const double *features, int A, int d, int64_t version,
                               size_t *len);

/* The same with the step's episode key (borrowed; NULL leaves it out). */
char *bb_recommend_req_to_json_episode(int h, const double *features, int A, int d,
                                       int64_t version, const char *episode_key, size_t *len);

/* Parses a request for sizes H, A, d into out (zeroed by the caller,
 * released by it in every case).
 *   BB_EPROTO: not JSON or not an object -> HTTP 400; why says what.
 *   BB_EINVAL: a field of the wrong type or range, or a feature row that
 *              fails bb_feature_row_check(), or an episode_key that is not
 *              1 to 128 visible ASCII characters -> HTTP 422; field receives
 *              the JSON pointer ("/h", "/features/2", "/features/2/0", ...).
 *   BB_ENOMEM. */
int bb_recommend_req_from_json(const char *buf, size_t len, int H, int A, int d,
                               struct bb_recommend_req *out, char *field, size_t fieldlen,
                               char *why, size_t whylen) BB_WARN_UNUSED;
void bb_recommend_req_release(struct bb_recommend_req *r);

/* JSON of an answer: the action, the A Q-values (borrowed) and the version
 * of the billboard used. Caller frees; NULL on ENOMEM. */
char *bb_recommend_resp_to_json(int action, const double *q, int A, uint64_t version,
                                size_t *len);

/* Parses an answer for A actions: *action, q (A entries, borrowed) and
 * *version (UINT64_MAX if absent; version may be NULL). BB_EPROTO (reason
 * in why) unless action is an integer in [0, A) and q holds A numbers. */
int bb_recommend_resp_from_json(const char *buf, size_t len, int A, int *action, double *q,
                                uint64_t *version, char *why, size_t whylen) BB_WARN_UNUSED;

#endif

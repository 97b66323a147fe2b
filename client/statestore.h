/*
 * statestore.h — the clinic's local SQLite file (library-internal).
 *
 * Holds the episodes of this clinic that the daemon has not acknowledged
 * yet, so that neither an episode in progress nor a finished, unsent one is
 * lost when the clinic's process dies. Each episode gets its idempotency key
 * when it is created; the key is stored with it and reused by every resend,
 * so a resend after a crash replays at the daemon instead of duplicating.
 *
 * Episode life: open --finish--> unsent --ack--> sent
 *                                       \--4xx--> rejected
 * Every change is one transaction in WAL mode with synchronous=FULL: when a
 * function returns BB_OK the change is on disk. A new file is created with
 * mode 0600: it holds the clinic's patients' features. Features are stored as BLOBs
 * of native doubles (the file is local to one machine).
 */
#ifndef BB_CLIENT_STATESTORE_H
#define BB_CLIENT_STATESTORE_H

#include <stddef.h>
#include <stdint.h>


#include "billboard/codec.h"
#include "billboard/err.h"

struct bb_client_episode_list;

enum statestore_state { ST_OPEN = 0, ST_UNSENT = 1, ST_SENT = 2, ST_REJECTED = 3 };

struct statestore;

/* Opens (creating if needed) the store at path; caller owns *out
 * (statestore_close). BB_EIO if it cannot be opened or is not a store of
 * this format, with SQLite's message in why (may be NULL). */
int statestore_open(const char *path, struct statestore **out, char *why,
                    size_t whylen) BB_WARN_UNUSED;
void statestore_close(struct statestore *s);

/* New open episode with sizes, billboard version and key (copied, 1..128
 * chars). *id receives its id. */
int statestore_begin(struct statestore *s, int H, int A, int d, uint64_t version, const char *key,
                     int64_t *id) BB_WARN_UNUSED;

/* Appends step h = (steps so far) of open episode id. BB_ENOTFOUND if not
 * open, BB_ERANGE if it has H steps. Validation is the caller's. */
int statestore_step(struct statestore *s, int64_t id, const double *features, int action,
                    double reward) BB_WARN_UNUSED;

/* Sizes and progress of episode id (any state). Any out pointer may be NULL. */
int statestore_info(struct statestore *s, int64_t id, int *H, int *A, int *d, int *steps,
                    enum statestore_state *state) BB_WARN_UNUSED;

/* open -> unsent; BB_ERANGE if fewer than H steps. */
int statestore_finish(struct statestore *s, int64_t id) BB_WARN_UNUSED;

/* Deletes open episode id. */
int statestore_abort(struct statestore *s, int64_t id) BB_WARN_UNUSED;

/* Inserts a complete episode straight as unsent. */
int statestore_enqueue(struct statestore *s, const struct bb_episode_buf *e, const char *key,
                       int64_t *id) BB_WARN_UNUSED;

/* Loads episode id: out initialised here (caller releases it in every case;
 * steps not yet recorded are zero), key (BB_CLIENT_KEY_MAX + 1 bytes, may be
 * NULL), *steps (may be NULL). */
int statestore_load(struct statestore *s, int64_t id, struct bb_episode_buf *out, char *key,
                    int *steps) BB_WARN_UNUSED;

/* The newest open episode; BB_ENOTFOUND if none. */
int statestore_current(struct statestore *s, int64_t *id) BB_WARN_UNUSED;

/* Ids of unsent episodes, oldest first: *ids malloc'd (caller frees), *n. */
int statestore_unsent(struct statestore *s, int64_t **ids, size_t *n) BB_WARN_UNUSED;

/* unsent -> sent with the daemon's receipt. */
int statestore_mark_sent(struct statestore *s, int64_t id, uint64_t episode,
                         uint64_t version) BB_WARN_UNUSED;

/* unsent -> rejected with the reason (copied). */
int statestore_mark_rejected(struct statestore *s, int64_t id, const char *reason) BB_WARN_UNUSED;

/* Number of episodes in state st. */
int statestore_count(struct statestore *s, enum statestore_state st, long *n) BB_WARN_UNUSED;

/* Appends every episode, oldest first, to *out (caller releases it with
 * bb_client_episode_list_release, also on error). */
int statestore_list(struct statestore *s, struct bb_client_episode_list *out) BB_WARN_UNUSED;

/* Deletes every sent episode with its steps (the daemon has them);
 * *n (may be NULL) receives how many. */
int statestore_prune(struct statestore *s, long *n) BB_WARN_UNUSED;

/* The last billboard fetched from server (its base URL), as the daemon sent
 * it, and its ETag: lets a new process ask with If-None-Match and recommend
 * while the daemon is away. One entry; a billboard of another server does
 * not count. get: *body malloc'd (caller frees), BB_ENOTFOUND if none. */
int statestore_cache_get(struct statestore *s, const char *server, char **body, size_t *len,
                         char *etag, size_t etaglen) BB_WARN_UNUSED;
int statestore_cache_put(struct statestore *s, const char *server, const char *body, size_t len,
                         const char *etag) BB_WARN_UNUSED;

/* The feature set ("ball", "simplex", "onehot") server's GET /v1/config
 * declared when it was last read. get: BB_ENOTFOUND if none is kept. */
int statestore_features_get(struct statestore *s, const char *server, char *out,
                            size_t outlen) BB_WARN_UNUSED;
int statestore_features_put(struct statestore *s, const char *server,
                            const char *features) BB_WARN_UNUSED;

#endif

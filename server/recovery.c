/*
 * recovery.c — the first start's content and the rebuild of every start
 * (recovery.h).
 */
#include "recovery.h"

#include "daemon.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/codec.h"
#include "pinned.h"
#include "log.h"

int bb_recovery_create(struct bbd *d, const char *config)
{
    unsigned char key[BB_AUTH_KEY];
    size_t len = 0;
    char etag[BB_ETAG_MAX];
    const struct bb_billboard *b0 = bb_engine_billboard(d->engine);
    char *body = bb_billboard_to_json(b0, &len);
    char *derived = bb_pinned_dump(&d->p);
    int rc = BB_ENOMEM;
    if (!body || !derived)
        goto out;
    randombytes_buf(key, sizeof(key));
    bb_board_etag(b0->version, body, len, etag);
    rc = bb_db_begin(d->db);
    if (rc == BB_OK)
        rc = bb_db_config_put(d->db, config);
    if (rc == BB_OK)
        rc = bb_db_derived_put(d->db, derived);
    if (rc == BB_OK)
        rc = bb_db_token_key_put(d->db, key, sizeof(key));
    if (rc == BB_OK)
        rc = bb_db_billboard_put(d->db, 0, 0, etag, body, len, NULL, 0);
    if (rc == BB_OK)
        rc = bb_db_commit(d->db);
    else
        bb_db_rollback(d->db);
out:
    sodium_memzero(key, sizeof(key));
    free(body);
    free(derived);
    return rc;
}

/* The recovery source (engine.h): the stored episodes in commit order. */
struct source {
    struct bbd *d;
    bb_engine_put put;
    void *sink;
    long k;
};

static int source_one(void *ctx, int64_t k, const struct bb_episode_buf *e)
{
    struct source *src = ctx;
    struct bb_episode v = bb_episode_buf_view(e);
    if (k != ++src->k) {
        bb_log(BB_LOG_ERROR, "episode %lld out of order", (long long)k);
        return BB_EIO;
    }
    return src->put(src->sink, &v);
}

static int source_each(void *ctx, bb_engine_put put, void *sink)
{
    struct source *src = ctx;
    src->put = put;
    src->sink = sink;
    return bb_db_episodes_each(src->d->db, src->d->p.H, src->d->p.A, src->d->p.d, source_one, src);
}

int bb_recovery_run(struct bbd *d)
{
    char *body = NULL, *etag = NULL;
    size_t len = 0;
    struct bb_billboard b = {0};
    struct bb_board *board = NULL;
    struct bb_db_mech_state st = {0};
    struct source src = {.d = d};
    int rc = bb_db_mech_state_get(d->db, &st);
    if (rc == BB_OK)
        rc = bb_engine_recover(d->engine, source_each, &src, st.rec, st.n);
    bb_db_mech_state_free(&st);
    if (rc != BB_OK) {
        bb_log(BB_LOG_ERROR, "recovering %ld stored episodes and the %s mechanism's noise: %s",
               src.k, bb_engine_mechanism(d->engine), bb_strerror(rc));
        goto out;
    }
    if ((rc = bb_db_billboard_get(d->db, -1, &body, &len, &etag)) != BB_OK) {
        bb_log(BB_LOG_ERROR, "no stored billboard: %s", bb_strerror(rc));
        goto out;
    }
    if ((rc = bb_billboard_from_json(body, len, &b, NULL, 0)) != BB_OK)
        goto out;
    /* An update charged but never stored (killed between begin and commit)
     * still counts against N_max (writer.h). The warm billboards
     * (docs/PRIVACY.md §2.5) go before the updates. */
    long updates = (long)b.version - d->ledger.version_offset -
                   bb_params_warm_reached(&d->p, bb_engine_episodes(d->engine)),
         charged = 0;
    if (updates < 0)
        updates = 0;
    if (bb_db_updates_charged_get(d->db, &charged) == BB_OK && charged > updates)
        updates = charged;
    if ((rc = bb_engine_restore_billboard(d->engine, &b, updates)) != BB_OK) {
        bb_log(BB_LOG_ERROR, "restoring the billboard: %s", bb_strerror(rc));
        goto out;
    }
    if ((rc = bb_board_new(body, len, NULL, &board)) != BB_OK)
        goto out;
    struct bb_counts now = {bb_engine_episodes(d->engine), bb_engine_updates(d->engine),
                            (long)board->version};
    bb_stats_set(&d->stats, &now);
    bb_board_swap(&d->board, board);
out:
    bb_billboard_release(&b);
    free(body);
    free(etag);
    return rc;
}

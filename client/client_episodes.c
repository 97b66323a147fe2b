/*
 * client_episodes.c — the clinic's episodes in the local state store
 * (statestore.c): begun, recorded step by step, finished or enqueued whole,
 * listed, pruned, and flushed to the daemon oldest first, each with the
 * idempotency key it got when it was created.
 */
#include "client_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int need_store(struct bb_client *c)
{
    client_forget_answer(c);
    if (c->st)
        return BB_OK;
    client_say(c, "no state file", "this call needs a local state file");
    return BB_EINVAL;
}

int bb_client_episode_begin(struct bb_client *c, int H, int A, int d, uint64_t billboard_version,
                            int64_t *id)
{
    char key[65];
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    rc = BB_EINVAL;
    if (H < 1 || A < 1 || d < 1)
        goto out;
    bb_client_new_key(key);
    rc = statestore_begin(c->st, H, A, d, billboard_version, key, id);
out:
    return rc;
}

int bb_client_episode_step(struct bb_client *c, int64_t id, const double *features, int action,
                           double reward)
{
    int H, A, d, steps;
    enum statestore_state state;
    char field[128] = "", why[256] = "";
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    rc = statestore_info(c->st, id, &H, &A, &d, &steps, &state);
    if (rc == BB_OK && state != ST_OPEN)
        rc = BB_ENOTFOUND;
    if (rc != BB_OK) {
        client_say(c, "no such open episode", "");
        goto out;
    }
    if (steps >= H) {
        client_say(c, "episode complete", "it already has H steps; finish it");
        rc = BB_ERANGE;
        goto out;
    }
    /* The one-step view goes through the same check as a whole episode. */
    struct bb_episode v = {.features = features, .action = &action, .reward = &reward};
    rc = bb_episode_check(&v, 1, A, d, field, sizeof(field), why, sizeof(why));
    if (rc != BB_OK) {
        char detail[512];
        /* field is "/steps/0/...": name the real step. */
        const char *tail = strchr(field + (field[0] == '/'), '/');
        tail = tail ? strchr(tail + 1, '/') : NULL;
        snprintf(detail, sizeof(detail), "/steps/%d%s: %s", steps, tail ? tail : "", why);
        client_say(c, "invalid step", detail);
        goto out;
    }
    /* And the set the deployment declared, as kept from its configuration:
     * a row the daemon would refuse wastes the whole episode. */
    enum bb_feature_set set;
    if (client_feature_set(c, 0, &set) == BB_OK) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "/steps/%d", steps);
        if ((rc = client_rows_in_set(c, set, features, A, d, prefix)) != BB_OK) {
            char detail[sizeof(c->detail)];
            snprintf(detail, sizeof(detail), "%s", c->detail);
            client_say(c, "invalid step", detail);
            goto out;
        }
    }
    rc = statestore_step(c->st, id, features, action, reward);
out:
    return rc;
}

int bb_client_episode_finish(struct bb_client *c, int64_t id)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_finish(c->st, id);
    if (rc == BB_ERANGE)
        client_say(c, "episode incomplete", "it has fewer than H steps");
    return rc;
}

int bb_client_episode_abort(struct bb_client *c, int64_t id)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_abort(c->st, id);
    return rc;
}

int bb_client_episode_current(struct bb_client *c, int64_t *id, int *steps)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_current(c->st, id);
    if (rc == BB_OK && steps)
        rc = statestore_info(c->st, *id, NULL, NULL, NULL, steps, NULL);
    return rc;
}

int bb_client_enqueue(struct bb_client *c, const struct bb_episode_buf *e, const char *key,
                      int64_t *id)
{
    char fresh[65];
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    if (!key) {
        bb_client_new_key(fresh);
        key = fresh;
    }
    rc = BB_EINVAL;
    if (!client_key_ok(key)) {
        client_say(c, "bad idempotency key", "1 to 128 printable ASCII characters");
        goto out;
    }
    rc = client_check_episode(c, e);
    if (rc == BB_OK)
        rc = statestore_enqueue(c->st, e, key, id);
    if (rc == BB_ECONFLICT)
        client_say(c, "key in use",
                   "this idempotency key already belongs to an episode in the state file");
out:
    return rc;
}

int bb_client_episode_load(struct bb_client *c, int64_t id, struct bb_episode_buf *out, char *key,
                           int *steps)
{
    memset(out, 0, sizeof(*out));
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_load(c->st, id, out, key, steps);
    if (rc != BB_OK)
        bb_episode_buf_release(out);
    return rc;
}

int bb_client_pending(struct bb_client *c, long *open, long *unsent)
{
    int rc = need_store(c);
    if (rc == BB_OK && open)
        rc = statestore_count(c->st, ST_OPEN, open);
    if (rc == BB_OK && unsent)
        rc = statestore_count(c->st, ST_UNSENT, unsent);
    return rc;
}

void bb_client_episode_list_release(struct bb_client_episode_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->rows[i].reason);
    free(l->rows);
    l->rows = NULL;
    l->n = 0;
}

int bb_client_episodes(struct bb_client *c, struct bb_client_episode_list *out)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_list(c->st, out);
    return rc;
}

int bb_client_prune(struct bb_client *c, long *pruned)
{
    int rc = need_store(c);
    if (rc == BB_OK)
        rc = statestore_prune(c->st, pruned);
    return rc;
}

/* Errors that concern one episode only: the flush marks it and goes on. */
static int episode_specific(int err)
{
    return err == BB_EINVAL || err == BB_EPROTO || err == BB_ECONFLICT;
}

int bb_client_flush(struct bb_client *c, bb_client_progress_fn progress, void *user, size_t *sent)
{
    int64_t *ids = NULL;
    size_t n = 0, ok = 0;
    int first = BB_OK;
    char key[BB_CLIENT_KEY_MAX + 1];
    int rc = need_store(c);
    if (rc != BB_OK)
        goto out;
    rc = statestore_unsent(c->st, &ids, &n);
    if (rc != BB_OK)
        goto out;
    for (size_t i = 0; i < n; i++) {
        struct bb_episode_buf e;
        struct bb_client_receipt rcpt;
        rc = statestore_load(c->st, ids[i], &e, key, NULL);
        if (rc == BB_OK)
            rc = bb_client_submit(c, &e, key, &rcpt);
        bb_episode_buf_release(&e);
        if (rc == BB_OK) {
            rc = statestore_mark_sent(c->st, ids[i], rcpt.episode, rcpt.billboard_version);
            if (rc != BB_OK)
                goto out;
            ok++;
        } else if ((episode_specific(rc) && c->status >= 400) ||
                   (rc == BB_EINVAL && c->status == 0)) {
            /* Refused by the daemon, or by the local check (a state file
             * edited behind our back): kept, marked, and out of the way of
             * the episodes queued after it. */
            char reason[1400];
            snprintf(reason, sizeof(reason), "HTTP %d %s: %s", c->status, c->title, c->detail);
            int mrc = statestore_mark_rejected(c->st, ids[i], reason);
            if (mrc != BB_OK) {
                rc = mrc;
                goto out;
            }
            if (first == BB_OK)
                first = rc;
        } else {
            goto out;
        }
        if (progress)
            progress(user, i + 1, n);
    }
    rc = first;
out:
    if (sent)
        *sent = ok;
    free(ids);
    return rc;
}

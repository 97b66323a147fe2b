/*
 * ledger.c — the deployment's timeline, its restores and the release
 * journal (ledger.h).
 */
#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define META_DEPLOYMENT "deployment"
#define META_TIMELINE "timeline"
#define META_VERSION_OFFSET "version_offset"
#define META_RESTORES "restores"
#define META_JOURNAL "release_journal"

/* A meta row as a NUL-terminated string in *out (malloc'd), or NULL if absent. */
static int meta_string(struct bb_db *db, const char *key, char **out)
{
    void *v = NULL;
    size_t len = 0;
    *out = NULL;
    int rc = bb_db_meta_get(db, key, &v, &len);
    if (rc == BB_ENOTFOUND)
        return BB_OK;
    if (rc != BB_OK)
        return rc;
    char *s = malloc(len + 1);
    if (!s) {
        free(v);
        return BB_ENOMEM;
    }
    memcpy(s, v, len);
    s[len] = '\0';
    free(v);
    *out = s;
    return BB_OK;
}

static int meta_long(struct bb_db *db, const char *key, long *out)
{
    char *s = NULL, *end;
    int rc = meta_string(db, key, &s);
    *out = 0;
    if (rc != BB_OK || !s)
        return rc;
    errno = 0;
    long v = strtol(s, &end, 10);
    rc = errno || end == s || *end ? BB_EINVAL : BB_OK;
    if (rc == BB_OK)
        *out = v;
    free(s);
    return rc;
}

static int put_long(struct bb_db *db, const char *key, long v)
{
    char s[32];
    int n = snprintf(s, sizeof(s), "%ld", v);
    return bb_db_meta_put(db, key, s, (size_t)n);
}

/* The restores recorded in db, as a JSON array (new reference; empty if none). */
static int restores_get(struct bb_db *db, json_t **out)
{
    char *s = NULL;
    int rc = meta_string(db, META_RESTORES, &s);
    *out = NULL;
    if (rc != BB_OK)
        return rc;
    json_t *a = s ? json_loads(s, 0, NULL) : json_array();
    free(s);
    if (!json_is_array(a)) {
        json_decref(a);
        return BB_EINVAL;
    }
    *out = a;
    return BB_OK;
}

int bb_ledger_load(struct bb_db *db, struct bb_ledger *l)
{
    char *dep = NULL, *journal = NULL;
    json_t *a = NULL;
    memset(l, 0, sizeof(*l));
    l->journal_fd = -1;
    int rc = meta_string(db, META_DEPLOYMENT, &dep);
    if (rc == BB_OK && !dep) {
        unsigned char id[16];
        randombytes_buf(id, sizeof(id));
        sodium_bin2hex(l->deployment, sizeof(l->deployment), id, sizeof(id));
        rc = bb_db_meta_put(db, META_DEPLOYMENT, l->deployment, strlen(l->deployment));
    } else if (rc == BB_OK) {
        if (strlen(dep) != sizeof(l->deployment) - 1)
            rc = BB_EINVAL;
        else
            memcpy(l->deployment, dep, sizeof(l->deployment));
    }
    if (rc == BB_OK)
        rc = meta_long(db, META_TIMELINE, &l->timeline);
    if (rc == BB_OK)
        rc = meta_long(db, META_VERSION_OFFSET, &l->version_offset);
    if (rc == BB_OK)
        rc = meta_string(db, META_JOURNAL, &journal);
    l->journal_required = journal != NULL;
    if (rc == BB_OK)
        rc = restores_get(db, &a);
    if (rc == BB_OK) {
        size_t i;
        json_t *r;
        json_array_foreach(a, i, r) {
            l->restores++;
            l->rho_gram_restored += json_number_value(json_object_get(r, "rho_gram"));
            l->rho_y_restored += json_number_value(json_object_get(r, "rho_y"));
            l->rho_warm_restored += json_number_value(json_object_get(r, "rho_warm"));
        }
    }
    json_decref(a);
    free(dep);
    free(journal);
    return rc;
}

static int journal_line(struct bb_ledger *l, long released, long updates, long version, int start)
{
    char line[256];
    int n = snprintf(line, sizeof(line),
                     "{\"deployment\":\"%s\",\"timeline\":%ld,\"released\":%ld,\"updates\":%ld,"
                     "\"version\":%ld,\"time\":%lld%s}\n",
                     l->deployment, l->timeline, released, updates, version,
                     (long long)time(NULL), start ? ",\"start\":true" : "");
    if (n < 0 || (size_t)n >= sizeof(line))
        return BB_EIO;
    for (int off = 0; off < n;) {
        ssize_t w = write(l->journal_fd, line + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return BB_EIO;
        off += (int)w;
    }
    return fdatasync(l->journal_fd) == 0 ? BB_OK : BB_EIO;
}

int bb_ledger_journal_open(struct bb_ledger *l, struct bb_db *db, const char *path,
                           long released, long updates, long version, char *why, size_t whylen)
{
    if (!path) {
        if (!l->journal_required)
            return BB_OK;
        snprintf(why, whylen,
                 "this database was served with a release journal (--release-journal); "
                 "serving it without one would let a restore understate the privacy spent: "
                 "give the same journal again");
        return BB_EINVAL;
    }
    l->journal_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (l->journal_fd < 0) {
        snprintf(why, whylen, "release journal %s: %s", path, strerror(errno));
        return BB_EIO;
    }
    int rc = journal_line(l, released, updates, version, 1);
    if (rc == BB_OK && !l->journal_required) {
        rc = bb_db_meta_put(db, META_JOURNAL, "1", 1);
        l->journal_required = rc == BB_OK;
    }
    if (rc != BB_OK)
        snprintf(why, whylen, "release journal %s: cannot write and sync a line", path);
    return rc;
}

int bb_ledger_journal_append(struct bb_ledger *l, long released, long updates, long version)
{
    return !l || l->journal_fd < 0 ? BB_OK : journal_line(l, released, updates, version, 0);
}

void bb_ledger_close(struct bb_ledger *l)
{
    if (l->journal_fd >= 0)
        close(l->journal_fd);
    l->journal_fd = -1;
}

double bb_ledger_spent(const struct bb_ledger *l, const struct bb_params *p, long episodes,
                       long updates, double *gram, double *y, double *warm)
{
    double g, yy;
    const double total = bb_params_rho_spent(p, episodes, updates, &g, &yy) +
                         bb_ledger_restored(l);
    if (gram)
        *gram = g + l->rho_gram_restored;
    if (y)
        *y = yy + l->rho_y_restored;
    if (warm)
        *warm = bb_params_rho_warm_spent(p, episodes) + l->rho_warm_restored;
    return total;
}

double bb_ledger_restored(const struct bb_ledger *l)
{
    return l->rho_gram_restored + l->rho_y_restored + l->rho_warm_restored;
}

long bb_ledger_released(const struct bb_params *p, long episodes)
{
    if (episodes > p->K_max)
        episodes = p->K_max;
    if (!p->is_private || p->mechanism == BB_MECH_TREE || p->mechanism == BB_MECH_TREE_HONAKER)
        return episodes;
    long n = bb_release_grid(p->release_start, p->release_base, p->K_max, NULL, 0);
    long *pts = malloc(sizeof(long) * (size_t)(n > 0 ? n : 1));
    long best = 0;
    if (!pts)
        return episodes; /* the most it can be: never understates a charge */
    bb_release_grid(p->release_start, p->release_base, p->K_max, pts, n);
    for (long i = 0; i < n; i++)
        if (pts[i] <= episodes && pts[i] > best)
            best = pts[i];
    free(pts);
    const long warm = bb_params_warm_point(bb_params_warm_reached(p, episodes));
    return warm > best ? warm : best;
}

/* The backup's state: released episodes, updates charged, warm billboards
 * published, latest version. */
struct state {
    long released, updates, warm, version;
    long last_warm; /* the warm-up's last point, 0 without one */
};

/* What the journal at path says of the timelines the backup does not know.
 * *known: whether it holds a line of the backup's timeline at all. */
static int read_journal(const char *path, const struct bb_ledger *l, const struct state *b,
                        int *known, long *lost_timelines, long *lost_warm, long *lost_updates,
                        long *max_version, long *max_timeline, char *why, size_t whylen)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        if (errno == ENOENT) {
            *known = 0;
            return BB_OK;
        }
        snprintf(why, whylen, "release journal %s: %s", path, strerror(errno));
        return BB_EIO;
    }
    enum { MAXT = 4096 };
    struct tl {
        long t, released, updates;
    } *tls = calloc(MAXT, sizeof(*tls));
    long ntl = 0;
    char line[512];
    int rc = tls ? BB_OK : BB_ENOMEM;
    *known = 0;
    while (rc == BB_OK && fgets(line, sizeof(line), f)) {
        json_t *o = json_loads(line, 0, NULL);
        const char *dep = json_string_value(json_object_get(o, "deployment"));
        if (dep && !strcmp(dep, l->deployment)) {
            long t = (long)json_integer_value(json_object_get(o, "timeline"));
            long rel = (long)json_integer_value(json_object_get(o, "released"));
            long upd = (long)json_integer_value(json_object_get(o, "updates"));
            long ver = (long)json_integer_value(json_object_get(o, "version"));
            if (t == l->timeline)
                *known = 1;
            if (t > *max_timeline)
                *max_timeline = t;
            if (t >= l->timeline && ver > *max_version)
                *max_version = ver;
            long i = 0;
            while (i < ntl && tls[i].t != t)
                i++;
            if (i == ntl && ntl < MAXT)
                tls[ntl++] = (struct tl){t, rel, upd};
            else if (i < ntl) {
                if (rel > tls[i].released)
                    tls[i].released = rel;
                if (upd > tls[i].updates)
                    tls[i].updates = upd;
            } else {
                rc = BB_EINVAL;
                snprintf(why, whylen, "release journal %s: more than %d timelines", path, MAXT);
            }
        }
        json_decref(o);
    }
    if (rc == BB_OK && ferror(f)) {
        snprintf(why, whylen, "release journal %s: read error", path);
        rc = BB_EIO;
    }
    for (long i = 0; rc == BB_OK && i < ntl; i++) {
        if (tls[i].t < l->timeline)
            continue; /* an ancestor: its charges are in the backup's ledger */
        /* The backup's own timeline is lost from the backup's state on; a
         * later one (a restore made after this timeline began) is charged
         * whole, as if it had branched before any release. */
        long from_released = tls[i].t == l->timeline ? b->released : 0;
        long from_updates = tls[i].t == l->timeline ? b->updates : 0;
        /* past a point of the main mechanisms the backup had not reached
         * (they are all above the warm-up's) */
        if (tls[i].released > from_released && tls[i].released > b->last_warm)
            (*lost_timelines)++;
        /* it may have released a warm point the backup had not reached */
        if (tls[i].released > from_released && from_released < b->last_warm)
            (*lost_warm)++;
        if (tls[i].updates > from_updates)
            *lost_updates += tls[i].updates - from_updates;
    }
    free(tls);
    fclose(f);
    return rc;
}

int bb_ledger_restore(struct bb_db *restored, const struct bb_params *p, const char *journal_path,
                      struct bb_restore_charge *out, char *why, size_t whylen)
{
    struct bb_ledger l;
    struct state b = {0};
    int64_t episodes = 0, version = 0;
    json_t *a = NULL, *rec = NULL;
    char *text = NULL;
    memset(out, 0, sizeof(*out));
    int rc = bb_ledger_load(restored, &l);
    if (rc == BB_OK)
        rc = bb_db_summary(restored, &episodes, &version);
    if (rc == BB_OK) /* none stored before the first update was charged */
        rc = bb_db_updates_charged_get(restored, &b.updates);
    if (rc == BB_ENOTFOUND) {
        b.updates = 0;
        rc = BB_OK;
    }
    if (rc != BB_OK) {
        snprintf(why, whylen, "the backup's ledger cannot be read: %s", bb_strerror(rc));
        return rc;
    }
    b.released = bb_ledger_released(p, (long)episodes);
    b.version = (long)version;
    /* the warm billboards go before any update (docs/PRIVACY.md §2.5) */
    b.warm = bb_params_warm_reached(p, (long)episodes);
    b.last_warm = bb_params_warm_point(p->warm_points);
    if (b.updates < b.version - l.version_offset - b.warm)
        b.updates = b.version - l.version_offset - b.warm;
    if (b.updates > 0)
        b.warm = p->warm_points;
    long lost_timelines = 0, lost_warm = 0, lost_updates = 0, max_version = b.version,
         max_timeline = l.timeline;
    int known = 0;
    if (journal_path &&
        (rc = read_journal(journal_path, &l, &b, &known, &lost_timelines, &lost_warm,
                           &lost_updates, &max_version, &max_timeline, why, whylen)) != BB_OK)
        return rc;
    out->from_journal = known;
    if (!known) {
        /* The worst case: one lost timeline that released every point
         * left and made every update left. */
        lost_timelines = bb_ledger_released(p, p->K_max) > b.released;
        lost_updates = p->max_updates > b.updates ? p->max_updates - b.updates : 0;
        max_version = p->max_updates + p->warm_points + l.version_offset;
        if (max_version < b.version)
            max_version = b.version;
        lost_timelines = lost_timelines || lost_updates > 0 ? lost_timelines : 0;
        lost_warm = lost_timelines && b.warm < p->warm_points;
    }
    if (p->is_private) {
        /* a lost timeline that may have passed a warm point the backup had
         * not reached: the warm-up's whole rho_warm (§2.5), as rho_gram */
        out->rho_warm = (double)lost_warm * p->rho_warm;
        out->rho_gram = (double)lost_timelines * p->rho_gram;
        /* each lost timeline's reward and count streams, as its Gram
         * releases (§2.4, §2.6); each lost update at the largest share,
         * the first's (§2.3): a lost timeline may have begun anywhere, its
         * first update included (with the counts the updates spend none) */
        const double rho_r = bb_params_rho_reward(p) + bb_params_rho_counts(p);
        const double rho_u = p->rho_y - rho_r > 0 ? p->rho_y - rho_r : 0.0;
        out->rho_y = (double)lost_timelines * rho_r +
                     (p->max_updates > 0 ? (double)lost_updates * bb_params_y_update_share(p, 1) *
                                               rho_u / p->max_updates
                                         : 0);
    }
    out->lost_timelines = lost_timelines;
    out->lost_updates = lost_updates;
    long offset = max_version - b.updates - b.warm;
    if (offset < l.version_offset)
        offset = l.version_offset;
    out->first_version = b.updates + b.warm + 1 + offset;

    rc = BB_ENOMEM;
    if (restores_get(restored, &a) != BB_OK)
        goto out;
    rec = json_pack("{s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:I, s:I}", "time",
                    (json_int_t)time(NULL), "from_journal", known, "backup_episodes",
                    (json_int_t)episodes, "backup_updates", (json_int_t)b.updates,
                    "backup_version", (json_int_t)b.version, "lost_timelines",
                    (json_int_t)lost_timelines, "lost_updates", (json_int_t)lost_updates,
                    "rho_gram", out->rho_gram, "rho_y", out->rho_y, "rho_warm", out->rho_warm,
                    "timeline",
                    (json_int_t)(max_timeline + 1), "first_version",
                    (json_int_t)out->first_version);
    if (!rec || json_array_append_new(a, rec) != 0)
        goto out;
    rec = NULL;
    if (!(text = json_dumps(a, JSON_COMPACT)))
        goto out;
    rc = bb_db_begin(restored);
    if (rc == BB_OK)
        rc = bb_db_meta_put(restored, META_RESTORES, text, strlen(text));
    if (rc == BB_OK)
        rc = put_long(restored, META_TIMELINE, max_timeline + 1);
    if (rc == BB_OK)
        rc = put_long(restored, META_VERSION_OFFSET, offset);
    if (rc == BB_OK)
        rc = bb_db_commit(restored);
    else
        bb_db_rollback(restored);
    if (rc != BB_OK)
        snprintf(why, whylen, "cannot record the restore's charge: %s", bb_strerror(rc));
out:
    if (rc == BB_ENOMEM)
        snprintf(why, whylen, "out of memory recording the restore");
    json_decref(rec);
    json_decref(a);
    free(text);
    return rc;
}

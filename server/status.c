/*
 * status.c — the status page and GET /v1/history (status.h).
 */
#include "status.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "db.h"
#include "problem.h"

/* server/status.html, generated into $(O)/gen/server/status_html.c. */
extern const char bb_status_html[];
extern const size_t bb_status_html_len;

/* When each version was published by this process; 0 if not. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static double *published;
static size_t npublished;

void bb_status_published(long v, double unix_seconds)
{
    if (v < 0)
        return;
    pthread_mutex_lock(&mu);
    if ((size_t)v >= npublished) {
        size_t n = (size_t)v + 16;
        double *p = realloc(published, n * sizeof(*p));
        if (p) {
            memset(p + npublished, 0, (n - npublished) * sizeof(*p));
            published = p;
            npublished = n;
        }
    }
    if ((size_t)v < npublished)
        published[v] = unix_seconds;
    pthread_mutex_unlock(&mu);
}

static double published_at(int64_t v)
{
    pthread_mutex_lock(&mu);
    double t = v >= 0 && (size_t)v < npublished ? published[v] : 0;
    pthread_mutex_unlock(&mu);
    return t;
}

enum MHD_Result bb_status_page_get(struct bbd *d, struct bb_req *r)
{
    (void)d;
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        bb_status_html_len, (void *)bb_status_html, MHD_RESPMEM_PERSISTENT);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
    MHD_add_response_header(resp, "Cache-Control", "no-cache");
    /* Everything is inline and only this origin is fetched. */
    MHD_add_response_header(resp, "Content-Security-Policy",
                            "default-src 'none'; script-src 'unsafe-inline'; "
                            "style-src 'unsafe-inline'; connect-src 'self'; img-src data:");
    r->bytes = bb_status_html_len;
    enum MHD_Result ret = bb_reply_resp(r, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}

enum MHD_Result bb_status_history_get(struct bbd *d, struct bb_req *r)
{
    int64_t *versions = NULL, *episodes = NULL;
    size_t n = 0;
    struct bb_db *db = bb_db_pool_get(d->pool);
    int rc = bb_db_billboard_index(db, &versions, &episodes, &n);
    bb_db_pool_put(d->pool, db);
    if (rc != BB_OK)
        return bb_reply_problem(r, rc == BB_ENOMEM ? BB_ENOMEM : BBD_EUNAVAIL,
                                "the database is not answering", NULL);
    json_t *list = json_array(), *o = json_object();
    for (size_t i = 0; list && i < n; i++) {
        double t = published_at(versions[i]);
        json_array_append_new(list, json_pack("{sI sI so}", "version", (json_int_t)versions[i],
                                              "episode", (json_int_t)episodes[i], "published",
                                              t > 0 ? json_integer((json_int_t)t) : json_null()));
    }
    free(versions);
    free(episodes);
    char *s = NULL;
    if (o && list && json_object_set_new(o, "versions", list) == 0) {
        list = NULL;
        s = json_dumps(o, JSON_COMPACT);
    }
    json_decref(list);
    json_decref(o);
    if (!s)
        return bb_reply_problem(r, BB_ENOMEM, NULL, NULL);
    enum MHD_Result ret = bb_reply_send(r, 200, "application/json", s, strlen(s));
    free(s);
    return ret;
}

/*
 * status.c — the status page and GET /v1/history (status.h).
 */
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "db.h"
#include "problem.h"

/* server/status.html, generated into $(O)/gen/server/status_html.c. */
extern const char bb_status_html[];
extern const size_t bb_status_html_len;

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
    int64_t *versions = NULL, *episodes = NULL, *published = NULL;
    size_t n = 0;
    struct bb_db *db = bb_db_pool_get(d->pool);
    int rc = bb_db_billboard_index(db, &versions, &episodes, &published, &n);
    bb_db_pool_put(d->pool, db);
    if (rc != BB_OK)
        return bb_reply_problem(r, rc == BB_ENOMEM ? BB_ENOMEM : BBD_EUNAVAIL,
                                "the database is not answering", NULL);
    json_t *list = json_array(), *o = json_object();
    for (size_t i = 0; list && i < n; i++) {
        json_array_append_new(list, json_pack("{sI sI so}", "version", (json_int_t)versions[i],
                                              "episode", (json_int_t)episodes[i], "published",
                                              published[i] > 0
                                                  ? json_integer((json_int_t)published[i])
                                                  : json_null()));
    }
    free(versions);
    free(episodes);
    free(published);
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

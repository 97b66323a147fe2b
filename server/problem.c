/*
 * problem.c — error code -> HTTP status and problem+json (problem.h).
 */
#include "problem.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "billboard/problem.h"

struct kind {
    int err;
    unsigned status;
    const char *type; /* billboard/problem.h, shared with the client */
    const char *title;
    unsigned retry_after; /* seconds for Retry-After, 0 for none */
};

/* The one mapping from error to status. A 503 says when to come back: the
 * storage failures end the process, and a supervisor restarts it within
 * seconds (deploy/billboardd.service: RestartSec=1s, then recovery); a
 * full disk is retried in place (writer_impl.h). */
static const struct kind kinds[] = {
    {BB_EPROTO, 400, BB_PROBLEM_MALFORMED, "Malformed request body", 0},
    {BBD_EHEADER, 400, BB_PROBLEM_BAD_HEADER, "Malformed or missing request header", 0},
    {BB_EAUTH, 401, BB_PROBLEM_UNAUTHORIZED, "Missing or invalid bearer token", 0},
    {BBD_EFORBIDDEN, 403, BB_PROBLEM_FORBIDDEN,
     "The bearer token is valid but its role may not use this route", 0},
    {BB_ENOTFOUND, 404, BB_PROBLEM_NOT_FOUND, "No such resource", 0},
    {BBD_ENOROUTE, 404, BB_PROBLEM_NOT_FOUND, "No such resource", 0},
    {BBD_EMETHOD, 405, BB_PROBLEM_METHOD_NOT_ALLOWED, "Method not allowed on this resource", 0},
    {BB_EFULL, 409, BB_PROBLEM_EPISODE_BUDGET,
     "K_max episodes already received; no more episodes are accepted", 0},
    {BB_ECAP, 409, BB_PROBLEM_UPDATE_CAP, "The update cap N_max is reached", 0},
    {BB_ECONFLICT, 409, BB_PROBLEM_CONFLICT, "Conflict with the current state", 0},
    {BBD_EKEYREUSE, 409, BB_PROBLEM_KEY_REUSED,
     "Idempotency-Key already used with a different body", 0},
    {BBD_ETOOBIG, 413, BB_PROBLEM_BODY_TOO_LARGE, "Request body over the size limit", 0},
    {BBD_EMEDIA, 415, BB_PROBLEM_MEDIA_TYPE, "Content-Type must be application/json", 0},
    {BB_EINVAL, 422, BB_PROBLEM_VALIDATION, "Request body failed validation", 0},
    {BB_ERANGE, 422, BB_PROBLEM_VALIDATION, "Request body failed validation", 0},
    {BBD_EHEADERS, 431, BB_PROBLEM_HEADERS_TOO_LARGE, "Request header fields too large", 0},
    {BB_ENOMEM, 503, BB_PROBLEM_OVERLOADED, "Server out of memory", 1},
    {BB_EIO, 503, BB_PROBLEM_STORAGE, "Storage unavailable", 5},
    {BBD_EUNAVAIL, 503, BB_PROBLEM_UNAVAILABLE, "Service unavailable", 5},
};

static const struct kind *find(int err)
{
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (kinds[i].err == err)
            return &kinds[i];
    return NULL;
}

unsigned bb_problem_status(int err)
{
    if (err == BB_OK)
        return 200;
    const struct kind *k = find(err);
    return k ? k->status : 500;
}

unsigned bb_problem_retry_after(int err)
{
    const struct kind *k = find(err);
    return k ? k->retry_after : 0;
}

char *bb_problem_json(int err, const char *detail, const char *pointer, size_t *len)
{
    const struct kind *k = find(err);
    json_t *o =
        json_pack("{s:s, s:s, s:i}", "type", k ? k->type : BB_PROBLEM_INTERNAL, "title",
                  k ? k->title : "Internal server error", "status", (int)bb_problem_status(err));
    char *s = NULL;
    if (!o)
        goto out;
    if (detail && json_object_set_new(o, "detail", json_string(detail)) != 0)
        goto out;
    if (pointer && json_object_set_new(o, "pointer", json_string(pointer)) != 0)
        goto out;
    s = json_dumps(o, JSON_COMPACT);
    if (s && len)
        *len = strlen(s);
out:
    json_decref(o);
    return s;
}

/*
 * problem.c — error code -> HTTP status and problem+json (problem.h).
 */
#include "problem.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kind {
    int err;
    unsigned status;
    const char *slug;
    const char *title;
};

/* The one mapping from error to status. */
static const struct kind kinds[] = {
    {BB_EPROTO, 400, "malformed", "Malformed request body"},
    {BBD_EHEADER, 400, "bad-header", "Malformed or missing request header"},
    {BB_EAUTH, 401, "unauthorized", "Missing or invalid bearer token"},
    {BB_ENOTFOUND, 404, "not-found", "No such resource"},
    {BBD_ENOROUTE, 404, "not-found", "No such resource"},
    {BBD_EMETHOD, 405, "method-not-allowed", "Method not allowed on this resource"},
    {BB_EFULL, 409, "episode-budget-exhausted",
     "K_max episodes already received; no more episodes are accepted"},
    {BB_ECAP, 409, "update-cap-reached", "The update cap N_max is reached"},
    {BB_ECONFLICT, 409, "conflict", "Conflict with the current state"},
    {BBD_EKEYREUSE, 409, "idempotency-key-reused",
     "Idempotency-Key already used with a different body"},
    {BBD_ETOOBIG, 413, "body-too-large", "Request body over the size limit"},
    {BBD_EMEDIA, 415, "unsupported-media-type", "Content-Type must be application/json"},
    {BB_EINVAL, 422, "validation", "Request body failed validation"},
    {BB_ERANGE, 422, "validation", "Request body failed validation"},
    {BB_ENOMEM, 503, "overloaded", "Server out of memory"},
    {BB_EIO, 503, "storage", "Storage unavailable"},
    {BBD_EUNAVAIL, 503, "unavailable", "Service unavailable"},
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

char *bb_problem_json(int err, const char *detail, const char *pointer, size_t *len)
{
    const struct kind *k = find(err);
    char type[96];
    snprintf(type, sizeof(type), "urn:billboard:problem:%s", k ? k->slug : "internal");
    json_t *o =
        json_pack("{s:s, s:s, s:i}", "type", type, "title", k ? k->title : "Internal server error",
                  "status", (int)bb_problem_status(err));
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

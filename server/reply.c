/*
 * reply.c — answering a request (reply.h).
 */
#include "reply.h"

#include <stdio.h>
#include <stdlib.h>

#include "problem.h"

enum MHD_Result bb_reply_resp(struct bb_req *r, unsigned status, struct MHD_Response *resp)
{
    r->answered = 1;
    r->status = status;
    return MHD_queue_response(r->conn, status, resp);
}

enum MHD_Result bb_reply_send(struct bb_req *r, unsigned status, const char *ctype,
                              const char *body, size_t len)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    r->bytes = len;
    if (ctype)
        MHD_add_response_header(resp, "Content-Type", ctype);
    enum MHD_Result ret = bb_reply_resp(r, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

enum MHD_Result bb_reply_problem(struct bb_req *r, int err, const char *detail, const char *pointer)
{
    size_t len = 0;
    char *body = bb_problem_json(err, detail && *detail ? detail : NULL,
                                 pointer && *pointer ? pointer : NULL, &len);
    if (!body)
        return MHD_NO;
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    r->bytes = len;
    MHD_add_response_header(resp, "Content-Type", "application/problem+json");
    unsigned status = bb_problem_status(err);
    if (status == 401)
        MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    if (status == 405 && r->allow[0])
        MHD_add_response_header(resp, "Allow", r->allow);
    unsigned after = bb_problem_retry_after(err);
    if (after) {
        char s[16];
        snprintf(s, sizeof(s), "%u", after);
        MHD_add_response_header(resp, "Retry-After", s);
    }
    enum MHD_Result ret = bb_reply_resp(r, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

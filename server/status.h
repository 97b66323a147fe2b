/*
 * status.h — the status page at GET / (server/status.html, embedded at
 * build time) and the public history it draws: GET /v1/history, every
 * billboard version with the episode it was computed at (both in each
 * published billboard) and, for the versions this process published, when.
 * Nothing else: the page reads /v1/config, /v1/privacy and /readyz too.
 */
#ifndef BB_STATUS_H
#define BB_STATUS_H

#include "reply.h"

struct bbd;

/* Version v became served at unix_seconds (the committer, after the swap). */
void bb_status_published(long v, double unix_seconds);

enum MHD_Result bb_status_page_get(struct bbd *d, struct bb_req *r);
enum MHD_Result bb_status_history_get(struct bbd *d, struct bb_req *r);

#endif

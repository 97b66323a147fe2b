/*
 * status.h — the status page at GET / (server/status.html, embedded at
 * build time) and the public history it draws: GET /v1/history, every
 * billboard version with the episode it was computed at (both in each
 * published billboard) and when it was published (stored with it, so it
 * survives restarts; null for versions older than that record).
 * Nothing else: the page reads /v1/config, /v1/privacy and /readyz too.
 */
#ifndef BB_STATUS_H
#define BB_STATUS_H

#include "reply.h"

struct bbd;

enum MHD_Result bb_status_page_get(struct bbd *d, struct bb_req *r);
enum MHD_Result bb_status_history_get(struct bbd *d, struct bb_req *r);

#endif

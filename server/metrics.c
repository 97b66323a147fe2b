/*
 * metrics.c — counters and their Prometheus rendering (metrics.h).
 */
#include "metrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned statuses[] = {200, 201, 204, 304, 400, 401, 404,
                                    405, 409, 413, 415, 422, 500, 503};
#define NSTATUS (sizeof(statuses) / sizeof(statuses[0]))

static atomic_ulong requests[BB_METRICS_ROUTES][NSTATUS + 1]; /* last: other */
static atomic_ulong episodes_total;
static atomic_ulong update_count;
static atomic_ullong update_micros;
static atomic_ulong commits, commit_jobs;
static atomic_ullong commit_micros;

void bb_metrics_request(int route, unsigned status)
{
    if (route < 0 || route >= BB_METRICS_ROUTES)
        route = BB_METRICS_ROUTES - 1;
    size_t i = 0;
    while (i < NSTATUS && statuses[i] != status)
        i++;
    atomic_fetch_add_explicit(&requests[route][i], 1, memory_order_relaxed);
}

void bb_metrics_episodes_add(long n)
{
    atomic_fetch_add_explicit(&episodes_total, (unsigned long)n, memory_order_relaxed);
}

void bb_metrics_update_seconds(double s)
{
    atomic_fetch_add_explicit(&update_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&update_micros, (unsigned long long)(s * 1e6), memory_order_relaxed);
}

void bb_metrics_commit(long jobs, double s)
{
    atomic_fetch_add_explicit(&commits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&commit_jobs, (unsigned long)jobs, memory_order_relaxed);
    atomic_fetch_add_explicit(&commit_micros, (unsigned long long)(s * 1e6), memory_order_relaxed);
}

struct buf {
    char *p;
    size_t len, cap;
    int oom;
};

static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    for (int tries = 0; tries < 2 && !b->oom; tries++) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = 1;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

static void gauge(struct buf *b, const char *name, const char *help, double v)
{
    put(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
    if (isfinite(v))
        put(b, "%s %.17g\n", name, v);
    else
        put(b, "%s %s\n", name, v > 0 ? "+Inf" : "NaN");
}

char *bb_metrics_render(const char *const *route_names, const char *const *route_methods,
                        int nroutes, const struct bb_metrics_gauges *g, size_t *len)
{
    struct buf b = {0};
    put(&b, "# HELP billboard_http_requests_total HTTP requests by route and status.\n"
            "# TYPE billboard_http_requests_total counter\n");
    for (int r = 0; r < BB_METRICS_ROUTES; r++) {
        for (size_t s = 0; s <= NSTATUS; s++) {
            unsigned long v = atomic_load_explicit(&requests[r][s], memory_order_relaxed);
            if (!v)
                continue;
            const char *name = r < nroutes ? route_names[r] : "unmatched";
            const char *method = r < nroutes ? route_methods[r] : "any";
            if (s < NSTATUS)
                put(&b,
                    "billboard_http_requests_total{route=\"%s\",method=\"%s\",code=\"%u\"} %lu\n",
                    name, method, statuses[s], v);
            else
                put(&b,
                    "billboard_http_requests_total{route=\"%s\",method=\"%s\",code=\"other\"} "
                    "%lu\n",
                    name, method, v);
        }
    }
    put(&b,
        "# HELP billboard_episodes_accepted_total Episodes committed by this process.\n"
        "# TYPE billboard_episodes_accepted_total counter\n"
        "billboard_episodes_accepted_total %lu\n",
        atomic_load(&episodes_total));
    put(&b,
        "# HELP billboard_update_duration_seconds Time of LSVI updates run by this process.\n"
        "# TYPE billboard_update_duration_seconds summary\n"
        "billboard_update_duration_seconds_sum %.6f\n"
        "billboard_update_duration_seconds_count %lu\n",
        (double)atomic_load(&update_micros) / 1e6, atomic_load(&update_count));
    put(&b,
        "# HELP billboard_group_commits_total Writer transactions (group commits).\n"
        "# TYPE billboard_group_commits_total counter\n"
        "billboard_group_commits_total %lu\n"
        "# HELP billboard_group_commit_jobs_total Requests applied by those transactions.\n"
        "# TYPE billboard_group_commit_jobs_total counter\n"
        "billboard_group_commit_jobs_total %lu\n"
        "# HELP billboard_group_commit_seconds_total Time in those transactions.\n"
        "# TYPE billboard_group_commit_seconds_total counter\n"
        "billboard_group_commit_seconds_total %.6f\n",
        atomic_load(&commits), atomic_load(&commit_jobs),
        (double)atomic_load(&commit_micros) / 1e6);
    gauge(&b, "billboard_episodes", "Episodes stored (all time).", (double)g->episodes);
    gauge(&b, "billboard_max_episodes", "K_max.", (double)g->max_episodes);
    gauge(&b, "billboard_updates", "Updates charged (all time).", (double)g->updates);
    gauge(&b, "billboard_max_updates", "N_max.", (double)g->max_updates);
    gauge(&b, "billboard_version", "Version of the billboard served.", (double)g->version);
    gauge(&b, "billboard_rho", "Total zCDP budget.", g->rho);
    gauge(&b, "billboard_rho_spent_gram", "zCDP spent by the Gram mechanism.", g->rho_gram_spent);
    gauge(&b, "billboard_rho_spent_y", "zCDP spent on y.", g->rho_y_spent);
    gauge(&b, "billboard_ready", "1 if the database answers.", g->ready);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

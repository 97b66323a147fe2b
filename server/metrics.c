/*
 * metrics.c — counters and their Prometheus rendering (metrics.h), written
 * into the project's one growable buffer (proto/buf.h).
 */
#include "metrics.h"

#include <math.h>
#include <stdatomic.h>

#include "buf.h"

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

static void gauge(struct bb_buf *b, const char *name, const char *help, double v)
{
    bb_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
    if (isfinite(v))
        bb_buf_printf(b, "%s %.17g\n", name, v);
    else
        bb_buf_printf(b, "%s %s\n", name, v > 0 ? "+Inf" : "NaN");
}

char *bb_metrics_render(const char *const *route_names, const char *const *route_methods,
                        int nroutes, const struct bb_metrics_gauges *g, size_t *len)
{
    struct bb_buf b = BB_BUF_INIT;
    bb_buf_printf(&b, "# HELP billboard_http_requests_total HTTP requests by route and status.\n"
                      "# TYPE billboard_http_requests_total counter\n");
    for (int r = 0; r < BB_METRICS_ROUTES; r++) {
        for (size_t s = 0; s <= NSTATUS; s++) {
            unsigned long v = atomic_load_explicit(&requests[r][s], memory_order_relaxed);
            if (!v)
                continue;
            const char *name = r < nroutes ? route_names[r] : "unmatched";
            const char *method = r < nroutes ? route_methods[r] : "any";
            if (s < NSTATUS)
                bb_buf_printf(
                    &b,
                    "billboard_http_requests_total{route=\"%s\",method=\"%s\",code=\"%u\"} %lu\n",
                    name, method, statuses[s], v);
            else
                bb_buf_printf(
                    &b,
                    "billboard_http_requests_total{route=\"%s\",method=\"%s\",code=\"other\"} "
                    "%lu\n",
                    name, method, v);
        }
    }
    bb_buf_printf(&b,
                  "# HELP billboard_episodes_accepted_total Episodes committed by this process.\n"
                  "# TYPE billboard_episodes_accepted_total counter\n"
                  "billboard_episodes_accepted_total %lu\n",
                  atomic_load(&episodes_total));
    bb_buf_printf(
        &b,
        "# HELP billboard_update_duration_seconds Time of LSVI updates run by this process.\n"
        "# TYPE billboard_update_duration_seconds summary\n"
        "billboard_update_duration_seconds_sum %.6f\n"
        "billboard_update_duration_seconds_count %lu\n",
        (double)atomic_load(&update_micros) / 1e6, atomic_load(&update_count));
    bb_buf_printf(
        &b,
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
    return bb_buf_detach(&b, len); /* NULL if an allocation failed */
}

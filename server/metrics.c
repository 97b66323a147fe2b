/*
 * metrics.c — counters, histograms and their Prometheus rendering
 * (metrics.h), written into the project's one growable buffer (proto/buf.h).
 */
#include "metrics.h"

#include <dirent.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "version.h"

/* Status codes 100..599 each have a counter; anything else is "other". */
#define CODE_MIN 100
#define NCODES   501 /* 100..599, then "other" */

/* Request latency: from a few hundred microseconds (a cached GET) to the
 * seconds a POST may wait behind a group commit's fsync. */
static const double req_le[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                0.1,    0.25,  0.5,    1,     2.5,  5,     10};
#define NREQ_LE (sizeof(req_le) / sizeof(req_le[0]))
/* Update duration: LSVI over the episodes so far: about a millisecond in
 * the demo's first updates (25-logs.sh's publish lines), 0.30-0.85 s at
 * K = 10^5, H = 10, A = 8, d = 32 (docs/SCALING.md, make bench-lsvi). */
static const double upd_le[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                0.25,  0.5,    1,     2.5,  5,     10,   30};
#define NUPD_LE (sizeof(upd_le) / sizeof(upd_le[0]))

struct histogram {
    atomic_ulong bucket[NREQ_LE > NUPD_LE ? NREQ_LE : NUPD_LE]; /* non-cumulative */
    atomic_ulong count;
    atomic_ullong micros;
};

static atomic_ulong requests[BB_METRICS_ROUTES][2][NCODES]; /* [route][other method][code] */
static struct histogram latency[BB_METRICS_ROUTES];
static struct histogram updates;
static atomic_ulong episodes_total;
static atomic_ulong commits, commit_jobs;
static atomic_ullong commit_micros;
static double start_time;
static _Atomic double tls_expiry; /* 0: no TLS */

static void observe(struct histogram *h, const double *le, size_t n, double s)
{
    size_t i = 0;
    while (i < n && s > le[i])
        i++;
    if (i < n)
        atomic_fetch_add_explicit(&h->bucket[i], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->micros, (unsigned long long)(s > 0 ? s * 1e6 : 0),
                              memory_order_relaxed);
}

void bb_metrics_init(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    start_time = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bb_metrics_request(int route, int other_method, unsigned status, double s)
{
    if (route < 0 || route >= BB_METRICS_ROUTES)
        route = BB_METRICS_ROUTES - 1;
    size_t c =
        status >= CODE_MIN && status < CODE_MIN + NCODES - 1 ? status - CODE_MIN : NCODES - 1;
    atomic_fetch_add_explicit(&requests[route][other_method ? 1 : 0][c], 1, memory_order_relaxed);
    if (!other_method) /* the histogram's method label is the route's */
        observe(&latency[route], req_le, NREQ_LE, s);
}

void bb_metrics_episodes_add(long n)
{
    atomic_fetch_add_explicit(&episodes_total, (unsigned long)n, memory_order_relaxed);
}

void bb_metrics_update_seconds(double s)
{
    observe(&updates, upd_le, NUPD_LE, s);
}

void bb_metrics_commit(long jobs, double s)
{
    atomic_fetch_add_explicit(&commits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&commit_jobs, (unsigned long)jobs, memory_order_relaxed);
    atomic_fetch_add_explicit(&commit_micros, (unsigned long long)(s * 1e6), memory_order_relaxed);
}

void bb_metrics_tls_expiry(double unix_seconds)
{
    atomic_store(&tls_expiry, unix_seconds);
}

static void gauge(struct bb_buf *b, const char *name, const char *help, double v)
{
    bb_buf_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
    if (isfinite(v))
        bb_buf_printf(b, "%s %.17g\n", name, v);
    else
        bb_buf_printf(b, "%s %s\n", name, v > 0 ? "+Inf" : "NaN");
}

/* The _bucket, _sum and _count lines of h; labels ("" or "k=\"v\",…")
 * go before le. */
static void histogram_lines(struct bb_buf *b, const char *name, const char *labels,
                            const struct histogram *h, const double *le, size_t n)
{
    unsigned long cum = 0;
    const char *sep = labels[0] ? "," : "";
    for (size_t i = 0; i < n; i++) {
        cum += atomic_load_explicit(&h->bucket[i], memory_order_relaxed);
        bb_buf_printf(b, "%s_bucket{%s%sle=\"%g\"} %lu\n", name, labels, sep, le[i], cum);
    }
    unsigned long count = atomic_load(&h->count);
    bb_buf_printf(b, "%s_bucket{%s%sle=\"+Inf\"} %lu\n", name, labels, sep, count);
    bb_buf_printf(b, "%s_sum%s%s%s %.6f\n", name, labels[0] ? "{" : "", labels,
                  labels[0] ? "}" : "", (double)atomic_load(&h->micros) / 1e6);
    bb_buf_printf(b, "%s_count%s%s%s %lu\n", name, labels[0] ? "{" : "", labels,
                  labels[0] ? "}" : "", count);
}

/* Resident memory from /proc/self/statm; -1 if unreadable. */
static double resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size, rss;
    int ok = f && fscanf(f, "%lu %lu", &size, &rss) == 2;
    if (f)
        fclose(f);
    return ok ? (double)rss * (double)sysconf(_SC_PAGESIZE) : -1;
}

/* Open descriptors: entries of /proc/self/fd, less the one reading it. */
static double open_fds(void)
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(dir));)
        if (e->d_name[0] != '.')
            n++;
    closedir(dir);
    return (double)(n - 1);
}

char *bb_metrics_render(const char *const *route_names, const char *const *route_methods,
                        int nroutes, const struct bb_metrics_gauges *g, size_t *len)
{
    struct bb_buf b = BB_BUF_INIT;
    bb_buf_printf(&b, "# HELP billboard_http_requests_total HTTP requests by route, method and "
                      "status code.\n"
                      "# TYPE billboard_http_requests_total counter\n");
    for (int r = 0; r < BB_METRICS_ROUTES; r++) {
        const char *name = r < nroutes ? route_names[r] : "unmatched";
        for (int m = 0; m < 2; m++) {
            const char *method = r < nroutes && !m ? route_methods[r] : "other";
            for (size_t c = 0; c < NCODES; c++) {
                unsigned long v = atomic_load_explicit(&requests[r][m][c], memory_order_relaxed);
                /* A route's 500 and 503 are shown from the start, at 0, so
                 * that increase() sees the first server error. */
                int shown = r < nroutes && !m && (c + CODE_MIN == 500 || c + CODE_MIN == 503);
                if (!v && !shown)
                    continue;
                char code[8];
                if (c < NCODES - 1)
                    snprintf(code, sizeof(code), "%zu", c + CODE_MIN);
                else
                    snprintf(code, sizeof(code), "other");
                bb_buf_printf(
                    &b,
                    "billboard_http_requests_total{route=\"%s\",method=\"%s\",code=\"%s\"} %lu\n",
                    name, method, code, v);
            }
        }
    }
    bb_buf_printf(&b, "# HELP billboard_http_request_duration_seconds Time from a request's "
                      "head to its answer, by route.\n"
                      "# TYPE billboard_http_request_duration_seconds histogram\n");
    for (int r = 0; r < BB_METRICS_ROUTES; r++) {
        if (!atomic_load(&latency[r].count))
            continue;
        char labels[128];
        snprintf(labels, sizeof(labels), "route=\"%s\",method=\"%s\"",
                 r < nroutes ? route_names[r] : "unmatched",
                 r < nroutes ? route_methods[r] : "any");
        histogram_lines(&b, "billboard_http_request_duration_seconds", labels, &latency[r], req_le,
                        NREQ_LE);
    }
    bb_buf_printf(&b,
                  "# HELP billboard_episodes_accepted_total Episodes committed by this process.\n"
                  "# TYPE billboard_episodes_accepted_total counter\n"
                  "billboard_episodes_accepted_total %lu\n",
                  atomic_load(&episodes_total));
    bb_buf_printf(&b, "# HELP billboard_update_duration_seconds Time of LSVI updates run by this "
                      "process.\n"
                      "# TYPE billboard_update_duration_seconds histogram\n");
    histogram_lines(&b, "billboard_update_duration_seconds", "", &updates, upd_le, NUPD_LE);
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
    gauge(&b, "billboard_rho_spent_warm_up", "zCDP spent by the warm-up (0 without one).",
          g->rho_warm_spent);
    gauge(&b, "billboard_ready", "1 if the database answers.", g->ready);
    double expiry = atomic_load(&tls_expiry);
    if (expiry > 0)
        gauge(&b, "billboard_tls_cert_expiry_timestamp_seconds",
              "notAfter of the TLS certificate served, Unix seconds.", expiry);
    bb_buf_printf(&b,
                  "# HELP billboard_build_info The running build.\n"
                  "# TYPE billboard_build_info gauge\n"
                  "billboard_build_info{version=\"%s\"} 1\n",
                  bb_version());
    gauge(&b, "process_start_time_seconds", "Start time of the process, Unix seconds.", start_time);
    double rss = resident_bytes(), fds = open_fds();
    if (rss >= 0)
        gauge(&b, "process_resident_memory_bytes", "Resident memory size in bytes.", rss);
    if (fds >= 0)
        gauge(&b, "process_open_fds", "Open file descriptors.", fds);
    return bb_buf_detach(&b, len); /* NULL if an allocation failed */
}

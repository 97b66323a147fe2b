/*
 * metrics.h — process-wide counters for GET /metrics (Prometheus text 0.0.4).
 *
 * Requests are counted by route (the route table's index and pattern, never
 * the concrete path, so no clinic id or version leaks into a label), by
 * method (the route's, or "other" for a method the route does not serve)
 * and by status code, each code under its own label. No label ever names a
 * clinic or a patient. Counters are atomics: any thread may bump them.
 */
#ifndef BB_METRICS_H
#define BB_METRICS_H

#include <stddef.h>

#define BB_METRICS_ROUTES 32 /* route indices 0..31; the last is "unmatched" */

/* The state a scrape reports besides the counters. */
struct bb_metrics_gauges {
    long episodes, max_episodes;
    long updates, max_updates;
    long version;
    double rho, rho_gram_spent, rho_y_spent, rho_warm_spent;
    int ready;
};

/* Records the process's start time; call once, early in main. */
void bb_metrics_init(void);
/* One request answered with status (0: none was queued) after seconds s.
 * other_method: the path is route's but the method is not (405). */
void bb_metrics_request(int route, int other_method, unsigned status, double s);
void bb_metrics_episodes_add(long n);
void bb_metrics_update_seconds(double s);
/* One group commit of jobs jobs taking seconds s (fsync included). */
void bb_metrics_commit(long jobs, double s);
/* The served TLS certificate's notAfter (Unix seconds); reported from then on. */
void bb_metrics_tls_expiry(double unix_seconds);

/* Renders every metric. route_names[i] and route_methods[i] label route i
 * (nroutes of them, borrowed). Returns a malloc'd string (caller frees) and
 * its length, or NULL on ENOMEM. */
char *bb_metrics_render(const char *const *route_names, const char *const *route_methods,
                        int nroutes, const struct bb_metrics_gauges *g, size_t *len);

#endif

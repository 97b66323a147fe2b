/*
 * metrics.h — process-wide counters for GET /metrics (Prometheus text 0.0.4).
 *
 * Requests are counted by route (the route table's index and pattern, never
 * the concrete path, so no clinic id or version leaks into a label) and by
 * status. No label ever names a clinic or a patient. Counters are atomics:
 * any thread may bump them.
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
    double rho, rho_gram_spent, rho_y_spent;
    int ready;
};

void bb_metrics_request(int route, unsigned status);
void bb_metrics_episodes_add(long n);
void bb_metrics_update_seconds(double s);
/* One group commit of jobs jobs taking seconds s (fsync included). */
void bb_metrics_commit(long jobs, double s);

/* Renders every metric. route_names[i] and route_methods[i] label route i
 * (nroutes of them, borrowed). Returns a malloc'd string (caller frees) and
 * its length, or NULL on ENOMEM. */
char *bb_metrics_render(const char *const *route_names, const char *const *route_methods,
                        int nroutes, const struct bb_metrics_gauges *g, size_t *len);

#endif

/*
 * stats.h — the counts GET /v1/privacy and /metrics report.
 *
 * Recovery sets them; afterwards the writer's commit thread refreshes each
 * once what it counts is committed, and the HTTP threads read a consistent
 * snapshot. Any thread may call any function.
 */
#ifndef BB_STATS_H
#define BB_STATS_H

#include <pthread.h>

/* One snapshot. */
struct bb_counts {
    long episodes; /* stored, all time */
    long updates;  /* charged against N_max, all time (writer.h) */
    long version;  /* of the billboard served */
};

struct bb_stats {
    pthread_mutex_t mu;
    struct bb_counts now;
};

/* All counts zero. */
void bb_stats_init(struct bb_stats *s);
void bb_stats_release(struct bb_stats *s);

struct bb_counts bb_stats_get(struct bb_stats *s);
void bb_stats_set(struct bb_stats *s, const struct bb_counts *c);
void bb_stats_set_episodes(struct bb_stats *s, long episodes);
void bb_stats_set_updates(struct bb_stats *s, long updates);
void bb_stats_set_version(struct bb_stats *s, long version);

#endif

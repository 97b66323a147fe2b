/*
 * stats.c — the counts the daemon reports (stats.h).
 */
#include "stats.h"

void bb_stats_init(struct bb_stats *s)
{
    pthread_mutex_init(&s->mu, NULL);
    s->now = (struct bb_counts){0, 0, 0};
}

void bb_stats_release(struct bb_stats *s)
{
    pthread_mutex_destroy(&s->mu);
}

struct bb_counts bb_stats_get(struct bb_stats *s)
{
    pthread_mutex_lock(&s->mu);
    struct bb_counts c = s->now;
    pthread_mutex_unlock(&s->mu);
    return c;
}

void bb_stats_set(struct bb_stats *s, const struct bb_counts *c)
{
    pthread_mutex_lock(&s->mu);
    s->now = *c;
    pthread_mutex_unlock(&s->mu);
}

void bb_stats_set_episodes(struct bb_stats *s, long episodes)
{
    pthread_mutex_lock(&s->mu);
    s->now.episodes = episodes;
    pthread_mutex_unlock(&s->mu);
}

void bb_stats_set_updates(struct bb_stats *s, long updates)
{
    pthread_mutex_lock(&s->mu);
    s->now.updates = updates;
    pthread_mutex_unlock(&s->mu);
}

void bb_stats_set_version(struct bb_stats *s, long version)
{
    pthread_mutex_lock(&s->mu);
    s->now.version = version;
    pthread_mutex_unlock(&s->mu);
}

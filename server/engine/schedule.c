/*
 * schedule.c — determinant-doubling update rule with a hard cap (schedule.h).
 */
#include "schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"

int bb_schedule_init(struct bb_schedule *s, const struct bb_params *p, double ridge)
{
    memset(s, 0, sizeof(*s));
    s->H = p->H;
    s->log_c = log(p->update_ratio);
    s->max_updates = p->max_updates;
    s->rule = p->update_rule;
    s->last_release = bb_params_last_release(p);
    s->logdet_last = malloc(sizeof(double) * (size_t)p->H);
    if (!s->logdet_last)
        return BB_ENOMEM;
    for (int h = 0; h < p->H; h++)
        s->logdet_last[h] = p->d * log(ridge);
    return BB_OK;
}

void bb_schedule_release(struct bb_schedule *s)
{
    free(s->logdet_last);
    memset(s, 0, sizeof(*s));
}

int bb_schedule_due(const struct bb_schedule *s, const double *logdet, long episodes)
{
    if (s->updates >= s->max_updates || episodes == 0)
        return 0;
    if (s->rule == BB_UPDATE_EVERY)
        return 1;
    if (s->rule == BB_UPDATE_RELEASE)
        return episodes > s->last_episodes;
    for (int h = 0; h < s->H; h++)
        if (logdet[h] - s->logdet_last[h] >= s->log_c)
            return 1;
    return 0;
}

int bb_schedule_final(const struct bb_schedule *s, long episodes)
{
    return s->updates >= s->max_updates || episodes >= s->last_release;
}

int bb_schedule_record(struct bb_schedule *s, const double *logdet, long episodes)
{
    if (s->updates >= s->max_updates)
        return BB_ECAP;
    s->last_episodes = episodes;
    memcpy(s->logdet_last, logdet, sizeof(double) * (size_t)s->H);
    s->updates++;
    return BB_OK;
}

/*
 * schedule.h — the rare-switching rule (Alg. 1 line 6).
 *
 * Before episode k the policy is recomputed if, for some step h,
 *     ln det Lambda~_h^k - ln det Lambda~_h^{k~} >= ln C
 * (k~ the last update) and fewer than N_max updates were made. N_max is a
 * hard cap: the y-noise calibration assumes it (params.h). The non-private
 * baseline BB_UPDATE_EVERY updates before every episode with data;
 * BB_UPDATE_RELEASE updates once per release (a grid's data-independent
 * schedule). "episodes" is always the count behind the released Gram
 * matrices.
 */
#ifndef BB_SCHEDULE_H
#define BB_SCHEDULE_H

#include "billboard/err.h"
#include "paramset.h"

struct bb_schedule {
    int H;
    double log_c;          /* ln C */
    long max_updates;      /* N_max */
    long updates;          /* updates made so far */
    long last_episodes;    /* released episodes at the last update */
    long last_release;     /* bb_params_last_release: no update after it */
    enum bb_update_rule rule;
    double *logdet_last;   /* owned, H: ln det Lambda~_h^{k~} */
};

/* Starts the schedule with Lambda~_h^1 = ridge I for every h.
 * Returns BB_OK or BB_ENOMEM. */
int bb_schedule_init(struct bb_schedule *s, const struct bb_params *p, double ridge)
    BB_WARN_UNUSED;
void bb_schedule_release(struct bb_schedule *s);

/* 1 if an update is due given the current log-determinants (H entries)
 * and the number of episodes received, else 0. Never 1 once N_max is used. */
int bb_schedule_due(const struct bb_schedule *s, const double *logdet, long episodes);

/* 1 if no update can follow one recorded (bb_schedule_record) on the first
 * `episodes` episodes: N_max is used, or no release point comes after
 * `episodes`. A function of public counts (the updates made, the release
 * points), so what it decides is post-processing. */
int bb_schedule_final(const struct bb_schedule *s, long episodes);

/* Records an update made at log-determinants logdet, on the first
 * `episodes` episodes. BB_ECAP past N_max. */
int bb_schedule_record(struct bb_schedule *s, const double *logdet, long episodes)
    BB_WARN_UNUSED;

#endif

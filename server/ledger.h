/*
 * ledger.h — what the privacy ledger knows beyond the engine's counts: the
 * deployment's identity and timeline, every restore and what it charged,
 * and the release journal (docs/DAEMON.md, "Backup and restore";
 * docs/PRIVACY.md §4.1).
 *
 * A restore from a backup starts a new timeline of the same deployment.
 * The lost timeline may have passed release points and made updates after
 * the backup began; the restored one will release those points again with
 * independent noise over overlapping patients. So a restore charges, on
 * top of the restored ledger: rho_gram for every lost timeline that passed
 * a release point beyond the backup's, and rho_y / N_max for every update
 * it made beyond the backup's. It learns them from the release journal —
 * an append-only file on other storage, one line per commit that releases,
 * charges or publishes, written and synced before that commit — or, with
 * no journal that knows the backup's timeline, charges the worst case: one
 * lost timeline that passed every remaining release point and made every
 * remaining update. Billboard versions after a restore continue above the
 * largest the lost timeline can have served, so no version number is ever
 * served with two different bodies.
 */
#ifndef BB_LEDGER_H
#define BB_LEDGER_H

#include <stdio.h>

#include "billboard/err.h"
#include "db.h"
#include "engine/params.h"

struct bb_ledger {
    char deployment[33];       /* hex id made when the database was created */
    long timeline;             /* 0 at creation; each restore starts a new one */
    long version_offset;       /* a billboard's version = updates charged + the warm
                                  billboards (docs/PRIVACY.md §2.5) + this */
    long restores;             /* restores made, in this database's history */
    double rho_gram_restored;  /* charged by those restores */
    double rho_y_restored;
    double rho_warm_restored;  /* the warm-up's (docs/PRIVACY.md §2.5) */
    int journal_required;      /* the database was served with a journal */
    int journal_fd;            /* -1: no journal */
};

/* Reads l from db's meta rows; a database made before the ledger gets a
 * deployment id now (written). l->journal_fd is -1. BB_OK, BB_EIO,
 * BB_EINVAL (an unreadable row), BB_ENOMEM. */
int bb_ledger_load(struct bb_db *db, struct bb_ledger *l) BB_WARN_UNUSED;

/* Opens the release journal at path (created 0600 if absent, appended to)
 * and writes a start line with the state (released episodes, updates
 * charged, latest version) synced; marks db as served with a journal.
 * path NULL: refused with BB_EINVAL if the database requires one.
 * On error a reason in why. */
int bb_ledger_journal_open(struct bb_ledger *l, struct bb_db *db, const char *path,
                           long released, long updates, long version, char *why,
                           size_t whylen) BB_WARN_UNUSED;

/* Appends one line (the state after the commit about to be made) and
 * syncs it: BB_OK, or BB_EIO (the commit must not be made). A no-op
 * without a journal, or with l NULL. */
int bb_ledger_journal_append(struct bb_ledger *l, long released, long updates,
                             long version) BB_WARN_UNUSED;

void bb_ledger_close(struct bb_ledger *l);

/* What one restore charged. */
struct bb_restore_charge {
    int from_journal;        /* 0: the worst case */
    long lost_timelines;     /* that passed a release point after the backup */
    long lost_updates;       /* updates after the backup, all lost timelines */
    double rho_gram, rho_y;  /* charged */
    double rho_warm;         /* charged for the warm-up (docs/PRIVACY.md §2.5) */
    long first_version;      /* the first version the restored timeline may publish */
};

/* Charges a restore into restored (the new database, a copy of the
 * backup, not yet served), whose configuration derives to p: reads the
 * journal at journal_path (NULL: none), writes the new timeline, version
 * offset and the restore's record, and fills *out. BB_OK, or an error with
 * a reason in why (nothing to serve then). */
int bb_ledger_restore(struct bb_db *restored, const struct bb_params *p, const char *journal_path,
                      struct bb_restore_charge *out, char *why, size_t whylen) BB_WARN_UNUSED;

/* The zCDP spent after episodes and updates (bb_params_rho_spent) plus
 * what l's restores charged: the one sum /v1/privacy and /metrics report.
 * gram, y and warm (may be NULL) get the three shares. */
double bb_ledger_spent(const struct bb_ledger *l, const struct bb_params *p, long episodes,
                       long updates, double *gram, double *y, double *warm);

/* What l's restores charged in all. */
double bb_ledger_restored(const struct bb_ledger *l);

/* The largest release point <= episodes (0 if none), the warm-up's points
 * (docs/PRIVACY.md §2.5) among them: what the mechanisms have released
 * after that many episodes. */
long bb_ledger_released(const struct bb_params *p, long episodes);

#endif

/*
 * configure.h — which configuration billboardd serves.
 *
 * A first start serves the configuration flags given (options.h) and
 * stores them (recovery.h); every later start reads the stored
 * configuration and refuses any flag that contradicts it, because changing
 * the configuration mid-run would void the privacy guarantee. Either way
 * the parameters are derived (engine/params.h) and must be servable: the
 * paper's calibration and the every-episode rule only without privacy.
 * --print-params prints what a configuration derives to, as JSON.
 */
#ifndef BB_CONFIGURE_H
#define BB_CONFIGURE_H

#include <stdio.h>

#include "db.h"
#include "engine/params.h"
#include "options.h"

/* The configuration flags every new configuration must name (the sizes,
 * K_max and the budget: no default is safe for them), those of o
 * (borrowed) lacks written to out as "--horizon, --dim and --rho or
 * --epsilon". Returns how many are missing; 0 leaves out "". */
int bb_configure_missing(const struct bb_options *o, char *out, size_t outlen);

/* --print-params: the derived parameters of o's configuration (borrowed)
 * as JSON on f. BB_EINVAL after a message on stderr if a required flag is
 * missing or they cannot be served or derived (exit status 2), BB_ENOMEM or
 * BB_EIO if they cannot be printed. */
int bb_configure_print(const struct bb_options *o, FILE *f) BB_WARN_UNUSED;

/* Decides the configuration for the database db (borrowed; its path for
 * messages in o->db): the stored one if there is one — after checking every
 * flag of o against it — else o->given. *p receives it derived. *fresh is 1
 * if nothing was stored (a first start), and *config then receives its
 * stored form for bb_recovery_create(), malloc'd, caller frees; else NULL.
 * On error a message is on stderr: BB_ECONFLICT (a contradicting flag),
 * BB_EINVAL (a required flag missing on a first start, not derivable, not
 * servable, stored form unreadable), BB_EIO, BB_ENOMEM. */
int bb_configure_resolve(struct bb_db *db, const struct bb_options *o, struct bb_params *p,
                         int *fresh, char **config) BB_WARN_UNUSED;

#endif

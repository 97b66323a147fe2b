/*
 * config.h — the configuration flags shared by billboardd and billboard-sim,
 * and the JSON form of derived parameters (--print-params, GET /v1/config).
 *
 * One table of flags (config.c) serves parsing, the stored form and
 * --help; an enum flag's values are enums.h's names, a mechanism's its ops'
 * (mech.c's table).
 */
#ifndef BB_CONFIG_H
#define BB_CONFIG_H

#include <jansson.h>
#include <stddef.h>

#include "billboard/err.h"
#include "params.h"

/* Applies one flag (name with its leading dashes) with its value to p.
 * Returns BB_OK if applied, BB_ENOTFOUND if name is not a configuration
 * flag, BB_EINVAL (reason in why) if the value is malformed. */
int bb_config_option(struct bb_params *p, const char *name, const char *value, char *why,
                     size_t whylen) BB_WARN_UNUSED;

/* bb_config_option, also for the stored keys that no flag sets
 * ("--next-discount", "--value-clip"): for the simulator's runs and sweeps,
 * never the daemon's command line. */
int bb_config_stored_option(struct bb_params *p, const char *name, const char *value, char *why,
                            size_t whylen) BB_WARN_UNUSED;

/* The i-th configuration flag's name without dashes ("horizon"), NULL past
 * the last: for a caller's getopt_long table. Static. */
const char *bb_config_flag(size_t i);

/* The i-th stored key's name ("horizon", ..., "first-share"): every flag,
 * then the keys no flag sets, NULL past the last; for the simulator, which
 * takes them all as options (bb_config_stored_option). Static. */
const char *bb_config_key(size_t i);

/* The stored form of the configuration: a compact JSON object with every
 * configuration flag (without dashes) and its value as a string, keys
 * sorted, so two configurations are equal iff their dumps are. Caller owns
 * the string (free()); NULL on ENOMEM. */
char *bb_config_dump(const struct bb_params *p);

/* Sets p to the defaults and applies every flag of a bb_config_dump()
 * string. BB_EINVAL (reason in why) if s is not one. */
int bb_config_load(const char *s, struct bb_params *p, char *why, size_t whylen) BB_WARN_UNUSED;

/* Writes into given the choices bb_params_derive made in derived for the
 * values that ask it to choose: the mechanism ('auto'), the release start
 * k0 ('auto'), the update cap N_max (--max-updates 0, the bound) and the
 * shift scale ('auto'; post-processing, pinned so that an upgrade does not
 * move a running service's ridge) and the prior kappa ('auto', by the
 * feature set; post-processing, pinned likewise). The
 * stored configuration holds these, not 'auto', so that a later version
 * whose rule would choose differently cannot move a running database's
 * grid or N_max, both of which its privacy accounting depends on. */
void bb_config_pin(struct bb_params *given, const struct bb_params *derived);

/* Replaces every 'auto' value of t (as bb_config_pin lists them) by
 * stored's: on a restart, 'auto' means the choice made when the database
 * was created. */
void bb_config_keep_pinned(struct bb_params *t, const struct bb_params *stored);

/* Help text for the configuration flags, for --help. Static. */
const char *bb_config_usage(void);

#endif

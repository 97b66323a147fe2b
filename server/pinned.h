/*
 * pinned.h — the derived parameters a database was created with.
 *
 * The stored configuration (configure.h) holds the flags; the numbers the
 * privacy proof and the noise use (sigma_Lambda, every step's sigma_h and
 * grid, lambda~ and the ridge, N_max, the release grid and its
 * coefficients, the rho split) are derived from them by the binary's own
 * engine/params.c. A binary whose derivation differs would change the noise
 * of a running deployment. So the first start stores every derived number
 * (meta 'derived', in the transaction that creates the database:
 * recovery.h), and every later start derives again and compares them bit
 * for bit: a difference refuses the database, naming each field with both
 * values (docs/DAEMON.md, "Upgrades").
 *
 * The stored form is a JSON object of flat keys ("sigma_gram",
 * "sigma_y_step[2]", "release_grid[0]"), each a number printed with %.17g
 * (which reads back as the same double) or, where not finite, the string
 * "inf", "-inf" or "nan".
 */
#ifndef BB_PINNED_H
#define BB_PINNED_H

#include <stdio.h>

#include "billboard/err.h"
#include "db.h"
#include "engine/params.h"

/* Every derived number of p (borrowed, derived by bb_params_derive) in the
 * stored form; malloc'd, caller frees; NULL if out of memory. */
char *bb_pinned_dump(const struct bb_params *p);

/* Compares stored (a bb_pinned_dump() text, borrowed) with p's derivation,
 * bit for bit. A field stored but not derived by p, or derived but not
 * stored, differs too. Writes one line per difference to report (may be
 * NULL), "derived parameter NAME: stored A, this binary derives B", at
 * most BB_PINNED_REPORT_MAX of them and then how many more. Returns the
 * number of differences (0: the same); BB_EINVAL if stored is not in the
 * stored form (a line saying so on report); BB_ENOMEM. */
#define BB_PINNED_REPORT_MAX 32
int bb_pinned_diff(const char *stored, const struct bb_params *p, FILE *report);

/* On a start of an existing database (path names it in messages): compares
 * its stored derived parameters with p's. A database without them (created
 * before they were stored) gets p's stored now, and a line on stderr says
 * so. BB_OK if it may be served; BB_ERANGE after the differences and what to
 * do on stderr if p derives anything else (exit status 1); BB_EIO (after a
 * message) if they cannot be read, parsed or stored; BB_ENOMEM. */
int bb_pinned_check(struct bb_db *db, const struct bb_params *p, const char *path) BB_WARN_UNUSED;

#endif

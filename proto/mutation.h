/*
 * mutation.h — deliberate privacy bugs, for the privacy audit's mutation
 * table only (tests/audit/, docs/PRIVACY.md §6).
 *
 * A normal build defines none: BB_MUTANT(x) is the constant 0 and the code
 * it guards is never compiled into anything that runs. `make MUTATION=NAME`
 * builds into build-mut/NAME/ with -DBB_MUTATION=BB_MUT_NAME, and the audit
 * must then report a bound above its claim: a broken build that the audit
 * cannot tell from a correct one would mean the audit has no power.
 */
#ifndef BB_MUTATION_H
#define BB_MUTATION_H

#define BB_MUT_NONE 0
#define BB_MUT_SIGMA_HALF 1     /* every noise sigma halved */
#define BB_MUT_NOISE_OFF_STEP 2 /* no y noise on step 1 */
#define BB_MUT_COUNT_TWICE 3    /* an episode's phi phi^T enters its Gram sums twice */
#define BB_MUT_NORM_CHECK_OFF 4 /* feature rows of norm above 1 accepted */
#define BB_MUT_REDRAW 5         /* a released prefix's noise drawn anew at each read */
#define BB_MUT_NO_LOWER_CLIP 6  /* V_{h+1} not clipped from below in the targets */
#define BB_MUT_TWO_HOT 7        /* onehot declared, rows with two nonzero entries accepted */
#define BB_MUT_CENTRE_WRONG 8   /* centred targets: the centre added back, never taken off */
#define BB_MUT_SIMPLEX_OFF 9    /* simplex declared, rows outside it accepted */
#define BB_MUT_DISCOUNT_AFTER_CLIP 10 /* the next values' noise discount taken after their clip */
#define BB_MUT_SHARE_ALL_FIRST 11 /* every update drawn at the first update's share of rho_y */
#define BB_MUT_STREAM_UNCENTRED 12 /* the reward stream's terms not centred */
#define BB_MUT_WARM_FULL_RHO 13 /* the warm-up's noise calibrated at all of rho, not rho_warm */
#define BB_MUT_COUNTS_ADD_ONLY 14 /* the transition counts calibrated for adding an episode (Delta^2 = H - 1), not replacing one */
#define BB_MUT_WEIGHT_SQUARED 15 /* every row weighs w^2, not w (bb_params_row_weight) */

#ifndef BB_MUTATION
#define BB_MUTATION BB_MUT_NONE
#endif
#define BB_MUTANT(name) (BB_MUTATION == BB_MUT_##name)

#endif

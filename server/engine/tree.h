/*
 * tree.h — the binary-tree mechanism for one step's Gram matrices.
 *
 * One tree per step h over K_max leaves (Alg. 1, the counter C_h of eq. (4);
 * Shariff–Sheffet 2018). Level j's node m covers leaves m*2^j+1 .. (m+1)*2^j;
 * there are L = ceil(log2 K_max) + 1 levels, so each leaf lies in exactly L
 * nodes. A node gets its noise — the symmetric matrix with N_Z(0, s^2) on the
 * diagonal and N_Z(0, s^2/2) off it, on the Gram grid — when it is created,
 * i.e. when its last leaf arrives: leaf k creates the node of level tz(k)
 * (trailing zeros of k) and kills the live nodes below it. The prefix sum of
 * k leaves is the exact sum plus the noise of the popcount(k) live nodes,
 * one per set bit of k.
 *
 * Persistence contract: after bb_tree_add() returns, the new node's noise is
 * readable with bb_tree_node(); the caller stores it before releasing any
 * value computed from bb_tree_prefix(). After a restart the caller replays
 * the leaves with bb_tree_replay() (no draws) and hands the live nodes back
 * with bb_tree_load_node(); noise is never drawn twice for a node.
 */
#ifndef BB_TREE_H
#define BB_TREE_H

#include "billboard/err.h"
#include "noise.h"
#include "rng.h"

#define BB_TREE_MAX_LEVELS 48

struct bb_tree {
    int d, L;
    long K_max;
    long k;                /* leaves added */
    double grid;           /* Gram grid (0 = none) */
    struct bb_sym_sampler noise_sampler;
    double *sum;           /* owned, d*d: sum of snapped phi phi^T over k leaves */
    double *noise;         /* owned, d*d: sum of the live nodes' noise */
    double *node;          /* owned, L*d*d: the live node of each level */
    long node_leaf[BB_TREE_MAX_LEVELS]; /* last leaf of the live node, 0 = none */
    unsigned long long missing; /* live levels whose noise awaits bb_tree_load_node */
    double *scratch;       /* owned, d*d */
};

/* Prepares an empty tree. sigma == 0 means no noise (non-private or tests);
 * diagonal: the nodes' noise is zero off the diagonal (one-hot rows,
 * noise.h). Returns BB_OK, BB_EINVAL or BB_ENOMEM. */
int bb_tree_init(struct bb_tree *t, int d, long K_max, int L, double sigma, double grid,
                 int diagonal) BB_WARN_UNUSED;
void bb_tree_release(struct bb_tree *t);

/* Adds leaf k+1 with contribution phi phi^T (phi: d entries, borrowed),
 * snapped to the grid entry by entry, and draws the noise of the node it
 * completes. *level (may be NULL) receives that node's level.
 * Returns BB_EFULL past K_max. */
int bb_tree_add(struct bb_tree *t, const double *phi, struct bb_rng *r, int *level)
    BB_WARN_UNUSED;

/* Draws one node's noise — the symmetric matrix above, on the grid (zero
 * off the diagonal with diagonal set) — into z (d*d, owned by the caller);
 * zeros when sigma == 0. */
void bb_tree_draw(const struct bb_tree *t, struct bb_rng *r, double *z);

/* The level of the node the next leaf completes: tz(k+1). */
int bb_tree_next_level(const struct bb_tree *t);

/* Adds leaf k+1 like bb_tree_add(), but the noise of the node it completes
 * is given (d*d, borrowed, on the grid) instead of drawn: for a mechanism
 * that derives a node's noise from several draws (mech_honaker.c). Before
 * the call, bb_tree_node() still shows the live nodes below that level. */
int bb_tree_add_noise(struct bb_tree *t, const double *phi, const double *noise, int *level)
    BB_WARN_UNUSED;

/* Recovery: adds the leaf like bb_tree_add() but draws nothing; the new
 * node is marked missing until bb_tree_load_node() supplies it. */
int bb_tree_replay(struct bb_tree *t, const double *phi) BB_WARN_UNUSED;

/* Supplies the stored noise (d*d, borrowed) of the live node of `level`,
 * whose last leaf is `leaf`. BB_ENOTFOUND if that node is not live. */
int bb_tree_load_node(struct bb_tree *t, int level, long leaf, const double *noise)
    BB_WARN_UNUSED;

/* The live node of `level`: its noise (d*d) and, in *leaf, its last leaf;
 * NULL if the level has no live node. Borrowed, valid until the next add. */
const double *bb_tree_node(const struct bb_tree *t, int level, long *leaf);

/* out (d*d) := sum + noise, the private prefix sum without the PD shift.
 * BB_EINVAL while a live node is missing. */
int bb_tree_prefix(const struct bb_tree *t, double *out) BB_WARN_UNUSED;

/* The node of `level` containing leaf i (1-based): its index m. */
long bb_tree_node_of(long leaf, int level);

#endif

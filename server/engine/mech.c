/*
 * mech.c — the continual-release interface: dispatch, episode count and
 * record list shared by every mechanism (mech.h, mech_impl.h).
 */
#include "mech_impl.h"

#include <stdlib.h>

/* Every mechanism, one line each: the ops its mech_*.c defines
 * (mech_impl.h). The list both declares them and makes the table. */
#define MECHANISMS(X)                                                                              \
    X(mech_tree_ops)                                                                               \
    X(mech_grid_ops)                                                                               \
    X(mech_grid_sqrt_ops)                                                                          \
    X(mech_tree_honaker_ops)

#define DECLARE(ops) extern const struct bb_mech_ops ops;
#define ENTRY(ops) &ops,
MECHANISMS(DECLARE)
static const struct bb_mech_ops *const table[] = {MECHANISMS(ENTRY)};

const struct bb_mech_ops *mech_ops_for(enum bb_mechanism m)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i]->kind == m)
            return table[i];
    return NULL;
}

const char *bb_mechanism_name(enum bb_mechanism m)
{
    if (m == BB_MECH_AUTO)
        return "auto";
    const struct bb_mech_ops *ops = mech_ops_for(m);
    return ops ? ops->name : NULL;
}

int bb_mechanism_is_tree(enum bb_mechanism m)
{
    const struct bb_mech_ops *ops = mech_ops_for(m);
    return ops && ops->tree;
}

int bb_mech_new(const struct bb_params *p, struct bb_mech **out)
{
    *out = NULL;
    const struct bb_mech_ops *ops = mech_ops_for(p->mechanism);
    if (!ops)
        return BB_EINVAL;
    struct bb_mech *m = calloc(1, sizeof(*m));
    if (!m)
        return BB_ENOMEM;
    m->ops = ops;
    m->p = p;
    int rc = ops->init(m);
    if (rc != BB_OK) {
        bb_mech_free(m);
        return rc;
    }
    *out = m;
    return BB_OK;
}

void bb_mech_free(struct bb_mech *m)
{
    if (!m)
        return;
    if (m->ops && m->impl)
        m->ops->release(m);
    free(m->rec);
    free(m);
}

const char *bb_mech_name(const struct bb_mech *m)
{
    return m->ops->name;
}

long bb_mech_episodes(const struct bb_mech *m)
{
    return m->k;
}

int bb_mech_is_release(const struct bb_mech *m, long k)
{
    return k >= 1 && k <= m->p->K_max && m->ops->is_release(m, k);
}

int mech_emit(struct bb_mech *m, int step, long slot, long tag, const void *bytes, size_t len)
{
    if (m->nrec == m->caprec) {
        size_t cap = m->caprec ? 2 * m->caprec : (size_t)m->p->H;
        struct bb_mech_record *r = realloc(m->rec, cap * sizeof(*r));
        if (!r)
            return BB_ENOMEM;
        m->rec = r;
        m->caprec = cap;
    }
    m->rec[m->nrec++] =
        (struct bb_mech_record){.step = step, .slot = slot, .tag = tag, .len = len, .bytes = bytes};
    return BB_OK;
}

static int add(struct bb_mech *m, const double *const *phi, struct bb_rng *r)
{
    if (m->k >= m->p->K_max)
        return BB_EFULL;
    if (m->ops->ready(m) != BB_OK)
        return BB_EINVAL; /* a replay is not complete: adding would draw over a gap */
    m->nrec = 0;
    int rc = m->ops->add(m, phi, r);
    if (rc == BB_OK)
        m->k++;
    return rc;
}

int bb_mech_add(struct bb_mech *m, const double *const *phi, struct bb_rng *r)
{
    return r ? add(m, phi, r) : BB_EINVAL;
}

int bb_mech_replay(struct bb_mech *m, const double *const *phi)
{
    if (m->k >= m->p->K_max)
        return BB_EFULL;
    m->nrec = 0;
    int rc = m->ops->add(m, phi, NULL);
    if (rc == BB_OK)
        m->k++;
    return rc;
}

size_t bb_mech_records(const struct bb_mech *m, const struct bb_mech_record **out)
{
    *out = m->rec;
    return m->nrec;
}

int bb_mech_load(struct bb_mech *m, const struct bb_mech_record *rec)
{
    if (rec->step < 0 || rec->step >= m->p->H)
        return BB_EINVAL;
    return m->ops->load(m, rec);
}

int bb_mech_ready(const struct bb_mech *m)
{
    return m->ops->ready(m);
}

int bb_mech_prefix(const struct bb_mech *m, int h, double *out)
{
    if (h < 0 || h >= m->p->H)
        return BB_ERANGE;
    return m->ops->prefix(m, h, out);
}

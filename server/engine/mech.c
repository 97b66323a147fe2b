/*
 * mech.c — the continual-release interface: dispatch, episode count and
 * record list shared by every mechanism (mech.h, mech_impl.h).
 */
#include "mech_impl.h"

#include <stdlib.h>

#include "fault.h"

static const struct bb_mech_ops *const table[] = {
    &mech_tree_ops,
    &mech_grid_ops,
    &mech_grid_sqrt_ops,
    &mech_tree_honaker_ops,
};

int bb_mech_new(const struct bb_params *p, struct bb_mech **out)
{
    *out = NULL;
    const struct bb_mech_ops *ops = NULL;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i]->kind == p->mechanism)
            ops = table[i];
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
    return bb_mechanism_name(m->ops->kind);
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
    BB_FAULT_POINT("mech_record");
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

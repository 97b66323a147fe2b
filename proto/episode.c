/*
 * episode.c — reject, never clip (episode.h).
 */
#include "billboard/episode.h"

#include <math.h>
#include <stdio.h>

#include "mutation.h"

static int reject(char *field, size_t fieldlen, char *why, size_t whylen, int h, const char *sub,
                  int idx, const char *msg)
{
    if (field && fieldlen) {
        if (idx >= 0)
            snprintf(field, fieldlen, "/steps/%d/%s/%d", h, sub, idx);
        else
            snprintf(field, fieldlen, "/steps/%d/%s", h, sub);
    }
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return BB_EINVAL;
}

int bb_feature_row_check(const double *phi, int d, char *why, size_t whylen)
{
    const char *msg = NULL;
    double n2 = 0.0;
    for (int j = 0; j < d && !msg; j++) {
        if (!isfinite(phi[j]))
            msg = "feature values must be finite numbers";
        n2 += phi[j] * phi[j];
    }
    if (!msg && n2 > 1.0 && !BB_MUTANT(NORM_CHECK_OFF))
        msg = "feature row has L2 norm above 1";
    if (!msg)
        return BB_OK;
    if (why && whylen)
        snprintf(why, whylen, "%s", msg);
    return BB_EINVAL;
}

int bb_episode_check(const struct bb_episode *e, int H, int A, int d, char *field,
                     size_t fieldlen, char *why, size_t whylen)
{
    for (int h = 0; h < H; h++) {
        for (int a = 0; a < A; a++) {
            char msg[64];
            if (bb_feature_row_check(e->features + ((size_t)h * A + a) * d, d, msg,
                                     sizeof(msg)) != BB_OK)
                return reject(field, fieldlen, why, whylen, h, "features", a, msg);
        }
        int act = e->action[h];
        if (act < 0 || act >= A)
            return reject(field, fieldlen, why, whylen, h, "action", -1,
                          "action index out of range [0, A)");
        double r = e->reward[h];
        if (!isfinite(r) || r < 0.0 || r > 1.0)
            return reject(field, fieldlen, why, whylen, h, "reward", -1,
                          "reward must be a finite number in [0, 1]");
    }
    return BB_OK;
}

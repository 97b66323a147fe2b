/*
 * linalg.c — Cholesky factor, log-determinant and solve (see linalg.h).
 */
#include "linalg.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

int bb_chol(const double *a, double *l, int d)
{
    memcpy(l, a, sizeof(double) * (size_t)d * (size_t)d);
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', d, l, d);
    if (info < 0)
        return BB_ELINALG;
    if (info > 0)
        return BB_ENOTPD;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            l[(size_t)i * d + j] = 0.0;
    return BB_OK;
}

double bb_chol_logdet(const double *l, int d)
{
    double s = 0.0;
    for (int i = 0; i < d; i++)
        s += log(l[(size_t)i * d + i]);
    return 2.0 * s;
}

int bb_chol_solve(const double *l, int d, double *b)
{
    lapack_int info = LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', d, 1, l, d, b, 1);
    return info == 0 ? BB_OK : BB_ELINALG;
}

int bb_chol_inverse_factor(const double *l, double *inv, int d)
{
    memcpy(inv, l, sizeof(double) * (size_t)d * (size_t)d);
    lapack_int info = LAPACKE_dtrtri(LAPACK_ROW_MAJOR, 'L', 'N', d, inv, d);
    return info == 0 ? BB_OK : BB_ELINALG; /* info > 0: a zero on L's diagonal */
}

/*
 * linalg.h — the few dense kernels both sides need, over OpenBLAS/LAPACKE.
 *
 * Matrices are row-major, d x d, symmetric ones stored in full. A Cholesky
 * factor is the lower triangle L with A = L L^T, strict upper part zero.
 * LAPACK's info < 0 is our bug (BB_ELINALG); info > 0 is a matrix that is not
 * positive definite (BB_ENOTPD).
 */
#ifndef BB_LINALG_H
#define BB_LINALG_H

#include "billboard/err.h"

/* l := chol(a). a is borrowed, l (d*d) is written; they may not alias. */
int bb_chol(const double *a, double *l, int d) BB_WARN_UNUSED;

/* ln det(L L^T) = 2 sum ln l_ii. */
double bb_chol_logdet(const double *l, int d);

/* Solves (L L^T) x = b in place (b has d entries). */
int bb_chol_solve(const double *l, int d, double *b) BB_WARN_UNUSED;

/* inv := L^-1, lower triangular with strict upper part zero (a triangular
 * multiply by it replaces a triangular solve by L). l is borrowed, inv
 * (d*d) is written; they may not alias. */
int bb_chol_inverse_factor(const double *l, double *inv, int d) BB_WARN_UNUSED;

#endif

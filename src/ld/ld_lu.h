/* SPDX-License-Identifier: MIT */
/* Inverse of a small dense matrix by LU factorisation with partial pivoting, in the order of
 * operations of the reference LAPACK 3.x routines PLINK 1.9 calls for --indep (dgetrf, dgecon's
 * singularity test, dgetri), so that each VIF comes out with the same bits. */
#ifndef GVK_SNP_LD_LU_H
#define GVK_SNP_LD_LU_H

/* Inverts the n x n column-major matrix a in place (a symmetric matrix reads the same either way).
 * ipiv: n entries; work: n * n doubles. Returns 1, with a overwritten, when a is singular: a zero
 * pivot, or a reciprocal 1-norm condition number below 1e-14 (PLINK's cut-off). */
int ld_lu_invert(int n, double *a, int *ipiv, double *work);

#endif

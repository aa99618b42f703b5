/* SPDX-License-Identifier: MIT */
/* PLINK 1.9's --indep step within one window: drop variants until the correlation matrix of those
 * left is invertible and no variance inflation factor (a diagonal entry of its inverse) exceeds
 * the threshold. */
#ifndef GVK_SNP_LD_PRUNE_VIF_H
#define GVK_SNP_LD_PRUNE_VIF_H

#include <stdint.h>

typedef struct {
	int64_t cap;   /* the most variants a window holds */
	double *r;     /* cap x cap: r[u * cap + k] (u < k) the correlation of window slots u and k */
	double *m;     /* cap x cap scratch: the matrix being inverted */
	double *work;  /* cap x cap */
	int *ipiv;     /* cap */
	int64_t *rem;  /* cap: the slots still in */
} vif_buf_t;

int vif_buf_init(vif_buf_t *b, int64_t cap);
void vif_buf_free(vif_buf_t *b);

/* live: the window's size variants by slot, out[live[k]] set for those already pruned. *old:
 * how many leading slots the window carried over from its previous position (PLINK assumes their
 * matrix invertible and, when it is not, stops assuming so: *old becomes 0). Sets out[] for the
 * variants it drops and returns how many. */
int64_t vif_window(vif_buf_t *b, const int64_t *live, int64_t size, int64_t *old, uint8_t *out, double vif);

#endif

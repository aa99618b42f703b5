/* SPDX-License-Identifier: MIT */
/* One CNV run through a fresh engine, as a program that runs once would: create, run, destroy.
 * Shared by the CNV test programs. */
#ifndef GVK_TESTS_CNV_RUN_ONCE_H
#define GVK_TESTS_CNV_RUN_ONCE_H

#include "gvk.h"

static int run_once(const gvk_cnv_counts_t *c, const gvk_cnv_opts_t *o, gvk_cnv_result_t **r, gvk_err_t *err)
{
	*r = NULL;
	gvk_cnv_t *e = gvk_cnv_create(o, err);
	if (!e) return err->code;
	int rc = gvk_cnv_run(e, c, r, err);
	gvk_cnv_destroy(e);
	return rc;
}

#endif

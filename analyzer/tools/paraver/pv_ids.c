/* SPDX-License-Identifier: MIT */
/* Values that must not depend on -j. Function ids the process logs define
 * are numbered before any shard runs; the ones known only by a code
 * address (FUNC_ENTER_PC, call stacks, samples) get their id from whichever
 * shard resolves them first, so with several workers the same trace came
 * out with other numbers. The .prv shows each function as its final value
 * instead: the process logs' ids as they are, then the others in order of
 * (name, file). When that (or a family's own renumbering) changes any
 * value, the rows' event runs are rewritten with the final values
 * (pv_thin.c) before the merge. */
#define _GNU_SOURCE
#include "pt_framework.h"
#include "pv_budget.h"

#include <string.h>

static int cmp_func(const void *a, const void *b, void *arg)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const pt_func_info *x = pt_ctx_func_info(arg, i), *y = pt_ctx_func_info(arg, j);
	int c = strcmp(x->name, y->name);
	if (!c)
		c = strcmp(x->file, y->file);
	return c ? c : (i > j) - (i < j);
}

int pv_ids_init(pv_tool *pv)
{
	const pt_trace_ctx *ctx = pv->ctx;
	uint32_t n = pt_ctx_func_count(ctx), fixed = pt_fw_static_funcs(ctx);
	if (fixed > n)
		fixed = n;
	pv->nfunc = n;
	pv->fval = malloc((n + 1) * sizeof *pv->fval);
	pv->finv = malloc((n + 1) * sizeof *pv->finv);
	if (!pv->fval || !pv->finv)
		return -1;
	for (uint32_t id = 0; id <= n; id++)
		pv->fval[id] = pv->finv[id] = id;
	if (n > fixed) {
		uint32_t *order = pv->finv + fixed + 1;
		qsort_r(order, n - fixed, sizeof *order, cmp_func, (void *)ctx);
		for (uint32_t v = fixed + 1; v <= n; v++) {
			pv->fval[pv->finv[v]] = v;
			pv->renumber |= pv->finv[v] != v;
		}
	}
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv_ext(i)->renumber &&
		    pv_ext(i)->renumber(pv->ext[i], pv->fval, n))
			pv->renumber = 1;
	return 0;
}

int pv_final_value(const pv_tool *pv, uint32_t type, int64_t *value)
{
	if (type == PV_EV_USER_FUNC || type == PV_EV_USER_FUNC_LINE || type == PV_EV_FUNC_CUT ||
	    type == PV_EV_THROTTLED) {
		if (*value <= 0 || (uint64_t)*value > pv->nfunc || pv->fval[*value] == *value)
			return 0;
		*value = pv->fval[*value];
		return 1;
	}
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv_ext(i)->final_value &&
		    pv_ext(i)->final_value(pv->ext[i], type, value))
			return 1;
	return 0;
}

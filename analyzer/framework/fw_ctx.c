/* SPDX-License-Identifier: MIT */
/* What tools reach of the framework: the ops of their pt_trace_ctx, and
 * for built-in tools the run's distribution, selection and static function
 * ids. */
#define _GNU_SOURCE
#include "fw_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double fw_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- ops for tools --------------------------------------------------- */
static uint32_t op_func_id(const pt_trace_ctx *c, size_t process, uint32_t local_id)
{
	return fw_func_id(c->framework, process, local_id);
}
static uint32_t op_func_id_pc(const pt_trace_ctx *c, size_t process, uint64_t pc)
{
	return fw_func_id_pc(c->framework, process, pc);
}
static const pt_func_info *op_func_info(const pt_trace_ctx *c, uint32_t id)
{
	return fw_func_info(c->framework, id);
}
static uint32_t op_func_count(const pt_trace_ctx *c)
{
	return fw_func_count(c->framework);
}
static const uint32_t *op_func_table(const pt_trace_ctx *c, size_t process, size_t *n)
{
	fw *w = c->framework;
	if (process >= w->nprocs || !w->procs[process].local) {
		*n = 0;
		return NULL;
	}
	*n = w->procs[process].nlocal;
	return w->procs[process].local;
}
static void op_progress(const pt_trace_ctx *c, const char *what, uint64_t done, uint64_t total)
{
	fw *w = c->framework;
	if (!w->o->progress)
		return;
	/* a new step starts its clock when its label changes */
	if (!w->step || strcmp(w->step, what)) {
		free(w->step);
		w->step = strdup(what);
		w->step_t0 = fw_now_s();
	}
	w->o->progress(w->o->arg, what, done, total, fw_now_s() - w->step_t0);
}
/* Tools refuse a record in the serial pre-pass, one after the other: the
 * same record twice in a row is one warning. Past REFUSED_SHOWN records,
 * one line says that more were refused. */
#define REFUSED_SHOWN 20
static void op_warn_process_record(const pt_trace_ctx *c, size_t process, uint64_t offset,
                                   const char *msg)
{
	fw *w = c->framework;
	pthread_mutex_lock(&w->lock);
	int again = w->refused && w->refused_process == process && w->refused_offset == offset;
	if (!again) {
		w->refused_process = process;
		w->refused_offset = offset;
		w->refused++;
	}
	unsigned n = w->refused;
	pthread_mutex_unlock(&w->lock);
	if (again || n > REFUSED_SHOWN + 1 || process >= w->nprocs)
		return;
	const char *path = pt_trace_process_log(w->trace, (size_t)w->procs[process].scan_index);
	if (n > REFUSED_SHOWN)
		fw_warnf(w, "%s: more records the tools could not use; the first %d were listed",
		         path ? path : "?", REFUSED_SHOWN);
	else
		fw_warnf(w, "%s: offset %llu: %s", path ? path : "?", (unsigned long long)offset,
		         msg);
}

const pt_trace_ops fw_ops = {op_func_id,    op_func_id_pc, op_func_info,          op_func_count,
                             op_func_table, op_progress,   op_warn_process_record};

const pt_dist *pt_fw_dist(const pt_trace_ctx *ctx)
{
	const fw *w = ctx->framework;
	return w && w->o->dist && w->o->dist->size > 1 ? w->o->dist : NULL;
}

uint32_t pt_fw_static_funcs(const pt_trace_ctx *ctx)
{
	const fw *w = ctx->framework;
	return w ? w->static_funcs : 0;
}

const pt_select *pt_fw_select(const pt_trace_ctx *ctx)
{
	const fw *w = ctx->framework;
	return w && w->has_sel ? &w->sel : NULL;
}

/* SPDX-License-Identifier: MIT */
/* NAME.pcf (what types, values and states mean) and NAME.row (what each
 * row is), as Paraver's parsers read them (docs/ANALYZER.md). */
#define _GNU_SOURCE
#include "pt_framework.h"
#include "pt_fw_mpi.h"
#include "pt_text.h"
#include "pv_internal.h"
#include "row_label.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const state_names[] = {"Idle",
                                          "Running",
                                          "Not created",
                                          "Waiting a message",
                                          "Blocking Send",
                                          "Synchronization",
                                          "Test/Probe",
                                          "Scheduling and Fork/Join",
                                          "Wait/WaitAll",
                                          "Blocked",
                                          "Immediate Send",
                                          "Immediate Receive",
                                          "I/O",
                                          "Group Communication",
                                          "Tracing Disabled",
                                          "Others",
                                          "Send Receive",
                                          "Memory transfer",
                                          "Profiling",
                                          "On-line analysis",
                                          "Remote memory access",
                                          "Atomic memory operation",
                                          "Memory ordering operation",
                                          "Distributed locking",
                                          "Overhead",
                                          "One-sided op",
                                          "Startup latency",
                                          "Waiting links",
                                          "Data copy",
                                          "RTT",
                                          "Allocating memory",
                                          "Freeing memory",
                                          "Configuring accelerator",
                                          "Stream Registration"};

static const char *const pthread_names[PV_PT_MAX] = {
    [PV_PT_END] = "End",
    [PV_PT_EXIT] = "pthread_exit",
    [PV_PT_CREATE] = "pthread_create",
    [PV_PT_JOIN] = "pthread_join",
    [PV_PT_DETACH] = "pthread_detach",
    [PV_PT_RWLOCK_WR] = "pthread_rwlock_wrlock",
    [PV_PT_RWLOCK_RD] = "pthread_rwlock_rdlock",
    [PV_PT_RWLOCK_UNLOCK] = "pthread_rwlock_unlock",
    [PV_PT_MUTEX_LOCK] = "pthread_mutex_lock",
    [PV_PT_MUTEX_UNLOCK] = "pthread_mutex_unlock",
    [PV_PT_COND_SIGNAL] = "pthread_cond_signal",
    [PV_PT_COND_BROADCAST] = "pthread_cond_broadcast",
    [PV_PT_COND_WAIT] = "pthread_cond_wait",
    [PV_PT_BARRIER_WAIT] = "pthread_barrier_wait",
    [PV_PT_SPIN_LOCK] = "pthread_spin_lock",
    [PV_PT_SPIN_UNLOCK] = "pthread_spin_unlock",
    [PV_PT_SEM_WAIT] = "sem_wait",
    [PV_PT_SEM_POST] = "sem_post",
    [PV_PT_MTX_LOCK] = "mtx_lock",
    [PV_PT_MTX_UNLOCK] = "mtx_unlock",
    [PV_PT_FUTEX_WAIT] = "futex wait",
    [PV_PT_FUTEX_WAKE] = "futex wake"};

static const char *lock_kind(unsigned what)
{
	switch (what) {
	case PT_LOCK_MUTEX:
		return "mutex";
	case PT_LOCK_RWLOCK_READ:
	case PT_LOCK_RWLOCK_WRITE:
		return "rwlock";
	case PT_LOCK_SPIN:
		return "spinlock";
	case PT_LOCK_SEMAPHORE:
		return "semaphore";
	case PT_LOCK_C11_MTX:
		return "mtx_t";
	case PT_LOCK_BARRIER:
		return "barrier";
	case PV_LOCK_COND:
		return "condition";
	case PV_LOCK_FUTEX:
		return "futex";
	default:
		return "lock";
	}
}

static int cmp_named(const void *a, const void *b)
{
	const pv_named *x = a, *y = b;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_lock(const void *a, const void *b)
{
	const pv_lock_obj *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The defaults Extrae writes, and all of Extrae's state names (so that
 * existing configuration files find the ones they expect). */
static void pcf_defaults_and_states(FILE *f)
{
	fputs("DEFAULT_OPTIONS\n\nLEVEL               THREAD\nUNITS               NANOSEC\n"
	      "LOOK_BACK           100\nSPEED               1\nFLAG_ICONS          ENABLED\n"
	      "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
	      "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\nSTATES\n",
	      f);
	for (size_t i = 0; i < sizeof state_names / sizeof state_names[0]; i++)
		fprintf(f, "%-4zu %s\n", i, state_names[i]);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		for (size_t k = 0; k < pv_ext(i)->nstates; k++)
			fprintf(f, "%-4u %s\n", pv_ext(i)->states[k].value, pv_ext(i)->states[k].label);
	/* Extrae's colours for the states paratrace writes, then the families' */
	fputs("\n\nSTATES_COLOR\n0    {117,195,255}\n1    {0,0,255}\n2    {255,255,255}\n"
	      "5    {179,0,0}\n17   {255,0,96}\n",
	      f);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		for (size_t k = 0; k < pv_ext(i)->nstates; k++) {
			const pv_state_def *d = &pv_ext(i)->states[k];
			fprintf(f, "%-4u {%u,%u,%u}\n", d->value, d->rgb[0], d->rgb[1], d->rgb[2]);
		}
	fputs("\n\n", f);
}

/* The function shown as value v (pv_ids.c). */
static uint32_t func_of_value(const pv_tool *pv, uint32_t v)
{
	return pv->finv && v <= pv->nfunc ? pv->finv[v] : v;
}

/* The VALUES of a type whose values are function ids: "name [file:line]". */
static void pcf_function_values(const pv_tool *pv, FILE *f)
{
	const pt_trace_ctx *ctx = pv->ctx;
	fputs("VALUES\n0      End\n", f);
	uint32_t nf = pt_ctx_func_count(ctx);
	for (uint32_t v = 1; v <= nf; v++) {
		const pt_func_info *fi = pt_ctx_func_info(ctx, func_of_value(pv, v));
		fprintf(f, "%-6u ", v);
		pt_label_put(f, fi->name);
		if (fi->file[0]) {
			fputs(" [", f);
			pt_label_put(f, fi->file);
			if (fi->line)
				fprintf(f, ":%u", fi->line);
			fputc(']', f);
		}
		fputc('\n', f);
	}
}

/* 60000019 (name [file:line]) and 60000119 (line (file)) labels, and
 * 61000020 when calls were cut by lost data. */
static void pcf_functions(const pv_tool *pv, const pv_found *found, FILE *f)
{
	const pt_trace_ctx *ctx = pv->ctx;
	fprintf(f, "EVENT_TYPE\n0    %u    User function\n", PV_EV_USER_FUNC);
	pcf_function_values(pv, f);
	fprintf(f, "\n\nEVENT_TYPE\n0    %u    User function line\nVALUES\n0      End\n",
	        PV_EV_USER_FUNC_LINE);
	uint32_t nf = pt_ctx_func_count(ctx);
	for (uint32_t v = 1; v <= nf; v++) {
		const pt_func_info *fi = pt_ctx_func_info(ctx, func_of_value(pv, v));
		/* Extrae's label shape: "<line> (<file>)" */
		fprintf(f, "%-6u %u (", v, fi->line);
		pt_label_put(f, fi->file[0] ? fi->file : "?");
		fputs(")\n", f);
	}
	if (found->cuts) {
		fprintf(f, "\n\nEVENT_TYPE\n0    %u    User function cut by lost data\n",
		        PV_EV_FUNC_CUT);
		pcf_function_values(pv, f);
	}
	if (found->throttled) {
		fprintf(f,
		        "\n\nEVENT_TYPE\n0    %u    Function throttled by the runtime from here "
		        "(its later calls on this thread counted, not shown)\n",
		        PV_EV_THROTTLED);
		pcf_function_values(pv, f);
		fprintf(f,
		        "\n\nEVENT_TYPE\n0    %u    Calls of the throttled function after this "
		        "(count, exact)\n0    %u    Time in those calls (ns, estimated)\n",
		        PV_EV_THROTTLED_CALLS, PV_EV_THROTTLED_NS);
	}
}

/* 61000000 (pthread calls) and 61000010 (the objects they are about). */
static void pcf_sync(const pv_tool *pv, pv_found *found, FILE *f)
{
	/* the futex values only in traces that have futexes */
	int futex = 0;
	for (size_t i = 0; i < found->locks.n; i++)
		futex |= found->locks.v[i].what == PV_LOCK_FUTEX;
	fprintf(f, "\n\nEVENT_TYPE\n0    %u    pthread call\nVALUES\n", PV_EV_PTHREAD);
	for (int v = 0; v < PV_PT_MAX; v++)
		if (pthread_names[v] && (futex || v < PV_PT_FUTEX_WAIT))
			fprintf(f, "%-6d %s\n", v, pthread_names[v]);

	fprintf(f, "\n\nEVENT_TYPE\n0    %u    Synchronization object\nVALUES\n0      End\n",
	        PV_EV_SYNC_OBJECT);
	pt_qsort(found->locks.v, found->locks.n, sizeof *found->locks.v, cmp_lock);
	for (size_t i = 0; i < found->locks.n; i++) {
		const pv_lock_obj *l = &found->locks.v[i];
		/* 31-bit id collision: one label, both named */
		int again = i && found->locks.v[i - 1].id == l->id;
		char sym[256], where[64];
		snprintf(where, sizeof where, "0x%llx", (unsigned long long)l->addr);
		fprintf(f, "%-6u %s%s ", l->id, again ? "(same id as above) " : "",
		        lock_kind(l->what));
		/* "mutex result_mu (0x601040, pid 7)" where a symbol names it */
		if (pt_fw_object_name(pv->ctx, l->pid, l->addr, sym, sizeof sym) == 0) {
			pt_label_put(f, sym);
			fprintf(f, " (%s, pid %u)\n", where, l->pid);
		} else
			fprintf(f, "%s (pid %u)\n", where, l->pid);
	}
}

/* The VALUES of user type `type`: named ones (values[v0, v1)), plus the
 * used ones without a name (used[u0, u1)), shown as numbers, so every
 * value in the trace has a label. */
static void pcf_user_values(FILE *f, int scope, const pv_named *values, size_t v0, size_t v1,
                            const pv_named *used, size_t u0, size_t u1)
{
	fputs("VALUES\n", f);
	if (scope)
		fputs("0      End\n", f);
	for (size_t k = v0; k < v1; k++) {
		if (k > v0 && values[k].value == values[k - 1].value)
			continue;
		if (scope && values[k].value == 0)
			continue;
		fprintf(f, "%-6lld ", (long long)values[k].value);
		pt_label_put(f, values[k].name);
		fputc('\n', f);
	}
	for (size_t k = u0; k < u1; k++) {
		int64_t v = used[k].value;
		if (v > INT32_MAX || v < INT32_MIN)
			continue; /* Paraver cannot label it (std::stoi) */
		int named_v = scope && v == 0;
		for (size_t q = v0; q < v1 && !named_v; q++)
			named_v = values[q].value == v;
		if (!named_v)
			fprintf(f, "%-6lld %lld\n", (long long)v, (long long)v);
	}
}

/* User event types: the named ones and every type used. */
static void pcf_user_types(pv_found *found, FILE *f)
{
	pt_qsort(found->types.v, found->types.n, sizeof *found->types.v, cmp_named);
	pt_qsort(found->values.v, found->values.n, sizeof *found->values.v, cmp_named);
	const pv_named *types = found->types.v, *values = found->values.v;
	size_t ntypes = found->types.n, nvalues = found->values.n;
	size_t nused = 0;
	pv_named *used = calloc(found->used.n + 1, sizeof *used);
	for (size_t i = 0; used && i < found->used.cap; i++)
		if (found->used.k[2 * i] || found->used.k[2 * i + 1])
			used[nused++] = (pv_named){(uint32_t)found->used.k[2 * i],
			                           (int64_t)found->used.k[2 * i + 1], NULL};
	if (used)
		pt_qsort(used, nused, sizeof *used, cmp_named);
	/* every distinct type from both lists */
	size_t it = 0, iu = 0, iv = 0;
	while (it < ntypes || iu < nused) {
		uint32_t type;
		if (it < ntypes && (iu >= nused || types[it].type <= used[iu].type))
			type = types[it].type;
		else
			type = used[iu].type;
		const char *name = NULL;
		int scope = 0;
		for (; it < ntypes && types[it].type == type; it++) {
			name = types[it].name; /* the last definition wins */
			scope = (types[it].value & PT_USER_TYPE_SCOPE) != 0;
		}
		fprintf(f, "\n\nEVENT_TYPE\n0    %u    ", type);
		if (name && *name) /* (Paraver drops a type line without a label) */
			pt_label_put(f, name);
		else
			fprintf(f, "User event %u", type);
		fputc('\n', f);
		while (iv < nvalues && values[iv].type < type)
			iv++;
		size_t v0 = iv, u0 = iu;
		while (iu < nused && used[iu].type == type)
			iu++;
		while (iv < nvalues && values[iv].type == type)
			iv++;
		if (iv > v0 || scope) /* else a numeric type: no VALUES section */
			pcf_user_values(f, scope, values, v0, iv, used, u0, iu);
	}
	free(used);
}

int pv_write_pcf(pv_tool *pv, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	pcf_defaults_and_states(f);
	pcf_functions(pv, &pv->found, f);
	if (pv->thinned) /* calls were left out (pv_select.c): their summaries */
		fprintf(
		    f,
		    "\n\nEVENT_TYPE\n0    %u    Calls left out (count, since the last line of the "
		    "call around them)\n0    %u    Time in calls left out (ns)\n",
		    PV_EV_LEFT_CALLS, PV_EV_LEFT_NS);
	if (pv->sync_threshold) /* and synchronization calls */
		fprintf(f,
		        "\n\nEVENT_TYPE\n0    %u    Synchronization calls left out (count, since "
		        "the last line of the call around them)\n0    %u    Time waited in "
		        "synchronization calls left out (ns)\n",
		        PV_EV_LEFT_SYNC, PV_EV_LEFT_WAIT);
	for (size_t i = 0; i < pt_nfamilies(); i++) {
		const pv_left_def *d = pv_ext(i)->left;
		if (!d || !(pv->fam_summarised & 1u << i))
			continue;
		/* what the budget left out of the family's calls */
		fprintf(f, "\n\nEVENT_TYPE\n0    %u    %s\n", d->calls_type, d->calls_label);
		if (d->ns_type)
			fprintf(f, "0    %u    %s\n", d->ns_type, d->ns_label);
		for (size_t k = 0; k < d->ntally; k++)
			if (d->tally[k].label) /* else a type the family names */
				fprintf(f, "%u    %u    %s\n", d->tally[k].last ? 1 : 0,
				        d->tally[k].type, d->tally[k].label);
	}
	pcf_sync(pv, &pv->found, f);
	pcf_user_types(&pv->found, f);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv_ext(i)->write_pcf)
			pv_ext(i)->write_pcf(pv->ext[i], f);
	return fclose(f);
}

static void row_label(pv_tool *pv, size_t i, char *buf, size_t len)
{
	const pt_trace_ctx *ctx = pv->ctx;
	const pt_shard_info *s = &ctx->shards[i];
	for (size_t k = 0; k < pt_nfamilies(); k++)
		if (pv_ext(k)->row_label &&
		    pv_ext(k)->row_label(pv->ext[k], s, buf, len) == 0)
			return;
	if (s->kind == PT_FILE_GPU) {
		pt_device_row_label(ctx, s, buf, len);
		return;
	}
	const pv_role *r = &pv->roles[i];
	pt_thread_row_label(ctx, s, r->name, buf, len);
}

int pv_write_row(pv_tool *pv, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	const pt_trace_ctx *ctx = pv->ctx;
	pv_nodes_row(pv, f);
	/* every label one line (pt_label_put): a level holds exactly SIZE lines */
	fputs("\nLEVEL APPL SIZE 1\n", f);
	pt_label_put(f, ctx->nprocesses ? ctx->processes[0].program : "?");
	fprintf(f, "\n\nLEVEL TASK SIZE %u\n", pv->ntasks);
	for (unsigned t = 1; t <= pv->ntasks; t++)
		for (size_t p = 0; p < ctx->nprocesses; p++) {
			if (pv->ptask[p] != t)
				continue;
			const pt_fw_mpi *m = pt_fw_mpi_process(ctx, p);
			pt_label_put(f, ctx->processes[p].program);
			if (m) {
				char rank[64];
				pt_fw_mpi_label(m, rank, sizeof rank);
				fprintf(f, " %s", rank);
			}
			fprintf(f, " pid %u\n", ctx->processes[p].pid);
		}
	fprintf(f, "\nLEVEL THREAD SIZE %u\n", pv->nrows);
	for (size_t i = 0; i < ctx->nshards; i++) {
		if (!pv->row[i])
			continue;
		char label[512];
		row_label(pv, i, label, sizeof label);
		pt_label_put(f, label);
		fputc('\n', f);
	}
	return fclose(f);
}

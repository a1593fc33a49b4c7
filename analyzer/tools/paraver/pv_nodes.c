/* SPDX-License-Identifier: MIT */
/* The resource model of the trace (Paraver's nodes and CPUs). A trace of
 * one machine has one node, the analyzer's host, and CPU i is written row
 * i (Extrae's model: a CPU per traced thread). An MPI run has one node
 * per host its ranks ran on, in order of the first rank on each, and a
 * node's CPUs are its written rows, numbered node after node: a task's
 * records must name CPUs of the node the header gives it. A process that
 * is no rank (a child forked by one) is on its parent's node. Needs the
 * rows (pv_rows_init) first. */
#define _GNU_SOURCE
#include "pt_fw_mpi.h"
#include "pt_text.h"
#include "pv_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned node_of(pv_tool *pv, const char *host)
{
	for (unsigned i = 0; i < pv->nnodes; i++)
		if (!strcmp(pv->node_name[i], host))
			return i;
	pv->node_name[pv->nnodes] = strdup(host);
	return pv->node_name[pv->nnodes] ? pv->nnodes++ : 0;
}

int pv_nodes_init(pv_tool *pv)
{
	const pt_trace_ctx *ctx = pv->ctx;
	int any = 0;
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		const pt_fw_mpi *m = pt_fw_mpi_process(ctx, p);
		any |= m && m->host;
	}
	if (!any)
		return 0; /* one node, CPU = row */
	size_t np = ctx->nprocesses;
	pv->node_name = calloc(np + 1, sizeof *pv->node_name);
	pv->proc_node = calloc(np + 1, sizeof *pv->proc_node);
	pv->node_ncpus = calloc(np + 1, sizeof *pv->node_ncpus);
	pv->cpu = calloc(ctx->nshards + 1, sizeof *pv->cpu);
	if (!pv->node_name || !pv->proc_node || !pv->node_ncpus || !pv->cpu)
		return -1;
	/* nodes in task order: the first rank on a host names it */
	unsigned ntasks = 0;
	for (size_t p = 0; p < np; p++)
		if (ctx->processes[p].task > ntasks)
			ntasks = ctx->processes[p].task;
	for (size_t p = 0; p < np; p++)
		pv->proc_node[p] = UINT32_MAX;
	for (unsigned t = 1; t <= ntasks; t++)
		for (size_t p = 0; p < np; p++) {
			const pt_fw_mpi *m = pt_fw_mpi_process(ctx, p);
			if (ctx->processes[p].task == t && m && m->host)
				pv->proc_node[p] = node_of(pv, m->host);
		}
	for (size_t p = 0; p < np; p++) {
		/* parents come first in the model's order */
		if (pv->proc_node[p] != UINT32_MAX)
			continue;
		int parent = ctx->processes[p].parent;
		pv->proc_node[p] = parent >= 0 && (size_t)parent < np &&
					   pv->proc_node[parent] != UINT32_MAX
				       ? pv->proc_node[parent]
				       : 0;
	}
	if (!pv->nnodes)
		node_of(pv, "?");
	unsigned next = 0;
	for (unsigned n = 0; n < pv->nnodes; n++)
		for (size_t i = 0; i < ctx->nshards; i++)
			if (pv->row[i] && pv->proc_node[ctx->shards[i].process] == n) {
				pv->cpu[i] = ++next;
				pv->node_ncpus[n]++;
			}
	return 0;
}

size_t pv_nodes_header(const pv_tool *pv, char *buf, size_t len)
{
	size_t n;
	if (!pv->cpu)
		return (size_t)snprintf(buf, len, "1(%u)", pv->nrows);
	n = (size_t)snprintf(buf, len, "%u(", pv->nnodes);
	for (unsigned i = 0; i < pv->nnodes && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%u", i ? "," : "", pv->node_ncpus[i]);
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, ")");
	return n;
}

unsigned pv_task_node(const pv_tool *pv, size_t process)
{
	return pv->cpu ? pv->proc_node[process] + 1 : 1;
}

void pv_nodes_row(const pv_tool *pv, FILE *f)
{
	if (!pv->cpu) {
		char host[256] = "localhost";
		gethostname(host, sizeof host - 1);
		fprintf(f, "LEVEL CPU SIZE %u\n", pv->nrows);
		for (unsigned i = 0; i < pv->nrows; i++) {
			fprintf(f, "%u.", i + 1);
			pt_label_put(f, host);
			fputc('\n', f);
		}
		fputs("\nLEVEL NODE SIZE 1\n", f);
		pt_label_put(f, host);
		fputc('\n', f);
		return;
	}
	/* host names as the ranks' MPI records say them: one line each */
	fprintf(f, "LEVEL CPU SIZE %u\n", pv->nrows);
	unsigned cpu = 0;
	for (unsigned n = 0; n < pv->nnodes; n++)
		for (unsigned k = 0; k < pv->node_ncpus[n]; k++) {
			fprintf(f, "%u.", ++cpu);
			pt_label_put(f, pv->node_name[n]);
			fputc('\n', f);
		}
	fprintf(f, "\nLEVEL NODE SIZE %u\n", pv->nnodes);
	for (unsigned n = 0; n < pv->nnodes; n++) {
		pt_label_put(f, pv->node_name[n]);
		fputc('\n', f);
	}
}

void pv_nodes_free(pv_tool *pv)
{
	for (unsigned i = 0; pv->node_name && i < pv->nnodes; i++)
		free(pv->node_name[i]);
	free(pv->node_name);
	free(pv->proc_node);
	free(pv->node_ncpus);
	free(pv->cpu);
}

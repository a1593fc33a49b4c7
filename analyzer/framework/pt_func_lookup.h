/* SPDX-License-Identifier: MIT */
/* Function ids of a shard's records, for the tools: the analyzer-wide id
 * (<paratrace/tool.h>) of a FUNC_ENTER/EXIT's local id or of a
 * FUNC_ENTER_PC/EXIT_PC's address. One pt_func_lookup per shard: ids of
 * the process's FUNC_DEF table are read from the framework's immutable
 * table, and the answers for code addresses (the framework's lookup takes
 * a lock) are kept in a per-shard cache. */
#ifndef PT_FUNC_LOOKUP_H
#define PT_FUNC_LOOKUP_H

#include "pt_callstack.h"
#include "pt_fw_util.h"

#include <paratrace/tool.h>
#include <stdlib.h>
#include <string.h>

typedef struct pt_pc_cache {
	struct {
		uint64_t pc;
		uint32_t id;
	} * v;
	size_t cap, n;
} pt_pc_cache;

static inline uint32_t pt_pc_cache_func(pt_pc_cache *c, const pt_trace_ctx *ctx, size_t process,
                                        uint64_t pc)
{
	if (c->cap) {
		for (size_t j = pt_mix64(pc) & (c->cap - 1); c->v[j].pc; j = (j + 1) & (c->cap - 1))
			if (c->v[j].pc == pc)
				return c->v[j].id;
	}
	uint32_t id = pt_ctx_func_id_pc(ctx, process, pc);
	if (!pc)
		return id;
	if ((c->n + 1) * 2 > c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		__typeof__(c->v) n = calloc(ncap, sizeof *n);
		if (!n)
			return id;
		for (size_t i = 0; i < c->cap; i++)
			if (c->v[i].pc) {
				size_t j = pt_mix64(c->v[i].pc) & (ncap - 1);
				while (n[j].pc)
					j = (j + 1) & (ncap - 1);
				n[j] = c->v[i];
			}
		free(c->v);
		c->v = n;
		c->cap = ncap;
	}
	size_t j = pt_mix64(pc) & (c->cap - 1);
	while (c->v[j].pc)
		j = (j + 1) & (c->cap - 1);
	c->v[j].pc = pc;
	c->v[j].id = id;
	c->n++;
	return id;
}

typedef struct pt_func_lookup {
	const pt_trace_ctx *ctx;
	size_t process;
	const uint32_t *tab;
	size_t n;
	pt_pc_cache pcs;
} pt_func_lookup;

static inline void pt_func_lookup_init(pt_func_lookup *l, const pt_trace_ctx *ctx, size_t process)
{
	memset(l, 0, sizeof *l);
	l->ctx = ctx;
	l->process = process;
	l->tab = pt_ctx_func_table(ctx, process, &l->n);
}

static inline void pt_func_lookup_free(pt_func_lookup *l)
{
	free(l->pcs.v);
	memset(&l->pcs, 0, sizeof l->pcs);
}

static inline uint32_t pt_func_lookup_id(const pt_func_lookup *l, uint32_t local_id)
{
	if (local_id < l->n && l->tab[local_id])
		return l->tab[local_id];
	return pt_ctx_func_id(l->ctx, l->process, local_id);
}

static inline uint32_t pt_func_lookup_pc(pt_func_lookup *l, uint64_t pc)
{
	return pt_pc_cache_func(&l->pcs, l->ctx, l->process, pc);
}

/* Function id of a FUNC_ENTER/EXIT(_PC) or FUNC_LANDED record (0: not a
 * function record, or a function nothing names); *enter is what it does
 * to the call stack (enum pt_func_step: 1 for entries, 0 for exits). */
static inline uint32_t pt_event_func(const pt_event *ev, pt_func_lookup *l, int *enter)
{
	switch (ev->kind) {
	case PT_REC_FUNC_ENTER:
	case PT_REC_FUNC_EXIT:
		*enter = ev->kind == PT_REC_FUNC_ENTER;
		return pt_func_lookup_id(l, ev->func_id);
	case PT_REC_FUNC_LANDED:
		*enter = PT_STEP_LANDED;
		return pt_func_lookup_id(l, ev->func_id);
	case PT_REC_FUNC_ENTER_PC:
	case PT_REC_FUNC_EXIT_PC: {
		const pt_rec_pc *pc = PT_REC_PAYLOAD(ev->rec, pt_rec_pc);
		*enter = ev->kind == PT_REC_FUNC_ENTER_PC;
		return pc ? pt_func_lookup_pc(l, pc->pc) : 0;
	}
	default:
		return 0;
	}
}

#endif

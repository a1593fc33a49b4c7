/* SPDX-License-Identifier: MIT */
/* The memory family's Paraver part, in Extrae's numbering (mem_common.h),
 * so that BSC's dynamic memory views open our traces: 40000040 (the call)
 * with 40000041 (bytes asked), 40000042 (block handed in), 40000043 (block
 * returned), and the state Allocating or Freeing memory; the call's End
 * one nanosecond later (the runtime reads the clock once per call, to keep
 * its cost down), with our counter 40000081: the live bytes of the blocks
 * this thread allocated and this thread has not freed (a block another
 * thread frees stays on the counter of the thread that allocated it: the
 * rows are written in parallel; the report's peaks are exact). */
#include "mem_common.h"
#include "pt_dist.h"
#include "pt_family.h"
#include "pv.h"

#include <stdlib.h>

typedef struct mem_pv_global {
	int used[PT_MEM_OP_COUNT];
} mem_pv_global;

typedef struct mem_pv_shard {
	mem_map live;
	int used[PT_MEM_OP_COUNT];
} mem_pv_shard;

static void *mem_pv_init(const pt_trace_ctx *ctx)
{
	(void)ctx;
	return calloc(1, sizeof(mem_pv_global));
}

static void *mem_pv_shard_init(void *global, pv_shard *s)
{
	(void)s;
	return global ? calloc(1, sizeof(mem_pv_shard)) : NULL;
}

static int mem_pv_event(void *global, void *state, pv_shard *s, const pt_event *ev)
{
	(void)global;
	mem_pv_shard *x = state;
	unsigned op;
	uint64_t freed, ptr, size, pc;
	if (!x || !mem_record(ev, &op, &freed, &ptr, &size, &pc) || op >= PT_MEM_OP_COUNT)
		return 0;
	x->used[op] = 1;
	uint32_t types[4] = {MEM_EV_CALL};
	int64_t values[4] = {op};
	size_t n = 1;
	if (ev->kind == PT_REC_MEM_ALLOC)
		types[n] = MEM_EV_SIZE, values[n++] = (int64_t)size;
	if (ev->kind == PT_REC_MEM_FREE || op == PT_MEM_OP_REALLOC) {
		const pt_rec_mem_alloc *a = PT_REC_PAYLOAD(ev->rec, pt_rec_mem_alloc);
		uint64_t in = ev->kind == PT_REC_MEM_FREE ? freed : a ? a->old : 0;
		types[n] = MEM_EV_IN_PTR, values[n++] = (int64_t)in;
	}
	if (ev->kind == PT_REC_MEM_ALLOC)
		types[n] = MEM_EV_OUT_PTR, values[n++] = (int64_t)ptr;
	unsigned saved =
	    pv_call_begin(s, ev->time_ns, n, types, values,
	                  ev->kind == PT_REC_MEM_FREE ? MEM_STATE_FREE : MEM_STATE_ALLOC);
	/* what a summary keeps of it, if the budget leaves it out: the bytes
	 * it allocated and freed (of blocks this row allocated, as the
	 * counter), and the counter after it */
	uint64_t tally[3] = {ptr ? size : 0, 0, 0};
	mem_block b;
	if (freed && mem_map_take(&x->live, freed, &b))
		tally[1] = b.size;
	if (ptr && mem_map_put(&x->live, &(mem_block){ptr, size, 0, 0}))
		return pv_fail(s, "out of memory");
	tally[2] = x->live.bytes;
	uint32_t etypes[2] = {MEM_EV_CALL, MEM_EV_LIVE};
	int64_t evalues[2] = {0, (int64_t)x->live.bytes};
	pv_call_end(s, ev->time_ns + 1, 2, etypes, evalues, saved, tally);
	return 0;
}

static void mem_pv_shard_exit(void *global, void *state, pv_shard *s)
{
	(void)s;
	mem_pv_global *g = global;
	mem_pv_shard *x = state;
	if (!x)
		return;
	for (unsigned i = 0; i < PT_MEM_OP_COUNT; i++)
		g->used[i] |= x->used[i];
	mem_map_free(&x->live);
	free(x);
}

static void mem_pv_pcf(void *global, FILE *f)
{
	mem_pv_global *g = global;
	int any = 0;
	for (unsigned i = 1; g && i < PT_MEM_OP_COUNT; i++)
		any |= g->used[i];
	if (!any)
		return;
	fprintf(f, "\n\nEVENT_TYPE\n0    %u    Dynamic memory call\nVALUES\n0      End\n",
	        MEM_EV_CALL);
	for (unsigned i = 1; i < PT_MEM_OP_COUNT; i++)
		if (g->used[i])
			fprintf(f, "%-6u %s\n", i, mem_op_name(i));
	fprintf(f,
	        "\n\nEVENT_TYPE\n0    %u    Requested size\n0    %u    In pointer\n"
	        "0    %u    Out pointer\n1    %u    Live heap bytes allocated by this thread\n",
	        MEM_EV_SIZE, MEM_EV_IN_PTR, MEM_EV_OUT_PTR, MEM_EV_LIVE);
	fputs("\n\nSTATES_COLOR\n30   {255,102,0}\n31   {255,190,0}\n", f);
}

/* Several analyzer processes (pt_dist.h): the calls each saw, for the .pcf. */
static void mem_pv_pack(void *global, pt_buf *b)
{
	mem_pv_global *g = global;
	pt_buf_put(b, g->used, sizeof g->used);
}

static int mem_pv_unpack(void *global, const void *data, size_t len)
{
	mem_pv_global *g = global;
	pt_rbuf r = {data, (const char *)data + len, 0};
	int used[PT_MEM_OP_COUNT];
	pt_rbuf_get(&r, used, sizeof used);
	for (unsigned i = 0; i < PT_MEM_OP_COUNT; i++)
		g->used[i] |= used[i];
	return r.err ? -1 : 0;
}

/* The budget leaves out the shortest calls (all of them last the one
 * nanosecond the row shows) as it does function calls; their summary
 * keeps the bytes. */
static const pv_left_def mem_left = {
    .what = "dynamic memory calls",
    .calls_type = MEM_EV_LEFT,
    .calls_label = "Dynamic memory calls left out (count, since the row's last line)",
    .ntally = 3,
    .tally = {{MEM_EV_LEFT_ALLOC, "Bytes allocated by dynamic memory calls left out", 0},
              {MEM_EV_LEFT_FREED, "Bytes freed by dynamic memory calls left out", 0},
              {MEM_EV_LIVE, NULL, 1}},
};

const pv_family mem_paraver = {
    .name = "memory",
    .kind_first = PT_REC_MEM_ALLOC,
    .kind_last = PT_REC_MEM_FREE,
    .init = mem_pv_init,
    .shard_init = mem_pv_shard_init,
    .event = mem_pv_event,
    .shard_exit = mem_pv_shard_exit,
    .write_pcf = mem_pv_pcf,
    .destroy = free,
    .pack = mem_pv_pack,
    .unpack = mem_pv_unpack,
    .left = &mem_left,
};

/* SPDX-License-Identifier: MIT */
/* The I/O family's Paraver part, in Extrae's numbering (io_common.h), so
 * that BSC's I/O views open our traces: at a call's begin 40000004 (the
 * call), 40000011 (bytes asked), 40000010 (descriptor) and 40000059 (the
 * file) and the I/O state; at its end 40000004 = 0, our 40000080 (bytes
 * moved), the file an open named, and the state the row was in. */
#include "io_common.h"
#include "pt_dist.h"
#include "pt_family.h"
#include "pv.h"

#include <stdlib.h>

typedef struct io_pv_global {
	io_names *names;
	int used[PT_IO_OP_COUNT];
	int any_file;
} io_pv_global;

typedef struct io_pv_shard {
	io_track track;
	unsigned saved_state;
	int used[PT_IO_OP_COUNT];
	int any_file;
} io_pv_shard;

static void *io_pv_init(const pt_trace_ctx *ctx)
{
	io_pv_global *g = calloc(1, sizeof *g);
	if (g && !(g->names = io_names_new(ctx->nprocesses))) {
		free(g);
		g = NULL;
	}
	return g;
}

static void io_pv_destroy(void *global)
{
	io_pv_global *g = global;
	if (g)
		io_names_free(g->names);
	free(g);
}

static void io_pv_process_event(void *global, size_t process, const pt_event *ev)
{
	io_pv_global *g = global;
	if (g)
		io_names_process_event(g->names, process, ev);
}

static void *io_pv_shard_init(void *global, pv_shard *s)
{
	(void)s;
	return global ? calloc(1, sizeof(io_pv_shard)) : NULL;
}

static void io_pv_end(io_pv_global *g, io_pv_shard *x, pv_shard *s, const io_done *d)
{
	/* what a summary keeps of it, if the budget leaves it out */
	uint64_t tally[2] = {pt_io_op_reads(d->op) ? d->bytes : 0,
	                     pt_io_op_writes(d->op) ? d->bytes : 0};
	uint32_t types[3] = {IO_EV_CALL, IO_EV_DONE, IO_EV_FILE};
	int64_t values[3] = {0, (int64_t)d->bytes, 0};
	size_t n = pt_io_op_reads(d->op) || pt_io_op_writes(d->op) ? 2 : 1;
	if (d->op == PT_IO_OP_OPEN || d->op == PT_IO_OP_FOPEN) {
		uint32_t v = io_names_value(g->names, s->info->process, d->file);
		if (v) {
			types[n] = IO_EV_FILE, values[n++] = v;
			x->any_file = 1;
		}
	}
	pv_call_end(s, d->end_ns, n, types, values, x->saved_state, tally);
}

static int io_pv_event(void *global, void *state, pv_shard *s, const pt_event *ev)
{
	io_pv_global *g = global;
	io_pv_shard *x = state;
	if (!x)
		return 0;
	io_done d;
	int step = io_track_step(&x->track, ev, &d);
	if (step == IO_STEP_BEGIN) {
		if (d.end_ns)
			io_pv_end(g, x, s, &d);
		const io_track *t = &x->track;
		uint32_t types[4] = {IO_EV_CALL};
		int64_t values[4] = {t->op};
		size_t n = 1;
		if (pt_io_op_reads(t->op) || pt_io_op_writes(t->op))
			types[n] = IO_EV_SIZE, values[n++] = (int64_t)t->size;
		if (t->fd >= 0)
			types[n] = IO_EV_FD, values[n++] = t->fd;
		uint32_t v = io_names_value(g->names, s->info->process, t->file);
		if (v) {
			types[n] = IO_EV_FILE, values[n++] = v;
			x->any_file = 1;
		}
		if (t->op < PT_IO_OP_COUNT)
			x->used[t->op] = 1;
		x->saved_state = pv_call_begin(s, ev->time_ns, n, types, values, IO_STATE);
	} else if (step == IO_STEP_END) {
		io_pv_end(g, x, s, &d);
	}
	return 0;
}

static void io_pv_shard_exit(void *global, void *state, pv_shard *s)
{
	io_pv_global *g = global;
	io_pv_shard *x = state;
	if (!x)
		return;
	if (x->track.open) /* the log ended inside the call */
		pv_set_state(s, s->t0 + s->last, x->saved_state);
	for (unsigned i = 0; i < PT_IO_OP_COUNT; i++)
		g->used[i] |= x->used[i];
	g->any_file |= x->any_file;
	free(x);
}

static void io_pv_pcf(void *global, FILE *f)
{
	io_pv_global *g = global;
	int any = 0;
	for (unsigned i = 1; g && i < PT_IO_OP_COUNT; i++)
		any |= g->used[i];
	if (!any)
		return;
	fprintf(f, "\n\nEVENT_TYPE\n0    %u    I/O call\nVALUES\n0      End\n", IO_EV_CALL);
	for (unsigned i = 1; i < PT_IO_OP_COUNT; i++)
		if (g->used[i])
			fprintf(f, "%-6u %s\n", i, io_op_name(i));
	fprintf(f,
	        "\n\nEVENT_TYPE\n0    %u    I/O descriptor\n0    %u    I/O size\n"
	        "0    %u    I/O bytes moved\n",
	        IO_EV_FD, IO_EV_SIZE, IO_EV_DONE);
	if (g->any_file) {
		fprintf(f, "\n\nEVENT_TYPE\n0    %u    I/O file name\nVALUES\n", IO_EV_FILE);
		for (uint32_t v = 1; v <= io_names_count(g->names); v++)
			fprintf(f, "%-6u %s\n", v, io_names_name(g->names, v));
	}
	fputs("\n\nSTATES_COLOR\n12   {172,174,41}\n", f);
}

/* Several analyzer processes (pt_dist.h): the calls and files each saw,
 * for the .pcf (the file values come from the process logs, which every
 * process reads alike). */
static void io_pv_pack(void *global, pt_buf *b)
{
	io_pv_global *g = global;
	pt_buf_put(b, g->used, sizeof g->used);
	pt_buf_u64(b, (uint64_t)g->any_file);
}

static int io_pv_unpack(void *global, const void *data, size_t len)
{
	io_pv_global *g = global;
	pt_rbuf r = {data, (const char *)data + len, 0};
	int used[PT_IO_OP_COUNT];
	pt_rbuf_get(&r, used, sizeof used);
	for (unsigned i = 0; i < PT_IO_OP_COUNT; i++)
		g->used[i] |= used[i];
	g->any_file |= (int)pt_rbuf_u64(&r);
	return r.err ? -1 : 0;
}

/* The budget leaves out the shortest I/O calls as it does function calls;
 * their summary keeps the bytes they moved. */
static const pv_left_def io_left = {
    .what = "I/O calls",
    .calls_type = IO_EV_LEFT,
    .ns_type = IO_EV_LEFT_NS,
    .calls_label = "I/O calls left out (count, since the row's last line)",
    .ns_label = "Time in I/O calls left out (ns)",
    .ntally = 2,
    .tally = {{IO_EV_LEFT_READ, "Bytes read by I/O calls left out", 0},
              {IO_EV_LEFT_WRITTEN, "Bytes written by I/O calls left out", 0}},
};

const pv_family io_paraver = {
    .name = "io",
    .kind_first = PT_REC_IO_CALL,
    .kind_last = PT_REC_IO_FILE,
    .init = io_pv_init,
    .process_event = io_pv_process_event,
    .shard_init = io_pv_shard_init,
    .event = io_pv_event,
    .shard_exit = io_pv_shard_exit,
    .write_pcf = io_pv_pcf,
    .destroy = io_pv_destroy,
    .pack = io_pv_pack,
    .unpack = io_pv_unpack,
    .left = &io_left,
};

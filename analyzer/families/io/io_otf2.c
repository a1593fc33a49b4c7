/* SPDX-License-Identifier: MIT */
/* File I/O in the OTF2 archive (tools/otf2/ot.h), as Score-P writes its
 * POSIX and ISO C I/O: each call a region (role file I/O, or file I/O
 * metadata for open, close, fsync...) entered and left on its thread;
 * inside it, for a call that moves data or flushes, IoOperationBegin
 * (bytes asked) and IoOperationComplete (bytes moved, 0 for a failure)
 * on the file's handle; an open that succeeded creates its handle
 * (IoCreateHandle), a close destroys it (IoDestroyHandle). The runtime
 * does not record open's flags: handles are created read-write.
 *
 * Definitions: the I/O paradigms POSIX (descriptors) and ISO C (streams),
 * one IoRegularFile per file name (the values io_names gives, numbered in
 * the order the process logs name them), and per file id of each process
 * two IoHandles, one per paradigm (a descriptor and a stream on it), all
 * numbered from the pre-pass: the same refs whichever worker or analyzer
 * process writes the events. */
#define _GNU_SOURCE
#include "io_common.h"
#include "ot.h"

#ifdef PT_WITH_OTF2
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { IO_OT_POSIX, IO_OT_ISOC };

typedef struct io_ot {
	const pt_trace_ctx *ctx;
	ot_tool *tool;
	io_names *names;
	/* handles: process p's file id f is base[p] + index[p][f] (with its
	 * stream's right after), UINT32_MAX not named; made at the first
	 * shard, once the pre-pass has named every file */
	uint32_t *base, **index;
	int oom;
	pthread_mutex_t lock;
} io_ot;

typedef struct io_ot_thread {
	io_track track;
	uint32_t region[PT_IO_OP_COUNT]; /* by call, once asked for */
	uint32_t handle;                 /* the open call's, when it began an operation */
	int begun;
	uint64_t match; /* operations on this location: their matching ids */
} io_ot_thread;

static int io_ot_init(const pt_trace_ctx *ctx, ot_tool *tool, void **global)
{
	io_ot *g = calloc(1, sizeof *g);
	if (!g || !(g->names = io_names_new(ctx->nprocesses))) {
		free(g);
		return -1;
	}
	g->ctx = ctx;
	g->tool = tool;
	pthread_mutex_init(&g->lock, NULL);
	*global = g;
	return 0;
}

static void io_ot_process_event(void *global, size_t process, const pt_event *ev)
{
	io_ot *g = global;
	io_names_process_event(g->names, process, ev);
}

/* The handles' numbers: the processes in order, their named file ids in
 * order, two handles each. Once, under g->lock. */
static void number_handles(io_ot *g)
{
	if (g->base || g->oom)
		return;
	size_t np = g->ctx->nprocesses;
	g->base = calloc(np + 1, sizeof *g->base);
	g->index = calloc(np + 1, sizeof *g->index);
	if (!g->base || !g->index) {
		g->oom = 1;
		return;
	}
	uint32_t n = 0;
	for (size_t p = 0; p < np; p++) {
		uint32_t ids = io_names_ids(g->names, p), k = 0;
		g->base[p] = n;
		if (!ids)
			continue;
		if (!(g->index[p] = malloc(ids * sizeof **g->index))) {
			g->oom = 1;
			return;
		}
		for (uint32_t f = 0; f < ids; f++)
			g->index[p][f] = io_names_value(g->names, p, f) ? 2 * k++ : UINT32_MAX;
		n += 2 * k;
	}
}

static int io_ot_shard_init(void *global, ot_loc *l, void **shard)
{
	io_ot *g = global;
	if (l->info->kind != PT_FILE_THREAD)
		return 0;
	pthread_mutex_lock(&g->lock);
	number_handles(g);
	pthread_mutex_unlock(&g->lock);
	if (g->oom)
		return -1;
	io_ot_thread *x = calloc(1, sizeof *x);
	*shard = x;
	return x ? 0 : -1;
}

/* The handle of the process's file id for the call's paradigm;
 * OTF2_UNDEFINED_IO_HANDLE when the file is not named. */
static uint32_t handle_of(const io_ot *g, size_t process, uint32_t file, unsigned op)
{
	if (process >= g->ctx->nprocesses || file >= io_names_ids(g->names, process) ||
	    !g->index[process] || g->index[process][file] == UINT32_MAX)
		return OTF2_UNDEFINED_IO_HANDLE;
	int isoc = op == PT_IO_OP_FREAD || op == PT_IO_OP_FWRITE || op == PT_IO_OP_FOPEN ||
	           op == PT_IO_OP_FCLOSE || op == PT_IO_OP_FDOPEN;
	return g->base[process] + g->index[process][file] + (isoc ? IO_OT_ISOC : IO_OT_POSIX);
}

static int moves_data(unsigned op)
{
	return pt_io_op_reads(op) || pt_io_op_writes(op);
}

static int flushes(unsigned op)
{
	return op == PT_IO_OP_FSYNC || op == PT_IO_OP_FDATASYNC;
}

static uint32_t region_of(io_ot *g, io_ot_thread *x, unsigned op)
{
	if (op >= PT_IO_OP_COUNT)
		op = 0;
	if (!x->region[op])
		x->region[op] = ot_region(g->tool, io_op_name(op),
		                          moves_data(op) ? OTF2_REGION_ROLE_FILE_IO
		                                         : OTF2_REGION_ROLE_FILE_IO_METADATA,
		                          OTF2_PARADIGM_NONE);
	return x->region[op];
}

/* The call began: its region, and the operation on its file's handle. */
static void call_begin(io_ot *g, io_ot_thread *x, ot_loc *l, const io_track *c)
{
	uint32_t r = region_of(g, x, c->op);
	if (moves_data(c->op))
		ot_enter_with(l, c->begin_ns, r, OT_ATTR_BYTES, c->size);
	else
		ot_enter(l, c->begin_ns, r);
	x->begun = 0;
	if (!moves_data(c->op) && !flushes(c->op))
		return;
	x->handle = handle_of(g, l->info->process, c->file, c->op);
	if (x->handle == OTF2_UNDEFINED_IO_HANDLE)
		return;
	OTF2_IoOperationMode mode = pt_io_op_reads(c->op)    ? OTF2_IO_OPERATION_MODE_READ
	                            : pt_io_op_writes(c->op) ? OTF2_IO_OPERATION_MODE_WRITE
	                                                     : OTF2_IO_OPERATION_MODE_FLUSH;
	OTF2_EvtWriter_IoOperationBegin(l->w, NULL, ot_time(l, c->begin_ns), x->handle, mode,
	                                OTF2_IO_OPERATION_FLAG_NONE, c->size, ++x->match);
	x->begun = 1;
}

/* It returned (or was cut short: d->failed): the operation's bytes, the
 * handle an open made or a close ended, the region left. */
static void call_end(io_ot *g, io_ot_thread *x, ot_loc *l, const io_done *d)
{
	OTF2_TimeStamp t = ot_time(l, d->end_ns);
	if (x->begun)
		OTF2_EvtWriter_IoOperationComplete(l->w, NULL, t, x->handle, d->bytes, x->match);
	x->begun = 0;
	uint32_t h = handle_of(g, l->info->process, d->file, d->op);
	if (!d->failed && h != OTF2_UNDEFINED_IO_HANDLE) {
		if (d->op == PT_IO_OP_OPEN || d->op == PT_IO_OP_FOPEN || d->op == PT_IO_OP_FDOPEN)
			OTF2_EvtWriter_IoCreateHandle(
			    l->w, NULL, t, h, OTF2_IO_ACCESS_MODE_READ_WRITE,
			    OTF2_IO_CREATION_FLAG_NONE, OTF2_IO_STATUS_FLAG_NONE);
		else if (d->op == PT_IO_OP_CLOSE || d->op == PT_IO_OP_FCLOSE)
			OTF2_EvtWriter_IoDestroyHandle(l->w, NULL, t, h);
	}
	ot_leave(l, d->end_ns, region_of(g, x, d->op));
}

static int io_ot_event(void *global, void **shard, ot_loc *l, const pt_event *ev)
{
	io_ot *g = global;
	io_ot_thread *x = *shard;
	if (!x)
		return 0;
	io_done d;
	switch (io_track_step(&x->track, ev, &d)) {
	case IO_STEP_BEGIN:
		if (d.end_ns) /* the call before it, whose end was lost */
			call_end(g, x, l, &d);
		call_begin(g, x, l, &x->track);
		break;
	case IO_STEP_END:
		call_end(g, x, l, &d);
		break;
	default:
		break;
	}
	return 0;
}

static void io_ot_shard_end(void *global, void *shard, ot_loc *l, uint64_t last_ns)
{
	io_ot_thread *x = shard;
	if (!x || !x->track.open)
		return;
	const io_track *c = &x->track;
	io_done d = {c->op, c->begin_ns, last_ns, c->size, 0, c->fd, c->file, 1};
	call_end(global, x, l, &d);
	x->track.open = 0;
}

static int io_ot_shard_exit(void *global, void *shard)
{
	(void)global;
	free(shard);
	return 0;
}

static int io_ot_defs(void *global, ot_defs *d)
{
	io_ot *g = global;
	uint32_t nfiles = io_names_count(g->names);
	number_handles(g); /* a process that wrote no thread */
	if (g->oom)
		return -1;
	if (!nfiles)
		return 0;
	OTF2_GlobalDefWriter_WriteIoParadigm(
	    d->w, IO_OT_POSIX, ot_string(d, "POSIX"), ot_string(d, "POSIX I/O"),
	    OTF2_IO_PARADIGM_CLASS_SERIAL, OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL);
	OTF2_GlobalDefWriter_WriteIoParadigm(
	    d->w, IO_OT_ISOC, ot_string(d, "ISOC"), ot_string(d, "ISO C I/O"),
	    OTF2_IO_PARADIGM_CLASS_SERIAL, OTF2_IO_PARADIGM_FLAG_NONE, 0, NULL, NULL, NULL);
	for (uint32_t v = 1; v <= nfiles; v++)
		OTF2_GlobalDefWriter_WriteIoRegularFile(
		    d->w, v - 1, ot_string(d, io_names_name(g->names, v)), 0);
	for (size_t p = 0; p < g->ctx->nprocesses; p++) {
		uint32_t ids = io_names_ids(g->names, p);
		for (uint32_t f = 0; f < ids; f++) {
			uint32_t v = io_names_value(g->names, p, f);
			if (!v)
				continue;
			OTF2_StringRef name = ot_string(d, io_names_name(g->names, v));
			for (int k = IO_OT_POSIX; k <= IO_OT_ISOC; k++)
				OTF2_GlobalDefWriter_WriteIoHandle(
				    d->w, g->base[p] + g->index[p][f] + (uint32_t)k, name, v - 1,
				    (OTF2_IoParadigmRef)k, OTF2_IO_HANDLE_FLAG_NONE,
				    OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE);
		}
	}
	return 0;
}

static void io_ot_destroy(void *global)
{
	io_ot *g = global;
	if (!g)
		return;
	for (size_t p = 0; g->index && p < g->ctx->nprocesses; p++)
		free(g->index[p]);
	free(g->index);
	free(g->base);
	io_names_free(g->names);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

const ot_family io_otf2 = {
    .kind_first = PT_REC_IO_CALL,
    .kind_last = PT_REC_IO_END,
    .init = io_ot_init,
    .process_event = io_ot_process_event,
    .shard_init = io_ot_shard_init,
    .event = io_ot_event,
    .shard_end = io_ot_shard_end,
    .shard_exit = io_ot_shard_exit,
    .defs = io_ot_defs,
    .destroy = io_ot_destroy,
};
#endif

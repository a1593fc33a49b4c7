/* SPDX-License-Identifier: MIT */
/* File I/O on the timelines (tools/timeline/timeline.h): each call a slice
 * of its own on its thread ("read", "fwrite"...; category "io"), written
 * when the call has ended; with --min-duration, the shorter ones are left
 * out and summarised with the bytes they read and wrote. */
#include "io_common.h"
#include "pt_family.h"
#include "timeline.h"

#include <stdlib.h>

static int io_tl_shard_init(void *global, const pt_shard_info *info, void **shard)
{
	(void)global;
	if (info->kind != PT_FILE_THREAD)
		return 0;
	return (*shard = calloc(1, sizeof(io_track))) ? 0 : -1;
}

static void io_tl_slice(tl_sel *q, const io_done *d)
{
	uint64_t tally[2] = {pt_io_op_reads(d->op) ? d->bytes : 0,
	                     pt_io_op_writes(d->op) ? d->bytes : 0};
	tl_sel_call(q, d->begin_ns, d->end_ns > d->begin_ns ? d->end_ns - d->begin_ns : 0, "io",
	            io_op_name(d->op), tally);
}

static int io_tl_event(void *global, void **shard, tl_sel *q, const pt_event *ev)
{
	(void)global;
	io_track *t = *shard;
	if (!t)
		return 0;
	io_done d;
	int step = io_track_step(t, ev, &d);
	if (step == IO_STEP_END || (step == IO_STEP_BEGIN && d.end_ns))
		io_tl_slice(q, &d);
	return 0;
}

static void io_tl_shard_end(void *global, void *shard, tl_sel *q, uint64_t last_ns)
{
	(void)global;
	io_track *t = shard;
	if (t && t->open) {
		io_done d = {.op = t->op, .begin_ns = t->begin_ns, .end_ns = last_ns};
		io_tl_slice(q, &d);
		t->open = 0;
	}
}

static int io_tl_shard_exit(void *global, void *shard)
{
	(void)global;
	free(shard);
	return 0;
}

static const tl_left_def io_tl_left = {
    .name = "I/O calls left out",
    .ntally = 2,
    .tally = {"bytes read", "bytes written"},
};

const tl_family io_timeline = {
    .kind_first = PT_REC_IO_CALL,
    .kind_last = PT_REC_IO_END,
    .shard_init = io_tl_shard_init,
    .event = io_tl_event,
    .shard_end = io_tl_shard_end,
    .shard_exit = io_tl_shard_exit,
    .left = &io_tl_left,
};

/* SPDX-License-Identifier: MIT */
/* GPU streams in the pictures (tools/plot/plot.h): a stream's row shows
 * its kernels and copies at their device times, one at a time as on its
 * Paraver row, named after its API's label of the stream. Labels: a kernel
 * is KERNEL | its trace-wide value (gpu_names), a copy COPY | kind << 8 |
 * direction. */
#include "gpu_api.h"
#include "gpu_common.h"
#include "plot.h"

#include <stdlib.h>

#define KERNEL 0x80000000u
#define COPY 0xc0000000u
enum { COPY_COPY = 1, COPY_MAP, COPY_MEMSET };

/* A stream's row. */
typedef struct gpu_pl_row {
	uint64_t busy_until; /* end of the last device interval */
	const gpu_api *api;  /* from its GPU_STREAM_DEF, NULL before */
	pt_rec_gpu_stream_def def;
} gpu_pl_row;

static int pl_gpu_init(const pt_trace_ctx *ctx, void **global)
{
	return (*global = gpu_names_new(ctx->nprocesses)) ? 0 : -1;
}

static void pl_gpu_process_event(void *global, size_t process, const pt_event *ev)
{
	gpu_names_process_event(global, process, ev);
}

static int pl_gpu_device_event(void *global, void **shard, pl_device *d, const pt_shard_info *in,
                               const pt_event *ev)
{
	gpu_pl_row *row = *shard;
	if (!row && !(row = *shard = calloc(1, sizeof *row)))
		return -1;
	uint64_t start, end;
	uint32_t label;
	if (ev->kind == PT_REC_GPU_STREAM_DEF) {
		const pt_rec_gpu_stream_def *def = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_stream_def);
		if (def && (row->api = gpu_api_of(ev->rec->arg)))
			row->def = *def;
		return 0;
	}
	if (ev->kind == PT_REC_GPU_KERNEL) {
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		if (!k)
			return 0;
		start = gpu_ticks_ns(in, k->start);
		end = gpu_ticks_ns(in, k->end);
		label = KERNEL | gpu_names_kernel(global, in->process, k->kernel);
	} else if (ev->kind == PT_REC_GPU_MEMCPY || ev->kind == PT_REC_GPU_MEMSET) {
		const pt_rec_gpu_copy *c = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_copy);
		if (!c)
			return 0;
		start = gpu_ticks_ns(in, c->start);
		end = gpu_ticks_ns(in, c->end);
		unsigned kind = ev->kind == PT_REC_GPU_MEMSET  ? COPY_MEMSET
		                : c->flags & PT_GPU_COPY_F_MAP ? COPY_MAP
		                                               : COPY_COPY;
		label = COPY | kind << 8 | (c->direction & 0xff);
	} else {
		return 0;
	}
	gpu_one_at_a_time(&row->busy_until, &start, &end);
	pl_device_busy(d, label, start, end);
	return 0;
}

static int pl_gpu_row_label(void *global, void *shard, const pt_shard_info *in, char *buf,
                            size_t len)
{
	(void)global;
	(void)in;
	const gpu_pl_row *row = shard;
	if (!row || !row->api)
		return -1;
	row->api->stream_label(row->def.device, row->def.seq, row->def.flags, row->def.stream, buf,
	                       len);
	return 0;
}

static void pl_gpu_shard_free(void *global, void *shard)
{
	(void)global;
	free(shard);
}

static void pl_gpu_label_name(void *global, uint32_t label, char *buf, size_t len)
{
	if (label >= COPY) {
		unsigned kind = label >> 8 & 0xff, dir = label & 0xff;
		if (kind == COPY_MEMSET)
			snprintf(buf, len, "GPU memset");
		else
			snprintf(buf, len, "GPU %s %s", kind == COPY_MAP ? "map" : "copy",
			         gpu_copy_dir_name(dir));
	} else {
		const char *n = gpu_names_kernel_name(global, label & ~KERNEL);
		snprintf(buf, len, "%s", n ? n : "GPU kernel");
	}
}

static void pl_gpu_destroy(void *global)
{
	gpu_names_free(global);
}

const pl_family gpu_plot = {
	.label_first = KERNEL,
	.label_last = UINT32_MAX,
	.kind_first = PT_REC_RANGE_GPU_FIRST,
	.kind_last = PT_REC_RANGE_GPU_LAST,
	.init = pl_gpu_init,
	.process_event = pl_gpu_process_event,
	.device_event = pl_gpu_device_event,
	.row_label = pl_gpu_row_label,
	.shard_free = pl_gpu_shard_free,
	.label_name = pl_gpu_label_name,
	.destroy = pl_gpu_destroy,
};

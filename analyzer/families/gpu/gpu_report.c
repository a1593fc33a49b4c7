/* SPDX-License-Identifier: MIT */
/* The GPU section of the profile (tool "gpu"): per kernel launches, total /
 * mean / max device time and share of GPU busy time; per copy direction
 * count, bytes, device time and bandwidth; time host threads spent in GPU
 * API calls that wait for the device. Prints nothing for a trace without
 * GPU records. Options: "csv" or "json" instead of tables (the report's
 * options, report.h).
 *
 * GPU busy time = per stream/queue, the union of its device intervals
 * (kernels, copies, fills), summed over streams: two streams busy at once
 * count twice, as two devices' worth of work would. */
#include "gpu_common.h"
#include "pt_text.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct kstat {
	uint64_t n, total, max;
} kstat;

typedef struct dstat {
	uint64_t n, bytes, time;
} dstat;

#define NDIR (PT_GPU_COPY_MEMSET + 1)

typedef struct gpu_tool {
	const pt_trace_ctx *ctx;
	gpu_names *names;
	int format; /* 0 table, 1 csv, 2 json */
	pthread_mutex_t lock;
	kstat *kernels; /* by kernel value (index = value) */
	size_t nkernels;
	dstat dirs[NDIR];
	uint64_t busy, streams, launches, sync_time, sync_calls;
	int any;
} gpu_tool;

typedef struct gpu_shard_state {
	gpu_tool *t;
	const pt_shard_info *info;
	kstat *kernels;
	size_t nkernels;
	dstat dirs[NDIR];
	uint64_t busy, busy_until, launches, sync_time, sync_calls;
	uint64_t call_begin;
	int in_sync, any;
} gpu_shard_state;

static void *gt_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	gpu_tool *t = calloc(1, sizeof *t);
	if (!t || !(t->names = gpu_names_new(ctx->nprocesses))) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->ctx = ctx;
	/* the report's options (report.h): its format; every kernel is shown */
	for (const char *o = options; o && *o;) {
		const char *end = strchr(o, ',');
		size_t len = end ? (size_t)(end - o) : strlen(o);
		if (len == 3 && !strncmp(o, "csv", 3))
			t->format = 1;
		else if (len == 4 && !strncmp(o, "json", 4))
			t->format = 2;
		else if (len && !(len == 4 && !strncmp(o, "text", 4)) &&
		         !(len > 4 && !strncmp(o, "top=", 4))) {
			snprintf(err, errlen, "unknown option '%.*s' (csv, json, text, top=N)", (int)len,
			         o);
			gpu_names_free(t->names);
			free(t);
			return NULL;
		}
		o = end ? end + 1 : o + len;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static int gt_process_event(void *tool, size_t process, const pt_event *ev)
{
	gpu_names_process_event(((gpu_tool *)tool)->names, process, ev);
	return 0;
}

static void *gt_shard_init(void *tool, const pt_shard_info *shard, char *err, size_t errlen)
{
	gpu_shard_state *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->t = tool;
	s->info = shard;
	return s;
}

static kstat *kernel_slot(gpu_shard_state *s, uint32_t v)
{
	if (v >= s->nkernels) {
		size_t n = (size_t)v + 16;
		kstat *k = realloc(s->kernels, n * sizeof *k);
		if (!k)
			return NULL;
		memset(k + s->nkernels, 0, (n - s->nkernels) * sizeof *k);
		s->kernels = k;
		s->nkernels = n;
	}
	return &s->kernels[v];
}

/* Adds [start, end) to this stream's busy union (records come in start order). */
static void busy_add(gpu_shard_state *s, uint64_t start, uint64_t end)
{
	if (start < s->busy_until)
		start = s->busy_until;
	if (end > start) {
		s->busy += end - start;
		s->busy_until = end;
	}
}

static int gt_shard_event(void *st, const pt_event *ev)
{
	gpu_shard_state *s = st;
	switch (ev->kind) {
	case PT_REC_GPU_KERNEL: {
		const pt_rec_gpu_kernel *k = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel);
		if (!k)
			break;
		uint64_t a = gpu_ticks_ns(s->info, k->start), b = gpu_ticks_ns(s->info, k->end);
		uint64_t d = b > a ? b - a : 0;
		kstat *ks = kernel_slot(s, gpu_names_kernel(s->t->names, s->info->process, k->kernel));
		if (ks) {
			ks->n++;
			ks->total += d;
			if (d > ks->max)
				ks->max = d;
		}
		busy_add(s, a, b);
		s->any = 1;
		break;
	}
	case PT_REC_GPU_MEMCPY:
	case PT_REC_GPU_MEMSET: {
		const pt_rec_gpu_copy *c = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_copy);
		if (!c)
			break;
		uint64_t a = gpu_ticks_ns(s->info, c->start), b = gpu_ticks_ns(s->info, c->end);
		uint32_t dir = c->direction < NDIR ? c->direction : PT_GPU_COPY_OTHER;
		s->dirs[dir].n++;
		s->dirs[dir].bytes += c->bytes;
		s->dirs[dir].time += b > a ? b - a : 0;
		busy_add(s, a, b);
		s->any = 1;
		break;
	}
	case PT_REC_GPU_LAUNCH:
		s->launches++;
		s->any = 1;
		break;
	case PT_REC_GPU_API_BEGIN: {
		const pt_rec_gpu_api *a = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_api);
		s->in_sync = a && (a->flags & PT_GPU_CALL_F_SYNC);
		s->call_begin = ev->time_ns;
		s->any = 1;
		break;
	}
	case PT_REC_GPU_API_END:
		if (s->in_sync && ev->time_ns >= s->call_begin) {
			s->sync_time += ev->time_ns - s->call_begin;
			s->sync_calls++;
		}
		s->in_sync = 0;
		break;
	default:
		break;
	}
	return 0;
}

static int gt_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)last_ns;
	(void)complete;
	gpu_shard_state *s = st;
	gpu_tool *t = s->t;
	pthread_mutex_lock(&t->lock);
	if (s->nkernels > t->nkernels) {
		kstat *k = realloc(t->kernels, s->nkernels * sizeof *k);
		if (k) {
			memset(k + t->nkernels, 0, (s->nkernels - t->nkernels) * sizeof *k);
			t->kernels = k;
			t->nkernels = s->nkernels;
		}
	}
	for (size_t i = 0; i < s->nkernels && i < t->nkernels; i++) {
		t->kernels[i].n += s->kernels[i].n;
		t->kernels[i].total += s->kernels[i].total;
		if (s->kernels[i].max > t->kernels[i].max)
			t->kernels[i].max = s->kernels[i].max;
	}
	for (int d = 0; d < NDIR; d++) {
		t->dirs[d].n += s->dirs[d].n;
		t->dirs[d].bytes += s->dirs[d].bytes;
		t->dirs[d].time += s->dirs[d].time;
	}
	t->busy += s->busy;
	t->streams += s->info->kind == PT_FILE_GPU;
	t->launches += s->launches;
	t->sync_time += s->sync_time;
	t->sync_calls += s->sync_calls;
	t->any |= s->any;
	pthread_mutex_unlock(&t->lock);
	free(s->kernels);
	free(s);
	return 0;
}

typedef struct krow {
	const char *name;
	const kstat *k;
} krow;

static int krow_cmp(const void *a, const void *b)
{
	const krow *x = a, *y = b;
	if (x->k->total != y->k->total)
		return x->k->total > y->k->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int gt_print_results(void *tool, FILE *out)
{
	gpu_tool *t = tool;
	if (!t->any)
		return 0;
	size_t n = 0;
	krow *rows = calloc(t->nkernels ? t->nkernels : 1, sizeof *rows);
	if (!rows)
		return -1;
	for (size_t v = 0; v < t->nkernels; v++)
		if (t->kernels[v].n) {
			const char *name = gpu_names_kernel_name(t->names, (uint32_t)v);
			rows[n++] = (krow){name ? name : "(unknown kernel)", &t->kernels[v]};
		}
	qsort(rows, n, sizeof *rows, krow_cmp);
	double busy = (double)t->busy;
	if (t->format == 1) {
		fputs("section,name,launches,total_ns,mean_ns,max_ns,busy_share\n", out);
		for (size_t i = 0; i < n; i++) {
			fputs("gpu_kernel,", out);
			pt_csv_str(out, rows[i].name);
			fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f\n", rows[i].k->n,
				rows[i].k->total, rows[i].k->total / rows[i].k->n, rows[i].k->max,
				busy > 0 ? rows[i].k->total / busy : 0.0);
		}
		fputs("section,direction,count,bytes,time_ns,bandwidth_bytes_per_s\n", out);
		for (int d = 0; d < NDIR; d++)
			if (t->dirs[d].n)
				fprintf(out, "gpu_copy,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f\n",
					gpu_copy_dir_name((uint32_t)d), t->dirs[d].n, t->dirs[d].bytes,
					t->dirs[d].time,
					t->dirs[d].time ? t->dirs[d].bytes * 1e9 / (double)t->dirs[d].time : 0.0);
	} else if (t->format == 2) {
		fprintf(out, "{\"gpu\":{\"streams\":%" PRIu64 ",\"busy_ns\":%" PRIu64 ",\"launches\":%" PRIu64
			     ",\"host_sync_ns\":%" PRIu64 ",\"kernels\":[",
			t->streams, t->busy, t->launches, t->sync_time);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",{\"name\":" : "{\"name\":", out);
			pt_json_str(out, rows[i].name);
			fprintf(out, ",\"launches\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 "}",
				rows[i].k->n, rows[i].k->total, rows[i].k->max);
		}
		fputs("],\"copies\":[", out);
		int first = 1;
		for (int d = 0; d < NDIR; d++)
			if (t->dirs[d].n) {
				fprintf(out, "%s{\"direction\":\"%s\",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64
					     ",\"time_ns\":%" PRIu64 "}",
					first ? "" : ",", gpu_copy_dir_name((uint32_t)d), t->dirs[d].n,
					t->dirs[d].bytes, t->dirs[d].time);
				first = 0;
			}
		fputs("]}}\n", out);
	} else {
		fprintf(out,
			"\nGPU: %" PRIu64 " launches, %" PRIu64 " streams/queues busy %.3f ms; host threads "
			"waited %.3f ms in %" PRIu64 " sync calls\n",
			t->launches, t->streams, busy / 1e6, t->sync_time / 1e6, t->sync_calls);
		if (n)
			fprintf(out, "  %-40s %8s %11s %10s %10s %6s\n", "kernel", "launches", "total ms",
				"mean us", "max us", "busy%");
		for (size_t i = 0; i < n; i++) {
			const kstat *k = rows[i].k;
			/* keep the end of long (templated) names out, the start is what tells them apart */
			char name[256];
			pt_text_fit(name, sizeof name, rows[i].name, 40, 0);
			fprintf(out, "  %-40s %8" PRIu64 " %11.3f %10.2f %10.2f %5.1f%%\n", name,
			        k->n, k->total / 1e6, k->total / 1e3 / (double)k->n, k->max / 1e3,
			        busy > 0 ? 100.0 * (double)k->total / busy : 0.0);
		}
		int copies = 0;
		for (int d = 0; d < NDIR; d++)
			copies |= t->dirs[d].n != 0;
		if (copies)
			fprintf(out, "  %-10s %8s %14s %11s %10s\n", "copies", "count", "bytes", "time ms", "GB/s");
		for (int d = 0; d < NDIR; d++)
			if (t->dirs[d].n)
				fprintf(out, "  %-10s %8" PRIu64 " %14" PRIu64 " %11.3f %10.3f\n",
					gpu_copy_dir_name((uint32_t)d), t->dirs[d].n, t->dirs[d].bytes,
					t->dirs[d].time / 1e6,
					t->dirs[d].time ? (double)t->dirs[d].bytes / (double)t->dirs[d].time : 0.0);
	}
	free(rows);
	return 0;
}

static void gt_destroy(void *tool)
{
	gpu_tool *t = tool;
	if (!t)
		return;
	gpu_names_free(t->names);
	free(t->kernels);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static const pt_tool gt_def = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "gpu",
	.description = "GPU kernels and transfers: launches, device time, busy share, bandwidth",
	.init = gt_init,
	.process_event = gt_process_event,
	.shard_init = gt_shard_init,
	.shard_event = gt_shard_event,
	.shard_exit = gt_shard_exit,
	.print_results = gt_print_results,
	.destroy = gt_destroy,
};

const pt_tool *pt_tool_gpu(void)
{
	return &gt_def;
}

/* SPDX-License-Identifier: MIT */
/* The report's kernel section (tool "gpu-kernels"): what the counters
 * instrument.so puts inside kernels saw (GPU_PROF_DEF / GPU_PROF). Per
 * kernel: launches (and how many were profiled), work-groups, work-items,
 * instructions executed, and its basic blocks with their execution counts
 * and source lines, hot blocks first; for CUDA, how work-group durations
 * spread (imbalance across work-groups). Prints nothing for a trace without
 * kernel profiles. Options: "csv", "json", "top=N" (blocks shown per kernel
 * in the text; the CSV and JSON have them all). The JSON is a member of the
 * profile's object (",\n \"gpu_kernels\": [...]"): the profile tool runs
 * this tool inside itself under `report --json` and prints it before its
 * closing brace.
 *
 * A kernel is one (name, block layout): the profiles of every build and
 * process of the same code add up; two different kernels of one name (two
 * programs) are two entries. */
#include "gpu_common.h"
#include "gpu_prof.h"
#include "pt_text.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Sums of one profile id's launches. */
typedef struct kacc {
	uint64_t profiled, counted; /* launches profiled, ... with block counts */
	uint64_t groups, items, uncounted, instructions;
	uint64_t dur_sum, dur_min, dur_max, timed_groups;
	uint64_t *counts; /* def's nblocks */
} kacc;

typedef struct proc_acc {
	kacc *by_prof;
	size_t n;
} proc_acc;

typedef struct kt_tool {
	const pt_trace_ctx *ctx;
	gpu_names *names;
	gpu_profs *profs;
	int format; /* 0 text, 1 csv, 2 json */
	unsigned top;
	pthread_mutex_t lock;
	proc_acc *procs;
	uint64_t *launches; /* by kernel value */
	size_t nlaunches;
	int oom;
} kt_tool;

typedef struct kt_shard {
	kt_tool *t;
	const pt_shard_info *info;
	proc_acc acc;
	uint64_t *launches;
	size_t nlaunches;
	int oom;
} kt_shard;

static void *kt_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	kt_tool *t = calloc(1, sizeof *t);
	if (!t || !(t->names = gpu_names_new(ctx->nprocesses)) ||
	    !(t->profs = gpu_profs_new(ctx->nprocesses)) ||
	    !(t->procs = calloc(ctx->nprocesses ? ctx->nprocesses : 1, sizeof *t->procs))) {
		if (t) {
			gpu_names_free(t->names);
			gpu_profs_free(t->profs);
		}
		free(t);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->ctx = ctx;
	t->top = 25;
	for (const char *o = options; o && *o;) {
		const char *end = strchr(o, ',');
		size_t len = end ? (size_t)(end - o) : strlen(o);
		if (len == 3 && !strncmp(o, "csv", 3))
			t->format = 1;
		else if (len == 4 && !strncmp(o, "json", 4))
			t->format = 2;
		else if (len > 4 && !strncmp(o, "top=", 4))
			t->top = (unsigned)strtoul(o + 4, NULL, 10);
		else if (len && !(len == 4 && !strncmp(o, "text", 4))) {
			snprintf(err, errlen, "unknown option '%.*s' (csv, json, top=N)", (int)len,
			         o);
			gpu_names_free(t->names);
			gpu_profs_free(t->profs);
			free(t->procs);
			free(t);
			return NULL;
		}
		o = end ? end + 1 : o + len;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

static int kt_process_event(void *tool, size_t process, const pt_event *ev)
{
	kt_tool *t = tool;
	gpu_names_process_event(t->names, process, ev);
	gpu_profs_process_event(t->profs, process, ev);
	return 0;
}

static void *kt_shard_init(void *tool, const pt_shard_info *shard, char *err, size_t errlen)
{
	kt_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->t = tool;
	s->info = shard;
	return s;
}

/* The accumulator of profile `prof` in a, created with room for nblocks. */
static kacc *acc_slot(proc_acc *a, uint32_t prof, uint32_t nblocks)
{
	if (prof >= a->n) {
		size_t n = (size_t)prof + 16;
		kacc *k = realloc(a->by_prof, n * sizeof *k);
		if (!k)
			return NULL;
		memset(k + a->n, 0, (n - a->n) * sizeof *k);
		a->by_prof = k;
		a->n = n;
	}
	kacc *k = &a->by_prof[prof];
	if (nblocks && !k->counts && !(k->counts = calloc(nblocks, sizeof *k->counts)))
		return NULL;
	return k;
}

static void acc_add(kacc *to, const kacc *from, uint32_t nblocks)
{
	to->profiled += from->profiled;
	to->counted += from->counted;
	to->groups += from->groups;
	to->items += from->items;
	to->uncounted += from->uncounted;
	to->instructions += from->instructions;
	to->dur_sum += from->dur_sum;
	to->timed_groups += from->timed_groups;
	if (from->timed_groups && (!to->dur_min || from->dur_min < to->dur_min))
		to->dur_min = from->dur_min;
	if (from->dur_max > to->dur_max)
		to->dur_max = from->dur_max;
	for (uint32_t b = 0; b < nblocks && to->counts && from->counts; b++)
		to->counts[b] += from->counts[b];
}

static void profile_event(kt_shard *s, const pt_event *ev)
{
	const pt_rec_gpu_prof *r = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_prof);
	const gpu_prof_def *d = r ? gpu_profs_get(s->t->profs, s->info->process, r->prof) : NULL;
	gpu_launch_prof lp;
	if (!d || gpu_launch_prof_read(d, ev->rec, &lp) != 0)
		return;
	kacc *k = acc_slot(&s->acc, r->prof, d->nblocks);
	if (!k) {
		s->oom = 1;
		return;
	}
	kacc one = {.profiled = 1,
	            .counted = lp.counts != NULL,
	            .groups = r->wg_exits,
	            .items = r->work_items,
	            .uncounted = r->wg_uncounted,
	            .instructions = lp.instructions};
	if ((d->flags & PT_GPU_PROF_F_CLOCK) && r->wg_exits) {
		one.dur_sum = r->dur_sum_ns;
		one.dur_min = r->dur_min_ns;
		one.dur_max = r->dur_max_ns;
		one.timed_groups = r->wg_exits;
	}
	acc_add(k, &one, 0);
	for (uint32_t b = 0; b < lp.nblocks; b++)
		k->counts[b] += lp.counts[b];
}

static int kt_shard_event(void *st, const pt_event *ev)
{
	kt_shard *s = st;
	if (ev->kind == PT_REC_GPU_PROF) {
		profile_event(s, ev);
	} else if (ev->kind == PT_REC_GPU_LAUNCH) {
		const pt_rec_gpu_launch *l = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_launch);
		uint32_t v = l ? gpu_names_kernel(s->t->names, s->info->process, l->kernel) : 0;
		if (!v)
			return 0;
		if (v >= s->nlaunches) {
			size_t n = (size_t)v + 16;
			uint64_t *x = realloc(s->launches, n * sizeof *x);
			if (!x) {
				s->oom = 1;
				return 0;
			}
			memset(x + s->nlaunches, 0, (n - s->nlaunches) * sizeof *x);
			s->launches = x;
			s->nlaunches = n;
		}
		s->launches[v]++;
	}
	return 0;
}

static int kt_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)last_ns;
	(void)complete;
	kt_shard *s = st;
	kt_tool *t = s->t;
	pthread_mutex_lock(&t->lock);
	t->oom |= s->oom;
	proc_acc *pa = &t->procs[s->info->process];
	for (size_t p = 0; p < s->acc.n; p++) {
		const kacc *from = &s->acc.by_prof[p];
		if (!from->profiled)
			continue;
		const gpu_prof_def *d = gpu_profs_get(t->profs, s->info->process, (uint32_t)p);
		kacc *to = d ? acc_slot(pa, (uint32_t)p, d->nblocks) : NULL;
		if (to)
			acc_add(to, from, d->nblocks);
		else
			t->oom = 1;
	}
	if (s->nlaunches > t->nlaunches) {
		uint64_t *x = realloc(t->launches, s->nlaunches * sizeof *x);
		if (x) {
			memset(x + t->nlaunches, 0, (s->nlaunches - t->nlaunches) * sizeof *x);
			t->launches = x;
			t->nlaunches = s->nlaunches;
		}
	}
	for (size_t v = 0; v < s->nlaunches && v < t->nlaunches; v++)
		t->launches[v] += s->launches[v];
	pthread_mutex_unlock(&t->lock);
	for (size_t p = 0; p < s->acc.n; p++)
		free(s->acc.by_prof[p].counts);
	free(s->acc.by_prof);
	free(s->launches);
	free(s);
	return 0;
}

/* ---- printing ------------------------------------------------------------------ */

/* One kernel of the report: the profiles of the same code, summed. */
typedef struct krow {
	const char *name;
	uint32_t value; /* kernel name value */
	const gpu_prof_def *def;
	kacc acc;
} krow;

static int same_code(const gpu_prof_def *a, const gpu_prof_def *b)
{
	if (a->nblocks != b->nblocks ||
	    (a->flags & PT_GPU_PROF_F_BLOCKS) != (b->flags & PT_GPU_PROF_F_BLOCKS))
		return 0;
	for (uint32_t i = 0; i < a->nblocks; i++)
		if (a->blocks[i].instructions != b->blocks[i].instructions ||
		    a->blocks[i].line != b->blocks[i].line)
			return 0;
	return 1;
}

static int krow_cmp(const void *x, const void *y)
{
	const krow *a = x, *b = y;
	if (a->acc.instructions != b->acc.instructions)
		return a->acc.instructions > b->acc.instructions ? -1 : 1;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->def->nblocks > b->def->nblocks) - (a->def->nblocks < b->def->nblocks);
}

static size_t collect(kt_tool *t, krow **out)
{
	size_t n = 0, cap = 0;
	krow *rows = NULL;
	for (size_t p = 0; p < t->ctx->nprocesses; p++) {
		const proc_acc *pa = &t->procs[p];
		for (size_t id = 0; id < pa->n; id++) {
			const kacc *k = &pa->by_prof[id];
			const gpu_prof_def *d = gpu_profs_get(t->profs, p, (uint32_t)id);
			if (!k->profiled || !d)
				continue;
			uint32_t v = gpu_names_kernel(t->names, p, d->kernel);
			size_t i;
			for (i = 0; i < n; i++)
				if (rows[i].value == v && same_code(rows[i].def, d))
					break;
			if (i == n) {
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					krow *r = realloc(rows, cap * sizeof *r);
					if (!r)
						break;
					rows = r;
				}
				const char *name = gpu_names_kernel_name(t->names, v);
				rows[n] = (krow){name ? name : "(unknown kernel)", v, d, {0}};
				if (d->nblocks &&
				    !(rows[n].acc.counts = calloc(d->nblocks, sizeof(uint64_t))))
					break;
				n++;
			}
			acc_add(&rows[i].acc, k, d->nblocks);
		}
	}
	if (n) /* qsort must not get the NULL of an empty list */
		qsort(rows, n, sizeof *rows, krow_cmp);
	*out = rows;
	return n;
}

typedef struct brow {
	uint32_t block;
	uint64_t count;
} brow;

static int brow_cmp(const void *x, const void *y)
{
	const brow *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->block > b->block) - (a->block < b->block);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void print_text(kt_tool *t, FILE *out, const krow *rows, size_t n)
{
	uint64_t profiled = 0, launches = 0;
	for (size_t i = 0; i < n; i++) {
		profiled += rows[i].acc.profiled;
		if (rows[i].value < t->nlaunches)
			launches += t->launches[rows[i].value];
	}
	fprintf(out,
	        "\nGPU kernels, inside (instrument.so): %zu kernel%s, %" PRIu64 " of %" PRIu64
	        " launches profiled\n",
	        n, n == 1 ? "" : "s", profiled, launches);
	for (size_t i = 0; i < n; i++) {
		const krow *r = &rows[i];
		const gpu_prof_def *d = r->def;
		const kacc *k = &r->acc;
		uint64_t l = r->value < t->nlaunches ? t->launches[r->value] : 0;
		const char *kf = gpu_prof_file(d, d->file);
		fputs("  ", out);
		pt_text_put(out, r->name, 0);
		if (*kf) {
			fputs(" (", out);
			pt_text_put(out, base_name(kf), 0);
			fprintf(out, ":%u)", d->line);
		}
		fprintf(out,
		        ": %" PRIu64 " launches (%" PRIu64 " profiled), %" PRIu64
		        " work-groups, %" PRIu64 " work-items",
		        l, k->profiled, k->groups, k->items);
		if (k->counted)
			fprintf(out, ", %" PRIu64 " instructions executed (IR)", k->instructions);
		fputc('\n', out);
		if (k->timed_groups) {
			double mean = (double)k->dur_sum / (double)k->timed_groups;
			fprintf(out,
			        "    work-group time: min %.2f us, mean %.2f us, max %.2f us; "
			        "imbalance (max/mean) "
			        "%.2f\n",
			        k->dur_min / 1e3, mean / 1e3, k->dur_max / 1e3,
			        mean > 0 ? k->dur_max / mean : 0.0);
		}
		if (k->uncounted)
			fprintf(
			    out,
			    "    %" PRIu64
			    " work-groups had their blocks not counted (local memory too small)\n",
			    k->uncounted);
		if (!k->counted || !d->nblocks)
			continue;
		brow *b = malloc(d->nblocks * sizeof *b);
		if (!b)
			continue;
		for (uint32_t j = 0; j < d->nblocks; j++)
			b[j] = (brow){j, k->counts[j]};
		qsort(b, d->nblocks, sizeof *b, brow_cmp);
		fprintf(out, "    %6s %14s %7s %16s %7s  %s\n", "block", "executions", "instr",
		        "executed instr", "share", "where");
		for (uint32_t j = 0; j < d->nblocks && j < t->top; j++) {
			const pt_gpu_prof_block *pb = &d->blocks[b[j].block];
			uint64_t x = b[j].count * pb->instructions;
			fprintf(out, "    %6u %14" PRIu64 " %7u %16" PRIu64 " %6.1f%%  ",
			        b[j].block, b[j].count, pb->instructions, x,
			        k->instructions ? 100.0 * (double)x / (double)k->instructions
			                        : 0.0);
			const char *f = gpu_prof_file(d, pb->file);
			if (*f) {
				pt_text_put(out, base_name(f), 0);
				fprintf(out, ":%u\n", pb->line);
			} else
				fputs("?\n", out);
		}
		if (d->nblocks > t->top)
			fprintf(out, "    (%u more blocks)\n", d->nblocks - t->top);
		free(b);
	}
}

static void print_csv(kt_tool *t, FILE *out, const krow *rows, size_t n)
{
	fputs("table,kernel,file,line,launches,profiled,work_groups,work_items,groups_uncounted,"
	      "instructions,wg_time_min_ns,wg_time_mean_ns,wg_time_max_ns\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const krow *r = &rows[i];
		const kacc *k = &r->acc;
		fputs("gpu_kernel,", out);
		pt_csv_str(out, r->name);
		fputc(',', out);
		pt_csv_str(out, gpu_prof_file(r->def, r->def->file));
		fprintf(out,
		        ",%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
		        r->def->line, r->value < t->nlaunches ? t->launches[r->value] : 0,
		        k->profiled, k->groups, k->items, k->uncounted, k->instructions, k->dur_min,
		        k->timed_groups ? k->dur_sum / k->timed_groups : 0, k->dur_max);
	}
	fputs("table,kernel,block,file,line,instructions,executions,executed_instructions,share\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const krow *r = &rows[i];
		const gpu_prof_def *d = r->def;
		if (!r->acc.counted)
			continue;
		for (uint32_t b = 0; b < d->nblocks; b++) {
			const pt_gpu_prof_block *pb = &d->blocks[b];
			uint64_t x = r->acc.counts[b] * pb->instructions;
			fputs("gpu_block,", out);
			pt_csv_str(out, r->name);
			fprintf(out, ",%u,", b);
			pt_csv_str(out, gpu_prof_file(d, pb->file));
			fprintf(out, ",%u,%u,%" PRIu64 ",%" PRIu64 ",%.6f\n", pb->line,
			        pb->instructions, r->acc.counts[b], x,
			        r->acc.instructions ? (double)x / (double)r->acc.instructions
			                            : 0.0);
		}
	}
}

/* The rows of print_csv's two tables, each kernel's blocks (in block
 * order; none when they were not counted) inside it. */
static void print_json(kt_tool *t, FILE *out, const krow *rows, size_t n)
{
	fputs(",\n \"gpu_kernels\": [", out);
	for (size_t i = 0; i < n; i++) {
		const krow *r = &rows[i];
		const gpu_prof_def *d = r->def;
		const kacc *k = &r->acc;
		fprintf(out, "%s\n  {\"kernel\": ", i ? "," : "");
		pt_json_str(out, r->name);
		fputs(", \"file\": ", out);
		pt_json_str(out, gpu_prof_file(d, d->file));
		fprintf(out,
		        ", \"line\": %u, \"launches\": %" PRIu64 ", \"profiled\": %" PRIu64
		        ", \"work_groups\": %" PRIu64 ", \"work_items\": %" PRIu64
		        ", \"groups_uncounted\": %" PRIu64 ", \"instructions\": %" PRIu64
		        ", \"wg_time_min_ns\": %" PRIu64 ", \"wg_time_mean_ns\": %" PRIu64
		        ", \"wg_time_max_ns\": %" PRIu64 ", \"blocks\": [",
		        d->line, r->value < t->nlaunches ? t->launches[r->value] : 0, k->profiled,
		        k->groups, k->items, k->uncounted, k->instructions, k->dur_min,
		        k->timed_groups ? k->dur_sum / k->timed_groups : 0, k->dur_max);
		for (uint32_t b = 0; k->counted && b < d->nblocks; b++) {
			const pt_gpu_prof_block *pb = &d->blocks[b];
			uint64_t x = k->counts[b] * pb->instructions;
			fprintf(out, "%s\n   {\"block\": %u, \"file\": ", b ? "," : "", b);
			pt_json_str(out, gpu_prof_file(d, pb->file));
			fprintf(out,
			        ", \"line\": %u, \"instructions\": %u, \"executions\": %" PRIu64
			        ", \"executed_instructions\": %" PRIu64 ", \"share\": %.6f}",
			        pb->line, pb->instructions, k->counts[b], x,
			        k->instructions ? (double)x / (double)k->instructions : 0.0);
		}
		fputs(k->counted && d->nblocks ? "\n  ]}" : "]}", out);
	}
	fputs("\n ]", out);
}

static int kt_print_results(void *tool, FILE *out)
{
	kt_tool *t = tool;
	krow *rows = NULL;
	size_t n = collect(t, &rows);
	if (n) {
		if (t->format == 2)
			print_json(t, out, rows, n);
		else if (t->format == 1)
			print_csv(t, out, rows, n);
		else
			print_text(t, out, rows, n);
	}
	for (size_t i = 0; i < n; i++)
		free(rows[i].acc.counts);
	free(rows);
	return 0;
}

static void kt_destroy(void *tool)
{
	kt_tool *t = tool;
	if (!t)
		return;
	for (size_t p = 0; p < t->ctx->nprocesses; p++) {
		for (size_t i = 0; i < t->procs[p].n; i++)
			free(t->procs[p].by_prof[i].counts);
		free(t->procs[p].by_prof);
	}
	free(t->procs);
	free(t->launches);
	gpu_names_free(t->names);
	gpu_profs_free(t->profs);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static const pt_tool kt_def = {
    .api_version = PT_TOOL_API_VERSION,
    .name = "gpu-kernels",
    .description = "inside GPU kernels (instrument.so): work-groups, block counts, instructions",
    .init = kt_init,
    .process_event = kt_process_event,
    .shard_init = kt_shard_init,
    .shard_event = kt_shard_event,
    .shard_exit = kt_shard_exit,
    .print_results = kt_print_results,
    .destroy = kt_destroy,
};

const pt_tool *pt_tool_gpu_kernels(void)
{
	return &kt_def;
}

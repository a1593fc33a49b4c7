/* SPDX-License-Identifier: MIT */
/* The report's OpenMP section printed (omp_profile.c gathers it): text,
 * CSV, JSON. */
#define _GNU_SOURCE
#include "omp_profile.h"
#include "pt_fw_util.h"
#include "pt_text.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

/* ---- printing -------------------------------------------------------------------- */
static int cmp_part(const void *a, const void *b)
{
	const part *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

/* Region figures by location value (0..count). */
static region_stat *regions(pf_omp *g)
{
	uint32_t n = omp_names_count(g->names);
	region_stat *r = calloc((size_t)n + 1, sizeof *r);
	if (!r)
		return NULL;
	pt_qsort(g->parts, g->nparts, sizeof *g->parts, cmp_part);
	for (size_t i = 0; i < g->nparts;) {
		size_t j = i;
		uint64_t busy_sum = 0, busy_max = 0, nbusy = 0;
		uint32_t v = 0;
		while (j < g->nparts && !cmp_part(&g->parts[i], &g->parts[j])) {
			const part *p = &g->parts[j++];
			if (p->value && p->value <= n)
				v = p->value;
			region_stat *s = v ? &r[v] : NULL;
			if (!s)
				continue;
			if (p->what == PART_MASTER) {
				s->execs++;
				s->open += p->open;
				s->time += p->dur;
			} else if (p->what == PART_TASK) {
				s->tasks += p->tasks;
				s->task_ns += p->task_ns;
			} else {
				s->team_sum++;
				s->busy += p->busy;
				s->barrier += p->barrier;
				s->lock += p->lock;
				busy_sum += p->busy;
				nbusy++;
				if (p->busy > busy_max)
					busy_max = p->busy;
			}
		}
		if (v && nbusy) {
			r[v].max_sum += (double)busy_max;
			r[v].mean_sum += (double)busy_sum / (double)nbusy;
		}
		i = j;
	}
	return r;
}

static int is_region(const pf_omp *g, uint32_t v)
{
	return pt_omp_loc_kind(omp_names_construct(g->names, v)) == PT_REC_OMP_PARALLEL_BEGIN;
}

/* A label in at most w columns: without its " in function" first, then
 * with its start cut (the file and line are at the end). */
static void label_fit(char *out, size_t len, const char *label, size_t w)
{
	char esc[1024];
	pt_text_escape(esc, sizeof esc, label);
	char *in = strstr(esc, " in ");
	if (pt_text_cols(esc) > w && in)
		*in = '\0';
	pt_text_cut(out, len, esc, w, 1);
}

static double imbalance(const region_stat *s)
{
	return s->mean_sum > 0 ? s->max_sum / s->mean_sum : 0.0;
}

static double team_mean(const region_stat *s)
{
	return s->execs ? (double)s->team_sum / (double)s->execs : 0.0;
}

static uint64_t per_thread(uint64_t total, const region_stat *s)
{
	return s->team_sum ? total / s->team_sum : 0;
}

static const char *thread_label(const pf_omp *g, size_t shard, char *buf, size_t n)
{
	const pt_shard_info *s = &g->ctx->shards[shard];
	snprintf(buf, n, "%s %u/%u", g->ctx->processes[s->process].program, s->pid, s->tid);
	return buf;
}

static int cmp_thread(const void *a, const void *b)
{
	const thread_row *x = a, *y = b;
	return x->shard < y->shard ? -1 : x->shard > y->shard;
}

static const char *const cat_key[OMP_CAT_N] = {"busy",     "serial", "fork_join",  "barrier",
                                               "taskwait", "lock",   "other_wait", "idle"};

static int has_data(const pf_omp *g)
{
	return g && (g->nparts || g->nthreads);
}

/* What every printer starts with: the regions' statistics (NULL: nothing
 * to print, or out of memory) and the threads in order. */
static region_stat *print_prepare(pf_omp *g)
{
	region_stat *r = has_data(g) ? regions(g) : NULL;
	if (r)
		pt_qsort(g->threads, g->nthreads, sizeof *g->threads, cmp_thread);
	return r;
}

void omp_report_text(void *global, unsigned nw, int short_form, unsigned top, FILE *o)
{
	pf_omp *g = global;
	region_stat *r = print_prepare(g);
	if (!r)
		return;
	char a[32], b[32], c[32], d[32], e[32], f[32], h[32], name[512];
	uint32_t n = omp_names_count(g->names);
	size_t shown = 0, total = 0;
	uint64_t open = 0;
	for (uint32_t v = 1; v <= n; v++) {
		total += is_region(g, v) && r[v].execs;
		open += is_region(g, v) ? r[v].open : 0;
	}
	fprintf(o, "\nOpenMP parallel regions (%zu)\n", total);
	fprintf(o, "%-*s %6s %8s %8s %6s %8s %6s %8s %8s %8s %6s\n", (int)nw, "region", "execs",
	        "time", "mean", "team", "busy", "imbal", "barrier", "lock", "per thr", "tasks");
	for (uint32_t v = 1; v <= n; v++) {
		const region_stat *s = &r[v];
		if (!is_region(g, v) || !s->execs || (top && shown >= top))
			continue;
		shown++;
		label_fit(name, sizeof name, omp_names_label(g->names, v), nw);
		pt_fmt_dur(a, sizeof a, s->time);
		pt_fmt_dur(b, sizeof b, s->time / s->execs);
		pt_fmt_dur(c, sizeof c, s->busy);
		pt_fmt_dur(d, sizeof d, s->barrier);
		pt_fmt_dur(e, sizeof e, s->lock);
		pt_fmt_dur(f, sizeof f, per_thread(s->barrier + s->lock, s));
		fprintf(o, "%-*s %6llu %8s %8s %6.1f %8s %5.2fx %8s %8s %8s %6llu\n", (int)nw, name,
		        (unsigned long long)s->execs, a, b, team_mean(s), c, imbalance(s), d, e, f,
		        (unsigned long long)s->tasks);
	}
	if (open)
		fprintf(o,
		        "  %llu execution%s still running at the end of the trace: ended at the "
		        "thread's last record\n",
		        (unsigned long long)open, open == 1 ? "" : "s");
	if (short_form) {
		free(r);
		return;
	}
	fputs("  busy: in the region, not waiting, summed over the team; imbal: largest busy time "
	      "of\n"
	      "  a team over its mean; barrier, lock: waits summed over the team; per thr: their "
	      "mean\n"
	      "  per thread and execution\n",
	      o);
	int head = 0;
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const work_stat *w = &g->ls.work[v];
		if (!w->entered)
			continue;
		if (!head++)
			fprintf(o, "\nOpenMP work-sharing\n%-*s %-8s %6s %8s %10s %10s %10s\n",
			        (int)nw, "construct", "schedule", "thread", "chunks", "iterations",
			        "min/thr", "max/thr");
		label_fit(name, sizeof name, omp_names_label(g->names, v), nw);
		snprintf(a, sizeof a, "%s", omp_sched_name(w->sched));
		if (w->chunk_size && *a)
			snprintf(a + strlen(a), sizeof a - strlen(a), ",%u", w->chunk_size);
		fprintf(o, "%-*s %-8s %6llu %8llu %10llu %10llu %10llu\n", (int)nw, name,
		        *a ? a : "-", (unsigned long long)w->entered, (unsigned long long)w->chunks,
		        (unsigned long long)w->iters,
		        (unsigned long long)(w->thread_min ? w->thread_min - 1 : 0),
		        (unsigned long long)w->thread_max);
	}
	head = 0;
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const sync_stat *s = &g->ls.sync[v];
		if (!s->arrivals)
			continue;
		if (!head++)
			fprintf(o, "\nOpenMP waits\n%-*s %8s %8s %8s %8s\n", (int)nw, "where",
			        "arrivals", "wait", "mean", "max");
		label_fit(name, sizeof name, omp_names_label(g->names, v), nw);
		pt_fmt_dur(a, sizeof a, s->wait);
		pt_fmt_dur(b, sizeof b, s->wait / s->arrivals);
		pt_fmt_dur(c, sizeof c, s->wait_max);
		fprintf(o, "%-*s %8llu %8s %8s %8s\n", (int)nw, name,
		        (unsigned long long)s->arrivals, a, b, c);
	}
	head = 0;
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const task_stat *t = &g->ls.task[v];
		if (!t->created && !t->run)
			continue;
		if (!head++)
			fprintf(o, "\nOpenMP tasks\n%-*s %8s %8s %8s %8s %8s %6s\n", (int)nw,
			        "task", "created", "run", "time", "mean", "max", "deps");
		label_fit(name, sizeof name, omp_names_label(g->names, v), nw);
		pt_fmt_dur(a, sizeof a, t->time);
		pt_fmt_dur(b, sizeof b, t->run ? t->time / t->run : 0);
		pt_fmt_dur(c, sizeof c, t->time_max);
		fprintf(o, "%-*s %8llu %8llu %8s %8s %8s %6llu\n", (int)nw, name,
		        (unsigned long long)t->created, (unsigned long long)t->run, a, b, c,
		        (unsigned long long)t->deps);
	}
	fprintf(o, "\nOpenMP threads\n%-*s %8s %8s %8s %8s %8s %8s %8s\n", (int)nw, "thread",
	        "busy", "barrier", "taskwait", "lock", "fork/join", "idle", "serial");
	for (size_t i = 0; i < g->nthreads; i++) {
		const thread_row *t = &g->threads[i];
		char label[256];
		label_fit(name, sizeof name, thread_label(g, t->shard, label, sizeof label), nw);
		pt_fmt_dur(a, sizeof a, t->cat[OMP_CAT_WORK] + t->cat[OMP_CAT_OTHER]);
		pt_fmt_dur(b, sizeof b, t->cat[OMP_CAT_BARRIER]);
		pt_fmt_dur(c, sizeof c, t->cat[OMP_CAT_TASKWAIT]);
		pt_fmt_dur(d, sizeof d, t->cat[OMP_CAT_LOCK]);
		pt_fmt_dur(e, sizeof e, t->cat[OMP_CAT_FORKJOIN]);
		pt_fmt_dur(f, sizeof f, t->cat[OMP_CAT_IDLE]);
		pt_fmt_dur(h, sizeof h, t->cat[OMP_CAT_SERIAL]);
		fprintf(o, "%-*s %8s %8s %8s %8s %8s %8s %8s\n", (int)nw, name, a, b, c, d, e, f,
		        h);
	}
	free(r);
}

void omp_report_csv(void *global, FILE *o)
{
	pf_omp *g = global;
	region_stat *r = print_prepare(g);
	if (!r)
		return;
	uint32_t n = omp_names_count(g->names);
	fputs("\ntable,region,executions,time_ns,team_mean,busy_ns,imbalance,barrier_ns,lock_ns,"
	      "wait_per_thread_ns,tasks,task_ns,open_executions\n",
	      o);
	for (uint32_t v = 1; v <= n; v++) {
		const region_stat *s = &r[v];
		if (!is_region(g, v) || !s->execs)
			continue;
		fputs("omp_region,", o);
		pt_csv_str(o, omp_names_label(g->names, v));
		fprintf(o, ",%llu,%llu,%.3f,%llu,%.4f,%llu,%llu,%llu,%llu,%llu,%llu\n",
		        (unsigned long long)s->execs, (unsigned long long)s->time, team_mean(s),
		        (unsigned long long)s->busy, imbalance(s), (unsigned long long)s->barrier,
		        (unsigned long long)s->lock,
		        (unsigned long long)per_thread(s->barrier + s->lock, s),
		        (unsigned long long)s->tasks, (unsigned long long)s->task_ns,
		        (unsigned long long)s->open);
	}
	fputs("\ntable,construct,schedule,chunk_size,threads,chunks,iterations,iterations_min,"
	      "iterations_max\n",
	      o);
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const work_stat *w = &g->ls.work[v];
		if (!w->entered)
			continue;
		fputs("omp_work,", o);
		pt_csv_str(o, omp_names_label(g->names, v));
		fprintf(o, ",%s,%u,%llu,%llu,%llu,%llu,%llu\n", omp_sched_name(w->sched),
		        w->chunk_size, (unsigned long long)w->entered,
		        (unsigned long long)w->chunks, (unsigned long long)w->iters,
		        (unsigned long long)(w->thread_min ? w->thread_min - 1 : 0),
		        (unsigned long long)w->thread_max);
	}
	fputs("\ntable,where,arrivals,wait_ns,wait_max_ns\n", o);
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const sync_stat *s = &g->ls.sync[v];
		if (!s->arrivals)
			continue;
		fputs("omp_wait,", o);
		pt_csv_str(o, omp_names_label(g->names, v));
		fprintf(o, ",%llu,%llu,%llu\n", (unsigned long long)s->arrivals,
		        (unsigned long long)s->wait, (unsigned long long)s->wait_max);
	}
	fputs("\ntable,task,created,run,time_ns,time_max_ns,dependences\n", o);
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const task_stat *t = &g->ls.task[v];
		if (!t->created && !t->run)
			continue;
		fputs("omp_task,", o);
		pt_csv_str(o, omp_names_label(g->names, v));
		fprintf(o, ",%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)t->created,
		        (unsigned long long)t->run, (unsigned long long)t->time,
		        (unsigned long long)t->time_max, (unsigned long long)t->deps);
	}
	fputs("\ntable,pid,tid", o);
	for (int k = 0; k < OMP_CAT_N; k++)
		fprintf(o, ",%s_ns", cat_key[k]);
	fputc('\n', o);
	for (size_t i = 0; i < g->nthreads; i++) {
		const thread_row *t = &g->threads[i];
		const pt_shard_info *s = &g->ctx->shards[t->shard];
		fprintf(o, "omp_thread,%u,%u", s->pid, s->tid);
		for (int k = 0; k < OMP_CAT_N; k++)
			fprintf(o, ",%llu", (unsigned long long)t->cat[k]);
		fputc('\n', o);
	}
	free(r);
}

void omp_report_json(void *global, FILE *o)
{
	pf_omp *g = global;
	region_stat *r = print_prepare(g);
	if (!r)
		return;
	uint32_t n = omp_names_count(g->names);
	int first = 1;
	fputs(",\n \"openmp\": {\n  \"regions\": [", o);
	for (uint32_t v = 1; v <= n; v++) {
		const region_stat *s = &r[v];
		if (!is_region(g, v) || !s->execs)
			continue;
		fprintf(o, "%s\n   {\"region\": ", first ? "" : ",");
		first = 0;
		pt_json_str(o, omp_names_label(g->names, v));
		fputs(", \"place\": ", o);
		pt_json_str(o, omp_names_place(g->names, v));
		fprintf(
		    o,
		    ", \"executions\": %llu, \"time_ns\": %llu, \"team_mean\": %.3f, \"busy_ns\": "
		    "%llu, \"imbalance\": %.4f, \"barrier_ns\": %llu, \"lock_ns\": %llu, "
		    "\"wait_per_thread_ns\": %llu, \"tasks\": %llu, \"task_ns\": %llu, "
		    "\"open_executions\": %llu}",
		    (unsigned long long)s->execs, (unsigned long long)s->time, team_mean(s),
		    (unsigned long long)s->busy, imbalance(s), (unsigned long long)s->barrier,
		    (unsigned long long)s->lock,
		    (unsigned long long)per_thread(s->barrier + s->lock, s),
		    (unsigned long long)s->tasks, (unsigned long long)s->task_ns,
		    (unsigned long long)s->open);
	}
	fputs("\n  ],\n  \"work\": [", o);
	first = 1;
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const work_stat *w = &g->ls.work[v];
		if (!w->entered)
			continue;
		fprintf(o, "%s\n   {\"construct\": ", first ? "" : ",");
		first = 0;
		pt_json_str(o, omp_names_label(g->names, v));
		fprintf(o,
		        ", \"schedule\": \"%s\", \"chunk_size\": %u, \"threads\": %llu, "
		        "\"chunks\": %llu, "
		        "\"iterations\": %llu, \"iterations_min\": %llu, \"iterations_max\": %llu}",
		        omp_sched_name(w->sched), w->chunk_size, (unsigned long long)w->entered,
		        (unsigned long long)w->chunks, (unsigned long long)w->iters,
		        (unsigned long long)(w->thread_min ? w->thread_min - 1 : 0),
		        (unsigned long long)w->thread_max);
	}
	fputs("\n  ],\n  \"waits\": [", o);
	first = 1;
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const sync_stat *s = &g->ls.sync[v];
		if (!s->arrivals)
			continue;
		fprintf(o, "%s\n   {\"where\": ", first ? "" : ",");
		first = 0;
		pt_json_str(o, omp_names_label(g->names, v));
		fprintf(o, ", \"arrivals\": %llu, \"wait_ns\": %llu, \"wait_max_ns\": %llu}",
		        (unsigned long long)s->arrivals, (unsigned long long)s->wait,
		        (unsigned long long)s->wait_max);
	}
	fputs("\n  ],\n  \"tasks\": [", o);
	first = 1;
	for (uint32_t v = 1; v < g->ls.n && v <= n; v++) {
		const task_stat *t = &g->ls.task[v];
		if (!t->created && !t->run)
			continue;
		fprintf(o, "%s\n   {\"task\": ", first ? "" : ",");
		first = 0;
		pt_json_str(o, omp_names_label(g->names, v));
		fprintf(
		    o,
		    ", \"created\": %llu, \"run\": %llu, \"time_ns\": %llu, \"time_max_ns\": %llu, "
		    "\"dependences\": %llu}",
		    (unsigned long long)t->created, (unsigned long long)t->run,
		    (unsigned long long)t->time, (unsigned long long)t->time_max,
		    (unsigned long long)t->deps);
	}
	fputs("\n  ],\n  \"threads\": [", o);
	for (size_t i = 0; i < g->nthreads; i++) {
		const thread_row *t = &g->threads[i];
		const pt_shard_info *s = &g->ctx->shards[t->shard];
		fprintf(o, "%s\n   {\"pid\": %u, \"tid\": %u", i ? "," : "", s->pid, s->tid);
		for (int k = 0; k < OMP_CAT_N; k++)
			fprintf(o, ", \"%s_ns\": %llu", cat_key[k], (unsigned long long)t->cat[k]);
		fputc('}', o);
	}
	fputs("\n  ]\n }", o);
	free(r);
}

/* SPDX-License-Identifier: MIT */
/* The analysis framework: the model of the trace (model.c), the process
 * pre-pass, the parallel shard pass with every tool at once, interval
 * snapshots, then the tools' whole-trace steps. The contract with tools is
 * <paratrace/tool.h>; what they reach of the framework is in fw_ctx.c.
 */
#define _GNU_SOURCE
#include "fw_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

unsigned pt_fw_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* ---- the parallel pass ----------------------------------------------- */

static const fw *sort_fw; /* for cmp_order; qsort has no context argument */
static int cmp_order(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t bx = sort_fw->shards[x].bytes, by = sort_fw->shards[y].bytes;
	if (bx != by)
		return bx > by ? -1 : 1;
	return x < y ? -1 : x > y;
}


static void snap_push(fw_snaps *s, pt_interval_snapshot *p)
{
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		pt_interval_snapshot **v = realloc(s->v, ncap * sizeof *v);
		if (!v)
			return; /* snapshot dropped; the interval shows as idle for this shard */
		s->v = v;
		s->cap = ncap;
	}
	s->v[s->n++] = p;
}

static int tool_has_intervals(const pt_tool *t)
{
	return t->shard_interval && t->combine_intervals && t->print_intervals &&
	       t->release_interval;
}

static void take_snapshots(fw *w, size_t shard, void **st, uint64_t k)
{
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		if (!st[t] || !tool_has_intervals(tool))
			continue;
		pt_interval_snapshot *s = tool->shard_interval(st[t], k);
		if (!s)
			continue;
		s->interval_id = k;
		s->end_ns = k * w->o->interval_ns;
		s->shard = shard;
		snap_push(&w->snaps[t * w->nshards + shard], s);
	}
}

/* A tool to call for every record of a shard. */
typedef struct shard_call {
	int (*event)(void *state, const pt_event *ev);
	void *state;
	size_t tool;
} shard_call;

static void run_shard(fw *w, size_t si)
{
	const pt_shard_info *sh = &w->shards[si];
	void *stbuf[16];
	shard_call callbuf[16];
	void **st = w->ntools <= 16 ? stbuf : calloc(w->ntools, sizeof *st);
	shard_call *calls = w->ntools <= 16 ? callbuf : calloc(w->ntools, sizeof *calls);
	size_t ncalls = 0;
	if (!st || !calls) {
		fw_failf(w, "out of memory");
		if (st != stbuf)
			free(st);
		if (calls != callbuf)
			free(calls);
		return;
	}
	memset(st, 0, w->ntools * sizeof *st);
	char err[512], msg[512];
	uint64_t last_ns = sh->first_ns;
	pt_log *log = pt_log_open_path(sh->path, 0, err, sizeof err);
	if (!log)
		fw_warnf(w, "%s", err);
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		if (!tool->shard_init)
			continue;
		msg[0] = 0;
		st[t] = tool->shard_init(w->tool_state[t], sh, msg, sizeof msg);
		if (!st[t]) {
			fw_failf(w, "tool %s: %s: %s", tool->name, sh->path,
			      msg[0] ? msg : "shard_init failed");
			goto out;
		}
	}
	/* the per-record loop calls straight through this list */
	for (size_t t = 0; t < w->ntools; t++)
		if (st[t] && w->tools[t].tool->shard_event)
			calls[ncalls++] = (shard_call){w->tools[t].tool->shard_event, st[t], t};
	pt_event ev;
	memset(&ev, 0, sizeof ev);
	uint64_t n = 0, reported = 0, cur = 0;
	const uint64_t iv = w->o->interval_ns, t0 = w->ctx.t0_ns;
	int complete = 0;
	/* an MPI rank's times go onto rank 0's clock (pt_fw_mpi.h) */
	const pt_fw_mpi *clock = w->procs[sh->process].mpi.clocks ? &w->procs[sh->process].mpi : NULL;
	while (log && pt_log_read(log, &ev) == 0) {
		if (clock)
			ev.time_ns = pt_fw_mpi_map(clock, ev.time_ns);
		if (iv) {
			uint64_t k = (ev.time_ns > t0 ? ev.time_ns - t0 : 0) / iv + 1;
			if (cur == 0)
				cur = k;
			else if (k > cur) {
				take_snapshots(w, si, st, cur);
				cur = k;
			}
		}
		for (size_t c = 0; c < ncalls; c++) {
			if (calls[c].event(calls[c].state, &ev)) {
				size_t t = calls[c].tool;
				const pt_tool *tool = w->tools[t].tool;
				const char *m = tool->shard_error ? tool->shard_error(st[t]) : NULL;
				fw_failf(w, "tool %s: %s: offset %llu: %s", tool->name, sh->path,
				      (unsigned long long)ev.offset, m ? m : "failed");
				goto out;
			}
		}
		if (ev.kind == PT_REC_LOST) {
			const pt_rec_lost *l = PT_REC_PAYLOAD(ev.rec, pt_rec_lost);
			if (l)
				fw_warnf(w, "%s: offset %llu: the runtime lost %llu records here (reason %u)",
				      sh->path, (unsigned long long)ev.offset,
				      (unsigned long long)l->records, l->reason);
		}
		last_ns = ev.time_ns;
		if ((++n & 0xffff) == 0) {
			__atomic_add_fetch(&w->done_bytes, ev.offset - reported, __ATOMIC_RELAXED);
			reported = ev.offset;
			if (__atomic_load_n(&w->abort, __ATOMIC_RELAXED))
				goto out;
		}
	}
	if (log) {
		if (ev.state == PT_LOG_ERROR || (ev.state == PT_LOG_EOF && ev.truncated_bytes))
			__atomic_add_fetch(&w->data_errors, 1, __ATOMIC_RELAXED);
		if (ev.state == PT_LOG_ERROR)
			fw_warnf(w, "%s: offset %llu: %s; the %llu records before it were used", sh->path,
			      (unsigned long long)ev.offset, ev.error ? ev.error : "corrupted data",
			      (unsigned long long)n);
		else if (ev.state == PT_LOG_EOF && ev.truncated_bytes)
			fw_warnf(w, "%s: offset %llu: incomplete last record (%llu bytes) dropped",
			      sh->path, (unsigned long long)ev.offset,
			      (unsigned long long)ev.truncated_bytes);
		complete = ev.state == PT_LOG_EOF && ev.complete;
		__atomic_add_fetch(&w->logs, 1, __ATOMIC_RELAXED);
		/* a thread still running when its process exited has no CLOSE
		 * either, in a trace that is whole: only a process that never
		 * recorded its end (killed, or still running) leaves logs open */
		if (!complete && !w->procs[sh->process].info.exited)
			__atomic_add_fetch(&w->unclosed, 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&w->done_bytes, sh->bytes > reported ? sh->bytes - reported : 0,
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&w->events, n, __ATOMIC_RELAXED);
	if (cur)
		take_snapshots(w, si, st, cur);
	w->last_ns[si] = last_ns;
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		if (!st[t] || !tool->shard_exit)
			continue;
		void *s = st[t];
		st[t] = NULL; /* shard_exit owns it now */
		if (tool->shard_exit(s, last_ns, complete)) {
			fw_failf(w, "tool %s: %s: end of shard failed", tool->name, sh->path);
			goto out;
		}
	}
out:
	/* on failure, tools with state left get their exit so they can free it */
	for (size_t t = 0; t < w->ntools; t++)
		if (st[t] && w->tools[t].tool->shard_exit)
			w->tools[t].tool->shard_exit(st[t], last_ns, 0);
	if (st != stbuf)
		free(st);
	if (calls != callbuf)
		free(calls);
	if (log)
		pt_log_close(log);
}

static void *worker(void *arg)
{
	fw *w = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
		if (i >= w->nrun || __atomic_load_n(&w->abort, __ATOMIC_RELAXED))
			break;
		run_shard(w, w->order[i]);
	}
	pt_workers_done_one(&w->done);
	return NULL;
}

static int run_shards(fw *w, unsigned nworkers)
{
	w->order = malloc(w->nshards * sizeof *w->order);
	w->last_ns = calloc(w->nshards, sizeof *w->last_ns);
	if (w->o->interval_ns)
		w->snaps = calloc(w->ntools * w->nshards + 1, sizeof *w->snaps);
	if (!w->order || !w->last_ns || (w->o->interval_ns && !w->snaps)) {
		fw_failf(w, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < w->nshards; i++)
		w->order[i] = i;
	sort_fw = w;
	qsort(w->order, w->nshards, sizeof *w->order, cmp_order);
	w->nrun = w->nshards;
	fw_dist_select(w);
	if (nworkers > w->nrun)
		nworkers = w->nrun ? (unsigned)w->nrun : 1;
	pthread_t *th = calloc(nworkers, sizeof *th);
	if (!th) {
		fw_failf(w, "out of memory");
		return -1;
	}
	unsigned started = 0;
	for (; started < nworkers; started++)
		if (pthread_create(&th[started], NULL, worker, w))
			break;
	if (started == 0) /* no thread could be had: do it here */
		worker(w);
	double t_start = fw_now_s();
	if (w->o->progress) {
		/* report in small steps until every worker has finished */
		do {
			uint64_t done = __atomic_load_n(&w->done_bytes, __ATOMIC_RELAXED);
			w->o->progress(w->o->arg, "reading", done, w->trace->total_bytes,
				       fw_now_s() - t_start);
		} while (!pt_workers_done_wait(&w->done, started, 200));
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (w->o->progress)
		w->o->progress(w->o->arg, "reading", w->trace->total_bytes, w->trace->total_bytes,
			       fw_now_s() - t_start);
	free(th);
	return w->error ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Whole-trace intervals of tool t (drmemtrace's combine step). */
static int combine_intervals(fw *w, size_t t)
{
	const pt_tool *tool = w->tools[t].tool;
	fw_snaps *sn = &w->snaps[t * w->nshards];
	size_t total = 0;
	for (size_t s = 0; s < w->nshards; s++)
		total += sn[s].n;
	int rc = 0;
	uint64_t *ids = malloc((total + 1) * sizeof *ids);
	size_t *cursor = calloc(w->nshards, sizeof *cursor);
	const pt_interval_snapshot **latest = calloc(w->nshards, sizeof *latest);
	pt_interval_snapshot **whole = calloc(total + 1, sizeof *whole);
	if (!ids || !cursor || !latest || !whole) {
		rc = -1;
		goto out;
	}
	size_t nid = 0;
	for (size_t s = 0; s < w->nshards; s++)
		for (size_t i = 0; i < sn[s].n; i++)
			ids[nid++] = sn[s].v[i]->interval_id;
	qsort(ids, nid, sizeof *ids, cmp_u64);
	size_t nw = 0;
	for (size_t i = 0; i < nid; i++) {
		if (i && ids[i] == ids[i - 1])
			continue;
		uint64_t k = ids[i];
		for (size_t s = 0; s < w->nshards; s++) {
			while (cursor[s] < sn[s].n && sn[s].v[cursor[s]]->interval_id <= k)
				latest[s] = sn[s].v[cursor[s]++];
		}
		pt_interval_snapshot *c = tool->combine_intervals(
			w->tool_state[t], latest, w->nshards, k, k * w->o->interval_ns);
		if (!c)
			continue;
		c->interval_id = k;
		c->end_ns = k * w->o->interval_ns;
		c->shard = (size_t)-1;
		whole[nw++] = c;
	}
	if (w->o->out && nw)
		rc = tool->print_intervals(w->tool_state[t], whole, nw, w->o->out);
	for (size_t i = 0; i < nw; i++)
		tool->release_interval(w->tool_state[t], whole[i]);
out:
	for (size_t s = 0; s < w->nshards; s++) {
		for (size_t i = 0; i < sn[s].n; i++)
			tool->release_interval(w->tool_state[t], sn[s].v[i]);
		free(sn[s].v);
		sn[s].v = NULL;
		sn[s].n = 0;
	}
	free(ids);
	free(cursor);
	free(latest);
	free(whole);
	return rc;
}

/* Every tool's init (process facts known so far are in ctx). */
static int init_tools(fw *w, char *err, size_t errlen)
{
	for (size_t pi = 0; pi < w->nprocs; pi++) {
		w->procs[pi].info.program = w->procs[pi].program ? w->procs[pi].program : "?";
		w->procs[pi].info.exe = w->procs[pi].info.args = "";
		w->pinfo[pi] = w->procs[pi].info;
	}
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		char msg[512] = "";
		if (!tool->init)
			continue;
		w->tool_state[t] = tool->init(&w->ctx, w->tools[t].options, msg, sizeof msg);
		if (!w->tool_state[t]) {
			snprintf(err, errlen, "tool %s: %s", tool->name, msg[0] ? msg : "init failed");
			return -1;
		}
	}
	return 0;
}

/* The latest record of the run: its shards' last records, the processes'
 * exits. */
static uint64_t end_time(const fw *w)
{
	uint64_t tend = w->ctx.t0_ns;
	for (size_t i = 0; i < w->nshards; i++)
		if (w->last_ns[i] > tend)
			tend = w->last_ns[i];
	for (size_t pi = 0; pi < w->nprocs; pi++)
		if (w->pinfo[pi].exit_ns > tend)
			tend = w->pinfo[pi].exit_ns;
	return tend;
}

uint64_t pt_fw_process_last(const pt_trace_ctx *ctx, size_t process)
{
	const fw *w = ctx->framework;
	const pt_process_info *p = &ctx->processes[process];
	uint64_t end = 0;
	for (size_t i = p->first_shard;
	     w->last_ns && i < p->first_shard + p->nshards && i < w->nshards; i++)
		if (ctx->shards[i].process == process && w->last_ns[i] > end)
			end = w->last_ns[i];
	return end;
}

/* The selection's window placed in the run as far as the process logs
 * and the logs' first records know it (a process log ends with the
 * process; the thread logs are not read yet). */
static int place_select(fw *w, char *err, size_t errlen)
{
	uint64_t end = w->prepass_end;
	for (size_t i = 0; i < w->nshards; i++)
		if (w->shards[i].first_ns > end)
			end = w->shards[i].first_ns;
	return pt_select_place(&w->sel, w->ctx.t0_ns, end, err, errlen);
}

/* After the shards: intervals, then every tool's finish, then results. */
static int finish_tools(fw *w, char *err, size_t errlen)
{
	const pt_fw_options *o = w->o;
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		if (o->interval_ns && tool_has_intervals(tool) && combine_intervals(w, t)) {
			snprintf(err, errlen, "tool %s: printing intervals failed", tool->name);
			return -1;
		}
	}
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		char msg[512] = "";
		if (tool->finish && tool->finish(w->tool_state[t], msg, sizeof msg)) {
			snprintf(err, errlen, "tool %s: %s", tool->name, msg[0] ? msg : "failed");
			return -1;
		}
	}
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		if (o->out && tool->print_results && tool->print_results(w->tool_state[t], o->out)) {
			snprintf(err, errlen, "tool %s: printing results failed", tool->name);
			return -1;
		}
	}
	return 0;
}

/* Everything pt_fw_run made, the tools' states included. */
static void fw_free(fw *w)
{
	for (size_t t = 0; t < w->ntools; t++) {
		const pt_tool *tool = w->tools[t].tool;
		if (w->snaps && tool && tool_has_intervals(tool))
			for (size_t s = 0; s < w->nshards; s++) {
				fw_snaps *sn = &w->snaps[t * w->nshards + s];
				for (size_t i = 0; i < sn->n; i++)
					tool->release_interval(w->tool_state[t], sn->v[i]);
				free(sn->v);
			}
		if (w->tool_state && w->tool_state[t] && tool->destroy)
			tool->destroy(w->tool_state[t]);
	}
	for (size_t pi = 0; pi < w->nprocs; pi++) {
		fw_process *p = &w->procs[pi];
		if (p->symtab)
			pt_symtab_free(p->symtab);
		free(p->local);
		free(p->cache);
		free(p->program);
		free(p->exe);
		free(p->args);
		free((char *)p->mpi.host);
		free(p->mpi.refused);
		free((char *)p->mpi.untraced_lib);
	}
	fw_funcs_free(&w->funcs);
	free(w->procs);
	free(w->pinfo);
	free(w->shards);
	free(w->headers);
	fw_threads_free(w);
	free(w->order);
	free(w->snaps);
	free(w->last_ns);
	free(w->tool_state);
	free(w->error);
	free(w->step);
	if (w->trace)
		pt_trace_free(w->trace);
	pthread_mutex_destroy(&w->lock);
	pt_workers_done_destroy(&w->done);
	free(w);
}

int pt_fw_run(const pt_fw_options *o, pt_fw_tool *tools, size_t ntools, pt_fw_stats *stats,
	      char *err, size_t errlen)
{
	double t_begin = fw_now_s();
	fw *w = calloc(1, sizeof *w);
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = -1;
	w->o = o;
	w->tools = tools;
	w->ntools = ntools;
	pthread_mutex_init(&w->lock, NULL);
	pt_workers_done_init(&w->done);
	w->tool_state = calloc(ntools + 1, sizeof *w->tool_state);
	if (!w->tool_state || fw_funcs_init(&w->funcs)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t t = 0; t < ntools; t++) {
		if (!tools[t].tool || tools[t].tool->api_version != PT_TOOL_API_VERSION) {
			snprintf(err, errlen, "tool %zu: unsupported tool API version", t);
			goto out;
		}
	}
	w->trace = pt_trace_scan(o->dir, err, errlen);
	if (!w->trace || pt_trace_pick_run(w->trace, o->run, err, errlen)) {
		if (errno != EBADMSG && errno != ENOMEM)
			rc = PT_FW_BAD_INPUT;
		goto out;
	}
	/* a log skipped whole is damaged data, as one cut short is */
	for (const char *c = w->trace->warnings; c && *c; c++)
		w->data_errors += *c == '\n';
	/* a log the program never wrote into (killed as it was created) is
	 * one it did not close, not damage */
	w->logs += (unsigned)w->trace->empty_logs;
	w->unclosed += (unsigned)w->trace->empty_logs;
	if (w->trace->warnings && o->warn) {
		char *ws = strdup(w->trace->warnings);
		for (char *line = ws ? strtok(ws, "\n") : NULL; line; line = strtok(NULL, "\n"))
			o->warn(o->arg, line);
		free(ws);
	}
	unsigned nworkers = o->jobs ? o->jobs : pt_fw_default_jobs();
	if (fw_build_model(w, nworkers, err, errlen))
		goto out;
	fw_mpi_warn_untraced(w);
	w->ctx.nworkers = nworkers;
	w->ctx.interval_ns = o->interval_ns;
	w->ctx.output = o->output;
	w->ctx.quiet = o->quiet;
	if (o->select) {
		w->sel = *o->select; /* the window is placed after the pre-pass */
		w->has_sel = 1;
	}
	if (init_tools(w, err, errlen))
		goto out;
	int failed = fw_prepass(w);
	w->static_funcs = fw_func_count(w);
	w->errors_shared = w->data_errors;
	w->logs_shared = w->logs;
	w->unclosed_shared = w->unclosed;
	if (!failed && w->has_sel && place_select(w, err, errlen)) {
		rc = PT_FW_BAD_INPUT;
		goto out;
	}
	double t_shards = fw_now_s();
	__atomic_store_n(&w->in_shards, 1, __ATOMIC_RELAXED);
	if (!failed)
		failed = run_shards(w, nworkers);
	__atomic_store_n(&w->in_shards, 0, __ATOMIC_RELAXED);
	if (o->dist && o->dist->size > 1)
		failed = fw_dist_after_shards(w, failed);
	if (failed) {
		snprintf(err, errlen, "%s", w->error ? w->error : "analysis failed");
		goto out;
	}
	t_shards = fw_now_s() - t_shards;
	/* said once for the whole trace, not once per log: a killed program
	 * leaves every log open. The tools ended what was open in each at its
	 * last record. */
	if (w->unclosed && w->trace->empty_logs)
		fw_warnf(w,
		         "%u of %u logs not closed (%zu of them empty): the program is still "
		         "running or was killed",
		         w->unclosed, w->logs, w->trace->empty_logs);
	else if (w->unclosed)
		fw_warnf(w, "%u of %u logs not closed: the program is still running or was killed",
		         w->unclosed, w->logs);
	w->ctx.t_end_ns = end_time(w);
	if (finish_tools(w, err, errlen))
		goto out;
	if (stats) {
		stats->events = w->events;
		stats->data_errors = w->data_errors;
		stats->bytes = w->trace->total_bytes;
		stats->shards = w->nshards;
		stats->processes = w->nprocs;
		stats->seconds_shards = t_shards;
		stats->workers = nworkers < w->nshards ? nworkers : (unsigned)w->nshards;
		stats->processes_analyzing = o->dist ? (unsigned)o->dist->size : 1;
		stats->seconds_total = fw_now_s() - t_begin;
	}
	rc = 0;
out:
	fw_free(w);
	return rc;
}


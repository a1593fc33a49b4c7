/* SPDX-License-Identifier: MIT */
/* The Paraver writer tool: NAME.prv / .pcf / .row (docs/ANALYZER.md says
 * what they hold; pv.h how lines are produced and merged; pv_internal.h
 * which file of this folder does what).
 *
 * Model: one application; one task per process (forked children included);
 * one thread per thread log, then one per GPU log of that process (like
 * Extrae's GPU stream rows); one CPU per thread row (Extrae's resource
 * model), so a record's CPU field is its row.
 *
 * Per thread row:
 *   state 2 Not created  from 0 to the log's first record
 *   state 1 Running      from there to its last record, except
 *   state 5 Synchronization while waiting for a lock, a condition, a join
 *                        or a barrier (request -> acquired/failed, etc.)
 *   nothing (0 Idle)     after the last record
 * User functions: 60000019/60000119 = id at each call, 0 at each end, as
 * the framework's call-stack tracker (pt_callstack.h) finds them.
 */
#define _GNU_SOURCE
#include "pt_dist.h"
#include "pt_framework.h"
#include "pv_budget.h"
#include "pv_thread.h"
#include "tools.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ---- tool callbacks -------------------------------------------------- */

/* A thread row is Not created from 0 to its first record (relative ns);
 * 0 if it has no such state. A GPU stream row has none of that: its
 * records carry device times that can be earlier than the log (CUPTI
 * delivers buffers after the work ran). */
static uint64_t not_created_until(const pv_tool *pv, const pt_shard_info *info)
{
	if (info->kind == PT_FILE_GPU || !info->first_ns || info->first_ns <= pv->origin)
		return 0;
	uint64_t first = info->first_ns < pv->win_hi ? info->first_ns : pv->win_hi;
	return first > pv->origin ? first - pv->origin : 0;
}

/* "gz", "gzauto" (compress past PV_GZ_ABOVE), "budget=BYTES" (leave calls
 * out to fit), "cfgs=DIR" (last: the rest is the path) */
static int pv_options(pv_tool *pv, const char *options)
{
	for (const char *o = options; o && *o;) {
		size_t n = strcspn(o, ",");
		if (!strncmp(o, "cfgs=", 5)) {
			if (!(pv->cfgs = strdup(o + 5)))
				return -1;
			break;
		}
		if (n == 2 && !strncmp(o, "gz", 2))
			pv->gz = 1;
		else if (n == 6 && !strncmp(o, "gzauto", 6))
			pv->gz_auto = 1;
		else if (!strncmp(o, "budget=", 7))
			pv->budget = strtoull(o + 7, NULL, 10);
		o += n + (o[n] == ',');
	}
	pv->full = !pv->budget;
	return 0;
}

/* Whether `word` is one of the options (those before cfgs=, which takes
 * the rest). */
static int pv_option_word(const char *options, const char *word)
{
	size_t len = strlen(word);
	for (const char *o = options; o && *o && strncmp(o, "cfgs=", 5);) {
		size_t n = strcspn(o, ",");
		if (n == len && !strncmp(o, word, n))
			return 1;
		o += n + (o[n] == ',');
	}
	return 0;
}

static void *pv_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	pv_tool *pv = calloc(1, sizeof *pv);
	if (!pv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pv->ctx = ctx;
	pv->dist = pt_fw_dist(ctx) != NULL;
	pthread_mutex_init(&pv->lock, NULL);
	pv->ext_kind_min = UINT_MAX;
	for (size_t i = 0; i < pt_nfamilies(); i++) {
		pv->ext_on[i] = !pv_ext(i)->option || pv_option_word(options, pv_ext(i)->option);
		if (pv->ext_on[i] && pv_ext(i)->event && pv_ext(i)->kind_first < pv->ext_kind_min)
			pv->ext_kind_min = pv_ext(i)->kind_first;
	}
	pv->sel = pt_fw_select(ctx);
	pv->name = strdup(ctx->output ? ctx->output : "trace");
	if (pv_options(pv, options) || (!pv->full && !(pv->hist = calloc(1, sizeof *pv->hist)))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (pv_rows_init(pv, err, errlen))
		goto fail;
	pv->shards = calloc(ctx->nshards + 1, sizeof *pv->shards);
	pv->roles = calloc(ctx->nshards + 1, sizeof *pv->roles);
	pv->runs = calloc(2 * ctx->nshards + 2, sizeof *pv->runs);
	pv->mine = calloc(ctx->nshards + 1, 1);
	size_t tl = strlen(pv->name) + 32;
	pv->tmpdir = malloc(tl);
	if (!pv->name || !pv->shards || !pv->roles || !pv->runs || !pv->mine || !pv->tmpdir) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	snprintf(pv->tmpdir, tl, "%s.prv.tmp-XXXXXX", pv->name);
	if (!mkdtemp(pv->tmpdir)) {
		snprintf(err, errlen, "cannot create %s: %s", pv->tmpdir, strerror(errno));
		free(pv->tmpdir);
		pv->tmpdir = NULL;
		goto fail;
	}
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/pool", pv->tmpdir);
	if (pv_pool_open(&pv->pool, path)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		pv_pool_free(&pv->pool);
		rmdir(pv->tmpdir);
		free(pv->tmpdir);
		goto fail;
	}
	/* the merge keeps every stream of a time range open at once */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (pv_nodes_init(pv)) {
		snprintf(err, errlen, "out of memory");
		pv_nodes_free(pv);
		pv->cpu = NULL;
	}
	for (size_t i = 0; i < pt_nfamilies(); i++)
		pv->ext[i] = pv->ext_on[i] && pv_ext(i)->init ? pv_ext(i)->init(ctx) : NULL;
	return pv;
fail:
	free(pv->name);
	free(pv->cfgs);
	free(pv->hist);
	free(pv->row);
	free(pv->task);
	free(pv->thread);
	free(pv->ptask);
	free(pv->shards);
	free(pv->roles);
	free(pv->runs);
	free(pv->mine);
	free(pv);
	return NULL;
}

static int pv_process_event(void *tool, size_t process, const pt_event *ev)
{
	pv_tool *pv = tool;
	/* the manual API's type and value names (runtime/core/api.c) */
	if (pv_found_user_name(&pv->found, ev))
		return -1;
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv_ext(i)->process_event)
			pv_ext(i)->process_event(pv->ext[i], process, ev);
	return 0;
}

static void *pv_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	pv_tool *pv = tool;
	pv_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->info = info;
	s->ctx = pv->ctx;
	s->pv = pv;
	pthread_mutex_lock(&pv->lock);
	if (!pv->window_set) /* placed by now (pt_fw_select) */
		pv_window_init(pv);
	pv->window_set = 1;
	pthread_mutex_unlock(&pv->lock);
	if (pv_thread_init(s)) {
		free(s);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->ev.fd = s->st.fd = -1;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%zu.ev", pv->tmpdir, info->index);
	size_t i = info->index;
	s->ev_prefix_len = (size_t)snprintf(s->ev_prefix, sizeof s->ev_prefix, "2:%u:1:%u:%u:",
					    pv_cpu(pv, i), pv->task[i], pv->thread[i]);
	s->st_prefix_len = (size_t)snprintf(s->st_prefix, sizeof s->st_prefix, "1:%u:1:%u:%u:",
					    pv_cpu(pv, i), pv->task[i], pv->thread[i]);
	int rc = pv_stream_open(&s->ev, path, s->ev_prefix);
	s->ev.strict = 1; /* a row's event lines: strictly increasing times (pv.h) */
	snprintf(path, sizeof path, "%s/%zu.st", pv->tmpdir, info->index);
	if (!rc)
		rc = pv_stream_open(&s->st, path, s->st_prefix);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(s->ev.error ? s->ev.error : s->st.error));
		pv_stream_free(&s->ev);
		pv_stream_free(&s->st);
		pv_thread_free(s);
		free(s);
		return NULL;
	}
	pv_shard_select(pv, s);
	/* before its first record the thread did not exist yet (the Not
	 * created state, written at finish: not_created_lines) */
	uint64_t first = not_created_until(pv, info);
	if (first > s->last)
		s->last = first;
	s->state_begin = first;
	s->state = info->kind == PT_FILE_THREAD ? PV_STATE_RUNNING : PV_STATE_IDLE;
	s->base_state = PV_STATE_RUNNING;
	for (size_t i = 0; i < pt_nfamilies(); i++)
		s->ext[i] = pv_ext(i)->shard_init ? pv_ext(i)->shard_init(pv->ext[i], s)
							 : NULL;
	pv->shards[info->index] = s;
	return s;
}

static int pv_shard_event(void *st, const pt_event *ev)
{
	pv_shard *s = st;
	if (s->info->kind == PT_FILE_THREAD) {
		if (ev->time_ns >= s->win_next)
			pv_thread_window(s, ev->time_ns);
		pv_thread_event(s, ev);
	}
	if (__builtin_expect(s->pv->dist, 0) && pv_dist_blocks(ev->kind))
		s->pv->dist_blocked = 1;
	/* function records, the bulk, are below every family's kinds */
	for (size_t i = 0; ev->kind >= s->pv->ext_kind_min && i < PT_MAX_FAMILIES && pt_families[i];
	     i++) {
		const pv_family *x = pv_ext(i);
		if (ev->kind < x->kind_first || ev->kind > x->kind_last || !x->event)
			continue;
		s->ext_now = (unsigned)i;
		if (x->event(s->pv->ext[i], s->ext[i], s, ev))
			return -1;
	}
	if (s->ev.error || s->st.error)
		return pv_fail(s, "writing %s: %s", s->ev.error ? s->ev.path : s->st.path,
			       strerror(s->ev.error ? s->ev.error : s->st.error));
	if (pv_thread_failed(s))
		return pv_fail(s, "out of memory");
	return 0;
}

static const char *pv_shard_error(void *st)
{
	return ((pv_shard *)st)->err;
}

/* The shard's end: its log ended at last_ns, the wait open then (if any)
 * ends at wait_end_ns. */
static int shard_end(pv_shard *s, uint64_t last_ns, uint64_t wait_end_ns)
{
	pv_tool *pv = s->pv;
	uint64_t last = pv_rel(s, last_ns);
	if (last < s->last)
		last = s->last;
	uint64_t wait_end = pv_rel(s, wait_end_ns);
	if (wait_end < last)
		wait_end = last;
	if (s->core)
		pv_thread_end(s, last, wait_end);
	pv_set_state(s, s->t0 + wait_end, PV_STATE_IDLE);
	pthread_mutex_lock(&pv->lock);
	if (s->acct) {
		pv_hist_add(pv->hist, pv_acct_hist(s->acct));
		pv_acct_free(s->acct);
		s->acct = NULL;
	}
	int oom = pv_thread_exit(s, pv);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv_ext(i)->shard_exit)
			pv_ext(i)->shard_exit(pv->ext[i], s->ext[i], s);
	if (s->last > pv->max_time)
		pv->max_time = s->last;
	pv->records += s->ev.nrec + s->st.nrec;
	pthread_mutex_unlock(&pv->lock);
	/* what the merge needs stays (pv->runs); the shard goes */
	size_t i = s->info->index;
	int rc = pv_stream_finish(&s->st, &pv->pool, &pv->runs[2 * i]);
	int e = s->st.error;
	if (pv_stream_finish(&s->ev, &pv->pool, &pv->runs[2 * i + 1])) {
		rc = -1;
		e = s->ev.error;
	}
	if (rc)
		pv_fail(s, "writing temporary files: %s", strerror(e));
	if (rc || oom)
		return -1; /* the framework asks for the message: s stays until destroy */
	pv->mine[i] = 1;
	pv->shards[i] = NULL;
	free(s);
	return 0;
}

/* A thread of a process that never recorded its end (killed, or still
 * running) lived on until the process's last record, whichever log holds
 * it, as the report has it: the wait it is in when its log ends (a join,
 * a lock request the kill cut short) lasts until there, not 0 ns. That
 * time is known at finish: such a shard is held until then. */
static int pv_shard_exit(void *st, uint64_t last_ns, int complete)
{
	pv_shard *s = st;
	pv_tool *pv = s->pv;
	if (complete || pv->ctx->processes[s->info->process].exited || s->err[0] ||
	    !pv_thread_waiting(s) || pv_thread_failed(s))
		return shard_end(s, last_ns, last_ns);
	pthread_mutex_lock(&pv->lock);
	int oom = VEC_PUSH(pv->held, ((pv_held){s, last_ns}));
	pthread_mutex_unlock(&pv->lock);
	return oom ? shard_end(s, last_ns, last_ns) : 0;
}

/* The held shards end (pv_shard_exit), their waits at their process's
 * last record. */
static int end_held(pv_tool *pv, char *err, size_t errlen)
{
	int rc = 0;
	for (size_t k = 0; k < pv->held.n; k++) {
		pv_shard *s = pv->held.v[k].s;
		uint64_t end = pt_fw_process_last(pv->ctx, s->info->process);
		if (shard_end(s, pv->held.v[k].last_ns, end) && !rc) {
			snprintf(err, errlen, "%s: %s", s->info->path, s->err);
			rc = -1;
		}
	}
	pv->held.n = 0;
	return rc;
}

/* ---- finish: comms, header, merge, .pcf, .row ------------------------ */
static size_t header(pv_tool *pv, char *buf, size_t len)
{
	const pt_trace_ctx *ctx = pv->ctx;
	char date[64] = "";
	time_t secs = (time_t)(ctx->realtime0_ns / 1000000000ull);
	struct tm tm;
	if (ctx->realtime0_ns && localtime_r(&secs, &tm))
		strftime(date, sizeof date, "%d/%m/%Y at %H:%M", &tm);
	uint64_t end = pv->max_time, t_end = ctx->t_end_ns < pv->win_hi ? ctx->t_end_ns : pv->win_hi;
	if (t_end > pv->origin && t_end - pv->origin > end)
		end = t_end - pv->origin;
	size_t n = (size_t)snprintf(buf, len, "#Paraver (%s):%llu_ns:", date,
				    (unsigned long long)end);
	n += pv_nodes_header(pv, buf + n, len - n);
	n += (size_t)snprintf(buf + n, len - n, ":1:%u(", pv->ntasks);
	for (unsigned t = 1; t <= pv->ntasks; t++)
		for (size_t p = 0; p < ctx->nprocesses; p++)
			if (pv->ptask[p] == t) {
				if (n + 32 > len)
					return 0;
				unsigned rows = 0;
				for (size_t i = 0; i < ctx->processes[p].nshards; i++)
					rows += pv->row[ctx->processes[p].first_shard + i] != 0;
				n += (size_t)snprintf(buf + n, len - n, "%s%u:%u", t > 1 ? "," : "", rows,
						      pv_task_node(pv, p));
			}
	n += (size_t)snprintf(buf + n, len - n, "),0\n");
	return n < len ? n : 0;
}

static int gz_member(const char *in, size_t n, char **out, size_t *outlen)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t cap = deflateBound(&z, n) + 64;
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = (Bytef *)*out;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

static void merge_progress(void *arg, uint64_t done, uint64_t total)
{
	pv_tool *pv = arg;
	char what[64];
	const char *base = strrchr(pv->prv_path, '/');
	snprintf(what, sizeof what, "writing %.48s", base ? base + 1 : pv->prv_path);
	pv->ctx->ops->progress(pv->ctx, what, done, total);
}

/* The Not created state of every thread row, all at time 0: one run after
 * the shards' (so that at time 0 they come where each shard's own did,
 * after the lines of the rows that begin at 0), instead of one line at
 * the head of each shard's states, which would put every shard in the
 * merge's first partition. */
static int not_created_lines(pv_tool *pv, pv_run *run, char *err, size_t errlen)
{
	const pt_trace_ctx *ctx = pv->ctx;
	pv_stream st;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/notcreated", pv->tmpdir);
	if (pv_stream_open(&st, path, NULL)) {
		snprintf(err, errlen, "%s: %s", path, strerror(st.error));
		pv_stream_free(&st);
		return -1;
	}
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pt_shard_info *in = &ctx->shards[i];
		uint64_t first = not_created_until(pv, in);
		if (!first || !pv->row[i])
			continue;
		char *start = pv_stream_reserve(&st, 0), *p = start;
		p += sprintf(p, "1:%u:1:%u:%u:0:", pv_cpu(pv, i), pv->task[i], pv->thread[i]);
		p = pv_u64(p, first);
		p += sprintf(p, ":%u\n", PV_STATE_NOT_CREATED);
		pv_stream_commit(&st, (size_t)(p - start));
	}
	pv->records += st.nrec;
	if (pv_stream_finish(&st, NULL, run)) {
		snprintf(err, errlen, "%s: %s", path, strerror(st.error));
		return -1;
	}
	return 0;
}

/* The first half of the finish: the Not created states and the
 * communications as runs, the calls selected (the runs to merge, in
 * *merge_out: pv->runs' or the thinned ones; the caller frees the array),
 * the output's temporary file with the header (its descriptor in *fd, its
 * length in *hl). The streams' pool is flushed already. 0, or -1 with a
 * message in err. */
static int pv_finish_begin(pv_tool *pv, char *tmp_prv, size_t tmplen, int *fd, uint64_t *hl,
			   pv_run **merge_out, char *err, size_t errlen)
{
	const pt_trace_ctx *ctx = pv->ctx;
	pv_stream comms;
	pv_run *comms_run = &pv->runs[2 * ctx->nshards + 1];
	char path[PATH_MAX];
	*fd = -1;
	snprintf(path, sizeof path, "%s/comms", pv->tmpdir);
	if (pv_stream_open(&comms, path, NULL)) {
		snprintf(err, errlen, "%s: %s", path, strerror(comms.error));
		pv_stream_free(&comms);
		return -1;
	}
	int rc = -1;
	pv_run *merge = NULL; /* pv->runs or pv->thin's: not freed here */
	/* the date, three numbers, a CPU count per node, then "n:node," per
	 * task (header()) */
	size_t hsize = 256 + 48 * ctx->nprocesses;
	char *hdr = malloc(hsize);
	char *gzh = NULL;
	if (!hdr) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (not_created_lines(pv, &pv->runs[2 * ctx->nshards], err, errlen) ||
	    pv_write_comms(pv, &comms, err, errlen))
		goto out;
	if (pv_stream_finish(&comms, NULL, comms_run)) {
		snprintf(err, errlen, "%s: %s", path, strerror(comms.error));
		goto out;
	}
	size_t nruns = 2 * ctx->nshards + 2;
	merge = malloc(nruns * sizeof *merge);
	if (!merge) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (pv_ids_init(pv)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (pv_select_calls(pv, merge, err, errlen))
		goto out;
	uint64_t text = 0;
	pv->records = 0;
	for (size_t i = 0; i < nruns; i++) {
		text += merge[i].text;
		pv->records += merge[i].nrec;
	}
	pv->text = text;
	if (pv->gz_auto && text > PV_GZ_ABOVE)
		pv->gz = 1;
	size_t hlen = header(pv, hdr, hsize);
	snprintf(pv->prv_path, sizeof pv->prv_path, "%s.prv%s", pv->name, pv->gz ? ".gz" : "");
	/* The three files are written in the temporary folder (beside the
	 * output, so on its file system) and renamed into place at the end:
	 * a run that fails leaves the previous trace as it was, and Paraver
	 * never opens a half-written one. */
	snprintf(tmp_prv, tmplen, "%s/out.prv", pv->tmpdir);
	*fd = open(tmp_prv, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (*fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp_prv, strerror(errno));
		tmp_prv[0] = 0;
		goto out;
	}
	const char *h = hdr;
	size_t n = hlen;
	if (pv->gz) {
		if (gz_member(hdr, hlen, &gzh, &n)) {
			snprintf(err, errlen, "compressing: out of memory");
			goto out;
		}
		h = gzh;
	}
	if (pwrite(*fd, h, n, 0) != (ssize_t)n) {
		snprintf(err, errlen, "%s: %s", pv->prv_path, strerror(errno));
		goto out;
	}
	*hl = n;
	*merge_out = merge;
	merge = NULL;
	rc = 0;
out:
	if (rc && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	pv_stream_free(&comms);
	free(merge);
	free(hdr);
	free(gzh);
	return rc;
}

/* The second half, once the merge has written the body into fd: the
 * .pcf and .row, the three files renamed into place (fd closed). */
static int pv_finish_end(pv_tool *pv, int fd, const char *tmp_prv, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp_pcf[PATH_MAX], tmp_row[PATH_MAX];
	snprintf(tmp_pcf, sizeof tmp_pcf, "%s/out.pcf", pv->tmpdir);
	snprintf(tmp_row, sizeof tmp_row, "%s/out.row", pv->tmpdir);
	int rc = -1;
	struct stat stt;
	if (fstat(fd, &stt) == 0)
		pv->prv_bytes = (uint64_t)stt.st_size;
	if (close(fd)) {
		snprintf(err, errlen, "%s: %s", pv->prv_path, strerror(errno));
		goto out;
	}
	if (pv_write_pcf(pv, tmp_pcf)) {
		snprintf(err, errlen, "%s: %s", tmp_pcf, strerror(errno));
		goto out;
	}
	if (pv_write_row(pv, tmp_row)) {
		snprintf(err, errlen, "%s: %s", tmp_row, strerror(errno));
		goto out;
	}
	const char *tmps[3] = {tmp_prv, tmp_pcf, tmp_row};
	const char *exts[3] = {pv->gz ? ".prv.gz" : ".prv", ".pcf", ".row"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s%s", pv->name, exts[i]);
		if (rename(tmps[i], path)) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	if (rc) /* what was not renamed into place */
		for (const char *const *t = (const char *const[]){tmp_prv, tmp_pcf, tmp_row, NULL}; *t;
		     t++)
			unlink(*t);
	return rc;
}

static int pv_finish(void *tool, char *err, size_t errlen)
{
	pv_tool *pv = tool;
	const pt_trace_ctx *ctx = pv->ctx;
	pt_dist *d = (pt_dist *)pt_fw_dist(ctx);
	if (end_held(pv, err, errlen))
		return -1;
	if (d) {
		static const pv_finish_steps steps = {pv_finish_begin, pv_finish_end};
		return pv_finish_dist(pv, d, &steps, err, errlen);
	}
	if (pv_pool_flush(&pv->pool)) {
		snprintf(err, errlen, "%s: %s", pv->pool.path, strerror(pv->pool.error));
		return -1;
	}
	char tmp_prv[PATH_MAX] = "";
	int fd;
	uint64_t hl;
	pv_run *merge;
	if (pv_finish_begin(pv, tmp_prv, sizeof tmp_prv, &fd, &hl, &merge, err, errlen))
		return -1;
	int rc = pv_merge_progress(merge, 2 * ctx->nshards + 2, fd, hl, ctx->nworkers, pv->gz,
				   merge_progress, pv, err, errlen);
	free(merge);
	if (rc) {
		close(fd);
		unlink(tmp_prv);
		return -1;
	}
	return pv_finish_end(pv, fd, tmp_prv, err, errlen) ? -1 : 0;
}

static int pv_print(void *tool, FILE *out)
{
	pv_tool *pv = tool;
	if (pv->ctx->quiet || !pv->prv_path[0])
		return 0;
	fprintf(out, "Paraver trace: %s (%.1f MB, %llu records), %s.pcf, %s.row\n", pv->prv_path,
		(double)pv->prv_bytes / 1e6, (unsigned long long)pv->records, pv->name, pv->name);
	pv_print_selection(pv, out);
	if (pv->cfgs) {
		const char *view = NULL;
		for (size_t i = 0; i < pt_nfamilies() && !view; i++)
			if (pv_ext(i)->main_view)
				view = pv_ext(i)->main_view(pv->ext[i]);
		fprintf(out, "Open it in Paraver: wxparaver %s %s/%s\n", pv->prv_path, pv->cfgs,
		        view ? view : "functions.cfg");
	}
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv_ext(i)->print_results)
			pv_ext(i)->print_results(pv->ext[i], out);
	return 0;
}

static void pv_destroy(void *tool)
{
	pv_tool *pv = tool;
	for (size_t i = 0; i < pv->ctx->nshards; i++) {
		pv_shard *s = pv->shards[i];
		if (s) { /* a shard that failed */
			pv_acct_free(s->acct);
			pv_thread_free(s);
			pv_stream_free(&s->ev);
			pv_stream_free(&s->st);
			free(s);
		}
		free(pv->roles[i].name);
	}
	for (size_t i = 0; i < 2 * pv->ctx->nshards + 2; i++) {
		if (pv->foreign && pv->foreign[i]) { /* another process's files */
			free(pv->runs[i].path);
			free(pv->runs[i].idx);
			continue;
		}
		pv_run_free(&pv->runs[i]);
	}
	for (size_t i = 0; pv->thin && i < pv->ctx->nshards; i++)
		pv_run_free(&pv->thin[i]);
	for (size_t i = 0; pv->thin_st && i < pv->ctx->nshards; i++)
		pv_run_free(&pv->thin_st[i]);
	free(pv->thin);
	free(pv->thin_st);
	free(pv->runs);
	free(pv->mine);
	free(pv->foreign);
	if (pv->fpools) {
		const pt_dist *d = pt_fw_dist(pv->ctx);
		for (int p = 0; d && p < d->size; p++) {
			if (pv->fpools[p].fd >= 0)
				close(pv->fpools[p].fd);
			free(pv->fpools[p].path);
		}
		free(pv->fpools);
	}
	free(pv->hist);
	free(pv->row);
	free(pv->task);
	free(pv->thread);
	free(pv->ptask);
	free(pv->cfgs);
	for (size_t i = 0; i < pt_nfamilies(); i++)
		if (pv_ext(i)->destroy)
			pv_ext(i)->destroy(pv->ext[i]);
	pv_pool_free(&pv->pool);
	pv_nodes_free(pv);
	if (pv->tmpdir)
		rmdir(pv->tmpdir);
	pv_found_free(&pv->found);
	free(pv->held.v);
	free(pv->roles);
	free(pv->shards);
	free(pv->tmpdir);
	free(pv->name);
	free(pv->fval);
	free(pv->finv);
	pthread_mutex_destroy(&pv->lock);
	free(pv);
}

static const pt_tool paraver_tool = {
	.api_version = PT_TOOL_API_VERSION,
	.name = "paraver",
	.description = "Paraver trace (NAME.prv, .pcf, .row)",
	.init = pv_init,
	.process_event = pv_process_event,
	.shard_init = pv_shard_init,
	.shard_event = pv_shard_event,
	.shard_exit = pv_shard_exit,
	.shard_error = pv_shard_error,
	.finish = pv_finish,
	.print_results = pv_print,
	.destroy = pv_destroy,
};

const pt_tool *pt_tool_paraver(void)
{
	return &paraver_tool;
}

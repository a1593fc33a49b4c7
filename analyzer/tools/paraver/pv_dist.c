/* SPDX-License-Identifier: MIT */
/* The Paraver writer's finish under several analyzer processes (pt_dist.h).
 *
 *   1. Every process tells every other what its shards left: where their
 *      streams' bytes are (runs, in its temporary folder and pool file,
 *      beside the output: on one file system, which a cluster shares), the
 *      rows' roles, what the rows found, its extensions' findings.
 *   2. The first process adds the "Not created" states and the
 *      communications (it has every link now), writes the header into the
 *      output's temporary file, sizes it, and tells the others where it is.
 *   3. Every process merges its share of the time partitions (the same
 *      partitions everywhere: pv_merge_part) into that file, at their
 *      places. A .prv.gz: each compresses its share into a file of its
 *      own first, then copies the members to their places once all their
 *      sizes are known (merge_gz).
 *   4. Once all are done, the first writes the .pcf and .row and renames
 *      the three files into place.
 *
 * Every step is collective, and each carries whether the process failed:
 * all stop together, with the first failure's message. Records whose
 * numbering would depend on which process read them first (counters, call
 * stacks and samples: ids made while shards run) make the run stop: such
 * traces are analyzed by one process. GPU activity is numbered from the
 * process logs (kernels, API functions), which every process reads: its
 * family gathers the rest (gpu_paraver.c). */
#define _GNU_SOURCE
#include "pt_dist.h"
#include "pv_codec.h"
#include "pv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pv_dist_blocks(unsigned kind)
{
	return kind == PT_REC_COUNTER_DEF || kind == PT_REC_COUNTERS ||
	       (kind >= PT_REC_RANGE_SAMPLING_FIRST && kind <= PT_REC_RANGE_SAMPLING_LAST);
}

/* ---- what a process sends ------------------------------------------------ */

static void put_run(pt_buf *b, const pv_run *r)
{
	pt_buf_u64(b, r->pool != NULL);
	pt_buf_str(b, r->path);
	pt_buf_u64(b, r->base);
	pt_buf_u64(b, r->off);
	pt_buf_u64(b, r->text);
	pt_buf_u64(b, r->nrec);
	pt_buf_u64(b, r->first_key);
	pt_buf_u64(b, r->last_key);
	pt_buf_array(b, r->idx, r->nidx, sizeof *r->idx);
	pt_buf_u64(b, r->prefix_len);
	pt_buf_put(b, r->prefix, r->prefix_len);
}

/* A run of another process: its bytes are read where that process left
 * them (its pool: pool, else its own file), never removed from here. */
static int get_run(pt_rbuf *r, pv_run *run, const pv_pool *pool)
{
	memset(run, 0, sizeof *run);
	int pooled = (int)pt_rbuf_u64(r);
	run->path = pt_rbuf_str(r);
	run->pool = pooled ? pool : NULL;
	run->base = pt_rbuf_u64(r);
	run->off = pt_rbuf_u64(r);
	run->text = pt_rbuf_u64(r);
	run->nrec = pt_rbuf_u64(r);
	run->first_key = pt_rbuf_u64(r);
	run->last_key = pt_rbuf_u64(r);
	size_t n = pt_rbuf_count(r, sizeof *run->idx);
	if (r->err)
		return -1;
	run->nidx = (uint32_t)n;
	run->idx = n ? malloc(n * sizeof *run->idx) : NULL;
	if (n && !run->idx)
		return -1;
	pt_rbuf_get(r, run->idx, n * sizeof *run->idx);
	uint64_t pl = pt_rbuf_u64(r);
	if (pl > sizeof run->prefix)
		return -1;
	run->prefix_len = (uint8_t)pl;
	pt_rbuf_get(r, run->prefix, pl);
	return r->err ? -1 : 0;
}

static void put_named(pt_buf *b, const pv_named *v, size_t n)
{
	pt_buf_u64(b, n);
	for (size_t i = 0; i < n; i++) {
		pt_buf_u64(b, v[i].type);
		pt_buf_u64(b, (uint64_t)v[i].value);
		pt_buf_str(b, v[i].name);
	}
}

static void put_pairs(pt_buf *b, const pv_pairset *s)
{
	pt_buf_u64(b, s->n);
	for (size_t i = 0; i < s->cap; i++)
		if (s->k[2 * i] || s->k[2 * i + 1]) {
			pt_buf_u64(b, s->k[2 * i]);
			pt_buf_u64(b, s->k[2 * i + 1]);
		}
}

static void pack(pv_tool *pv, int failed, const char *msg, pt_buf *b)
{
	const pt_trace_ctx *ctx = pv->ctx;
	pt_buf_u64(b, (uint64_t)failed);
	pt_buf_str(b, msg);
	pt_buf_u64(b, (uint64_t)pv->dist_blocked);
	pt_buf_u64(b, pv->max_time);
	pt_buf_u64(b, pv->records);
	pt_buf_str(b, pv->pool.path);
	size_t mine = 0;
	for (size_t i = 0; i < ctx->nshards; i++)
		mine += pv->mine[i];
	pt_buf_u64(b, mine);
	for (size_t i = 0; i < ctx->nshards; i++) {
		if (!pv->mine[i])
			continue;
		const pv_role *r = &pv->roles[i];
		pt_buf_u64(b, i);
		pt_buf_str(b, r->name);
		put_run(b, &pv->runs[2 * i]);
		put_run(b, &pv->runs[2 * i + 1]);
	}
	const pv_found *f = &pv->found;
	PT_BUF_VEC(b, f->creates);
	PT_BUF_VEC(b, f->starts);
	PT_BUF_VEC(b, f->forks);
	put_named(b, f->types.v, f->types.n);
	put_named(b, f->values.v, f->values.n);
	put_pairs(b, &f->used);
	PT_BUF_VEC(b, f->locks);
	pt_buf_u64(b, (uint64_t)f->cuts | (uint64_t)f->throttled << 1);
	for (size_t i = 0; i < pt_nfamilies(); i++) {
		pt_buf pb = {0};
		if (pv_ext(i)->pack && pv->ext[i])
			pv_ext(i)->pack(pv->ext[i], &pb);
		pt_buf_u64(b, pb.len);
		pt_buf_put(b, pb.d, pb.len);
		b->oom |= pb.oom;
		free(pb.d);
	}
}

/* ---- what it receives ------------------------------------------------------- */

#define GET_VEC(r, vec, dst)                                                                       \
	do {                                                                                       \
		size_t n_ = pt_rbuf_count(r, sizeof *(vec).v);                                     \
		if ((r)->err)                                                                      \
			return -1;                                                                 \
		for (size_t i_ = 0; i_ < n_; i_++) {                                               \
			pt_rbuf_get(r, &(dst), sizeof(dst));                                       \
			if (VEC_PUSH(vec, dst))                                                    \
				return -1;                                                         \
		}                                                                                  \
	} while (0)

static int get_named(pt_rbuf *r, void *vecp)
{
	VEC(pv_named) *vec = vecp;
	uint64_t n = pt_rbuf_u64(r);
	for (uint64_t i = 0; i < n && !r->err; i++) {
		pv_named x;
		x.type = (uint32_t)pt_rbuf_u64(r);
		x.value = (int64_t)pt_rbuf_u64(r);
		x.name = pt_rbuf_str(r);
		if (VEC_PUSH(*vec, x)) {
			free(x.name);
			return -1;
		}
	}
	return r->err ? -1 : 0;
}

static int unpack(pv_tool *pv, pt_rbuf *r, size_t proc)
{
	const pt_trace_ctx *ctx = pv->ctx;
	pv->dist_blocked |= (int)pt_rbuf_u64(r);
	uint64_t max_time = pt_rbuf_u64(r);
	if (max_time > pv->max_time)
		pv->max_time = max_time;
	pv->records += pt_rbuf_u64(r);
	pv_pool *pool = &pv->fpools[proc];
	pool->path = pt_rbuf_str(r);
	pool->fd = pool->path ? open(pool->path, O_RDONLY | O_CLOEXEC) : -1;
	if (pool->fd < 0)
		return -1;
	uint64_t n = pt_rbuf_u64(r);
	for (uint64_t k = 0; k < n && !r->err; k++) {
		uint64_t i = pt_rbuf_u64(r);
		if (i >= ctx->nshards || pv->foreign[2 * i])
			return -1;
		pv_role *role = &pv->roles[i];
		role->name = pt_rbuf_str(r);
		pv->foreign[2 * i] = pv->foreign[2 * i + 1] = 1;
		if (get_run(r, &pv->runs[2 * i], pool) || get_run(r, &pv->runs[2 * i + 1], pool))
			return -1;
	}
	pv_found f;
	memset(&f, 0, sizeof f);
	pv_link_end le;
	pv_lock_obj lo;
	int rc = -1;
	GET_VEC(r, f.creates, le);
	GET_VEC(r, f.starts, le);
	GET_VEC(r, f.forks, le);
	if (get_named(r, &f.types) || get_named(r, &f.values))
		goto out;
	uint64_t pairs = pt_rbuf_u64(r);
	for (uint64_t i = 0; i < pairs && !r->err; i++) {
		uint64_t a = pt_rbuf_u64(r), b = pt_rbuf_u64(r);
		if (pv_pairset_add(&f.used, a, b) < 0)
			goto out;
	}
	GET_VEC(r, f.locks, lo);
	uint64_t flags = pt_rbuf_u64(r);
	f.cuts = (int)(flags & 1);
	f.throttled = (int)(flags >> 1 & 1);
	if (r->err || pv_found_move(&pv->found, &f))
		goto out;
	for (size_t i = 0; i < pt_nfamilies(); i++) {
		uint64_t len = pt_rbuf_u64(r);
		if (r->err || len > (uint64_t)(r->end - r->p))
			goto out;
		if (len && pv_ext(i)->unpack && pv->ext[i] &&
		    pv_ext(i)->unpack(pv->ext[i], r->p, len))
			goto out;
		r->p += len;
	}
	rc = r->err ? -1 : 0;
out:
	pv_found_free(&f);
	return rc;
}

/* The first failure any process reports (its message into err), after
 * an exchange; 0 when none failed. mine: this process's own part. */
static int exchange(pv_tool *pv, pt_dist *d, pt_buf *mine, void **all, size_t *lens, char *err,
		    size_t errlen)
{
	if (mine->oom || d->allgather(d, mine->d, mine->len, all, lens)) {
		snprintf(err, errlen, "the analyzer processes could not exchange their results");
		return -1;
	}
	const char *off = *all;
	for (int p = 0; p < d->size; p++) {
		pt_rbuf r = {off, off + lens[p], 0};
		off += lens[p];
		if (pt_rbuf_u64(&r)) {
			char *msg = pt_rbuf_str(&r);
			snprintf(err, errlen, "analyzer process %d: %s", p, msg ? msg : "failed");
			free(msg);
			return -1;
		}
	}
	(void)pv;
	return 0;
}

/* ---- step 3 for a .prv.gz ------------------------------------------------- */

/* Copies len bytes at from in src to at in dst. 0 or an errno. */
static int copy_range(int src, uint64_t from, int dst, uint64_t at, uint64_t len)
{
	char buf[1 << 16];
	while (len) {
		size_t n = len < sizeof buf ? (size_t)len : sizeof buf;
		ssize_t r = pread(src, buf, n, (off_t)from);
		if (r <= 0)
			return r ? errno : EIO;
		int e = pv_write_at(dst, buf, (size_t)r, at);
		if (e)
			return e;
		from += (uint64_t)r;
		at += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* Each process compresses its partitions (the partitions and their gzip
 * members are those one process with workers0 workers makes, so the file
 * is the same) into a file of its own; once every member's size is known,
 * each copies its members to their places in fd. The compression, most of
 * the time of a .prv.gz, is shared out; the copy moves compressed bytes
 * only. *failed and msg as the other steps; -1 when the exchange failed
 * (err set). */
static int merge_gz(pv_tool *pv, pt_dist *d, int fd, uint64_t hl, unsigned workers0, int *failed,
		    char *msg, size_t msglen, char *err, size_t errlen)
{
	const pt_trace_ctx *ctx = pv->ctx;
	size_t nruns = 2 * ctx->nshards + 2;
	pv_gz_members g = {.fd = -1};
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/members", pv->tmpdir);
	if (!*failed) {
		g.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (g.fd < 0) {
			snprintf(msg, msglen, "%.400s: %s", path, strerror(errno));
			*failed = 1;
		}
	}
	if (!*failed && pv_merge_part(pv->runs, nruns, g.fd, hl, ctx->nworkers, workers0,
				      (unsigned)d->rank, (unsigned)d->size, 1, &g, NULL, NULL, msg,
				      msglen))
		*failed = 1;
	pt_buf b = {0};
	pt_buf_u64(&b, (uint64_t)*failed);
	pt_buf_str(&b, msg);
	pt_buf_u64(&b, g.nparts);
	for (size_t p = (size_t)d->rank; !*failed && p < g.nparts; p += (size_t)d->size)
		pt_buf_u64(&b, g.len[p]);
	void *all = NULL;
	size_t *lens = calloc((size_t)d->size, sizeof *lens);
	int rc = -1;
	if (!lens) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (exchange(pv, d, &b, &all, lens, err, errlen))
		goto out;
	/* member p's place: the header, then every member before it */
	uint64_t *len = calloc(g.nparts + 1, sizeof *len);
	const char *off = all;
	for (int q = 0; len && q < d->size; q++) {
		pt_rbuf r = {off, off + lens[q], 0};
		off += lens[q];
		pt_rbuf_u64(&r);
		free(pt_rbuf_str(&r));
		if (pt_rbuf_u64(&r) != g.nparts) {
			snprintf(err, errlen, "the analyzer processes cut the trace differently");
			free(len);
			goto out;
		}
		for (size_t p = (size_t)q; p < g.nparts; p += (size_t)d->size)
			len[p] = pt_rbuf_u64(&r);
	}
	if (!len) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	uint64_t at = hl;
	for (size_t p = 0; p < g.nparts; p++) {
		int e = p % (size_t)d->size == (size_t)d->rank
				? copy_range(g.fd, g.at[p], fd, at, len[p])
				: 0;
		if (e && !*failed) {
			snprintf(msg, msglen, "writing the trace: %s", strerror(e));
			*failed = 1;
		}
		at += len[p];
	}
	free(len);
	rc = 0;
out:
	if (g.fd >= 0) {
		close(g.fd);
		unlink(path);
	}
	free(g.at);
	free(g.len);
	free(b.d);
	free(all);
	free(lens);
	return rc;
}

/* ---- the finish ------------------------------------------------------------ */

int pv_finish_dist(pv_tool *pv, pt_dist *d, const pv_finish_steps *steps, char *err,
		   size_t errlen)
{
	const pt_trace_ctx *ctx = pv->ctx;
	size_t nruns = 2 * ctx->nshards + 2;
	char msg[512] = "", tmp_prv[PATH_MAX] = "";
	uint64_t hl = 0;
	int failed = 0, rc = -1, fd = -1;
	void *all = NULL;
	size_t *lens = calloc((size_t)d->size, sizeof *lens);
	pv->fpools = calloc((size_t)d->size, sizeof *pv->fpools);
	pv->foreign = calloc(nruns, 1);
	for (int p = 0; pv->fpools && p < d->size; p++)
		pv->fpools[p].fd = -1;
	if (!lens || !pv->fpools || !pv->foreign) {
		snprintf(msg, sizeof msg, "out of memory");
		failed = 1;
	} else if (pv_pool_flush(&pv->pool)) {
		snprintf(msg, sizeof msg, "%s: %s", pv->pool.path, strerror(pv->pool.error));
		failed = 1;
	}

	/* 1. what every process's shards left */
	pt_buf b = {0};
	if (lens)
		pack(pv, failed, msg, &b);
	else
		b.oom = 1;
	if (exchange(pv, d, &b, &all, lens, err, errlen))
		goto out;
	free(b.d);
	b = (pt_buf){0};
	const char *off = all;
	for (int p = 0; p < d->size; p++) {
		pt_rbuf r = {off, off + lens[p], 0};
		off += lens[p];
		if (p == d->rank)
			continue;
		pt_rbuf_u64(&r);
		free(pt_rbuf_str(&r));
		if (unpack(pv, &r, (size_t)p) && !failed) {
			snprintf(msg, sizeof msg, "cannot read what analyzer process %d left in %s", p,
				 pv->fpools[p].path ? pv->fpools[p].path : "its folder");
			failed = 1;
		}
	}
	free(all);
	all = NULL;
	if (!failed && pv->dist_blocked) {
		snprintf(msg, sizeof msg,
			 "this trace has counters, call stacks or samples, whose "
			 "numbering would differ between analyzer processes: analyze it with one "
			 "process");
		failed = 1;
	}

	/* 2. the first process: the last runs, the header, the file. The
	 * calls are not thinned under several processes (analyze passes
	 * --full: the budget would need every row's accounts), so the runs to
	 * merge are pv->runs everywhere; whether the .prv is compressed is
	 * the first's decision (gzauto), told to the others. */
	pv_run *merge = NULL;
	if (d->rank == 0 && !failed &&
	    steps->begin(pv, tmp_prv, sizeof tmp_prv, &fd, &hl, &merge, msg, sizeof msg))
		failed = 1;
	if (d->rank == 0 && !failed && (pv->thin || pv->renumber)) {
		snprintf(msg, sizeof msg,
			 "this trace's values would be renumbered or its calls thinned, which "
			 "several analyzer processes do not do: analyze it with one process");
		failed = 1;
	}
	free(merge);
	pt_buf_u64(&b, (uint64_t)failed);
	pt_buf_str(&b, msg);
	if (d->rank == 0) {
		pt_buf_str(&b, tmp_prv);
		pt_buf_u64(&b, hl);
		pt_buf_u64(&b, (uint64_t)pv->gz);
		pt_buf_u64(&b, ctx->nworkers);
		put_run(&b, &pv->runs[nruns - 2]);
		put_run(&b, &pv->runs[nruns - 1]);
	}
	if (exchange(pv, d, &b, &all, lens, err, errlen))
		goto out;
	free(b.d);
	b = (pt_buf){0};
	pt_rbuf r = {all, (const char *)all + lens[0], 0};
	pt_rbuf_u64(&r);
	free(pt_rbuf_str(&r));
	char *path = pt_rbuf_str(&r);
	hl = pt_rbuf_u64(&r);
	pv->gz = (int)pt_rbuf_u64(&r);
	unsigned workers0 = (unsigned)pt_rbuf_u64(&r);
	if (d->rank != 0) {
		pv->foreign[nruns - 2] = pv->foreign[nruns - 1] = 1;
		if (get_run(&r, &pv->runs[nruns - 2], &pv->fpools[0]) ||
		    get_run(&r, &pv->runs[nruns - 1], &pv->fpools[0]) || !path ||
		    (fd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
			snprintf(msg, sizeof msg, "cannot open %s: %s", path ? path : "the output",
				 strerror(errno ? errno : EIO));
			failed = 1;
		}
	}
	free(path);
	free(all);
	all = NULL;

	/* 3. every process's partitions */
	if (pv->gz) {
		if (merge_gz(pv, d, fd, hl, workers0, &failed, msg, sizeof msg, err, errlen))
			goto out;
	} else if (!failed &&
		   pv_merge_part(pv->runs, nruns, fd, hl, ctx->nworkers, workers0 * (unsigned)d->size,
				 (unsigned)d->rank, (unsigned)d->size, 0, NULL, NULL, NULL, msg,
				 sizeof msg)) {
		failed = 1;
	}
	pt_buf_u64(&b, (uint64_t)failed);
	pt_buf_str(&b, msg);
	if (exchange(pv, d, &b, &all, lens, err, errlen))
		goto out;

	/* 4. the first: .pcf, .row, everything into place */
	if (d->rank == 0) {
		rc = steps->end(pv, fd, tmp_prv, err, errlen);
		fd = -1;
	} else {
		rc = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	if (rc && d->rank == 0 && tmp_prv[0])
		unlink(tmp_prv);
	free(b.d);
	free(all);
	free(lens);
	return rc;
}

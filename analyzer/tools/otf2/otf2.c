/* SPDX-License-Identifier: MIT */
/* The OTF2 export as a tool (ot.h): the archive opened in init, one
 * location per shard written by the worker that holds it, the global
 * definitions and the archive's close in finish. The archive is written in
 * a temporary folder beside the output and renamed into place, so that a
 * half-written archive never stands at the output's name. */
#define _GNU_SOURCE
#include "ot_internal.h"

#include "pt_framework.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <otf2/OTF2_Pthread_Locks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The library asks before it writes a full buffer out: always. No
 * BufferFlush record of its own (no post-flush callback): the events'
 * times are the program's, not the export's. */
static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
	(void)user, (void)type, (void)loc, (void)caller, (void) final;
	return OTF2_FLUSH;
}
static const OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush};

/* A buffer's chunks. The library keeps a buffer's chunks until the buffer
 * is flushed, and flushes it when a chunk cannot be had: left to itself it
 * would hold a location's whole event file in memory. So a buffer gets at
 * most OT_CHUNKS chunks (1 MB) before it is written out, and keeps them from
 * one flush to the next (freed and asked for again, chunks of this size
 * come from mmap as fresh pages, faulted in and cleared). Each buffer is
 * one worker's at a time: no lock. */
#define OT_CHUNKS 4
typedef struct ot_chunks {
	void **v;
	size_t n, used, cap;
	uint64_t size;
} ot_chunks;

static void *chunk_allocate(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                            uint64_t size)
{
	(void)user, (void)type, (void)loc;
	ot_chunks *c = *per;
	if (!c && !(c = *per = calloc(1, sizeof *c)))
		return NULL;
	if (c->size != size) { /* not seen: chunks of one buffer have one size */
		for (size_t i = c->used; i < c->n; i++)
			free(c->v[i]);
		c->n = c->used;
		c->size = size;
	}
	if (c->used < c->n)
		return c->v[c->used++];
	if (c->n >= OT_CHUNKS)
		return NULL; /* the library flushes the buffer, then frees its chunks */
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 8;
		void **v = realloc(c->v, ncap * sizeof *v);
		if (!v)
			return NULL;
		c->v = v;
		c->cap = ncap;
	}
	void *p = malloc(size);
	if (p) {
		c->v[c->n++] = p;
		c->used = c->n;
	}
	return p;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                           bool final)
{
	(void)user, (void)type, (void)loc;
	ot_chunks *c = *per;
	if (!c)
		return;
	c->used = 0;
	if (!final)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	free(c);
	*per = NULL;
}
static const OTF2_MemoryCallbacks memory_callbacks = {chunk_allocate, chunk_free_all};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void tool_free(ot_tool *t)
{
	for (size_t i = 0; i < t->nfam; i++)
		if (ot_fam(i) && ot_fam(i)->destroy)
			ot_fam(i)->destroy(t->fam[i]);
	if (t->ar)
		OTF2_Archive_Close(t->ar);
	if (t->tmpdir && t->primary) /* the folder is the primary's */
		nftw(t->tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	ot_names_free(&t->regions);
	ot_names_free(&t->metrics);
	ot_locks_free(&t->locks);
	free(t->region_def);
	free(t->func_def);
	free(t->metric_def);
	free(t->tmpdir);
	free(t->path);
	free(t->nevents);
	free(t->comm_map);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* NAME/ holds an archive of ours (its anchor file): it may be replaced. */
static int is_archive(const char *path)
{
	char anchor[PATH_MAX];
	snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
	return access(anchor, F_OK) == 0;
}

/* Something at NAME that is no archive of ours: refused before any work. */
static int refuse_output(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (lstat(path, &st) || (S_ISDIR(st.st_mode) && is_archive(path)))
		return 0;
	snprintf(err, errlen, "%s exists and is no OTF2 archive: give another -o or remove it",
	         path);
	return -1;
}

/* The temporary folder (the primary makes it; under mpirun every process
 * learns its name, or the primary's error). 0, or -1 with err. */
static int make_tmpdir(ot_tool *t, char *err, size_t errlen)
{
	int rc = 0;
	if (t->primary) {
		rc = refuse_output(t->path, err, errlen);
		/* the archive's folder names itself: NAME.tmp-XXXXXX/traces.otf2 */
		if (!rc && !mkdtemp(t->tmpdir)) {
			snprintf(err, errlen, "cannot create %s: %s", t->tmpdir, strerror(errno));
			rc = -1;
		}
		if (rc) { /* not made: nothing to remove */
			free(t->tmpdir);
			t->tmpdir = NULL;
		}
	}
	if (!t->dist)
		return rc;
	pt_buf b = {0};
	if (t->primary) {
		pt_buf_u64(&b, (uint64_t)rc);
		pt_buf_str(&b, rc ? err : t->tmpdir);
	}
	char *all = NULL;
	size_t *lens = NULL;
	if (ot_exchange(t, &b, &all, &lens)) {
		snprintf(err, errlen,
		         "the analyzer processes could not exchange the archive's folder");
		rc = -1;
	} else {
		pt_rbuf r = {all, all + lens[0], 0};
		int prc = (int)pt_rbuf_u64(&r);
		char *msg = pt_rbuf_str(&r);
		if (!t->primary && (prc || !msg))
			snprintf(err, errlen, "%s", msg ? msg : "no archive folder from rank 0");
		else if (!t->primary)
			snprintf(t->tmpdir, strlen(t->tmpdir) + 1, "%s", msg);
		rc = prc || !msg || r.err ? -1 : rc;
		free(msg);
	}
	free(b.d);
	free(all);
	free(lens);
	return rc;
}

static void *ot_init(const pt_trace_ctx *ctx, const char *options, char *err, size_t errlen)
{
	(void)options;
	ot_tool *t = calloc(1, sizeof *t);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	const char *path = ctx->output ? ctx->output : "trace-otf2";
	t->ctx = ctx;
	t->dist = (pt_dist *)pt_fw_dist(ctx);
	t->primary = !t->dist || t->dist->rank == 0;
	pthread_mutex_init(&t->lock, NULL);
	t->path = strdup(path);
	size_t n = t->path ? strlen(t->path) + 32 : 0;
	t->tmpdir = n ? malloc(n) : NULL;
	t->nevents = calloc(ctx->nshards + 1, sizeof *t->nevents);
	int oom = !t->path || !t->tmpdir || !t->nevents;
	for (size_t i = 0; !oom && i < pt_nfamilies(); i++, t->nfam++)
		oom = ot_fam(i) && ot_fam(i)->init && ot_fam(i)->init(ctx, t, &t->fam[i]);
	/* under mpirun the processes go on together: the folder's exchange
	 * is made even by one out of memory */
	if (!t->tmpdir) {
		snprintf(err, errlen, "out of memory");
		tool_free(t);
		return NULL;
	}
	snprintf(t->tmpdir, n, "%s.tmp-XXXXXX", t->path);
	if (make_tmpdir(t, err, errlen) || oom) {
		if (oom)
			snprintf(err, errlen, "out of memory");
		tool_free(t);
		return NULL;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/a", t->tmpdir);
	t->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 256 * 1024, 256 * 1024,
	                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!t->ar || OTF2_Archive_SetFlushCallbacks(t->ar, &flush_callbacks, NULL) ||
	    OTF2_Archive_SetMemoryCallbacks(t->ar, &memory_callbacks, NULL) ||
	    ot_set_collectives(t) || OTF2_Pthread_Archive_SetLockingCallbacks(t->ar, NULL) ||
	    OTF2_Archive_SetCreator(t->ar, "paratrace") || OTF2_Archive_OpenEvtFiles(t->ar)) {
		snprintf(err, errlen, "%s: the OTF2 library cannot open an archive there", dir);
		tool_free(t);
		return NULL;
	}
	return t;
}

static int ot_process_event(void *tool, size_t process, const pt_event *ev)
{
	ot_tool *t = tool;
	for (size_t i = 0; i < t->nfam; i++)
		if (ot_fam(i) && ot_fam(i)->process_event)
			ot_fam(i)->process_event(t->fam[i], process, ev);
	return 0;
}

static void shard_free(ot_shard *s)
{
	free(s->loc.open);
	if (s->loc.attrs)
		OTF2_AttributeList_Delete(s->loc.attrs);
	free(s->held);
	ot_lock_cache_free(&s->cache);
	pt_callstack_free(&s->calls);
	pt_func_lookup_free(&s->fl);
	free(s);
}

static void *ot_shard_init(void *tool, const pt_shard_info *info, char *err, size_t errlen)
{
	ot_tool *t = tool;
	ot_shard *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->tool = t;
	s->loc.info = info;
	s->loc.ctx = t->ctx;
	s->loc.tool = t;
	pt_func_lookup_init(&s->fl, t->ctx, info->process);
	pt_callstack_init(&s->calls, info->header);
	s->loc.w = OTF2_Archive_GetEvtWriter(t->ar, info->index);
	if (!s->loc.w) {
		snprintf(err, errlen, "the OTF2 library gives no event writer for location %zu",
		         info->index);
		shard_free(s);
		return NULL;
	}
	int oom = 0;
	size_t i = 0;
	for (; !oom && i < t->nfam; i++)
		oom = ot_fam(i) && ot_fam(i)->shard_init &&
		      ot_fam(i)->shard_init(t->fam[i], &s->loc, &s->fam[i]);
	if (oom) {
		while (i--)
			if (ot_fam(i) && ot_fam(i)->shard_exit && s->fam[i])
				ot_fam(i)->shard_exit(t->fam[i], s->fam[i]);
		OTF2_Archive_CloseEvtWriter(t->ar, s->loc.w);
		snprintf(err, errlen, "out of memory");
		shard_free(s);
		return NULL;
	}
	return s;
}

static void calls_push(void *arg, pt_callstack *cs)
{
	ot_shard *s = arg;
	ot_enter(&s->loc, cs->at[cs->depth - 1].t, cs->ids[cs->depth - 1]);
}

static void calls_pop(void *arg, pt_callstack *cs, size_t n, uint64_t t, enum pt_call_end how)
{
	(void)how;
	ot_shard *s = arg;
	for (size_t i = cs->depth + n; i-- > cs->depth;)
		ot_leave(&s->loc, t, cs->ids[i]);
}

static const pt_callstack_ops ot_calls = {calls_push, calls_pop};

/* The families' part of a record: those whose kinds it is. */
static int families_event(ot_shard *s, const pt_event *ev, int device)
{
	ot_tool *t = s->tool;
	for (size_t i = 0; i < t->nfam; i++) {
		const ot_family *f = ot_fam(i);
		if (!f)
			continue;
		int mine = (ev->kind >= f->kind_first && ev->kind <= f->kind_last) ||
		           (f->all_after_first && s->fam[i]);
		if (device ? f->device_event && f->device_event(t->fam[i], &s->fam[i], &s->loc, ev)
		           : f->event && mine && f->event(t->fam[i], &s->fam[i], &s->loc, ev)) {
			snprintf(s->err, sizeof s->err, "out of memory");
			return -1;
		}
	}
	return 0;
}

static int ot_shard_event(void *st, const pt_event *ev)
{
	ot_shard *s = st;
	const pt_shard_info *in = s->loc.info;
	if (in->kind == PT_FILE_GPU)
		return families_event(s, ev, 1);
	if (in->kind != PT_FILE_THREAD)
		return 0;
	int is_enter;
	uint32_t id = pt_event_func(ev, &s->fl, &is_enter);
	uint64_t t = ev->time_ns;
	if (id) {
		pt_callstack *cs = &s->calls;
		if (!pt_callstack_step_timed(cs, id, is_enter, t))
			pt_callstack_func(cs, id, is_enter, t, &ot_calls, s);
		else if (is_enter)
			ot_enter(&s->loc, t, id);
		else
			ot_leave(&s->loc, t, id);
	} else {
		uint64_t before = s->calls.last_t;
		pt_callstack_record(&s->calls, ev, &ot_calls, s);
		if (ot_core_event(s, ev, before) || families_event(s, ev, 0))
			return -1;
	}
	if (s->loc.oom) {
		snprintf(s->err, sizeof s->err, "out of memory");
		return -1;
	}
	return 0;
}

static const char *ot_shard_error(void *st)
{
	return ((ot_shard *)st)->err;
}

static int ot_shard_exit(void *st, uint64_t last_ns, int complete)
{
	(void)complete;
	ot_shard *s = st;
	ot_tool *t = s->tool;
	for (size_t i = 0; i < t->nfam; i++)
		if (ot_fam(i) && ot_fam(i)->shard_end)
			ot_fam(i)->shard_end(t->fam[i], s->fam[i], &s->loc, last_ns);
	pt_callstack_end(&s->calls, last_ns, &ot_calls, s);
	ot_core_end(s, last_ns);
	ot_leave_all(&s->loc, last_ns);
	int rc = s->loc.oom ? -1 : 0;
	if (rc)
		snprintf(s->err, sizeof s->err, "out of memory");
	uint64_t n = 0;
	OTF2_EvtWriter_GetNumberOfEvents(s->loc.w, &n);
	if (OTF2_Archive_CloseEvtWriter(t->ar, s->loc.w) && !rc) {
		snprintf(s->err, sizeof s->err, "the OTF2 library could not write location %zu",
		         s->loc.info->index);
		rc = -1;
	}
	pthread_mutex_lock(&t->lock);
	t->nevents[s->loc.info->index] = n;
	t->events += n;
	for (size_t i = 0; i < s->cache.cap; i++)
		if (s->cache.v[i].id &&
		    ot_locks_add(&t->locks, s->cache.v[i].pid, s->cache.v[i].object) && !rc) {
			snprintf(s->err, sizeof s->err, "out of memory");
			rc = -1;
		}
	for (size_t i = 0; i < t->nfam; i++)
		if (ot_fam(i) && ot_fam(i)->shard_exit &&
		    ot_fam(i)->shard_exit(t->fam[i], s->fam[i]) && !rc) {
			snprintf(s->err, sizeof s->err, "out of memory");
			rc = -1;
		}
	pthread_mutex_unlock(&t->lock);
	shard_free(s);
	return rc;
}

/* The finished archive into place: NAME.tmp-XXXXXX/a becomes NAME; an
 * archive already at NAME goes, anything else there is refused. */
static int move_into_place(ot_tool *t, char *err, size_t errlen)
{
	char from[PATH_MAX], old[PATH_MAX];
	snprintf(from, sizeof from, "%s/a", t->tmpdir);
	snprintf(old, sizeof old, "%s/old", t->tmpdir);
	struct stat st;
	if (!lstat(t->path, &st)) {
		if (refuse_output(t->path, err, errlen))
			return -1;
		if (rename(t->path, old)) {
			snprintf(err, errlen, "%s: %s", t->path, strerror(errno));
			return -1;
		}
	}
	if (rename(from, t->path)) {
		snprintf(err, errlen, "%s: %s", t->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Under mpirun: whether every process got this far (rc), to all; the
 * first error said by the others is the one every process gives. */
static int all_ok(ot_tool *t, int rc, char *err, size_t errlen)
{
	if (!t->dist)
		return rc;
	pt_buf b = {0};
	pt_buf_u64(&b, (uint64_t)rc);
	pt_buf_str(&b, rc ? err : "");
	char *all = NULL;
	size_t *lens = NULL;
	if (ot_exchange(t, &b, &all, &lens)) {
		free(b.d);
		snprintf(err, errlen, "the analyzer processes could not exchange their results");
		return -1;
	}
	free(b.d);
	size_t off = 0;
	for (int p = 0; p < t->dist->size && !rc; p++) {
		pt_rbuf r = {all + off, all + off + lens[p], 0};
		off += lens[p];
		if (pt_rbuf_u64(&r) || r.err) {
			char *msg = pt_rbuf_str(&r);
			snprintf(err, errlen, "analyzer process %d: %s", p, msg ? msg : "failed");
			free(msg);
			rc = -1;
		}
	}
	free(all);
	free(lens);
	return rc;
}

static int ot_finish(void *tool, char *err, size_t errlen)
{
	ot_tool *t = tool;
	/* every step is collective (the OTF2 library's and ours): a process
	 * that failed still takes part until the archive is closed */
	int rc = 0;
	if (OTF2_Archive_CloseEvtFiles(t->ar)) {
		snprintf(err, errlen, "%s: the OTF2 library could not close the event files",
		         t->path);
		rc = -1;
	}
	char derr[512] = "";
	if (ot_write_defs(t, derr, sizeof derr) && !rc) {
		snprintf(err, errlen, "%s", derr);
		rc = -1;
	}
	OTF2_ErrorCode crc = OTF2_Archive_Close(t->ar);
	t->ar = NULL;
	if (crc != OTF2_SUCCESS && !rc) {
		snprintf(err, errlen, "%s: the OTF2 library could not close the archive: %s",
		         t->path, OTF2_Error_GetDescription(crc));
		rc = -1;
	}
	rc = all_ok(t, rc, err, errlen);
	if (!rc && t->primary)
		rc = move_into_place(t, err, errlen);
	return all_ok(t, rc, err, errlen);
}

static int ot_print(void *tool, FILE *out)
{
	ot_tool *t = tool;
	if (t->lock_clashes)
		fprintf(out,
		        "OTF2 archive: warning: %llu locks share their id (the low 32 bits of "
		        "their address) with another lock of their process: readers see them as "
		        "one\n",
		        (unsigned long long)t->lock_clashes);
	if (!t->ctx->quiet && t->dist)
		fprintf(out,
		        "OTF2 archive: %s/traces.otf2 (%llu events, %zu locations, written by %d "
		        "analyzer processes)\n",
		        t->path, (unsigned long long)t->events, t->ctx->nshards, t->dist->size);
	else if (!t->ctx->quiet)
		fprintf(out, "OTF2 archive: %s/traces.otf2 (%llu events, %zu locations)\n", t->path,
		        (unsigned long long)t->events, t->ctx->nshards);
	return 0;
}

static void ot_destroy(void *tool)
{
	tool_free(tool);
}

static const pt_tool otf2_tool = {
    .api_version = PT_TOOL_API_VERSION,
    .name = "otf2",
    .description = "OTF2 archive (Vampir, Scalasca, Score-P's tools)",
    .init = ot_init,
    .process_event = ot_process_event,
    .shard_init = ot_shard_init,
    .shard_event = ot_shard_event,
    .shard_exit = ot_shard_exit,
    .shard_error = ot_shard_error,
    .finish = ot_finish,
    .print_results = ot_print,
    .destroy = ot_destroy,
};

const pt_tool *pt_tool_otf2(void)
{
	return &otf2_tool;
}

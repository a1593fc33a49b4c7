/* SPDX-License-Identifier: MIT */
/* Reader tests: round trip of every record kind, whole / byte-by-byte /
 * random-chunk feeding, file and FOLLOW parsers, truncation at every
 * length, bit flips, header errors, the tick conversion, trace scans. */
#define _GNU_SOURCE
#include <CUnit/Basic.h>
#include <errno.h>
#include <fcntl.h>
#include <paratrace/log.h>
#include <paratrace/mpi_calls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_test_writer.h"

/* What a read produced, for comparing parsers. */
typedef struct seen {
	unsigned kind;
	uint64_t offset, serial, ticks, time_ns;
	size_t size;
	uint32_t func_id;
	uint8_t bytes[64]; /* first bytes of the record */
} seen;

typedef struct result {
	seen *ev;
	size_t n, cap;
	enum pt_log_state state;
	uint64_t offset, truncated;
	int complete;
	char error[256];
} result;

static void note(result *r, const pt_event *ev)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
	}
	seen *s = &r->ev[r->n++];
	memset(s, 0, sizeof *s);
	s->kind = ev->kind;
	s->offset = ev->offset;
	s->serial = ev->serial;
	s->ticks = ev->ticks;
	s->time_ns = ev->time_ns;
	s->size = ev->size;
	s->func_id = ev->func_id;
	/* the delivered record: its head's size (a 1.2 release of 8 bytes in
	 * the file is delivered as 16) */
	size_t delivered = pt_rec_size(ev->rec);
	memcpy(s->bytes, ev->rec, delivered < sizeof s->bytes ? delivered : sizeof s->bytes);
}

static void final(result *r, const pt_event *ev)
{
	r->state = ev->state;
	r->offset = ev->offset;
	r->truncated = ev->truncated_bytes;
	r->complete = ev->complete;
	if (ev->error)
		snprintf(r->error, sizeof r->error, "%s", ev->error);
}

/* Memory parser fed in chunks: chunk 0 = all at once, -1 = random sizes. */
static result read_mem(const uint8_t *data, size_t len, long chunk, unsigned seed)
{
	result r = {0};
	pt_log *log = pt_log_open(PT_LOG_FD_NONE, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	size_t pos = 0;
	pt_event ev;
	srand(seed);
	for (;;) {
		while (pt_log_read(log, &ev) == 0)
			note(&r, &ev);
		if (ev.state != PT_LOG_REQUIRE_DATA)
			break;
		if (pos == len) {
			CU_ASSERT_EQUAL(pt_log_feed(log, NULL, 0), 0);
			continue;
		}
		size_t n = chunk > 0 ? (size_t)chunk : chunk == 0 ? len : 1 + (size_t)rand() % 97;
		if (n > len - pos)
			n = len - pos;
		CU_ASSERT_EQUAL(pt_log_feed(log, data + pos, n), 0);
		pos += n;
	}
	final(&r, &ev);
	/* Terminal states stay. */
	CU_ASSERT_EQUAL(pt_log_read(log, &ev), -1);
	CU_ASSERT_EQUAL(ev.state, r.state);
	pt_log_close(log);
	return r;
}

static result read_fd(int fd, unsigned flags)
{
	result r = {0};
	pt_log *log = pt_log_open(fd, flags);
	CU_ASSERT_PTR_NOT_NULL_FATAL(log);
	pt_event ev;
	while (pt_log_read(log, &ev) == 0)
		note(&r, &ev);
	final(&r, &ev);
	pt_log_close(log);
	return r;
}

static int same(const result *a, const result *b)
{
	if (a->n != b->n || a->state != b->state || a->offset != b->offset ||
	    a->truncated != b->truncated || a->complete != b->complete)
		return 0;
	return a->n == 0 || memcmp(a->ev, b->ev, a->n * sizeof *a->ev) == 0;
}

static int tmpfile_with(const uint8_t *data, size_t len, char *path)
{
	strcpy(path, "/tmp/pt_reader_test_XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, data, len) == (ssize_t)len);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* ---- round trip --------------------------------------------------------- */

static uint64_t expected_ns(const pt_file_header *h, uint64_t ticks)
{
	/* The sample logs use mult 3, shift 1 and ticks after open: plain
	 * 64-bit arithmetic is exact here. */
	return h->open.mono_ns + ((ticks - h->open.ticks) * h->tick_mult >> h->tick_shift);
}

static void test_round_trip_every_kind(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 3);
	result r = read_mem(w.buf, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(r.complete, 1);
	CU_ASSERT_EQUAL(r.truncated, 0);
	CU_ASSERT_EQUAL_FATAL(r.n, w.nrecs);
	int kinds[256] = {0};
	int compact = 0, compact_locks = 0, unaligned_wide = 0, padded = 0, shorts = 0,
	    short_pcs = 0;
	int three_pads = 0;
	for (size_t i = 0; i < r.n; i++) {
		const ptw_entry *e = &w.recs[i];
		const seen *s = &r.ev[i];
		CU_ASSERT_EQUAL(s->kind, e->kind);
		CU_ASSERT_EQUAL(s->offset, e->offset);
		CU_ASSERT_EQUAL(s->serial, i);
		CU_ASSERT_EQUAL(s->ticks, e->ticks);
		CU_ASSERT_EQUAL(s->time_ns, expected_ns(&w.hdr, e->ticks));
		CU_ASSERT_EQUAL(s->size, e->size);
		CU_ASSERT_EQUAL(s->func_id, e->func_id);
		size_t cmp = e->size < sizeof s->bytes ? e->size : sizeof s->bytes;
		if (e->size == 2) {
			/* 3.0 short: the full form of the previous function
			 * record's kind, with its id or address */
			uint16_t word;
			memcpy(&word, w.buf + e->offset, sizeof word);
			pt_rec_head got;
			memcpy(&got, s->bytes, sizeof got);
			CU_ASSERT_EQUAL(got.kind, e->kind);
			CU_ASSERT_EQUAL(got.delta, pt_short_delta(word));
			if (pt_rec_is_func_pc(e->kind)) {
				uint64_t pc;
				memcpy(&pc, s->bytes + 8, sizeof pc);
				CU_ASSERT_EQUAL(got.size8, 2);
				CU_ASSERT_EQUAL(pc, 0x401136 + 3);
				short_pcs++;
			} else {
				CU_ASSERT_EQUAL(pt_rec_func_id(&got), e->func_id);
				shorts++;
			}
		} else if (e->kind == PT_REC_LOCK_RELEASED && e->size == 8) {
			/* 1.2 head alone: delivered as head (size 16) + the object of
			 * the last LOCK_ACQUIRED, which the sample wrote just before */
			pt_rec_head want;
			memcpy(&want, w.buf + e->offset, 8);
			want.size8 = 2;
			CU_ASSERT_EQUAL(memcmp(s->bytes, &want, 8), 0);
			CU_ASSERT_EQUAL(memcmp(s->bytes + 8, w.buf + w.recs[i - 1].offset + 8, 8), 0);
		} else if (e->size == 4 && !pt_rec_is_func(e->kind)) {
			/* 2.0 compact lock record: the 16-byte form with the object
			 * of the last full LOCK_ACQUIRED (the sample's 0x7ffd0000a000) */
			uint32_t word;
			memcpy(&word, w.buf + e->offset, sizeof word);
			pt_rec_head want = pt_compact_lock_head(word);
			CU_ASSERT_EQUAL(want.kind, e->kind);
			CU_ASSERT_EQUAL(memcmp(s->bytes, &want, 8), 0);
			uint64_t obj;
			memcpy(&obj, s->bytes + 8, 8);
			CU_ASSERT_EQUAL(obj, 0x7ffd0000a000ull);
			compact_locks++;
		} else if (e->size == 4) {
			/* 2.0 compact: delivered as the 8-byte form */
			uint32_t word;
			memcpy(&word, w.buf + e->offset, sizeof word);
			pt_rec_head want = pt_compact_head(word);
			CU_ASSERT_EQUAL(memcmp(s->bytes, &want, 8), 0);
			CU_ASSERT_EQUAL(want.kind, e->kind);
			CU_ASSERT_EQUAL(pt_rec_func_id(&want), e->func_id);
			compact++;
		} else {
			CU_ASSERT_EQUAL(memcmp(s->bytes, w.buf + e->offset, cmp), 0);
			if (e->offset & 7)
				unaligned_wide += pt_rec_is_func(e->kind);
		}
		if (i > 0 && e->offset > w.recs[i - 1].offset + w.recs[i - 1].size) {
			/* pads only after a function or compact record */
			CU_ASSERT(w.recs[i - 1].size <= 4 || pt_rec_is_func(w.recs[i - 1].kind));
			padded++;
			three_pads += e->offset == w.recs[i - 1].offset + w.recs[i - 1].size + 6;
		}
		kinds[s->kind & 0xff]++;
	}
	/* Every kind format.h defines is in the sample, plus an unknown one. */
	for (unsigned k = 1; k <= PT_REC_CLOSE; k++) {
		if (!kinds[k])
			printf("\nkind %u (%s) missing from the sample log\n", k, pt_rec_kind_name(k));
		CU_ASSERT(kinds[k] > 0);
	}
	unsigned extra[] = {PT_REC_CALLSTACK,	   PT_REC_SAMPLE,	  PT_REC_COUNTER_VALUE,
			    PT_REC_SAMPLING_START, PT_REC_GPU_STREAM_DEF, PT_REC_GPU_FUNC_DEF,
			    PT_REC_GPU_KERNEL_DEF, PT_REC_GPU_API_BEGIN,  PT_REC_GPU_API_END,
			    PT_REC_GPU_LAUNCH,	   PT_REC_GPU_KERNEL,	  PT_REC_GPU_MEMCPY,
			    PT_REC_GPU_MEMSET,	   0x7e};
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
		CU_ASSERT(kinds[extra[i]] > 0);
	CU_ASSERT(kinds[PT_REC_TIME] >= 2); /* first record + the delta overflow */
	CU_ASSERT(compact >= 3);
	CU_ASSERT_EQUAL(compact_locks, 4); /* 3 of 2.0, a request of 3.0 */
	CU_ASSERT(unaligned_wide >= 2); /* 8-byte function records between multiples of 8 */
	CU_ASSERT(padded >= 2);         /* payload records after compact and short ones */
	CU_ASSERT(three_pads >= 1);
	CU_ASSERT(shorts >= 8);
	CU_ASSERT_EQUAL(short_pcs, 2);
	CU_ASSERT_STRING_EQUAL(pt_rec_kind_name(0x7e), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(pt_rec_kind_name(PT_REC_LOCK_ACQUIRED), "LOCK_ACQUIRED");
	free(r.ev);
	ptw_free(&w);
}

static void test_payloads_and_strings(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 0);
	pt_log *log = pt_log_open(PT_LOG_FD_NONE, 0);
	CU_ASSERT_PTR_NULL(pt_log_header(log));
	pt_log_feed(log, w.buf, w.len);
	pt_log_feed(log, NULL, 0);
	pt_event ev;
	int names = 0, defs = 0, maps = 0, big_id = 0, short_locks = 0, long_locks = 0;
	int head_only_locks = 0, compact_locks = 0;
	while (pt_log_read(log, &ev) == 0) {
		/* payloads aligned; function records (none) and compact records
		 * (delivered from an aligned copy) may be at 4 mod 8 */
		CU_ASSERT_EQUAL((uintptr_t)ev.rec % (pt_rec_is_func(ev.kind) ? 2 : 8), 0);
		CU_ASSERT_EQUAL(ev.offset % (pt_rec_is_func(ev.kind) || ev.size <= 4 ? 2 : 8), 0);
		if (ev.kind == PT_REC_LOCK_ACQUIRED || ev.kind == PT_REC_LOCK_FAILED ||
		    ev.kind == PT_REC_LOCK_RELEASED) {
			/* Both forms read alike; the short one has result 0. */
			pt_rec_lock lk = {0, -7, 0};
			CU_ASSERT_PTR_EQUAL(pt_rec_lock_get(ev.rec, &lk), &lk);
			CU_ASSERT_EQUAL(lk.object, 0x7ffd0000a000ull);
			CU_ASSERT_EQUAL(lk.result, ev.kind == PT_REC_LOCK_FAILED ? 16 : 0);
			if (ev.size == 4) {
				/* 2.0 compact: the 16-byte form, object filled in */
				CU_ASSERT_EQUAL(pt_rec_size(ev.rec), 16);
				compact_locks++;
			} else if (ev.size == 8) {
				/* delivered as the 16-byte form, object filled in */
				CU_ASSERT_EQUAL(ev.kind, PT_REC_LOCK_RELEASED);
				CU_ASSERT_EQUAL(pt_rec_size(ev.rec), 16);
				head_only_locks++;
			} else if (ev.size == 16) {
				CU_ASSERT_PTR_NULL(PT_REC_PAYLOAD(ev.rec, pt_rec_lock));
				short_locks++;
			} else {
				long_locks++;
			}
		}
		if (ev.kind == PT_REC_THREAD_NAME) {
			/* the second one follows a compact record and a pad */
			CU_ASSERT_STRING_EQUAL(pt_event_string(&ev, 0), names ? "worker" : "main thread");
			CU_ASSERT_PTR_NULL(pt_event_string(&ev, 16)); /* past the payload */
			CU_ASSERT_PTR_NULL(pt_event_string(&ev, 1000));
			names++;
		}
		if (ev.kind == PT_REC_FUNC_DEF) {
			const pt_rec_func_def *fd = PT_REC_PAYLOAD(ev.rec, pt_rec_func_def);
			CU_ASSERT_EQUAL(fd->id, 7);
			CU_ASSERT_EQUAL(fd->line, 12);
			CU_ASSERT_STRING_EQUAL(pt_event_string(&ev, sizeof *fd), "_Z3fooi");
			CU_ASSERT_STRING_EQUAL(pt_event_string(&ev, sizeof *fd + 8), "main.c");
			defs++;
		}
		if (ev.kind == PT_REC_MODULE_MAP) {
			const pt_rec_module_map *m = PT_REC_PAYLOAD(ev.rec, pt_rec_module_map);
			CU_ASSERT_EQUAL(m->hi, 0x555500005000ull);
			CU_ASSERT_STRING_EQUAL(pt_event_string(&ev, sizeof *m + m->build_id_len),
					       "/tmp/testprog");
			maps++;
		}
		if (ev.kind == PT_REC_FUNC_EXIT && ev.func_id == PT_FUNC_ID_MAX)
			big_id++;
	}
	CU_ASSERT_EQUAL(ev.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(names, 3);
	CU_ASSERT_EQUAL(defs, 1);
	CU_ASSERT_EQUAL(maps, 1);
	CU_ASSERT_EQUAL(big_id, 1);
	CU_ASSERT_EQUAL(short_locks, 3);
	CU_ASSERT_EQUAL(long_locks, 3);
	CU_ASSERT_EQUAL(head_only_locks, 1);
	CU_ASSERT_EQUAL(compact_locks, 3);
	const pt_file_header *h = pt_log_header(log);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT_EQUAL(h->tid, 4712);
	CU_ASSERT_STRING_EQUAL(h->program, "testprog");
	pt_log_close(log);
	ptw_free(&w);
}

/* ---- feeding patterns ---------------------------------------------------- */

static void test_chunked_feeding_is_identical(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 1);
	result whole = read_mem(w.buf, w.len, 0, 1);
	result bytes = read_mem(w.buf, w.len, 1, 1);
	CU_ASSERT(same(&whole, &bytes));
	for (unsigned seed = 1; seed <= 50; seed++) {
		result rnd = read_mem(w.buf, w.len, -1, seed);
		CU_ASSERT(same(&whole, &rnd));
		free(rnd.ev);
	}
	char path[64];
	int fd = tmpfile_with(w.buf, w.len, path);
	result file = read_fd(fd, 0);
	CU_ASSERT(same(&whole, &file));
	close(fd);
	char err[256];
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL(log);
	pt_log_close(log);
	unlink(path);
	CU_ASSERT_PTR_NULL(pt_log_open_path("/nonexistent/x.ptl", 0, err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/x.ptl"));
	/* A pipe: no pread, plain reads. */
	int p[2];
	CU_ASSERT_FATAL(pipe(p) == 0);
	if (fork() == 0) {
		close(p[0]);
		ssize_t n = write(p[1], w.buf, w.len);
		_exit(n == (ssize_t)w.len ? 0 : 1);
	}
	close(p[1]);
	result piped = read_fd(p[0], 0);
	close(p[0]);
	CU_ASSERT(same(&whole, &piped));
	free(whole.ev);
	free(bytes.ev);
	free(file.ev);
	free(piped.ev);
	ptw_free(&w);
}

/* ---- truncation and damage ------------------------------------------------ */

static void test_truncation_at_every_length(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 2);
	for (size_t len = 0; len <= w.len; len++) {
		result r = read_mem(w.buf, len, (long)(len % 3) * 5, 1);
		if (len < sizeof(pt_file_header)) {
			CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
			CU_ASSERT_EQUAL(r.n, 0);
			free(r.ev);
			continue;
		}
		size_t complete = 0, end = sizeof(pt_file_header);
		for (size_t i = 0; i < w.nrecs; i++) {
			if (w.recs[i].offset + w.recs[i].size <= len) {
				complete++;
				end = w.recs[i].offset + w.recs[i].size;
			}
		}
		CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
		CU_ASSERT_EQUAL(r.n, complete);
		CU_ASSERT_EQUAL(r.truncated, len - end);
		CU_ASSERT_EQUAL(r.complete, len == w.len);
		free(r.ev);
	}
	/* The same through the file parser for a few lengths. */
	for (size_t len = 250; len < w.len; len += 37) {
		char path[64];
		int fd = tmpfile_with(w.buf, len, path);
		result a = read_fd(fd, 0);
		result b = read_mem(w.buf, len, 0, 1);
		CU_ASSERT(same(&a, &b));
		close(fd);
		unlink(path);
		free(a.ev);
		free(b.ev);
	}
	ptw_free(&w);
}

static void test_bit_flips_give_clean_states(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 4);
	uint8_t *copy = malloc(w.len);
	srand(12345);
	int errors = 0, eofs = 0;
	for (int i = 0; i < 6000; i++) {
		memcpy(copy, w.buf, w.len);
		int flips = 1 + rand() % 3;
		for (int f = 0; f < flips; f++) {
			size_t bit = (size_t)rand() % (w.len * 8);
			copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		result r = read_mem(copy, w.len, (i % 4) == 0 ? -1 : 0, (unsigned)i);
		CU_ASSERT(r.state == PT_LOG_EOF || r.state == PT_LOG_ERROR);
		/* Records are at least 4 bytes: never more events than that. */
		CU_ASSERT(r.n <= w.len / 4);
		for (size_t k = 1; k < r.n; k++) {
			CU_ASSERT(r.ev[k].offset > r.ev[k - 1].offset);
			CU_ASSERT_EQUAL(r.ev[k].serial, k);
		}
		if (r.state == PT_LOG_ERROR) {
			CU_ASSERT(r.error[0] != '\0');
			CU_ASSERT(r.offset <= w.len);
			errors++;
		} else {
			eofs++;
		}
		free(r.ev);
	}
	/* Both outcomes occur: the test exercises damage, not just noise. */
	CU_ASSERT(errors > 100);
	CU_ASSERT(eofs > 100);
	free(copy);
	ptw_free(&w);
}

static void test_end_of_data_marker(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 0);
	size_t without_close = w.recs[w.nrecs - 1].offset;
	/* A mapped file killed before close: records, then zeros. */
	uint8_t *buf = calloc(1, without_close + 4096 + 3);
	memcpy(buf, w.buf, without_close);
	result r = read_mem(buf, without_close + 4096 + 3, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(r.n, w.nrecs - 1);
	CU_ASSERT_EQUAL(r.complete, 0);
	CU_ASSERT_EQUAL(r.truncated, 0);
	CU_ASSERT_EQUAL(r.offset, without_close);
	free(r.ev);
	/* A zero tail shorter than a head is the same marker. */
	r = read_mem(buf, without_close + 3, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(r.truncated, 0);
	free(r.ev);
	/* A head with kind 0 but other bytes set is damage. */
	buf[without_close + 5] = 1;
	r = read_mem(buf, without_close + 4096, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	CU_ASSERT_EQUAL(r.offset, without_close);
	CU_ASSERT_EQUAL(r.n, w.nrecs - 1);
	free(r.ev);
	free(buf);
	ptw_free(&w);
}

static void test_header_errors(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 0);
	uint8_t *b = malloc(w.len);
	pt_file_header *h = (pt_file_header *)b;
	result r;

	memcpy(b, w.buf, w.len);
	memcpy(h->magic, "ELF\x7f....", 8);
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "magic"));
	free(r.ev);
	/* Foreign data is recognised from its first bytes. */
	r = read_mem(b, 3, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	free(r.ev);

	memcpy(b, w.buf, w.len);
	h->version_major = PT_FORMAT_VERSION_MAJOR + 1;
	h->version_minor = 3;
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	char want[96];
	snprintf(want, sizeof want, "format version %d.3 is newer than this reader (%d.%d)",
		 PT_FORMAT_VERSION_MAJOR + 1, PT_FORMAT_VERSION_MAJOR, PT_FORMAT_VERSION_MINOR);
	CU_ASSERT_STRING_EQUAL(r.error, want);
	CU_ASSERT_EQUAL(r.n, 0);
	free(r.ev);

	memcpy(b, w.buf, w.len);
	h->version_minor = 7; /* newer minor: readable */
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(r.n, w.nrecs);
	free(r.ev);

	memcpy(b, w.buf, w.len);
	h->byte_order = PT_BYTE_ORDER_BIG;
	h->version_major = 0x100; /* what a big-endian 1 reads as */
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "big-endian"));
	free(r.ev);

	memcpy(b, w.buf, w.len);
	h->header_size = 100;
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "header size"));
	free(r.ev);

	memcpy(b, w.buf, w.len);
	h->tick_mult = 0;
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	free(r.ev);

	/* A larger header (future fields): records start at header_size. */
	{
		size_t extra = 64;
		uint8_t *big = calloc(1, w.len + extra);
		memcpy(big, w.buf, sizeof *h);
		((pt_file_header *)big)->header_size = sizeof *h + extra;
		memcpy(big + sizeof *h + extra, w.buf + sizeof *h, w.len - sizeof *h);
		r = read_mem(big, w.len + extra, 1, 1);
		CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
		CU_ASSERT_EQUAL_FATAL(r.n, w.nrecs);
		CU_ASSERT_EQUAL(r.ev[0].offset, sizeof *h + extra);
		free(r.ev);
		free(big);
	}

	/* Empty input. */
	r = read_mem(b, 0, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "empty"));
	free(r.ev);
	free(b);
	ptw_free(&w);
}

static void test_record_errors(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 0);
	uint8_t *b = malloc(w.len);
	/* size8 == 0 on a sized kind: corruption at that record's offset. */
	size_t idx = 5; /* past TIME, THREAD_START, THREAD_NAME, ... */
	while (pt_rec_is_func(w.recs[idx].kind))
		idx++;
	memcpy(b, w.buf, w.len);
	((pt_rec_head *)(b + w.recs[idx].offset))->size8 = 0;
	result r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	CU_ASSERT_EQUAL(r.offset, w.recs[idx].offset);
	CU_ASSERT_EQUAL(r.n, idx); /* every record before the damage */
	CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "size 0"));
	free(r.ev);
	/* A known kind too small for its payload. */
	size_t lock = 0;
	while (w.recs[lock].kind != PT_REC_LOCK_REQUEST)
		lock++;
	memcpy(b, w.buf, w.len);
	((pt_rec_head *)(b + w.recs[lock].offset))->size8 = 1;
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
	CU_ASSERT_EQUAL(r.offset, w.recs[lock].offset);
	CU_ASSERT_EQUAL(r.n, lock);
	free(r.ev);
	/* A LOCK_RELEASED of 8 bytes (1.2) with no LOCK_ACQUIRED before it in
	 * the file has no object to stand for. */
	{
		ptw s;
		uint64_t t = 1000;
		ptw_begin(&s, PT_FILE_THREAD, 1, 2, t, 5000000000ull, 3, 1);
		ptw_time(&s, t);
		ptw_func(&s, PT_REC_FUNC_ENTER, 1, t += 5);
		ptw_rec(&s, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, t += 5, NULL, 0);
		ptw_close(&s, t += 5);
		r = read_mem(s.buf, s.len, 0, 1);
		CU_ASSERT_EQUAL(r.state, PT_LOG_ERROR);
		CU_ASSERT_EQUAL(r.offset, s.recs[2].offset);
		CU_ASSERT_EQUAL(r.n, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.error, "no LOCK_ACQUIRED before it"));
		free(r.ev);
		ptw_free(&s);
	}
	/* A size running past the end is a truncated last record. */
	memcpy(b, w.buf, w.len);
	size_t last = w.nrecs - 1;
	((pt_rec_head *)(b + w.recs[last].offset))->size8 = 100;
	r = read_mem(b, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(r.truncated, w.len - w.recs[last].offset);
	CU_ASSERT_EQUAL(r.complete, 0);
	free(r.ev);
	free(b);
	ptw_free(&w);
}

/* A sample log of an older major version reads whole, each record at a
 * multiple of `align` bytes and at least that long. */
static void check_older_sample(unsigned major, size_t align)
{
	ptw w;
	ptw_sample_thread_log_major(&w, 5, major);
	result r = read_mem(w.buf, w.len, -1, 7);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(r.complete, 1);
	CU_ASSERT_EQUAL_FATAL(r.n, w.nrecs);
	for (size_t i = 0; i < r.n; i++) {
		CU_ASSERT_EQUAL(r.ev[i].offset % align, 0);
		CU_ASSERT(r.ev[i].size >= align);
		CU_ASSERT_EQUAL(r.ev[i].func_id, w.recs[i].func_id);
	}
	free(r.ev);
	ptw_free(&w);
}

typedef struct damage {
	const char *what;
	int state, n;      /* final state, records delivered before it */
	const char *error; /* a part of the error message; NULL: not checked */
	int truncated;     /* -1: not checked */
} damage;

/* Reads buf[0, len) whole and byte by byte: the same events both ways, and
 * the final state the case expects. The caller frees r.ev. */
static result check_damage(const uint8_t *buf, size_t len, const damage *d)
{
	result r = read_mem(buf, len, 0, 1);
	if ((int)r.state != d->state || (int)r.n != d->n)
		printf("\n%s: state %d, %zu records (%s)\n", d->what, r.state, r.n, r.error);
	CU_ASSERT_EQUAL(r.state, d->state);
	CU_ASSERT_EQUAL(r.n, d->n);
	if (d->error)
		CU_ASSERT_PTR_NOT_NULL(strstr(r.error, d->error));
	if (d->truncated >= 0)
		CU_ASSERT_EQUAL(r.truncated, (uint64_t)d->truncated);
	result bytes = read_mem(buf, len, 1, 1);
	CU_ASSERT(same(&r, &bytes));
	free(bytes.ev);
	return r;
}

/* Format 2.0's compact records and pad words, and 1.x logs, which have
 * neither. */
static void test_compact_records(void)
{
	/* A 1.x log reads as before: the sample without compact records. */
	check_older_sample(1, 8);
	/* In a 1.x log a first byte with bit 7 set is an unknown kind. */
	ptw w;
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	ptw_set_major(&w, 1);
	uint64_t v = 42;
	ptw_rec(&w, 0xc5, 0, 101, &v, sizeof v);
	ptw_close(&w, 102);
	result r = read_mem(w.buf, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL_FATAL(r.n, 2);
	CU_ASSERT_EQUAL(r.ev[0].kind, 0xc5);
	CU_ASSERT_EQUAL(r.ev[0].size, 16);
	free(r.ev);
	ptw_free(&w);

	/* 2.0 damage: one compact record, then what the case appends. */
	static const struct {
		damage d;
		uint32_t words[4];
		int nwords;
	} cases[] = {
		{{"unknown compact kind", PT_LOG_ERROR, 1, "unknown compact record", -1}, {0x00001c5}, 1},
		{{"pad at a multiple of 8", PT_LOG_ERROR, 1, "pad word", -1},
		 {PT_COMPACT_PAD, PT_COMPACT_PAD}, 2},
		{{"pad with a delta", PT_LOG_ERROR, 1, "unknown compact", -1},
		 {PT_COMPACT_PAD | 5u << 20}, 1},
		{{"compact release, nothing acquired before", PT_LOG_ERROR, 1, "without a LOCK_ACQUIRED",
		  -1}, {0x00050194}, 1},
		{{"payload record at 4 modulo 8", PT_LOG_ERROR, 1, "not a multiple of 8", -1},
		 {PT_REC_THREAD_NAME | 2u << 16, 0, 0x41, 0}, 4},
		{{"pad, then the end-of-data zeros", PT_LOG_EOF, 1, NULL, 0}, {PT_COMPACT_PAD, 0, 0, 0}, 4},
		{{"8-byte function record at 4 modulo 8", PT_LOG_EOF, 2, NULL, 0},
		 {PT_REC_FUNC_EXIT | 9u << 8, 77}, 2},
		{{"compact record cut short", PT_LOG_EOF, 0, NULL, 2}, {0}, 0},
		/* found by the fuzzer: a pad's bytes counted for a later
		 * truncation when fed in pieces, not when fed whole */
		{{"pad, compact record, record cut short", PT_LOG_EOF, 2, NULL, 4},
		 {PT_COMPACT_PAD, 0x00100981, 0x00000301}, 3},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
		ptw_set_major(&w, 2);
		ptw_func(&w, PT_REC_FUNC_ENTER, 9, 110);
		CU_ASSERT_EQUAL(w.len % 8, 4);
		ptw_put(&w, cases[c].words, (size_t)cases[c].nwords * 4);
		size_t len = cases[c].nwords ? w.len : w.len - 2;
		r = check_damage(w.buf, len, &cases[c].d);
		if (r.n == 2 && r.ev[1].size == 8) {
			CU_ASSERT_EQUAL(r.ev[1].ticks, 110 + 77);
			CU_ASSERT_EQUAL(r.ev[1].func_id, 9);
			CU_ASSERT_EQUAL(r.ev[1].offset % 8, 4);
		}
		free(r.ev);
		ptw_free(&w);
	}
}

/* A compact MPI record (3.3): its word, delta included, then its fields. */
static void put_mpi_c(ptw *w, uint32_t word, unsigned shift, uint64_t ticks, const void *f,
                      size_t len)
{
	word |= (uint32_t)(ticks - w->ticks) << shift;
	ptw_put(w, &word, sizeof word);
	ptw_put(w, f, len);
	w->ticks = ticks;
}

/* Format 3.3's compact MPI records read as the full records they stand
 * for: the call and a blocking receive's posted time from the file's last
 * MPI_CALL, which a LOST record forgets; a 3.2 log has none of them. */
static void test_mpi_compact_records(void)
{
	ptw w;
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	ptw_func(&w, PT_REC_FUNC_ENTER, 9, 105); /* the words start at 4 modulo 8 */
	uint32_t flag = PT_COMPACT_FLAG;
	/* MPI_Recv: its MPI_CALL, the message posted at that time, its end */
	put_mpi_c(&w, flag | PT_REC_MPI_CALL_C | PT_MPI_CALL_Recv << 8, PT_MPI_CALL_C_SHIFT, 110,
	          NULL, 0);
	pt_mpi_c_msg m = {3, 7, 4096, 0, 0, 0};
	put_mpi_c(&w, flag | PT_REC_MPI_RECV_C, PT_MPI_C_SHIFT, 150, &m, 12);
	put_mpi_c(&w, flag | PT_REC_MPI_CALL_END_C, PT_MPI_END_C_SHIFT, 150, NULL, 0);
	/* MPI_Isend on MPI_COMM_SELF with its request */
	put_mpi_c(&w, flag | PT_REC_MPI_CALL_C | PT_MPI_CALL_Isend << 8, PT_MPI_CALL_C_SHIFT, 160,
	          NULL, 0);
	pt_mpi_c_msg s = {0, -5, 8, 0x9abcdef0u, 0x12345678u, 0};
	put_mpi_c(&w, flag | PT_REC_MPI_SEND_C | PT_MPI_C_SELF | PT_MPI_C_REQUEST, PT_MPI_C_SHIFT,
	          170, &s, 20);
	/* a full MPI_CALL (MPI_Waitall), a receive its request posted 40
	 * ticks before it, an MPI_Iallreduce's bytes */
	ptw_align(&w);
	ptw_rec(&w, PT_REC_MPI_CALL, PT_MPI_CALL_Waitall, 200, NULL, 0);
	pt_mpi_c_msg q = {1, 2, 3, 0x1000, 0, 40};
	put_mpi_c(&w, flag | PT_REC_MPI_RECV_C | PT_MPI_C_REQUEST, PT_MPI_C_SHIFT, 210, &q, 24);
	pt_mpi_c_coll c = {-1, 4, 8, 32, 0x2000, 0};
	put_mpi_c(&w, flag | PT_REC_MPI_COLL_C | PT_MPI_C_REQUEST, PT_MPI_C_SHIFT, 220, &c, 24);
	size_t before_lost = w.len;
	ptw_close(&w, 230);
	result r = read_mem(w.buf, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	if (r.n != 10)
		printf("\n%zu records, state %d: %s\n", r.n, r.state, r.error);
	CU_ASSERT_EQUAL_FATAL(r.n, 10);
	static const unsigned kinds[] = {PT_REC_FUNC_ENTER,   PT_REC_MPI_CALL, PT_REC_MPI_RECV,
	                                 PT_REC_MPI_CALL_END, PT_REC_MPI_CALL, PT_REC_MPI_SEND,
	                                 PT_REC_MPI_CALL,     PT_REC_MPI_RECV, PT_REC_MPI_COLL,
	                                 PT_REC_CLOSE};
	static const size_t sizes[] = {4, 4, 16, 4, 4, 24, 8, 28, 28, 32};
	static const uint64_t ticks[] = {105, 110, 150, 150, 160, 170, 200, 210, 220, 230};
	for (size_t i = 0; i < r.n; i++) {
		CU_ASSERT_EQUAL(r.ev[i].kind, kinds[i]);
		CU_ASSERT_EQUAL(r.ev[i].size, sizes[i]);
		CU_ASSERT_EQUAL(r.ev[i].ticks, ticks[i]);
	}
	const pt_rec_head *h = (const pt_rec_head *)(const void *)r.ev[2].bytes;
	/* the test's copy of the record is 4-byte aligned: read the payload
	 * out of it */
	pt_rec_mpi_msg got_msg;
	memcpy(&got_msg, h + 1, sizeof got_msg);
	const pt_rec_mpi_msg *got = &got_msg;
	CU_ASSERT_EQUAL(h->arg, PT_MPI_CALL_Recv);
	CU_ASSERT_EQUAL(pt_rec_size(h), sizeof *h + sizeof *got);
	CU_ASSERT(got->peer == 3 && got->tag == 7 && got->bytes == 4096);
	CU_ASSERT(got->comm == PT_MPI_COMM_WORLD_ID && got->request == 0 && got->posted == 110);
	h = (const pt_rec_head *)(const void *)r.ev[3].bytes;
	CU_ASSERT_EQUAL(h->arg, PT_MPI_CALL_Recv);
	h = (const pt_rec_head *)(const void *)r.ev[5].bytes;
	memcpy(&got_msg, h + 1, sizeof got_msg);
	CU_ASSERT_EQUAL(h->arg, PT_MPI_CALL_Isend);
	CU_ASSERT(got->peer == 0 && got->tag == -5 && got->bytes == 8);
	CU_ASSERT(got->comm == PT_MPI_COMM_SELF_ID && got->request == 0x123456789abcdef0ull);
	CU_ASSERT_EQUAL(got->posted, 0);
	h = (const pt_rec_head *)(const void *)r.ev[7].bytes;
	memcpy(&got_msg, h + 1, sizeof got_msg);
	CU_ASSERT_EQUAL(h->arg, PT_MPI_CALL_Waitall);
	CU_ASSERT(got->request == 0x1000 && got->posted == 160);
	h = (const pt_rec_head *)(const void *)r.ev[8].bytes;
	pt_rec_mpi_coll coll_v;
	memcpy(&coll_v, h + 1, sizeof coll_v);
	const pt_rec_mpi_coll *coll = &coll_v;
	CU_ASSERT_EQUAL(h->arg, PT_MPI_CALL_Waitall);
	CU_ASSERT(coll->comm == PT_MPI_COMM_WORLD_ID && coll->root == -1 && coll->size == 4);
	CU_ASSERT(coll->sent == 8 && coll->recvd == 32 && coll->request == 0x2000);
	free(r.ev);
	/* byte by byte, the same */
	result whole = read_mem(w.buf, w.len, 0, 1), bytes = read_mem(w.buf, w.len, 1, 1);
	CU_ASSERT(same(&whole, &bytes));
	free(whole.ev);
	free(bytes.ev);

	/* after a LOST the call is forgotten: a compact end is damage */
	w.len = before_lost;
	w.ticks = 220;
	pt_rec_lost lo = {1, 8, PT_LOST_NO_SPACE, 0};
	ptw_rec(&w, PT_REC_LOST, 0, 225, &lo, sizeof lo);
	put_mpi_c(&w, flag | PT_REC_MPI_CALL_END_C, PT_MPI_END_C_SHIFT, 226, NULL, 0);
	static const damage forgot = {"compact end after a LOST", PT_LOG_ERROR, 10,
	                              "without an MPI_CALL before it", -1};
	free(check_damage(w.buf, w.len, &forgot).ev);
	ptw_free(&w);

	/* a 3.2 log: an unknown compact record */
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	w.hdr.version_minor = 2;
	((pt_file_header *)(void *)w.buf)->version_minor = 2;
	put_mpi_c(&w, flag | PT_REC_MPI_CALL_C | PT_MPI_CALL_Send << 8, PT_MPI_CALL_C_SHIFT, 110,
	          NULL, 0);
	static const damage old = {"compact MPI record in a 3.2 log", PT_LOG_ERROR, 0,
	                           "unknown compact record", -1};
	free(check_damage(w.buf, w.len, &old).ev);
	ptw_free(&w);
}

/* One MPI call of the sequence below: its record of what it moved
 * (kind 0: none), written full in one log and, in the other, as the
 * writer would: repeated (rep) or full. */
typedef struct mpi_step {
	unsigned call, kind;
	int rep;
	int32_t peer, tag;             /* MPI_COLL: root, size */
	uint64_t bytes, request, back; /* MPI_COLL: sent = recvd = bytes; back: posted before */
	int lost;                      /* a LOST record before the call */
} mpi_step;

static void put_mpi_step(ptw *w, const mpi_step *s, uint64_t at, int repeated)
{
	uint32_t flag = PT_COMPACT_FLAG;
	if (s->lost) {
		ptw_align(w);
		pt_rec_lost lo = {1, 8, PT_LOST_NO_SPACE, 0};
		ptw_rec(w, PT_REC_LOST, 0, at - 1, &lo, sizeof lo);
	}
	if (repeated) {
		put_mpi_c(w, flag | PT_REC_MPI_CALL_C | s->call << 8, PT_MPI_CALL_C_SHIFT, at, NULL,
		          0);
	} else {
		ptw_align(w);
		ptw_rec(w, PT_REC_MPI_CALL, s->call, at, NULL, 0);
	}
	if (s->kind && repeated && s->rep) {
		unsigned r = s->kind == PT_REC_MPI_SEND    ? PT_REC_MPI_SEND_R
		             : s->kind == PT_REC_MPI_RECV  ? PT_REC_MPI_RECV_R
		             : s->kind == PT_REC_MPI_IRECV ? PT_REC_MPI_IRECV_R
		                                           : PT_REC_MPI_COLL_R;
		uint32_t f[3] = {(uint32_t)s->request, (uint32_t)(s->request >> 32),
		                 (uint32_t)s->back};
		size_t len = s->request ? (s->kind == PT_REC_MPI_RECV ? 12 : 8) : 0;
		put_mpi_c(w, flag | r | (s->request ? PT_MPI_R_REQUEST : 0), PT_MPI_R_SHIFT, at + 5,
		          f, len);
	} else if (s->kind == PT_REC_MPI_COLL) {
		ptw_align(w);
		pt_rec_mpi_coll c = {PT_MPI_COMM_WORLD_ID,
		                     s->peer,
		                     (uint32_t)s->tag,
		                     s->bytes,
		                     s->bytes,
		                     s->request};
		ptw_rec(w, s->kind, s->call, at + 5, &c, sizeof c);
	} else if (s->kind) {
		ptw_align(w);
		uint64_t posted = s->kind == PT_REC_MPI_RECV ? at - s->back : 0;
		pt_rec_mpi_msg m = {s->peer,    s->tag, s->bytes, PT_MPI_COMM_WORLD_ID,
		                    s->request, posted};
		ptw_rec(w, s->kind, s->call, at + 5, &m, sizeof m);
	}
	if (repeated) {
		put_mpi_c(w, flag | PT_REC_MPI_CALL_END_C, PT_MPI_END_C_SHIFT, at + 5, NULL, 0);
	} else {
		ptw_align(w);
		ptw_rec(w, PT_REC_MPI_CALL_END, s->call, at + 5, NULL, 0);
	}
}

/* Format 3.6's repeated MPI records read exactly as the full records they
 * stand for (the same kinds, times, calls and fields): a loop of one
 * message, messages that change every other call, requests, a receive
 * posted before its Wait, a collective, and a LOST record between a record
 * and its repetition (readers keep the last of each kind across it). */
static void test_mpi_repeated_records(void)
{
	enum {
		S = PT_REC_MPI_SEND,
		R = PT_REC_MPI_RECV,
		I = PT_REC_MPI_IRECV,
		C = PT_REC_MPI_COLL
	};
	static const mpi_step steps[] = {
	    {PT_MPI_CALL_Send, S, 0, 1, 10, 8, 0, 0, 0},
	    {PT_MPI_CALL_Send, S, 1, 1, 10, 8, 0, 0, 0},
	    {PT_MPI_CALL_Send, S, 1, 1, 10, 8, 0, 0, 0},
	    {PT_MPI_CALL_Recv, R, 0, 1, 10, 8, 0, 0, 0},
	    {PT_MPI_CALL_Recv, R, 1, 1, 10, 8, 0, 0, 0},
	    {PT_MPI_CALL_Comm_rank, 0, 0, 0, 0, 0, 0, 0, 0},
	    {PT_MPI_CALL_Send, S, 0, 1, 11, 16, 0, 0, 0}, /* every other call */
	    {PT_MPI_CALL_Send, S, 0, 1, 10, 8, 0, 0, 0},
	    {PT_MPI_CALL_Send, S, 0, 1, 11, 16, 0, 0, 0},
	    {PT_MPI_CALL_Send, S, 1, 1, 11, 16, 0, 0, 0},
	    {PT_MPI_CALL_Allreduce, C, 0, -1, 2, 8, 0, 0, 0},
	    {PT_MPI_CALL_Allreduce, C, 1, -1, 2, 8, 0, 0, 0},
	    {PT_MPI_CALL_Iallreduce, C, 1, -1, 2, 8, 0x2000, 0, 0},
	    {PT_MPI_CALL_Irecv, I, 0, 1, 12, 16, 0x1000, 0, 0},
	    {PT_MPI_CALL_Irecv, I, 1, 1, 12, 16, 0x1008, 0, 0},
	    {PT_MPI_CALL_Waitall, R, 0, 1, 12, 16, 0x1000, 30, 0},
	    {PT_MPI_CALL_Waitall, R, 1, 1, 12, 16, 0x1008, 20, 0},
	    {PT_MPI_CALL_Send, S, 1, 1, 11, 16, 0, 0, 1}, /* after a LOST */
	    {PT_MPI_CALL_Isend, S, 1, 1, 11, 16, 0x3000, 0, 0},
	};
	size_t n = sizeof steps / sizeof steps[0];
	ptw full, rep;
	ptw_begin(&full, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	ptw_begin(&rep, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	for (size_t i = 0; i < n; i++) {
		put_mpi_step(&full, &steps[i], 200 + 50 * i, 0);
		put_mpi_step(&rep, &steps[i], 200 + 50 * i, 1);
	}
	ptw_align(&rep);
	ptw_close(&full, 200 + 50 * n);
	ptw_close(&rep, 200 + 50 * n);
	if (rep.len >= full.len * 2 / 3)
		printf("\nrepeated %zu bytes, full %zu\n", rep.len, full.len);
	CU_ASSERT(rep.len < full.len * 2 / 3);
	result a = read_mem(full.buf, full.len, 0, 1), b = read_mem(rep.buf, rep.len, 0, 1);
	CU_ASSERT_EQUAL(a.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(b.state, PT_LOG_EOF);
	if (b.state != PT_LOG_EOF)
		printf("\n%zu records, state %d: %s\n", b.n, b.state, b.error);
	CU_ASSERT_EQUAL_FATAL(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		CU_ASSERT_EQUAL(a.ev[i].kind, b.ev[i].kind);
		CU_ASSERT_EQUAL(a.ev[i].ticks, b.ev[i].ticks);
		CU_ASSERT(memcmp(a.ev[i].bytes, b.ev[i].bytes, sizeof a.ev[i].bytes) == 0);
	}
	/* byte by byte, the same */
	result bytes = read_mem(rep.buf, rep.len, 1, 1);
	CU_ASSERT(same(&b, &bytes));
	free(a.ev);
	free(b.ev);
	free(bytes.ev);
	ptw_free(&full);
	ptw_free(&rep);

	/* a repeated record with nothing of its kind before it is damage */
	ptw_begin(&rep, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	put_mpi_c(&rep, PT_COMPACT_FLAG | PT_REC_MPI_CALL_C | PT_MPI_CALL_Send << 8,
	          PT_MPI_CALL_C_SHIFT, 110, NULL, 0);
	put_mpi_c(&rep, PT_COMPACT_FLAG | PT_REC_MPI_SEND_R, PT_MPI_R_SHIFT, 120, NULL, 0);
	static const damage none = {"repeated send without a send", PT_LOG_ERROR, 1,
	                            "MPI_SEND_R without a MPI_SEND before it", -1};
	free(check_damage(rep.buf, rep.len, &none).ev);
	ptw_free(&rep);
}

/* One call of the I/O and memory sequence below, written in both forms. */
typedef struct io_step {
	unsigned kind, arg;
	uint64_t ticks;
	uint64_t a, b, c; /* IO_CALL: fd, file, size; IO_END: result; MEM_ALLOC: ptr, size,
	                     caller; MEM_FREE: ptr */
} io_step;

static void put_io_step(ptw *w, const io_step *s, int compact)
{
	if (!compact) {
		if (s->kind == PT_REC_IO_CALL) {
			pt_rec_io_call r = {s->c, (int32_t)s->a, (uint32_t)s->b};
			ptw_rec(w, s->kind, s->arg, s->ticks, &r, sizeof r);
		} else if (s->kind == PT_REC_IO_END) {
			int64_t r = (int64_t)s->a;
			ptw_rec(w, s->kind, s->arg, s->ticks, &r, sizeof r);
		} else if (s->kind == PT_REC_MEM_ALLOC) {
			pt_rec_mem_alloc r = {s->a, s->b, s->c, 0};
			ptw_rec(w, s->kind, s->arg, s->ticks, &r, PT_REC_MEM_ALLOC_MIN);
		} else {
			pt_rec_mem_free r = {s->a};
			ptw_rec(w, s->kind, s->arg, s->ticks, &r, sizeof r);
		}
		return;
	}
	uint32_t flag = PT_COMPACT_FLAG;
	if (s->kind == PT_REC_IO_CALL) {
		pt_io_c_call c = {(uint16_t)s->a, (uint16_t)s->b, (uint32_t)s->c};
		put_mpi_c(w, flag | PT_REC_IO_CALL_C | s->arg << 8, PT_IO_C_SHIFT, s->ticks, &c,
		          sizeof c);
	} else if (s->kind == PT_REC_IO_END) {
		uint32_t r = (uint32_t)s->a;
		put_mpi_c(w, flag | PT_REC_IO_END_C | s->arg << 8, PT_IO_C_SHIFT, s->ticks, &r,
		          sizeof r);
	} else if (s->kind == PT_REC_MEM_ALLOC) {
		pt_mem_c_alloc c;
		pt_c_addr_put(c.ptr, s->a);
		pt_c_addr_put(c.caller, s->c);
		c.size[0] = (uint16_t)s->b;
		c.size[1] = (uint16_t)(s->b >> 16);
		put_mpi_c(w, flag | PT_REC_MEM_ALLOC_C | s->arg << 8, PT_MEM_ALLOC_C_SHIFT, s->ticks,
		          &c, sizeof c);
	} else {
		uint16_t c[3];
		pt_c_addr_put(c, s->a);
		put_mpi_c(w, flag | PT_REC_MEM_FREE_C, PT_MEM_FREE_C_SHIFT, s->ticks, c, sizeof c);
	}
}

/* Format 3.5's compact I/O and memory records read exactly as the full
 * records they stand for (3.4 logs have only those), the largest values
 * each field holds included; a 3.4 log holds none of them. */
static void test_io_compact_records(void)
{
	static const io_step steps[] = {
	    {PT_REC_IO_CALL, PT_IO_OP_PREAD, 110, 3, 2, 4096},
	    {PT_REC_IO_END, PT_IO_OP_PREAD, 3000, 4096, 0, 0},
	    {PT_REC_MEM_ALLOC, PT_MEM_OP_MALLOC, 3100, 0x555512345670ull, 64, 0x7f123456789aull},
	    {PT_REC_MEM_FREE, PT_MEM_OP_FREE, 3150, 0x555512345670ull, 0, 0},
	    {PT_REC_IO_CALL, PT_IO_OP_FDOPEN, 3200, 65535, 65535, 0xffffffffull},
	    {PT_REC_IO_END, PT_IO_OP_FDOPEN, 3200 + (1u << 19) - 1, 0xffffffffull, 0, 0},
	    {PT_REC_MEM_ALLOC, PT_MEM_OP_VALLOC, 600000, 0xfffffffffff0ull, 0xffffffffull, 0},
	    {PT_REC_MEM_FREE, PT_MEM_OP_FREE, 600000 + (1u << 24) - 1, 0, 0, 0},
	};
	size_t nsteps = sizeof steps / sizeof steps[0];
	result got[2];
	ptw w[2];
	for (int compact = 0; compact < 2; compact++) {
		ptw *x = &w[compact];
		ptw_begin(x, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
		ptw_func(x, PT_REC_FUNC_ENTER, 9, 105); /* the words start at 4 modulo 8 */
		for (size_t i = 0; i < nsteps; i++)
			put_io_step(x, &steps[i], compact);
		ptw_close(x, 20000000);
		got[compact] = read_mem(x->buf, x->len, 0, 1);
		CU_ASSERT_EQUAL(got[compact].state, PT_LOG_EOF);
		CU_ASSERT_EQUAL_FATAL(got[compact].n, nsteps + 2);
	}
	CU_ASSERT(w[1].len < w[0].len);
	static const size_t csizes[] = {12, 8, 20, 10};
	for (size_t i = 0; i < nsteps + 2; i++) {
		seen *f = &got[0].ev[i], *c = &got[1].ev[i];
		CU_ASSERT_EQUAL(c->kind, f->kind);
		CU_ASSERT_EQUAL(c->ticks, f->ticks);
		const pt_rec_head *h = (const pt_rec_head *)(const void *)f->bytes;
		CU_ASSERT(memcmp(c->bytes, f->bytes, pt_rec_size(h)) == 0);
		if (i >= 1 && i <= nsteps) {
			CU_ASSERT_EQUAL(f->kind, steps[i - 1].kind);
			CU_ASSERT_EQUAL(f->ticks, steps[i - 1].ticks);
			CU_ASSERT_EQUAL(h->arg, steps[i - 1].arg);
			CU_ASSERT_EQUAL(c->size, csizes[(i - 1) % 4]);
		}
	}
	const pt_rec_head *h = (const pt_rec_head *)(const void *)got[1].ev[3].bytes;
	pt_rec_mem_alloc a;
	memcpy(&a, h + 1, PT_REC_MEM_ALLOC_MIN);
	CU_ASSERT(a.ptr == 0x555512345670ull && a.size == 64 && a.caller == 0x7f123456789aull);
	CU_ASSERT_EQUAL(pt_rec_size(h), sizeof *h + PT_REC_MEM_ALLOC_MIN);
	/* byte by byte, the same */
	result bytes = read_mem(w[1].buf, w[1].len, 1, 1);
	CU_ASSERT(same(&got[1], &bytes));
	free(bytes.ev);
	for (int i = 0; i < 2; i++) {
		free(got[i].ev);
		ptw_free(&w[i]);
	}

	/* a 3.4 log: an unknown compact record */
	ptw old;
	ptw_begin(&old, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	old.hdr.version_minor = 4;
	((pt_file_header *)(void *)old.buf)->version_minor = 4;
	put_io_step(&old, &steps[0], 1);
	static const damage unknown = {"compact I/O record in a 3.4 log", PT_LOG_ERROR, 0,
	                               "unknown compact record", -1};
	free(check_damage(old.buf, old.len, &unknown).ev);
	ptw_free(&old);
}

/* Format 3.8's FUNC_LANDED: 16 bytes at a multiple of 8 (after 2-byte
 * pads), delivered with its function's id in func_id, whole or byte by
 * byte. It is not the file's previous function record: a short record
 * after it is of the function before it. One without its id is damage. */
static void test_landed_record(void)
{
	ptw w;
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	ptw_func(&w, PT_REC_FUNC_ENTER, 9, 110);          /* compact: 4 bytes */
	ptw_func(&w, PT_REC_FUNC_ENTER, 0xabcdef, 120);   /* 8 bytes at 4 modulo 8 */
	pt_rec_landed l = {9, 0};
	ptw_rec(&w, PT_REC_FUNC_LANDED, 0, 130, &l, sizeof l);
	ptw_func(&w, PT_REC_FUNC_EXIT, 0xabcdef, 131);    /* short: 2 bytes */
	l.id = PT_FUNC_ID_MAX;
	ptw_rec(&w, PT_REC_FUNC_LANDED, 0, 140, &l, sizeof l);
	ptw_func(&w, PT_REC_FUNC_EXIT, 9, 150);
	ptw_close(&w, 160);
	result r = read_mem(w.buf, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL_FATAL(r.n, 7);
	static const struct {
		unsigned kind;
		uint32_t id;
		uint64_t ticks;
		size_t size;
	} want[] = {{PT_REC_FUNC_ENTER, 9, 110, 4},
	            {PT_REC_FUNC_ENTER, 0xabcdef, 120, 8},
	            {PT_REC_FUNC_LANDED, 9, 130, 16},
	            {PT_REC_FUNC_EXIT, 0xabcdef, 131, 2},
	            {PT_REC_FUNC_LANDED, PT_FUNC_ID_MAX, 140, 16},
	            {PT_REC_FUNC_EXIT, 9, 150, 4},
	            {PT_REC_CLOSE, 0, 160, PT_REC_SIZE(CLOSE)}};
	for (size_t i = 0; i < r.n; i++) {
		CU_ASSERT_EQUAL(r.ev[i].kind, want[i].kind);
		CU_ASSERT_EQUAL(r.ev[i].func_id, want[i].id);
		CU_ASSERT_EQUAL(r.ev[i].ticks, want[i].ticks);
		CU_ASSERT_EQUAL(r.ev[i].size, want[i].size);
		if (want[i].kind == PT_REC_FUNC_LANDED)
			CU_ASSERT_EQUAL(r.ev[i].offset % 8, 0);
	}
	CU_ASSERT_STRING_EQUAL(pt_rec_kind_name(PT_REC_FUNC_LANDED), "FUNC_LANDED");
	result bytes = read_mem(w.buf, w.len, 1, 1);
	CU_ASSERT(same(&r, &bytes));
	free(bytes.ev);
	free(r.ev);
	ptw_free(&w);

	/* its head alone: no function id */
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	ptw_func(&w, PT_REC_FUNC_ENTER, 9, 110);
	ptw_rec(&w, PT_REC_FUNC_LANDED, 0, 130, NULL, 0);
	static const damage bare = {"FUNC_LANDED without its id", PT_LOG_ERROR, 1,
	                            "FUNC_LANDED record too small", -1};
	free(check_damage(w.buf, w.len, &bare).ev);
	ptw_free(&w);
}

/* Format 3.7's MEM_FREE_S: the free of the block the file's last
 * MEM_ALLOC returned (a full one, a compact one, a realloc's), in 4 bytes,
 * read exactly as the full MEM_FREE; one with no MEM_ALLOC before it, or
 * only one before a LOST, is damage, and so is one in a 3.6 log. */
static void test_mem_free_short(void)
{
	static const uint64_t P = 0x555512345670ull, Q = 0x555512345700ull, S = 0x7f0000001000ull;
	ptw w[2];
	for (int s = 0; s < 2; s++) {
		ptw *x = &w[s];
		ptw_begin(x, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
		ptw_func(x, PT_REC_FUNC_ENTER, 9, 105); /* the words start at 4 modulo 8 */
		io_step a = {PT_REC_MEM_ALLOC, PT_MEM_OP_MALLOC, 110, P, 64, 0x7f123456789aull};
		put_io_step(x, &a, 0); /* a full MEM_ALLOC */
		io_step f = {PT_REC_MEM_FREE, PT_MEM_OP_FREE, 120, P, 0, 0};
		uint32_t fs = PT_COMPACT_FLAG | PT_REC_MEM_FREE_S;
		if (s)
			put_mpi_c(x, fs, PT_MEM_FREE_S_SHIFT, f.ticks, NULL, 0);
		else
			put_io_step(x, &f, 0);
		io_step b = {PT_REC_MEM_ALLOC, PT_MEM_OP_CALLOC, 130, Q, 100, 0x7f123456789bull};
		put_io_step(x, &b, 1); /* a compact one */
		io_step g = {PT_REC_MEM_FREE, PT_MEM_OP_FREE, 130 + (1u << 24) - 1, Q, 0, 0};
		if (s)
			put_mpi_c(x, fs, PT_MEM_FREE_S_SHIFT, g.ticks, NULL, 0);
		else
			put_io_step(x, &g, 1);
		pt_rec_mem_alloc r = {S, 200, 0x7f123456789cull, Q}; /* a realloc's */
		ptw_rec(x, PT_REC_MEM_ALLOC, PT_MEM_OP_REALLOC, 20000000, &r, sizeof r);
		io_step h = {PT_REC_MEM_FREE, PT_MEM_OP_FREE, 20000010, S, 0, 0};
		if (s)
			put_mpi_c(x, fs, PT_MEM_FREE_S_SHIFT, h.ticks, NULL, 0);
		else
			put_io_step(x, &h, 1);
		ptw_close(x, 20000020);
	}
	result full = read_mem(w[0].buf, w[0].len, 0, 1), sh = read_mem(w[1].buf, w[1].len, 0, 1);
	CU_ASSERT_EQUAL(full.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(sh.state, PT_LOG_EOF);
	if (sh.state != PT_LOG_EOF)
		printf("\n%zu records, state %d: %s\n", sh.n, sh.state, sh.error);
	CU_ASSERT_EQUAL_FATAL(sh.n, 8);
	CU_ASSERT_EQUAL_FATAL(full.n, sh.n);
	static const uint64_t freed[] = {0, 0, P, 0, Q, 0, S, 0};
	for (size_t i = 0; i < sh.n; i++) {
		seen *f = &full.ev[i], *c = &sh.ev[i];
		CU_ASSERT_EQUAL(c->kind, f->kind);
		CU_ASSERT_EQUAL(c->ticks, f->ticks);
		const pt_rec_head *h = (const pt_rec_head *)(const void *)f->bytes;
		CU_ASSERT(memcmp(c->bytes, f->bytes, pt_rec_size(h)) == 0);
		if (freed[i]) {
			pt_rec_mem_free m;
			memcpy(&m, (const pt_rec_head *)(const void *)c->bytes + 1, sizeof m);
			CU_ASSERT_EQUAL(c->kind, PT_REC_MEM_FREE);
			CU_ASSERT_EQUAL(c->size, 4);
			CU_ASSERT(m.ptr == freed[i]);
		}
	}
	result bytes = read_mem(w[1].buf, w[1].len, 1, 1); /* byte by byte, the same */
	CU_ASSERT(same(&sh, &bytes));
	free(bytes.ev);
	free(full.ev);
	free(sh.ev);
	for (int i = 0; i < 2; i++)
		ptw_free(&w[i]);

	/* nothing to free: no MEM_ALLOC before, or one forgotten at a LOST */
	uint32_t fs = PT_COMPACT_FLAG | PT_REC_MEM_FREE_S;
	ptw x;
	ptw_begin(&x, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	put_mpi_c(&x, fs, PT_MEM_FREE_S_SHIFT, 110, NULL, 0);
	static const damage none = {"MEM_FREE_S first", PT_LOG_ERROR, 0,
	                            "MEM_FREE_S without a MEM_ALLOC before it", -1};
	free(check_damage(x.buf, x.len, &none).ev);
	ptw_free(&x);
	ptw_begin(&x, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	io_step a = {PT_REC_MEM_ALLOC, PT_MEM_OP_MALLOC, 110, P, 64, 0x7f123456789aull};
	put_io_step(&x, &a, 1);
	pt_rec_lost lost = {3, 96, PT_LOST_NO_SPACE, 0};
	ptw_rec(&x, PT_REC_LOST, 0, 120, &lost, sizeof lost);
	put_mpi_c(&x, fs, PT_MEM_FREE_S_SHIFT, 130, NULL, 0);
	static const damage forgot = {"MEM_FREE_S after a LOST", PT_LOG_ERROR, 2,
	                              "MEM_FREE_S without a MEM_ALLOC before it", -1};
	free(check_damage(x.buf, x.len, &forgot).ev);
	ptw_free(&x);
	/* a 3.6 log has no such record */
	ptw_begin(&x, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	x.hdr.version_minor = 6;
	((pt_file_header *)(void *)x.buf)->version_minor = 6;
	put_io_step(&x, &a, 1);
	put_mpi_c(&x, fs, PT_MEM_FREE_S_SHIFT, 130, NULL, 0);
	static const damage old = {"MEM_FREE_S in a 3.6 log", PT_LOG_ERROR, 1,
	                           "unknown compact record", -1};
	free(check_damage(x.buf, x.len, &old).ev);
	ptw_free(&x);
}

/* Format 3.5's MPI_DONE_C: a Wait's completion of a send's request, read
 * as the full MPI_DONE with the call of the file's last MPI_CALL. */
static void test_mpi_done_record(void)
{
	ptw w;
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	uint32_t flag = PT_COMPACT_FLAG;
	put_mpi_c(&w, flag | PT_REC_MPI_CALL_C | PT_MPI_CALL_Wait << 8, PT_MPI_CALL_C_SHIFT, 110,
	          NULL, 0);
	pt_rec_mpi_done d = {0x123456789abcdef0ull};
	put_mpi_c(&w, flag | PT_REC_MPI_DONE_C, PT_MPI_DONE_C_SHIFT, 150, &d, sizeof d);
	put_mpi_c(&w, flag | PT_REC_MPI_CALL_END_C, PT_MPI_END_C_SHIFT, 150, NULL, 0);
	ptw_close(&w, 160);
	result r = read_mem(w.buf, w.len, 0, 1);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL_FATAL(r.n, 4);
	static const unsigned kinds[] = {PT_REC_MPI_CALL, PT_REC_MPI_DONE, PT_REC_MPI_CALL_END,
	                                 PT_REC_CLOSE};
	static const size_t sizes[] = {4, 12, 4};
	static const uint64_t ticks[] = {110, 150, 150, 160};
	for (size_t i = 0; i < r.n; i++) {
		CU_ASSERT_EQUAL(r.ev[i].kind, kinds[i]);
		CU_ASSERT_EQUAL(r.ev[i].ticks, ticks[i]);
		if (i < 3)
			CU_ASSERT_EQUAL(r.ev[i].size, sizes[i]);
	}
	const pt_rec_head *h = (const pt_rec_head *)(const void *)r.ev[1].bytes;
	pt_rec_mpi_done got;
	memcpy(&got, h + 1, sizeof got);
	CU_ASSERT_EQUAL(h->arg, PT_MPI_CALL_Wait);
	CU_ASSERT_EQUAL(pt_rec_size(h), sizeof *h + sizeof got);
	CU_ASSERT_EQUAL(got.request, 0x123456789abcdef0ull);
	result whole = read_mem(w.buf, w.len, 0, 1), bytes = read_mem(w.buf, w.len, 1, 1);
	CU_ASSERT(same(&whole, &bytes));
	free(whole.ev);
	free(bytes.ev);
	free(r.ev);
	ptw_free(&w);
}

/* Format 3.0's short records and 2-byte pads; 2.0 logs, which have
 * neither, read as before. */
static void test_short_records(void)
{
	check_older_sample(2, 4);
	/* A 2.0 log may hold neither a short record nor a compact request:
	 * both are unknown compact records there. */
	static const damage unknown = {"3.0 records in a 2.0 log", PT_LOG_ERROR, 1,
				       "unknown compact record", -1};
	ptw w;
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	ptw_set_major(&w, 2);
	pt_rec_lock lk = {0x5000, 0, 0};
	ptw_rec(&w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, 110, &lk.object, sizeof lk.object);
	ptw_lock_compact(&w, PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, 111);
	free(check_damage(w.buf, w.len, &unknown).ev);
	ptw_free(&w);
	ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
	ptw_set_major(&w, 2);
	ptw_func(&w, PT_REC_FUNC_ENTER, 9, 110);
	uint16_t again[2] = {pt_short_word(1, 5), 0};
	ptw_put(&w, again, sizeof again);
	free(check_damage(w.buf, w.len, &unknown).ev);
	ptw_free(&w);

	/* 3.0: one compact record of function 9 (ending at 4 modulo 8), then
	 * what the case appends, in 16-bit halves (nhalves -1: one half, its
	 * last byte cut off). */
	uint16_t head[4];
	pt_rec_head h8 = pt_rec_func(PT_REC_FUNC_EXIT, 9, 4);
	memcpy(head, &h8, sizeof head);
	const uint16_t short_exit = pt_short_word(1, 1);
	const struct {
		damage d;
		uint16_t halves[8];
		int nhalves;
		int lost_first; /* a LOST record between the compact record and the halves */
	} cases[] = {
		{{"short exit, short enter at the delta limit", PT_LOG_EOF, 3, NULL, 0},
		 {pt_short_word(1, 5), pt_short_word(0, PT_SHORT_LIMIT - 1)}, 2, 0},
		{{"short record after a LOST", PT_LOG_ERROR, 2, "without a function record before it",
		  -1}, {short_exit}, 1, 1},
		{{"pad at a multiple of 8", PT_LOG_ERROR, 1, "pad at an offset that is a multiple of 8",
		  -1}, {PT_PAD16, PT_PAD16, PT_PAD16}, 3, 0},
		{{"pads, then the end-of-data zeros", PT_LOG_EOF, 1, NULL, 0},
		 {PT_PAD16, PT_PAD16, 0, 0, 0, 0}, 6, 0},
		{{"0x80 with a non-zero second byte", PT_LOG_ERROR, 1, "unknown compact record", -1},
		 {0x0180, 0}, 2, 0},
		{{"payload record at 6 modulo 8", PT_LOG_ERROR, 2, "not a multiple of 8", -1},
		 {short_exit, PT_REC_THREAD_NAME, 2, 0, 0, 0x41}, 6, 0},
		{{"8-byte function record at 6 modulo 8", PT_LOG_EOF, 3, NULL, 0},
		 {short_exit, head[0], head[1], head[2], head[3]}, 5, 0},
		{{"short record cut short", PT_LOG_EOF, 1, NULL, 1}, {short_exit}, -1, 0},
		{{"pads, then a record cut short", PT_LOG_EOF, 1, NULL, 6},
		 {PT_PAD16, PT_PAD16, 0x0301}, 3, 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		ptw_begin(&w, PT_FILE_THREAD, 1, 2, 100, 1000, 1, 0);
		ptw_func(&w, PT_REC_FUNC_ENTER, 9, 110);
		CU_ASSERT_EQUAL(w.len % 8, 4);
		if (cases[c].lost_first) {
			pt_rec_lost lo = {1, 8, PT_LOST_NO_SPACE, 0};
			ptw_rec(&w, PT_REC_LOST, 0, 111, &lo, sizeof lo);
		}
		int nh = cases[c].nhalves < 0 ? 1 : cases[c].nhalves;
		ptw_put(&w, cases[c].halves, (size_t)nh * 2);
		size_t len = cases[c].nhalves < 0 ? w.len - 1 : w.len;
		result r = check_damage(w.buf, len, &cases[c].d);
		if (c == 0 && r.n == 3) {
			CU_ASSERT(r.ev[1].kind == PT_REC_FUNC_EXIT && r.ev[1].func_id == 9);
			CU_ASSERT(r.ev[2].kind == PT_REC_FUNC_ENTER && r.ev[2].func_id == 9);
			CU_ASSERT_EQUAL(r.ev[1].ticks, 115);
			CU_ASSERT_EQUAL(r.ev[2].ticks, 115 + PT_SHORT_LIMIT - 1);
			CU_ASSERT(r.ev[1].size == 2 && r.ev[1].offset % 8 == 4);
		}
		if (c == 6 && r.n == 3) {
			CU_ASSERT(r.ev[2].kind == PT_REC_FUNC_EXIT && r.ev[2].func_id == 9);
			CU_ASSERT_EQUAL(r.ev[2].offset % 8, 6);
			CU_ASSERT_EQUAL(r.ev[2].ticks, 110 + 1 + 4);
		}
		free(r.ev);
		ptw_free(&w);
	}
}

static void test_feed_contract(void)
{
	pt_log *log = pt_log_open(PT_LOG_FD_NONE, 0);
	pt_event ev;
	CU_ASSERT_EQUAL(pt_log_read(log, &ev), -1);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_REQUIRE_DATA);
	CU_ASSERT_EQUAL(pt_log_feed(log, NULL, 0), 0);
	CU_ASSERT_EQUAL(pt_log_feed(log, "x", 1), -1); /* after end of input */
	pt_log_close(log);
	char path[64];
	int fd = tmpfile_with((const uint8_t *)"", 0, path);
	log = pt_log_open(fd, 0);
	CU_ASSERT_EQUAL(pt_log_feed(log, "x", 1), -1); /* file parsers are not fed */
	pt_log_close(log);
	close(fd);
	unlink(path);
}

/* ---- FOLLOW -------------------------------------------------------------- */

static void test_follow_growing_file(void)
{
	ptw w;
	ptw_sample_thread_log(&w, 0);
	size_t cut1 = w.recs[5].offset + 3; /* inside record 5 (8 bytes) */
	size_t cut2 = w.recs[20].offset;
	char path[64];
	/* Phase 1: an appending writer has written part of record 6. */
	int wfd = tmpfile_with(w.buf, cut1, path);
	int rfd = open(path, O_RDONLY);
	pt_log *log = pt_log_open(rfd, PT_LOG_FOLLOW);
	pt_event ev;
	size_t n = 0;
	while (pt_log_read(log, &ev) == 0)
		CU_ASSERT_EQUAL(ev.offset, w.recs[n++].offset);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_REQUIRE_DATA);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(ev.offset, w.recs[5].offset);
	/* Nothing new: still waiting. */
	CU_ASSERT_EQUAL(pt_log_read(log, &ev), -1);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_REQUIRE_DATA);
	/* Phase 2: records up to cut2, then the zero-filled region a mapping
	 * writer extends its file with. */
	static uint8_t zeros[8192];
	CU_ASSERT(pwrite(wfd, w.buf + cut1, cut2 - cut1, (off_t)cut1) == (ssize_t)(cut2 - cut1));
	CU_ASSERT(pwrite(wfd, zeros, sizeof zeros, (off_t)cut2) == (ssize_t)sizeof zeros);
	while (pt_log_read(log, &ev) == 0)
		CU_ASSERT_EQUAL(ev.offset, w.recs[n++].offset);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_REQUIRE_DATA);
	CU_ASSERT_EQUAL(n, 20);
	CU_ASSERT_EQUAL(ev.offset, cut2);
	/* Phase 3: the writer fills the zero region in place, CLOSE included. */
	CU_ASSERT(pwrite(wfd, w.buf + cut2, w.len - cut2, (off_t)cut2) == (ssize_t)(w.len - cut2));
	while (pt_log_read(log, &ev) == 0)
		CU_ASSERT_EQUAL(ev.offset, w.recs[n++].offset);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(ev.complete, 1);
	CU_ASSERT_EQUAL(n, w.nrecs);
	pt_log_close(log);
	close(rfd);
	/* Without FOLLOW an unfinished file ends at the zeros. */
	CU_ASSERT(ftruncate(wfd, 0) == 0);
	CU_ASSERT(pwrite(wfd, w.buf, cut2, 0) == (ssize_t)cut2);
	CU_ASSERT(pwrite(wfd, zeros, sizeof zeros, (off_t)cut2) == (ssize_t)sizeof zeros);
	lseek(wfd, 0, SEEK_SET);
	result r = read_fd(wfd, 0);
	CU_ASSERT_EQUAL(r.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(r.n, 20);
	CU_ASSERT_EQUAL(r.complete, 0);
	free(r.ev);
	close(wfd);
	unlink(path);
	ptw_free(&w);
}

static void test_follow_header_not_yet_written(void)
{
	char path[64];
	int wfd = tmpfile_with((const uint8_t *)"", 0, path);
	int rfd = open(path, O_RDONLY);
	pt_log *log = pt_log_open(rfd, PT_LOG_FOLLOW);
	pt_event ev;
	CU_ASSERT_EQUAL(pt_log_read(log, &ev), -1);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_REQUIRE_DATA);
	ptw w;
	ptw_sample_thread_log(&w, 0);
	CU_ASSERT(write(wfd, w.buf, 100) == 100);
	CU_ASSERT_EQUAL(pt_log_read(log, &ev), -1);
	CU_ASSERT_EQUAL(ev.state, PT_LOG_REQUIRE_DATA);
	CU_ASSERT(write(wfd, w.buf + 100, w.len - 100) == (ssize_t)(w.len - 100));
	size_t n = 0;
	while (pt_log_read(log, &ev) == 0)
		n++;
	CU_ASSERT_EQUAL(ev.state, PT_LOG_EOF);
	CU_ASSERT_EQUAL(n, w.nrecs);
	pt_log_close(log);
	close(rfd);
	close(wfd);
	unlink(path);
	ptw_free(&w);
}

/* ---- clock --------------------------------------------------------------- */

static void test_ticks_to_ns_exact(void)
{
	pt_file_header h = {0};
	h.open.ticks = 1000;
	h.open.mono_ns = 5000000000ull;
	h.tick_mult = 0x55555555; /* ~1/3 ns per tick << 32 */
	h.tick_shift = 32;
	/* Values computed independently (Python big integers). */
	CU_ASSERT_EQUAL(pt_ticks_to_ns(&h, 1000), 5000000000ull);
	CU_ASSERT_EQUAL(pt_ticks_to_ns(&h, 1000 + 3000000000000ull), 1004999999767ull);
	/* (2^62 * 0x55555555) >> 32 needs more than 64 bits in between. */
	CU_ASSERT_EQUAL(pt_ticks_to_ns(&h, 1000 + (1ull << 62)), 5000000000ull + 1537228672451215360ull);
	/* Earlier than the reference pair: earlier time, not a wrap. */
	CU_ASSERT_EQUAL(pt_ticks_to_ns(&h, 1000 - 3000), 4999999000ull);
	h.tick_mult = 1;
	h.tick_shift = 0;
	CU_ASSERT_EQUAL(pt_ticks_to_ns(&h, 1234), 5000000234ull);
}

/* ---- trace scan ------------------------------------------------------------ */

static void write_log(const char *path, unsigned kind, uint32_t pid, uint32_t tid)
{
	ptw w;
	ptw_begin(&w, kind, pid, tid, 100, 1000, 1, 0);
	w.hdr.ppid = pid - 1;
	memcpy(w.buf, &w.hdr, sizeof w.hdr);
	ptw_time(&w, 100);
	ptw_close(&w, 101);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(w.buf, 1, w.len, f);
	fclose(f);
	ptw_free(&w);
}

static void test_trace_scan(void)
{
	char dir[] = "/tmp/pt_scan_XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char p[512], err[512];
	/* Empty directory. */
	CU_ASSERT_PTR_NULL(pt_trace_scan(dir, err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no paratrace logs"));
	/* Foreign content. */
	snprintf(p, sizeof p, "%s/notes.txt", dir);
	FILE *f = fopen(p, "w");
	fputs("hello", f);
	fclose(f);
	CU_ASSERT_PTR_NULL(pt_trace_scan(dir, err, sizeof err));
	unlink(p);
	CU_ASSERT_PTR_NULL(pt_trace_scan("/nonexistent/trace", err, sizeof err));

	snprintf(p, sizeof p, "%s/p200", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/p1000", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/p200/t210.ptl", dir);
	write_log(p, PT_FILE_THREAD, 200, 210);
	snprintf(p, sizeof p, "%s/p200/t201.ptl", dir);
	write_log(p, PT_FILE_THREAD, 200, 201);
	snprintf(p, sizeof p, "%s/p200/t200.ptl", dir);
	write_log(p, PT_FILE_THREAD, 200, 200);
	snprintf(p, sizeof p, "%s/p200/g1.ptl", dir);
	write_log(p, PT_FILE_GPU, 200, 0);
	snprintf(p, sizeof p, "%s/p200/process.ptl", dir);
	write_log(p, PT_FILE_PROCESS, 200, 0);
	snprintf(p, sizeof p, "%s/p1000/process.ptl", dir);
	write_log(p, PT_FILE_PROCESS, 1000, 0);
	snprintf(p, sizeof p, "%s/p1000/t1000.ptl", dir);
	write_log(p, PT_FILE_THREAD, 1000, 1000);
	snprintf(p, sizeof p, "%s/p1000/t1001.ptl", dir);
	f = fopen(p, "w");
	fputs("garbage that is not a log", f);
	fclose(f);

	pt_trace *t = pt_trace_scan(dir, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL_FATAL(t->nprocesses, 2);
	CU_ASSERT_EQUAL_FATAL(t->nfiles, 7);
	CU_ASSERT_EQUAL(t->processes[0].pid, 200);
	CU_ASSERT_EQUAL(t->processes[0].ppid, 199);
	CU_ASSERT_EQUAL(t->processes[0].nfiles, 5);
	CU_ASSERT_EQUAL(t->processes[0].process_log, 0);
	CU_ASSERT_EQUAL(t->files[0].kind, PT_FILE_PROCESS);
	CU_ASSERT_EQUAL(t->files[1].tid, 200); /* numeric order */
	CU_ASSERT_EQUAL(t->files[2].tid, 201);
	CU_ASSERT_EQUAL(t->files[3].tid, 210);
	CU_ASSERT_EQUAL(t->files[4].kind, PT_FILE_GPU);
	CU_ASSERT_EQUAL(t->processes[1].pid, 1000);
	CU_ASSERT_EQUAL(t->processes[1].first_file, 5);
	CU_ASSERT_EQUAL(t->files[6].process, 1);
	CU_ASSERT(t->total_bytes > 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t->warnings);
	CU_ASSERT_PTR_NOT_NULL(strstr(t->warnings, "t1001.ptl"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t->warnings, "magic"));
	pt_trace_free(t);

	/* A single file, and a process folder given directly. */
	snprintf(p, sizeof p, "%s/p200/t201.ptl", dir);
	t = pt_trace_scan(p, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->nfiles, 1);
	CU_ASSERT_EQUAL(t->files[0].tid, 201);
	pt_trace_free(t);
	snprintf(p, sizeof p, "%s/p200", dir);
	t = pt_trace_scan(p, err, sizeof err);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(t->nfiles, 5);
	pt_trace_free(t);
	/* Only unusable logs: an error that says why. */
	snprintf(p, sizeof p, "%s/p1000/t1001.ptl", dir);
	CU_ASSERT_PTR_NULL(pt_trace_scan(p, err, sizeof err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "magic"));

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	CU_pSuite s = CU_add_suite("reader", NULL, NULL);
	CU_add_test(s, "round trip of every record kind", test_round_trip_every_kind);
	CU_add_test(s, "payloads and strings", test_payloads_and_strings);
	CU_add_test(s, "whole, byte-by-byte, random chunks, file, pipe", test_chunked_feeding_is_identical);
	CU_add_test(s, "truncation at every length", test_truncation_at_every_length);
	CU_add_test(s, "bit flips give clean states", test_bit_flips_give_clean_states);
	CU_add_test(s, "end-of-data marker", test_end_of_data_marker);
	CU_add_test(s, "header errors", test_header_errors);
	CU_add_test(s, "record errors", test_record_errors);
	CU_add_test(s, "compact records, pads, 1.x logs", test_compact_records);
	CU_add_test(s, "short records, 2-byte pads, 2.0 logs", test_short_records);
	CU_add_test(s, "compact MPI records, 3.2 logs", test_mpi_compact_records);
	CU_add_test(s, "compact I/O and memory records, 3.4 logs", test_io_compact_records);
	CU_add_test(s, "MEM_FREE_S: the free of the block allocated last", test_mem_free_short);
	CU_add_test(s, "FUNC_LANDED: a longjmp's landing", test_landed_record);
	CU_add_test(s, "MPI_DONE's compact form", test_mpi_done_record);
	CU_add_test(s, "repeated MPI records read as full ones", test_mpi_repeated_records);
	CU_add_test(s, "feed contract", test_feed_contract);
	CU_add_test(s, "FOLLOW on a growing file", test_follow_growing_file);
	CU_add_test(s, "FOLLOW before the header is written", test_follow_header_not_yet_written);
	CU_add_test(s, "exact tick conversion", test_ticks_to_ns_exact);
	CU_add_test(s, "trace scan", test_trace_scan);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* Test-only log encoder built on <paratrace/format.h>: writes logs in memory
 * so the reader tests, the corpus generator and the fuzzer can make any
 * record (and any damage) on purpose. It remembers every record it wrote
 * (kind, ticks, offset, bytes) so tests can compare the reader's output
 * against what was written. Not the runtime's writer. */
#ifndef PT_TEST_WRITER_H
#define PT_TEST_WRITER_H

#include <paratrace/format.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ptw_rec {
	unsigned kind;
	uint64_t ticks;
	uint64_t offset;
	size_t size;
	uint32_t func_id;
} ptw_entry;

typedef struct ptw {
	uint8_t *buf;
	size_t len, cap;
	uint64_t ticks; /* time of the last record */
	/* The previous function record's function, as the runtime keeps it
	 * for short records (3.0): an id, or an address | PT_FUNC_KEY_PC. */
	uint64_t last_func;
	ptw_entry *recs;
	size_t nrecs, cap_recs;
	pt_file_header hdr;
} ptw;

static inline void ptw_put(ptw *w, const void *data, size_t len)
{
	if (w->len + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->len + len)
			cap *= 2;
		w->buf = (uint8_t *)realloc(w->buf, cap);
		if (!w->buf)
			abort();
		w->cap = cap;
	}
	if (data)
		memcpy(w->buf + w->len, data, len);
	else
		memset(w->buf + w->len, 0, len);
	w->len += len;
}

static inline void ptw_note(ptw *w, unsigned kind, uint64_t ticks, uint64_t off, size_t size,
			    uint32_t id)
{
	if (w->nrecs == w->cap_recs) {
		w->cap_recs = w->cap_recs ? w->cap_recs * 2 : 64;
		w->recs = (ptw_entry *)realloc(w->recs, w->cap_recs * sizeof *w->recs);
		if (!w->recs)
			abort();
	}
	ptw_entry r = {kind, ticks, off, size, id};
	w->recs[w->nrecs++] = r;
}

/* Header with a TSC-like clock: ns = mono + ((ticks - open_ticks) * mult) >> shift. */
static inline void ptw_begin(ptw *w, unsigned file_kind, uint32_t pid, uint32_t tid,
			     uint64_t open_ticks, uint64_t mono_ns, uint64_t mult, uint32_t shift)
{
	memset(w, 0, sizeof *w);
	pt_file_header *h = &w->hdr;
	memcpy(h->magic, PT_FORMAT_MAGIC, PT_FORMAT_MAGIC_LEN);
	h->version_major = PT_FORMAT_VERSION_MAJOR;
	h->version_minor = PT_FORMAT_VERSION_MINOR;
	h->header_size = sizeof *h;
	h->byte_order = PT_BYTE_ORDER_LITTLE;
	h->file_kind = (uint8_t)file_kind;
	h->pid = pid;
	h->tid = tid;
	h->ppid = 1;
	h->clock_source = PT_CLOCK_TSC;
	h->tick_mult = mult;
	h->tick_shift = shift;
	h->open.ticks = open_ticks;
	h->open.mono_ns = mono_ns;
	h->open.real_ns = mono_ns + 1700000000000000000ull;
	h->run_id = 0x1234abcd;
	strcpy(h->program, "testprog");
	ptw_put(w, h, sizeof *h);
	w->ticks = open_ticks;
}

#define PTW_FUNC_KEY_PC (1ull << 63)

/* Right after ptw_begin: write an older major version (1: no compact
 * records, ptw_func writes 8 bytes; 2: no short records). */
static inline void ptw_set_major(ptw *w, unsigned major)
{
	w->hdr.version_major = (uint16_t)major;
	((pt_file_header *)(void *)w->buf)->version_major = (uint16_t)major;
}

/* Pads when the next record must start at a multiple of 8 (after a short
 * or compact function record), as the runtime writes them: 2-byte pads
 * (3.0) or one pad word (2.0). */
static inline void ptw_align(ptw *w)
{
	if (w->hdr.version_major >= 3) {
		while (w->len & 7) {
			uint16_t pad = PT_PAD16;
			ptw_put(w, &pad, sizeof pad);
		}
	} else if (w->len & 4) {
		uint32_t pad = PT_COMPACT_PAD;
		ptw_put(w, &pad, sizeof pad);
	}
}

/* A short function record (3.0) of the previous function record's function. */
static inline void ptw_short(ptw *w, unsigned kind, uint64_t ticks)
{
	uint16_t word = pt_short_word(pt_rec_is_exit(kind), (uint32_t)(ticks - w->ticks));
	uint32_t id = w->last_func & PTW_FUNC_KEY_PC ? 0 : (uint32_t)w->last_func;
	ptw_note(w, kind, ticks, w->len, 2, id);
	ptw_put(w, &word, sizeof word);
	w->ticks = ticks;
}

static inline int ptw_short_fits(const ptw *w, uint64_t func, uint64_t ticks)
{
	return w->hdr.version_major >= 3 && func && func == w->last_func &&
	       ticks - w->ticks < PT_SHORT_LIMIT;
}

/* One record at absolute time `ticks` (>= the previous one); a TIME record
 * goes first when the delta does not fit in 32 bits, as the runtime does. */
static inline void ptw_rec2(ptw *w, unsigned kind, unsigned arg, uint64_t ticks, const void *p1,
			    size_t l1, const void *p2, size_t l2)
{
	uint64_t delta = ticks - w->ticks;
	if (pt_rec_is_func_pc(kind) && l1 >= 8) {
		uint64_t func;
		memcpy(&func, p1, sizeof func);
		func |= PTW_FUNC_KEY_PC;
		if (delta <= UINT32_MAX && ptw_short_fits(w, func, ticks)) {
			ptw_short(w, kind, ticks);
			return;
		}
		w->last_func = func;
	} else if (kind == PT_REC_LOST) {
		w->last_func = 0;
	}
	if (!pt_rec_is_func(kind))
		ptw_align(w);
	if (kind != PT_REC_TIME && delta > UINT32_MAX) {
		pt_rec_head th = {PT_REC_TIME, 0, 2, 0};
		ptw_note(w, PT_REC_TIME, ticks, w->len, 16, 0);
		ptw_put(w, &th, sizeof th);
		ptw_put(w, &ticks, 8);
		delta = 0;
	}
	size_t size = pt_rec_size_for(l1 + l2);
	pt_rec_head h = {(uint8_t)kind, (uint8_t)arg, (uint16_t)(size / 8),
			 kind == PT_REC_TIME ? 0 : (uint32_t)delta};
	ptw_note(w, kind, ticks, w->len, size, 0);
	ptw_put(w, &h, sizeof h);
	ptw_put(w, p1, l1);
	ptw_put(w, p2, l2);
	ptw_put(w, NULL, size - sizeof h - l1 - l2);
	w->ticks = ticks;
}

static inline void ptw_rec(ptw *w, unsigned kind, unsigned arg, uint64_t ticks, const void *p,
			   size_t len)
{
	ptw_rec2(w, kind, arg, ticks, p, len, NULL, 0);
}

static inline void ptw_time(ptw *w, uint64_t ticks)
{
	ptw_rec(w, PT_REC_TIME, 0, ticks, &ticks, 8);
}

/* A function record: short (2 bytes) when it is of the previous function
 * record's function and the delta fits, else compact (4 bytes) when id and
 * delta fit, as the runtime writes it, if the log's version has them and
 * not `wide`. */
static inline void ptw_func_form(ptw *w, unsigned kind, uint32_t id, uint64_t ticks, int wide)
{
	uint64_t delta = ticks - w->ticks;
	if (delta > UINT32_MAX) {
		ptw_time(w, ticks);
		delta = 0;
	}
	if (!wide && ptw_short_fits(w, id, ticks)) {
		ptw_short(w, kind, ticks);
		return;
	}
	w->last_func = id;
	if (!wide && w->hdr.version_major >= 2 && pt_compact_fits(id, delta)) {
		uint32_t word = pt_compact_word(kind, id, (uint32_t)delta);
		ptw_note(w, kind, ticks, w->len, 4, id);
		ptw_put(w, &word, sizeof word);
	} else {
		pt_rec_head h = pt_rec_func(kind, id, (uint32_t)delta);
		ptw_note(w, kind, ticks, w->len, 8, id);
		ptw_put(w, &h, sizeof h);
	}
	w->ticks = ticks;
}

static inline void ptw_func(ptw *w, unsigned kind, uint32_t id, uint64_t ticks)
{
	ptw_func_form(w, kind, id, ticks, 0);
}

/* A compact lock record (2.0; a request 3.0): the object acquired last, again. The delta
 * must fit (the caller's choice of times). */
static inline void ptw_lock_compact(ptw *w, unsigned kind, unsigned type, uint64_t ticks)
{
	uint32_t word = pt_compact_lock_word(kind, type, (uint32_t)(ticks - w->ticks));
	ptw_note(w, kind, ticks, w->len, 4, 0);
	ptw_put(w, &word, sizeof word);
	w->ticks = ticks;
}

/* A payload struct followed by NUL-terminated strings. */
static inline void ptw_rec_strs(ptw *w, unsigned kind, unsigned arg, uint64_t ticks,
				const void *p, size_t len, const char *s1, const char *s2)
{
	size_t l1 = s1 ? strlen(s1) + 1 : 0, l2 = s2 ? strlen(s2) + 1 : 0;
	char *tmp = (char *)malloc(len + l1 + l2 + 1);
	if (!tmp)
		abort();
	memcpy(tmp, p, len);
	if (s1)
		memcpy(tmp + len, s1, l1);
	if (s2)
		memcpy(tmp + len + l1, s2, l2);
	ptw_rec(w, kind, arg, ticks, tmp, len + l1 + l2);
	free(tmp);
}

static inline void ptw_close(ptw *w, uint64_t ticks)
{
	pt_clock_pair c = {ticks, w->hdr.open.mono_ns + 1000, w->hdr.open.real_ns + 1000};
	ptw_rec(w, PT_REC_CLOSE, 0, ticks, &c, sizeof c);
}

static inline void ptw_free(ptw *w)
{
	free(w->buf);
	free(w->recs);
	memset(w, 0, sizeof *w);
}

/* A thread log with at least one record of every kind format.h defines,
 * compact function records and pads, one unknown kind (from the range of
 * later interposition families), a delta overflow and a CLOSE.
 * `seed` varies the values. */
static inline void ptw_sample_thread_log_major(ptw *w, uint32_t seed, unsigned major)
{
	uint64_t t = 1000000 + seed;
	ptw_begin(w, PT_FILE_THREAD, 4711, 4712 + seed, t, 5000000000ull + seed, 3, 1);
	ptw_set_major(w, major);
	ptw_time(w, t);
	pt_rec_thread_start ts = {0, 0, PT_THREAD_MAIN, 0x401000};
	ptw_rec(w, PT_REC_THREAD_START, 0, t += 10, &ts, sizeof ts);
	ptw_rec(w, PT_REC_THREAD_NAME, 0, t += 1, "main thread", 12);
	for (uint32_t i = 1; i <= 5; i++) {
		ptw_func(w, PT_REC_FUNC_ENTER, i * 0x10101 + seed, t += 7 * i);
		ptw_func(w, PT_REC_FUNC_EXIT, i * 0x10101 + seed, t += 3);
	}
	/* Compact records (2.0): ids and deltas at the edges of the 12-bit
	 * fields, an 8-byte record between two compact ones (at 4 modulo 8),
	 * the 8-byte form of a record that would fit, and a payload record
	 * after a compact one (a pad word before it). */
	ptw_func(w, PT_REC_FUNC_ENTER, 1, t += 1);
	ptw_func(w, PT_REC_FUNC_ENTER, PT_COMPACT_LIMIT, t += 2);
	ptw_func(w, PT_REC_FUNC_ENTER, PT_COMPACT_LIMIT - 1, t += PT_COMPACT_LIMIT - 1);
	ptw_func(w, PT_REC_FUNC_EXIT, PT_COMPACT_LIMIT - 1, t += seed);
	ptw_func(w, PT_REC_FUNC_EXIT, PT_COMPACT_LIMIT, t += PT_COMPACT_LIMIT);
	ptw_func_form(w, PT_REC_FUNC_EXIT, 1, t += 5, 1);
	ptw_func(w, PT_REC_FUNC_ENTER, 2 + seed, t += 1);
	ptw_func(w, PT_REC_FUNC_ENTER, 3, t += 1);
	ptw_rec(w, PT_REC_THREAD_NAME, 0, t += 1, "worker", 7);
	ptw_func(w, PT_REC_FUNC_EXIT, 3, t += 1);
	ptw_func(w, PT_REC_FUNC_EXIT, 2 + seed, t += 1);
	/* Short records (3.0): a loop calling one function, deltas at the edge
	 * of the 13-bit field, a large id, the PC forms; a payload record
	 * after an odd number of them (three pads before it). */
	for (uint32_t i = 0; i < 3; i++) {
		ptw_func(w, PT_REC_FUNC_ENTER, 2 + seed, t += 2 + i);
		ptw_func(w, PT_REC_FUNC_EXIT, 2 + seed, t += 1);
	}
	ptw_func(w, PT_REC_FUNC_ENTER, 2 + seed, t += PT_SHORT_LIMIT - 1);
	ptw_func(w, PT_REC_FUNC_EXIT, 2 + seed, t += PT_SHORT_LIMIT);
	ptw_func(w, PT_REC_FUNC_ENTER, 2 + seed, t += 0);
	ptw_rec(w, PT_REC_THREAD_NAME, 0, t += 1, "worker", 7);
	ptw_func(w, PT_REC_FUNC_EXIT, 2 + seed, t += 1);
	ptw_func(w, PT_REC_FUNC_ENTER, PT_FUNC_ID_MAX, t += 1);
	t += 0x100000000ull; /* forces a TIME record; a short record after it */
	ptw_func(w, PT_REC_FUNC_EXIT, PT_FUNC_ID_MAX, t);
	pt_rec_pc pc = {0x401136 + seed};
	ptw_rec(w, PT_REC_FUNC_ENTER_PC, 0, t += 2, &pc, sizeof pc);
	ptw_rec(w, PT_REC_FUNC_EXIT_PC, 0, t += 2, &pc, sizeof pc);
	ptw_rec(w, PT_REC_FUNC_ENTER_PC, 0, t += PT_SHORT_LIMIT, &pc, sizeof pc);
	ptw_rec(w, PT_REC_FUNC_EXIT_PC, 0, t += 3, &pc, sizeof pc);
	pt_rec_thread_create tc = {1, 0x401200, 0, 0};
	ptw_rec(w, PT_REC_THREAD_CREATE, 0, t += 5, &tc, sizeof tc);
	pt_rec_thread_join tj = {0x7f0000001000ull, 1, 0, 0};
	ptw_rec(w, PT_REC_THREAD_JOIN_BEGIN, 0, t += 5, &tj, sizeof tj);
	ptw_rec(w, PT_REC_THREAD_JOIN_END, 0, t += 5, &tj, sizeof tj);
	pt_rec_user_type ut = {1000, PT_USER_TYPE_SCOPE};
	ptw_rec_strs(w, PT_REC_USER_TYPE, 0, t += 1, &ut, sizeof ut, "phase", NULL);
	pt_rec_user_event ue = {1000, 0, -42 - (int64_t)seed};
	ptw_rec_strs(w, PT_REC_USER_VALUE_NAME, 0, t += 1, &ue, sizeof ue, "solve step", NULL);
	ptw_rec(w, PT_REC_USER_EVENT, 0, t += 1, &ue, sizeof ue);
	pt_rec_counter_def cd = {0x3c, 0, 0};
	ptw_rec_strs(w, PT_REC_COUNTER_DEF, 0, t += 1, &cd, sizeof cd, "cycles", NULL);
	uint64_t cv[2] = {12345 + seed, 678};
	ptw_rec(w, PT_REC_COUNTERS, 2, t += 1, cv, sizeof cv);
	pt_rec_lock lk = {0x7ffd0000a000ull, 0, 0};
	ptw_rec(w, PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, t += 1, &lk, sizeof lk);
	ptw_rec(w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, t += 1, &lk, sizeof lk);
	lk.result = 16; /* EBUSY */
	ptw_rec(w, PT_REC_LOCK_FAILED, PT_LOCK_SPIN, t += 1, &lk, sizeof lk);
	lk.result = 0;
	ptw_rec(w, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, t += 1, &lk, sizeof lk);
	/* The short forms the runtime writes when the result is 0 (format 1.1). */
	ptw_rec(w, PT_REC_LOCK_ACQUIRED, PT_LOCK_SPIN, t += 1, &lk.object, sizeof lk.object);
	ptw_rec(w, PT_REC_LOCK_RELEASED, PT_LOCK_SPIN, t += 1, &lk.object, sizeof lk.object);
	/* 1.2: the release of the object acquired last, head alone. */
	ptw_rec(w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, t += 1, &lk.object, sizeof lk.object);
	ptw_rec(w, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, t += 1, NULL, 0);
	/* 2.0: the same lock taken and released again, 4 bytes each; the
	 * record after them is padded. */
	if (major >= 2) {
		ptw_lock_compact(w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, t += 9);
		ptw_lock_compact(w, PT_REC_LOCK_RELEASED, PT_LOCK_MUTEX, t += PT_COMPACT_LOCK_LIMIT - 1);
		if (major >= 3) /* 3.0: the request too */
			ptw_lock_compact(w, PT_REC_LOCK_REQUEST, PT_LOCK_MUTEX, t += 3);
		ptw_lock_compact(w, PT_REC_LOCK_ACQUIRED, PT_LOCK_MUTEX, t += 2);
	}
	pt_rec_cond cv2 = {0x7ffd0000b000ull, 0x7ffd0000a000ull, 0, 0};
	ptw_rec(w, PT_REC_COND_WAIT_BEGIN, 0, t += 1, &cv2, sizeof cv2);
	cv2.result = 110;
	ptw_rec(w, PT_REC_COND_WAIT_END, 0, t += 1, &cv2, sizeof cv2);
	ptw_rec(w, PT_REC_COND_SIGNAL, 1, t += 1, &cv2, sizeof cv2);
	pt_rec_lock br = {0x7ffd0000c000ull, 0, 0};
	ptw_rec(w, PT_REC_BARRIER_BEGIN, PT_LOCK_BARRIER, t += 1, &br, sizeof br);
	br.result = -1; /* PTHREAD_BARRIER_SERIAL_THREAD */
	ptw_rec(w, PT_REC_BARRIER_END, PT_LOCK_BARRIER, t += 1, &br, sizeof br);
	pt_rec_process_info pi = {2, 0, 0};
	const char args[] = "/usr/bin/testprog\0testprog\0--flag with space";
	{
		char tmp[sizeof pi + sizeof args];
		memcpy(tmp, &pi, sizeof pi);
		memcpy(tmp + sizeof pi, args, sizeof args);
		ptw_rec(w, PT_REC_PROCESS_INFO, 0, t += 1, tmp, sizeof tmp);
	}
	uint8_t mm[sizeof(pt_rec_module_map) + 4 + 16];
	pt_rec_module_map m = {0x555500000000ull, 0x555500001000ull, 0x555500005000ull, 4,
			       PT_MODULE_MAIN};
	memcpy(mm, &m, sizeof m);
	memcpy(mm + sizeof m, "\xde\xad\xbe\xef", 4);
	memcpy(mm + sizeof m + 4, "/tmp/testprog\0\0", 16);
	ptw_rec(w, PT_REC_MODULE_MAP, 0, t += 1, mm, sizeof mm);
	pt_rec_module_unmap mu = {0x555500000000ull};
	ptw_rec(w, PT_REC_MODULE_UNMAP, 0, t += 1, &mu, sizeof mu);
	pt_rec_func_def fd = {7, 12, 0x555500000000ull};
	ptw_rec_strs(w, PT_REC_FUNC_DEF, 0, t += 1, &fd, sizeof fd, "_Z3fooi", "main.c");
	pt_rec_fork fk = {4800, 4711, 0, 0};
	ptw_rec(w, PT_REC_FORK, 0, t += 1, &fk, sizeof fk);
	ptw_rec(w, PT_REC_EXEC, 0, t += 1, "/bin/true", 10);
	pt_rec_signal sg = {11, 1, 0xdead, 0, 0}; /* as before 3.2: no tid */
	ptw_rec(w, PT_REC_SIGNAL, 0, t += 1, &sg, PT_REC_SIGNAL_MIN_PAYLOAD);
	/* A kind no part defines (a later minor version): skipped by size. */
	uint64_t unknown[3] = {1, 2, 3};
	ptw_rec(w, 0x7e, 9, t += 1, unknown, sizeof unknown);
	uint64_t frames[3] = {0x401150, 0x401250, 0x7f0000002000ull};
	ptw_rec(w, PT_REC_CALLSTACK, 3, t, frames, sizeof frames);
	ptw_rec(w, PT_REC_SAMPLE, 2, t += 1, frames, sizeof frames);
	pt_rec_counter_value cval = {99};
	ptw_rec(w, PT_REC_COUNTER_VALUE, 1, t += 1, &cval, sizeof cval);
	pt_rec_sampling_start ss = {1000000, 34, 16};
	ptw_rec(w, PT_REC_SAMPLING_START, 0, t += 1, &ss, sizeof ss);
	pt_rec_gpu_stream_def gs = {0x55aa, 0, 1, PT_GPU_STREAM_IN_ORDER, 0};
	ptw_rec_strs(w, PT_REC_GPU_STREAM_DEF, PT_GPU_API_OPENCL, t += 1, &gs, sizeof gs,
		     "pthread-cpu", NULL);
	pt_rec_gpu_func_def gf = {5, 0};
	ptw_rec_strs(w, PT_REC_GPU_FUNC_DEF, PT_GPU_API_OPENCL, t += 1, &gf, sizeof gf,
		     "clEnqueueNDRangeKernel", NULL);
	pt_rec_gpu_kernel_def gk = {2, 0};
	ptw_rec_strs(w, PT_REC_GPU_KERNEL_DEF, PT_GPU_API_CUDA, t += 1, &gk, sizeof gk,
		     "_Z6vecaddPfS_i", NULL);
	pt_rec_gpu_api ga = {5, PT_GPU_CALL_LAUNCH, 0, 0, 0, 77, 0x55aa, 0};
	ptw_rec(w, PT_REC_GPU_API_BEGIN, PT_GPU_API_OPENCL, t += 1, &ga, sizeof ga);
	pt_rec_gpu_launch gl = {77, 0, 0x55aa, 2, 0, {64, 1, 1}, {32, 1, 1}, 0, 1};
	ptw_rec(w, PT_REC_GPU_LAUNCH, PT_GPU_API_OPENCL, t += 1, &gl, sizeof gl);
	ptw_rec(w, PT_REC_GPU_API_END, PT_GPU_API_OPENCL, t += 1, &ga, sizeof ga);
	pt_rec_gpu_kernel gkr = {t + 10, t + 500, 77, 2, 0, {64, 1, 1}, {32, 1, 1}};
	ptw_rec(w, PT_REC_GPU_KERNEL, PT_GPU_API_OPENCL, t += 1, &gkr, sizeof gkr);
	pt_rec_gpu_copy gc = {t + 600, t + 700, 78, 4096, PT_GPU_COPY_DTOH, 0};
	ptw_rec(w, PT_REC_GPU_MEMCPY, PT_GPU_API_OPENCL, t += 1, &gc, sizeof gc);
	gc.direction = PT_GPU_COPY_MEMSET;
	ptw_rec(w, PT_REC_GPU_MEMSET, PT_GPU_API_OPENCL, t += 1, &gc, sizeof gc);
	pt_rec_lost lo = {10, 80, PT_LOST_NO_SPACE, 0};
	ptw_rec(w, PT_REC_LOST, 0, t += 1, &lo, sizeof lo);
	pt_rec_thread_end te = {0, PT_THREAD_END_EXIT, 0};
	ptw_rec(w, PT_REC_THREAD_END, 0, t += 1, &te, sizeof te);
	pt_rec_exit ex = {3, PT_EXIT_NORMAL};
	ptw_rec(w, PT_REC_EXIT, 0, t += 1, &ex, sizeof ex);
	ptw_close(w, t += 1);
}

static inline void ptw_sample_thread_log(ptw *w, uint32_t seed)
{
	ptw_sample_thread_log_major(w, seed, PT_FORMAT_VERSION_MAJOR);
}

#endif

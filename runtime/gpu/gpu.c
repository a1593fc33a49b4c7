/* SPDX-License-Identifier: MIT */
/* What the GPU API parts (opencl.c, cupti.c) share: device clock alignment,
 * name tables and per-stream logs; a part of the runtime of its own, which
 * closes the stream logs at exit and forgets them in a fork child. */
#include "gpu_internal.h"
#include "pt_sys.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

/* ---- host clock rate ---------------------------------------------------- */

static pt_spin rate_lock;
static uint64_t rate_t0, rate_ns0; /* first (ticks, CLOCK_MONOTONIC ns) pair */
static double rate_cached;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* (ticks, ns) read back to back; the tick read is the midpoint of two so a
 * preemption between the reads shows up as a wide pair, which we retry. */
static void host_pair(uint64_t *ticks, uint64_t *ns)
{
	for (int i = 0; i < 8; i++) {
		uint64_t a = pt_now();
		uint64_t n = mono_ns();
		uint64_t b = pt_now();
		*ticks = a + (b - a) / 2;
		*ns = n;
		if (b - a < 2000)
			return;
	}
}

/* Refreshed at most every ~1 ms (in ticks of the current estimate): a
 * device record conversion then costs one clock read, not three. */
static uint64_t rate_last_t;

double pt_gpu_ticks_per_ns(void)
{
	pt_spin_lock(&rate_lock);
	uint64_t t, n;
	if (!rate_t0) {
		host_pair(&rate_t0, &rate_ns0);
		/* A first baseline of 1 ms bounds the rate error to ~1e-5 until
		 * later calls lengthen it; paid once, when a GPU is first used. */
		uint64_t until = rate_ns0 + 1000000;
		while (mono_ns() < until)
			;
	} else if (rate_cached > 0 && pt_now() - rate_last_t < (uint64_t)(rate_cached * 1e6)) {
		double r = rate_cached;
		pt_spin_unlock(&rate_lock);
		return r;
	}
	host_pair(&t, &n);
	if (n > rate_ns0 && t > rate_t0)
		rate_cached = (double)(t - rate_t0) / (double)(n - rate_ns0);
	rate_last_t = t;
	double r = rate_cached;
	pt_spin_unlock(&rate_lock);
	return r;
}

uint64_t pt_gpu_clock_map(uint64_t anchor_ticks, uint64_t anchor_dev, double ticks_per_ns, uint64_t dev)
{
	double d = ((double)(int64_t)(dev - anchor_dev)) * ticks_per_ns;
	int64_t off = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
	if (off < 0 && (uint64_t)-off > anchor_ticks)
		return 0;
	return anchor_ticks + (uint64_t)off;
}

void pt_gpu_clock_bracket(pt_gpu_clock *c, uint64_t t0, uint64_t t1, uint64_t dev)
{
	if (t1 < t0 || !dev)
		return;
	uint64_t width = t1 - t0;
	double rate = pt_gpu_ticks_per_ns();
	pt_spin_lock(&c->lock);
	c->brackets++;
	int first = !c->have;
	int stale = !first && t0 > c->anchor_ticks && (double)(t0 - c->anchor_ticks) > 1e8 * rate;
	if (first || width <= c->width || (stale && width <= 2 * c->best)) {
		c->have = 1;
		c->anchor_ticks = t0 + width / 2;
		c->anchor_dev = dev;
		c->width = width;
	}
	if (first || width < c->best)
		c->best = width;
	pt_spin_unlock(&c->lock);
}

void pt_gpu_clock_reset(pt_gpu_clock *c)
{
	pt_spin_lock(&c->lock);
	c->have = 0;
	c->width = c->best = 0;
	pt_spin_unlock(&c->lock);
}

uint64_t pt_gpu_clock_to_ticks(pt_gpu_clock *c, uint64_t dev)
{
	pt_spin_lock(&c->lock);
	int have = c->have;
	uint64_t at = c->anchor_ticks, ad = c->anchor_dev;
	pt_spin_unlock(&c->lock);
	if (!have || !dev)
		return 0;
	return pt_gpu_clock_map(at, ad, pt_gpu_ticks_per_ns(), dev);
}

/* ---- names -------------------------------------------------------------- */

typedef struct name_ent {
	struct name_ent *next;
	unsigned api;
	uint32_t id;
	char name[];
} name_ent;

#define NAME_BUCKETS 256
static pt_spin names_lock;
static name_ent *kernels[NAME_BUCKETS];
static uint32_t next_kernel = 1;
static name_ent *funcs[NAME_BUCKETS];

static unsigned hash_str(const char *s, unsigned api)
{
	unsigned h = 2166136261u ^ api;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % NAME_BUCKETS;
}

uint32_t pt_gpu_kernel_id(unsigned api, const char *name)
{
	if (!name || !*name)
		name = "(unknown kernel)";
	unsigned b = hash_str(name, api);
	uint32_t id = 0;
	pt_spin_lock(&names_lock);
	for (name_ent *e = kernels[b]; e; e = e->next)
		if (e->api == api && !strcmp(e->name, name)) {
			id = e->id;
			break;
		}
	if (!id) {
		size_t len = strlen(name) + 1;
		name_ent *e = malloc(sizeof *e + len);
		if (e) {
			e->api = api;
			e->id = id = next_kernel++;
			memcpy(e->name, name, len);
			e->next = kernels[b];
			kernels[b] = e;
			/* Written under the lock so no record can use the id
			 * before its definition is in the process log. */
			pt_rec_gpu_kernel_def d = {.kernel = id};
			pt_process_emit(PT_REC_GPU_KERNEL_DEF, api, &d, sizeof d, name, len);
		}
	}
	pt_spin_unlock(&names_lock);
	return id;
}

void pt_gpu_func_define(unsigned api, uint32_t func, const char *name)
{
	unsigned b = (func * 2654435761u ^ api) % NAME_BUCKETS;
	pt_spin_lock(&names_lock);
	for (name_ent *e = funcs[b]; e; e = e->next)
		if (e->api == api && e->id == func) {
			pt_spin_unlock(&names_lock);
			return;
		}
	size_t len = strlen(name) + 1;
	name_ent *e = malloc(sizeof *e + len);
	if (e) {
		e->api = api;
		e->id = func;
		memcpy(e->name, name, len);
		e->next = funcs[b];
		funcs[b] = e;
		pt_rec_gpu_func_def d = {.func = func};
		pt_process_emit(PT_REC_GPU_FUNC_DEF, api, &d, sizeof d, name, len);
	}
	pt_spin_unlock(&names_lock);
}

static void names_forget(void)
{
	for (int i = 0; i < NAME_BUCKETS; i++) {
		for (name_ent *e = kernels[i], *n; e; e = n) {
			n = e->next;
			free(e);
		}
		for (name_ent *e = funcs[i], *n; e; e = n) {
			n = e->next;
			free(e);
		}
		kernels[i] = funcs[i] = NULL;
	}
	next_kernel = 1;
}

/* ---- streams ------------------------------------------------------------ */

static pt_spin streams_lock;
static pt_gpu_stream *streams;
static uint32_t stream_seq[3]; /* per api */

pt_gpu_stream *pt_gpu_stream_get(unsigned api, uint32_t device, uint64_t stream, uint32_t flags,
				 const char *dev_name)
{
	pt_spin_lock(&streams_lock);
	pt_gpu_stream *s;
	for (s = streams; s; s = s->next)
		if (s->api == api && s->device == device && s->stream == stream)
			break;
	if (!s && (s = calloc(1, sizeof *s))) {
		s->api = api;
		s->device = device;
		s->stream = stream;
		s->flags = flags;
		s->seq = ++stream_seq[api < 3 ? api : 0];
		char name[64];
		snprintf(name, sizeof name, "g%s%u-%llu.ptl", api == PT_GPU_API_CUDA ? "cuda" : "ocl",
			 device, (unsigned long long)stream);
		s->file = pt_log_file_open(name, PT_FILE_GPU, stream);
		if (!s->file)
			pt_warn("GPU stream log %s could not be created; its device records are lost",
				name);
		if (s->file) {
			pt_rec_gpu_stream_def d = {
				.stream = stream, .device = device, .seq = s->seq, .flags = flags};
			if (!dev_name)
				dev_name = "";
			s->last = pt_now();
			pt_log_file_emit(s->file, s->last, PT_REC_GPU_STREAM_DEF, api, &d, sizeof d,
					 dev_name, strlen(dev_name) + 1);
		}
		s->next = streams;
		streams = s;
	}
	pt_spin_unlock(&streams_lock);
	return s;
}

void pt_gpu_stream_emit(pt_gpu_stream *s, uint64_t ticks, unsigned kind, const void *payload,
			size_t len)
{
	if (!s || !s->file)
		return;
	pt_spin_lock(&s->lock);
	/* Device records may complete out of start order (out-of-order queues,
	 * concurrent kernels); the payload keeps the exact times. */
	if (ticks < s->last)
		ticks = s->last;
	s->last = ticks;
	pt_log_file_emit(s->file, ticks, kind, s->api, payload, len, NULL, 0);
	pt_spin_unlock(&s->lock);
}

/* With `try`, a lock that is held (by a thread that crashed while holding
 * it, possibly this one) is not waited for: that log is then sealed as it
 * is by pt_shutdown, readable up to its last complete record. */
static int lock_or_try(pt_spin *l, int try)
{
	if (try)
		return pt_spin_trylock(l) ? 0 : -1;
	pt_spin_lock(l);
	return 0;
}

void pt_gpu_streams_close(int forget, int try)
{
	if (lock_or_try(&streams_lock, try) != 0)
		return;
	for (pt_gpu_stream *s = streams, *n; s; s = n) {
		n = s->next;
		if (!forget && s->file && lock_or_try(&s->lock, try) == 0) {
			pt_log_file_close(s->file);
			s->file = NULL;
			pt_spin_unlock(&s->lock);
		}
		if (forget) /* fork child: the parent's logs are the parent's */
			free(s);
	}
	if (forget) {
		streams = NULL;
		memset(stream_seq, 0, sizeof stream_seq);
	}
	pt_spin_unlock(&streams_lock);
}

void pt_gpu_drain(_Atomic long *pending, const char *what)
{
	for (int i = 0; i < 200 && atomic_load(pending) > 0; i++) {
		/* The raw call: nanosleep is the off-CPU part's wrapper here. */
		struct timespec ts = {0, 1000000};
		pt_sys2(SYS_nanosleep, &ts, NULL);
	}
	long left = atomic_load(pending);
	if (left > 0)
		pt_warn("%ld %s", left, what);
}

static _Atomic uint64_t correlation_seq;

uint64_t pt_gpu_next_correlation(void)
{
	return atomic_fetch_add_explicit(&correlation_seq, 1, memory_order_relaxed) + 1;
}

/* ---- the part --------------------------------------------------------------- */

static void gpu_fork_child(void)
{
	/* Another parent thread may have held these locks at fork time. */
	pt_spin_reset(&streams_lock);
	pt_spin_reset(&names_lock);
	pt_spin_reset(&rate_lock);
	pt_gpu_streams_close(1, 0);
	names_forget();
}

/* After the API parts (ordered after this one) have drained their device
 * records into the stream logs. */
static void gpu_shutdown(int in_signal)
{
	pt_gpu_streams_close(0, in_signal);
}

PT_SUBSYSTEM(gpu_part) = {
	.name = "gpu",
	.order = PT_ORDER_GPU,
	.fork_child = gpu_fork_child,
	.shutdown = gpu_shutdown,
};

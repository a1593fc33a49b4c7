/* SPDX-License-Identifier: MIT */
/* The memory family's part of the report: per process the peak of live
 * heap bytes (every thread's calls in time order), the allocation sites
 * (caller functions) whose blocks made that peak, and what was still live
 * at the end; per thread its calls and the peak of the live bytes of the
 * blocks it allocated. Text, CSV, JSON. */
#include "pt_fw_util.h"
#include "mem_common.h"
#include "pt_family.h"
#include "pt_text.h"
#include "report.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

typedef struct mem_ev {
	uint64_t t, ptr, size, freed;
	uint32_t func, shard;
	uint32_t seq; /* order within its shard, for equal times */
	uint8_t op;
} mem_ev;

typedef struct mem_vec {
	mem_ev *v;
	size_t n, cap;
} mem_vec;

typedef struct mem_site {
	uint32_t func;
	uint64_t bytes, blocks;
} mem_site;

typedef struct mem_thread {
	uint32_t pid, tid;
	uint64_t allocs, frees, bytes, live, peak;
} mem_thread;

typedef struct mem_proc {
	uint32_t pid;
	uint64_t allocs, frees, bytes, peak, peak_ns, exit_bytes, exit_blocks;
	mem_site *at_peak, *at_exit;
	size_t npeak, nexit;
} mem_proc;

typedef struct mem_pf_global {
	const pt_trace_ctx *ctx;
	mem_vec *proc_ev; /* per process */
	mem_thread *thr;  /* per shard */
	mem_proc *proc;
	size_t nproc, nshow;
	int computed, oom;
} mem_pf_global;

typedef struct mem_pf_shard {
	mem_vec ev;
	uint32_t seq;
} mem_pf_shard;

static int mem_push(mem_vec *v, const mem_ev *e)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 256;
		mem_ev *p = realloc(v->v, cap * sizeof *p);
		if (!p)
			return -1;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = *e;
	return 0;
}

static int mem_pf_init(const pt_trace_ctx *ctx, void **global)
{
	mem_pf_global *g = calloc(1, sizeof *g);
	size_t np = ctx->nprocesses ? ctx->nprocesses : 1;
	if (!g || !(g->proc_ev = calloc(np, sizeof *g->proc_ev)) ||
	    !(g->thr = calloc(ctx->nshards ? ctx->nshards : 1, sizeof *g->thr)) ||
	    !(g->proc = calloc(np, sizeof *g->proc))) {
		if (g) {
			free(g->proc_ev);
			free(g->thr);
		}
		free(g);
		return -1;
	}
	g->ctx = ctx;
	g->nproc = ctx->nprocesses;
	*global = g;
	return 0;
}

static void mem_pf_destroy(void *global)
{
	mem_pf_global *g = global;
	if (!g)
		return;
	for (size_t i = 0; i < g->nproc; i++) {
		free(g->proc_ev[i].v);
		free(g->proc[i].at_peak);
		free(g->proc[i].at_exit);
	}
	free(g->proc_ev);
	free(g->proc);
	free(g->thr);
	free(g);
}

static int mem_pf_event(void *global, void **shard, const pt_shard_info *in, const pt_event *ev)
{
	mem_pf_global *g = global;
	mem_pf_shard *x = *shard;
	if (!x && !(x = *shard = calloc(1, sizeof *x)))
		return -1;
	unsigned op;
	uint64_t freed, ptr, size, pc;
	if (!mem_record(ev, &op, &freed, &ptr, &size, &pc))
		return 0;
	mem_ev e = {ev->time_ns, ptr, size, freed, 0, (uint32_t)in->index, x->seq++, (uint8_t)op};
	if (ptr && pc)
		e.func = pt_ctx_func_id_pc(g->ctx, in->process, pc);
	return mem_push(&x->ev, &e);
}

static int mem_pf_shard_exit(void *global, void *shard, const pt_shard_info *in, pf_thread *t,
                             uint64_t last_ns)
{
	(void)t, (void)last_ns;
	mem_pf_global *g = global;
	mem_pf_shard *x = shard;
	if (!x)
		return 0;
	int rc = 0;
	mem_vec *to = &g->proc_ev[in->process];
	for (size_t i = 0; i < x->ev.n && !rc; i++)
		rc = mem_push(to, &x->ev.v[i]);
	g->thr[in->index].pid = in->pid;
	g->thr[in->index].tid = in->tid;
	free(x->ev.v);
	free(x);
	if (rc)
		g->oom = 1;
	return rc;
}

/* ---- the walk over a process's calls ------------------------------------ */
static int mem_ev_cmp(const void *a, const void *b)
{
	const mem_ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->shard != y->shard)
		return x->shard < y->shard ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int mem_site_cmp(const void *a, const void *b)
{
	const mem_site *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* The live blocks of m by caller function, largest first. */
static mem_site *mem_sites(const mem_map *m, size_t *n)
{
	*n = 0;
	mem_site *s = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < m->cap; i++) {
		const mem_block *b = &m->v[i];
		if (!b->ptr)
			continue;
		size_t k = 0;
		while (k < *n && s[k].func != b->func)
			k++;
		if (k == *n) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 16;
				mem_site *p = realloc(s, cap * sizeof *p);
				if (!p) {
					free(s);
					*n = 0;
					return NULL;
				}
				s = p;
			}
			s[(*n)++] = (mem_site){b->func, 0, 0};
		}
		s[k].bytes += b->size;
		s[k].blocks++;
	}
	pt_qsort(s, *n, sizeof *s, mem_site_cmp);
	return s;
}

/* One step of the walk: e applied to the live blocks and the counts. */
static int mem_apply(mem_pf_global *g, mem_map *live, const mem_ev *e, int count)
{
	mem_block b;
	mem_thread *th = g->thr;
	if (e->freed && mem_map_take(live, e->freed, &b) && count)
		th[b.shard].live -= b.size;
	if (count) {
		if (e->op == PT_MEM_OP_FREE)
			th[e->shard].frees++;
		else
			th[e->shard].allocs++, th[e->shard].bytes += e->size;
	}
	if (!e->ptr)
		return 0;
	if (mem_map_put(live, &(mem_block){e->ptr, e->size, e->func, e->shard}))
		return -1;
	if (count) {
		mem_thread *t = &th[e->shard];
		t->live += e->size;
		if (t->live > t->peak)
			t->peak = t->live;
	}
	return 0;
}

static int mem_process(mem_pf_global *g, size_t p)
{
	mem_vec *v = &g->proc_ev[p];
	mem_proc *r = &g->proc[p];
	r->pid = g->ctx->processes[p].pid;
	pt_qsort(v->v, v->n, sizeof *v->v, mem_ev_cmp);
	mem_map live = {0};
	size_t peak_at = 0;
	for (size_t i = 0; i < v->n; i++) {
		const mem_ev *e = &v->v[i];
		if (mem_apply(g, &live, e, 1))
			goto oom;
		if (e->op == PT_MEM_OP_FREE)
			r->frees++;
		else
			r->allocs++, r->bytes += e->size;
		if (live.bytes > r->peak) {
			r->peak = live.bytes;
			r->peak_ns = e->t;
			peak_at = i + 1;
		}
	}
	r->exit_bytes = live.bytes;
	r->exit_blocks = live.n;
	r->at_exit = mem_sites(&live, &r->nexit);
	mem_map_free(&live);
	for (size_t i = 0; i < peak_at; i++)
		if (mem_apply(g, &live, &v->v[i], 0))
			goto oom;
	r->at_peak = mem_sites(&live, &r->npeak);
	mem_map_free(&live);
	return 0;
oom:
	mem_map_free(&live);
	return -1;
}

static void mem_compute(mem_pf_global *g)
{
	if (g->computed)
		return;
	g->computed = 1;
	for (size_t p = 0; p < g->nproc; p++) {
		if (!g->proc_ev[p].n)
			continue;
		if (mem_process(g, p))
			g->oom = 1;
		g->nshow++;
	}
}

static const char *mem_func(const mem_pf_global *g, uint32_t func)
{
	const pt_func_info *fi = func ? pt_ctx_func_info(g->ctx, func) : NULL;
	return fi && fi->name ? fi->name : "(unknown caller)";
}

static void mem_sites_text(const mem_pf_global *g, const char *what, const mem_site *s, size_t n,
                           unsigned nw, unsigned top, FILE *o)
{
	if (!n)
		return;
	fprintf(o, "  %s, by caller:\n", what);
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		char b[32], name[512];
		pt_fmt_bytes(b, sizeof b, (double)s[i].bytes);
		pt_text_fit(name, sizeof name, mem_func(g, s[i].func), nw, 0);
		fprintf(o, "    %-*s %11s %9llu blocks\n", (int)nw, name, b,
		        (unsigned long long)s[i].blocks);
	}
}

static void mem_pf_text(void *global, unsigned nw, int short_form, unsigned top, FILE *o)
{
	mem_pf_global *g = global;
	mem_compute(g);
	if (!g->nshow)
		return;
	fputs("\nDynamic memory\n", o);
	for (size_t p = 0; p < g->nproc; p++) {
		const mem_proc *r = &g->proc[p];
		if (!g->proc_ev[p].n)
			continue;
		char a[32], pk[32], ex[32], t[32];
		pt_fmt_bytes(a, sizeof a, (double)r->bytes);
		pt_fmt_bytes(pk, sizeof pk, (double)r->peak);
		pt_fmt_bytes(ex, sizeof ex, (double)r->exit_bytes);
		pt_fmt_dur(t, sizeof t,
		           r->peak_ns > g->ctx->t0_ns ? r->peak_ns - g->ctx->t0_ns : 0);
		fprintf(o,
		        "process %u: %llu allocations (%s), %llu frees; peak %s live at %s; "
		        "at the end %s in %llu blocks\n",
		        r->pid, (unsigned long long)r->allocs, a, (unsigned long long)r->frees, pk,
		        t, ex, (unsigned long long)r->exit_blocks);
		mem_sites_text(g, "live at the peak", r->at_peak, r->npeak, nw, top, o);
		if (!short_form)
			mem_sites_text(g, "live at the end", r->at_exit, r->nexit, nw, top, o);
	}
	if (short_form)
		return;
	fprintf(o, "%-*s %9s %9s %11s %11s\n", (int)nw, "thread", "allocs", "frees", "allocated",
	        "peak");
	for (size_t i = 0; i < g->ctx->nshards; i++) {
		const mem_thread *t = &g->thr[i];
		if (!t->allocs && !t->frees)
			continue;
		char label[64], a[32], pk[32];
		snprintf(label, sizeof label, "%u:%u", t->pid, t->tid);
		pt_fmt_bytes(a, sizeof a, (double)t->bytes);
		pt_fmt_bytes(pk, sizeof pk, (double)t->peak);
		fprintf(o, "%-*s %9llu %9llu %11s %11s\n", (int)nw, label,
		        (unsigned long long)t->allocs, (unsigned long long)t->frees, a, pk);
	}
}

static void mem_pf_csv(void *global, FILE *o)
{
	mem_pf_global *g = global;
	mem_compute(g);
	if (!g->nshow)
		return;
	fputs("\ntable,pid,allocations,frees,bytes_allocated,peak_bytes,peak_ns,end_bytes,"
	      "end_blocks\n",
	      o);
	for (size_t p = 0; p < g->nproc; p++) {
		const mem_proc *r = &g->proc[p];
		if (g->proc_ev[p].n)
			fprintf(o, "memory_process,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", r->pid,
			        (unsigned long long)r->allocs, (unsigned long long)r->frees,
			        (unsigned long long)r->bytes, (unsigned long long)r->peak,
			        (unsigned long long)(r->peak_ns > g->ctx->t0_ns
			                                 ? r->peak_ns - g->ctx->t0_ns
			                                 : 0),
			        (unsigned long long)r->exit_bytes,
			        (unsigned long long)r->exit_blocks);
	}
	fputs("\ntable,pid,when,caller,bytes,blocks\n", o);
	for (size_t p = 0; p < g->nproc; p++) {
		const mem_proc *r = &g->proc[p];
		for (int end = 0; end < 2; end++) {
			const mem_site *s = end ? r->at_exit : r->at_peak;
			size_t n = end ? r->nexit : r->npeak;
			for (size_t i = 0; i < n; i++) {
				fprintf(o, "memory_site,%u,%s,", r->pid, end ? "end" : "peak");
				pt_csv_str(o, mem_func(g, s[i].func));
				fprintf(o, ",%llu,%llu\n", (unsigned long long)s[i].bytes,
				        (unsigned long long)s[i].blocks);
			}
		}
	}
	fputs("\ntable,pid,tid,allocations,frees,bytes_allocated,peak_bytes\n", o);
	for (size_t i = 0; i < g->ctx->nshards; i++) {
		const mem_thread *t = &g->thr[i];
		if (t->allocs || t->frees)
			fprintf(o, "memory_thread,%u,%u,%llu,%llu,%llu,%llu\n", t->pid, t->tid,
			        (unsigned long long)t->allocs, (unsigned long long)t->frees,
			        (unsigned long long)t->bytes, (unsigned long long)t->peak);
	}
}

static void mem_sites_json(const mem_pf_global *g, const mem_site *s, size_t n, FILE *o)
{
	fputc('[', o);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", {\"caller\": " : "{\"caller\": ", o);
		pt_json_str(o, mem_func(g, s[i].func));
		fprintf(o, ", \"bytes\": %llu, \"blocks\": %llu}", (unsigned long long)s[i].bytes,
		        (unsigned long long)s[i].blocks);
	}
	fputc(']', o);
}

static void mem_pf_json(void *global, FILE *o)
{
	mem_pf_global *g = global;
	mem_compute(g);
	fputs(",\n \"memory_processes\": [", o);
	int first = 1;
	for (size_t p = 0; p < g->nproc; p++) {
		const mem_proc *r = &g->proc[p];
		if (!g->proc_ev[p].n)
			continue;
		fprintf(o,
		        "%s\n  {\"pid\": %u, \"allocations\": %llu, \"frees\": %llu, "
		        "\"bytes_allocated\": %llu, \"peak_bytes\": %llu, \"peak_ns\": %llu, "
		        "\"end_bytes\": %llu, \"end_blocks\": %llu, \"at_peak\": ",
		        first ? "" : ",", r->pid, (unsigned long long)r->allocs,
		        (unsigned long long)r->frees, (unsigned long long)r->bytes,
		        (unsigned long long)r->peak,
		        (unsigned long long)(r->peak_ns > g->ctx->t0_ns ? r->peak_ns - g->ctx->t0_ns
		                                                        : 0),
		        (unsigned long long)r->exit_bytes, (unsigned long long)r->exit_blocks);
		mem_sites_json(g, r->at_peak, r->npeak, o);
		fputs(", \"at_end\": ", o);
		mem_sites_json(g, r->at_exit, r->nexit, o);
		fputc('}', o);
		first = 0;
	}
	fputs("\n ],\n \"memory_threads\": [", o);
	first = 1;
	for (size_t i = 0; i < g->ctx->nshards; i++) {
		const mem_thread *t = &g->thr[i];
		if (!t->allocs && !t->frees)
			continue;
		fprintf(o,
		        "%s\n  {\"pid\": %u, \"tid\": %u, \"allocations\": %llu, \"frees\": %llu, "
		        "\"bytes_allocated\": %llu, \"peak_bytes\": %llu}",
		        first ? "" : ",", t->pid, t->tid, (unsigned long long)t->allocs,
		        (unsigned long long)t->frees, (unsigned long long)t->bytes,
		        (unsigned long long)t->peak);
		first = 0;
	}
	fputs("\n ]", o);
}

extern const pf_html mem_html;

const pf_family mem_report = {
    .kind_first = PT_REC_MEM_ALLOC,
    .kind_last = PT_REC_MEM_FREE,
    .init = mem_pf_init,
    .event = mem_pf_event,
    .shard_exit = mem_pf_shard_exit,
    .print_text = mem_pf_text,
    .print_csv = mem_pf_csv,
    .print_json = mem_pf_json,
    .destroy = mem_pf_destroy,
    .html = &mem_html,
};

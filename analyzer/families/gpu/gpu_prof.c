/* SPDX-License-Identifier: MIT */
/* Kernel profiles for the analyzer parts (gpu_prof.h). */
#include "gpu_prof.h"

#include <stdlib.h>
#include <string.h>

/* ---- definitions ------------------------------------------------------------ */

typedef struct proc_defs {
	gpu_prof_def *defs; /* by profile id (ids are dense from 1) */
	size_t n;
} proc_defs;

struct gpu_profs {
	size_t nprocesses;
	proc_defs *procs;
};

gpu_profs *gpu_profs_new(size_t nprocesses)
{
	gpu_profs *p = calloc(1, sizeof *p);
	if (!p || !(p->procs = calloc(nprocesses ? nprocesses : 1, sizeof *p->procs))) {
		free(p);
		return NULL;
	}
	p->nprocesses = nprocesses;
	return p;
}

static void def_free(gpu_prof_def *d)
{
	for (uint32_t i = 0; i < d->nfiles; i++)
		free(d->files[i]);
	free(d->files);
	free(d->blocks);
	memset(d, 0, sizeof *d);
}

void gpu_profs_free(gpu_profs *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nprocesses; i++) {
		for (size_t j = 0; j < p->procs[i].n; j++)
			def_free(&p->procs[i].defs[j]);
		free(p->procs[i].defs);
	}
	free(p->procs);
	free(p);
}

void gpu_profs_process_event(gpu_profs *p, size_t process, const pt_event *ev)
{
	if (!p || ev->kind != PT_REC_GPU_PROF_DEF || process >= p->nprocesses)
		return;
	const pt_rec_gpu_prof_def *r = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_prof_def);
	size_t room = ev->size - sizeof(pt_rec_head);
	if (!r || !r->prof || r->prof > (1u << 24) || r->nblocks > room / sizeof(pt_gpu_prof_block))
		return;
	size_t rows = (size_t)r->nblocks * sizeof(pt_gpu_prof_block);
	if (sizeof *r + rows > room)
		return;
	gpu_prof_def d = {.kernel = r->kernel,
	                  .flags = r->flags,
	                  .nblocks = r->nblocks,
	                  .file = r->file,
	                  .line = r->line};
	d.blocks = malloc(rows ? rows : 1);
	d.files = calloc(r->nfiles ? r->nfiles : 1, sizeof *d.files);
	if (!d.blocks || !d.files) {
		def_free(&d);
		return;
	}
	memcpy(d.blocks, r + 1, rows);
	size_t off = sizeof *r + rows;
	for (uint32_t i = 0; i < r->nfiles && i < 65536; i++) {
		const char *s = pt_event_string(ev, off);
		if (!s || !(d.files[i] = strdup(s)))
			break;
		d.nfiles++;
		off += strlen(s) + 1;
	}
	proc_defs *pd = &p->procs[process];
	if (r->prof >= pd->n) {
		size_t n = (size_t)r->prof + 16;
		gpu_prof_def *defs = realloc(pd->defs, n * sizeof *defs);
		if (!defs) {
			def_free(&d);
			return;
		}
		memset(defs + pd->n, 0, (n - pd->n) * sizeof *defs);
		pd->defs = defs;
		pd->n = n;
	}
	def_free(&pd->defs[r->prof]);
	pd->defs[r->prof] = d;
}

const gpu_prof_def *gpu_profs_get(const gpu_profs *p, size_t process, uint32_t prof)
{
	if (!p || process >= p->nprocesses || prof >= p->procs[process].n)
		return NULL;
	const gpu_prof_def *d = &p->procs[process].defs[prof];
	return d->blocks ? d : NULL;
}

const char *gpu_prof_file(const gpu_prof_def *d, int32_t file)
{
	return file >= 0 && (uint32_t)file < d->nfiles ? d->files[file] : "";
}

int gpu_launch_prof_read(const gpu_prof_def *d, const pt_rec_head *h, gpu_launch_prof *out)
{
	memset(out, 0, sizeof *out);
	const pt_rec_gpu_prof *r = PT_REC_PAYLOAD(h, pt_rec_gpu_prof);
	if (!r || !d)
		return -1;
	size_t room = pt_rec_size(h) - sizeof *h - sizeof *r;
	if ((uint64_t)r->nblocks * sizeof(uint64_t) > room ||
	    (r->nblocks && r->nblocks != d->nblocks))
		return -1;
	out->rec = r;
	out->nblocks = r->nblocks;
	out->counts = r->nblocks ? (const uint64_t *)(const void *)(r + 1) : NULL;
	for (uint32_t b = 0; b < out->nblocks; b++) {
		uint64_t x = out->counts[b] * d->blocks[b].instructions;
		out->instructions += x;
		if (x > out->hot_instructions) {
			out->hot_instructions = x;
			out->hot_block = b;
		}
	}
	return 0;
}

void gpu_prof_values_of(const gpu_prof_def *d, const gpu_launch_prof *lp, gpu_prof_values *v)
{
	memset(v, 0, sizeof *v);
	const pt_rec_gpu_prof *r = lp->rec;
	v->groups = r->wg_exits;
	if (lp->counts) {
		v->counted = 1;
		v->instructions = lp->instructions;
		v->hot_share_pct = lp->instructions
		                       ? (uint32_t)(100 * lp->hot_instructions / lp->instructions)
		                       : 0;
		v->hot_line = d->blocks[lp->hot_block].line;
	}
	if ((d->flags & PT_GPU_PROF_F_CLOCK) && r->wg_exits && r->dur_sum_ns) {
		v->timed = 1;
		v->wg_mean_ns = r->dur_sum_ns / r->wg_exits;
		v->imbalance_pct = (uint32_t)((double)r->dur_max_ns * 100.0 * (double)r->wg_exits /
		                              (double)r->dur_sum_ns);
	}
}

/* ---- joining kernels and profiles --------------------------------------------- */

#define RECENT_KERNELS 256
#define MAX_WAITING 65536

typedef struct recent_kernel {
	uint64_t corr, start, end;
} recent_kernel;

struct gpu_prof_join {
	recent_kernel recent[RECENT_KERNELS]; /* ring */
	size_t next, nrecent;
	pt_rec_head **waiting; /* profiles whose kernel has not come yet */
	size_t nwaiting, cap;
};

gpu_prof_join *gpu_prof_join_new(void)
{
	return calloc(1, sizeof(gpu_prof_join));
}

void gpu_prof_join_free(gpu_prof_join *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nwaiting; i++)
		free(j->waiting[i]);
	free(j->waiting);
	free(j);
}

static uint64_t prof_corr(const pt_rec_head *h)
{
	const pt_rec_gpu_prof *r = PT_REC_PAYLOAD(h, pt_rec_gpu_prof);
	return r ? r->correlation : 0;
}

pt_rec_head *gpu_prof_join_kernel(gpu_prof_join *j, uint64_t corr, uint64_t start, uint64_t end)
{
	if (!j)
		return NULL;
	for (size_t i = j->nwaiting; i-- > 0;)
		if (prof_corr(j->waiting[i]) == corr) {
			pt_rec_head *h = j->waiting[i];
			memmove(j->waiting + i, j->waiting + i + 1,
			        (j->nwaiting - i - 1) * sizeof *j->waiting);
			j->nwaiting--;
			return h;
		}
	j->recent[j->next] = (recent_kernel){corr, start, end};
	j->next = (j->next + 1) % RECENT_KERNELS;
	if (j->nrecent < RECENT_KERNELS)
		j->nrecent++;
	return NULL;
}

int gpu_prof_join_profile(gpu_prof_join *j, const pt_rec_head *h, uint64_t *start, uint64_t *end)
{
	if (!j)
		return 0;
	uint64_t corr = prof_corr(h);
	/* newest first: the kernel is usually the one just seen */
	for (size_t k = 1; k <= j->nrecent; k++) {
		const recent_kernel *r =
		    &j->recent[(j->next + RECENT_KERNELS - k) % RECENT_KERNELS];
		if (r->corr == corr) {
			*start = r->start;
			*end = r->end;
			return 1;
		}
	}
	if (j->nwaiting == MAX_WAITING) { /* the oldest never found its kernel */
		free(j->waiting[0]);
		memmove(j->waiting, j->waiting + 1, (j->nwaiting - 1) * sizeof *j->waiting);
		j->nwaiting--;
	}
	if (j->nwaiting == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 16;
		pt_rec_head **w = realloc(j->waiting, cap * sizeof *w);
		if (!w)
			return 0;
		j->waiting = w;
		j->cap = cap;
	}
	size_t size = pt_rec_size(h);
	pt_rec_head *copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, h, size);
	j->waiting[j->nwaiting++] = copy;
	return 0;
}

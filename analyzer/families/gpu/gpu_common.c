/* SPDX-License-Identifier: MIT */
/* Shared GPU analyzer helpers (see gpu_common.h). */
#include "gpu_common.h"

#include "pt_symbols.h"

#include <stdlib.h>
#include <string.h>

typedef struct kname {
	char *name; /* demangled or as recorded */
} kname;

typedef struct fname {
	unsigned api;
	uint32_t func;
	char *name;
} fname;

typedef struct proc_map {
	uint32_t *value; /* local kernel id -> trace-wide value */
	size_t n;
} proc_map;

struct gpu_names {
	kname *kernels; /* value - 1 */
	size_t nk, capk;
	fname *funcs;
	size_t nf, capf;
	proc_map *procs;
	size_t nprocs;
};

gpu_names *gpu_names_new(size_t nprocesses)
{
	gpu_names *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	n->procs = calloc(nprocesses ? nprocesses : 1, sizeof *n->procs);
	if (!n->procs) {
		free(n);
		return NULL;
	}
	n->nprocs = nprocesses;
	return n;
}

void gpu_names_free(gpu_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nk; i++)
		free(n->kernels[i].name);
	for (size_t i = 0; i < n->nf; i++)
		free(n->funcs[i].name);
	for (size_t i = 0; i < n->nprocs; i++)
		free(n->procs[i].value);
	free(n->kernels);
	free(n->funcs);
	free(n->procs);
	free(n);
}

static uint32_t kernel_value(gpu_names *n, const char *raw)
{
	char *d = pt_demangle(raw);
	const char *name = d ? d : raw;
	for (size_t i = 0; i < n->nk; i++)
		if (!strcmp(n->kernels[i].name, name)) {
			free(d);
			return (uint32_t)i + 1;
		}
	if (n->nk == n->capk) {
		size_t cap = n->capk ? 2 * n->capk : 16;
		kname *k = realloc(n->kernels, cap * sizeof *k);
		if (!k) {
			free(d);
			return 0;
		}
		n->kernels = k;
		n->capk = cap;
	}
	n->kernels[n->nk].name = d ? d : strdup(raw);
	if (!n->kernels[n->nk].name)
		return 0;
	return (uint32_t)++n->nk;
}

void gpu_names_process_event(gpu_names *n, size_t process, const pt_event *ev)
{
	if (!n || process >= n->nprocs)
		return;
	if (ev->kind == PT_REC_GPU_KERNEL_DEF) {
		const pt_rec_gpu_kernel_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_kernel_def);
		const char *name = pt_event_string(ev, sizeof *d);
		if (!d || !name || !d->kernel || d->kernel > 1u << 24)
			return;
		uint32_t v = kernel_value(n, name);
		proc_map *p = &n->procs[process];
		if (d->kernel >= p->n) {
			size_t want = (size_t)d->kernel + 16;
			uint32_t *nv = realloc(p->value, want * sizeof *nv);
			if (!nv)
				return;
			memset(nv + p->n, 0, (want - p->n) * sizeof *nv);
			p->value = nv;
			p->n = want;
		}
		p->value[d->kernel] = v;
	} else if (ev->kind == PT_REC_GPU_FUNC_DEF) {
		const pt_rec_gpu_func_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_func_def);
		const char *name = pt_event_string(ev, sizeof *d);
		if (!d || !name)
			return;
		unsigned api = ev->rec->arg;
		for (size_t i = 0; i < n->nf; i++)
			if (n->funcs[i].api == api && n->funcs[i].func == d->func)
				return;
		if (n->nf == n->capf) {
			size_t cap = n->capf ? 2 * n->capf : 16;
			fname *f = realloc(n->funcs, cap * sizeof *f);
			if (!f)
				return;
			n->funcs = f;
			n->capf = cap;
		}
		char *s = strdup(name);
		if (!s)
			return;
		n->funcs[n->nf++] = (fname){api, d->func, s};
	}
}

uint32_t gpu_names_kernel(const gpu_names *n, size_t process, uint32_t local_id)
{
	if (!n || process >= n->nprocs || local_id >= n->procs[process].n)
		return 0;
	return n->procs[process].value[local_id];
}

uint32_t gpu_names_nkernels(const gpu_names *n)
{
	return n ? (uint32_t)n->nk : 0;
}

const char *gpu_names_kernel_name(const gpu_names *n, uint32_t value)
{
	if (!n || !value || value > n->nk)
		return NULL;
	return n->kernels[value - 1].name;
}

size_t gpu_names_nfuncs(const gpu_names *n)
{
	return n ? n->nf : 0;
}

int gpu_names_func_at(const gpu_names *n, size_t i, unsigned *api, uint32_t *func, const char **name)
{
	if (!n || i >= n->nf)
		return -1;
	*api = n->funcs[i].api;
	*func = n->funcs[i].func;
	*name = n->funcs[i].name;
	return 0;
}

uint64_t gpu_ticks_ns(const pt_shard_info *shard, uint64_t ticks)
{
	return pt_ticks_to_ns(shard->header, ticks);
}

const char *gpu_copy_dir_name(uint32_t dir)
{
	static const char *const names[] = {"other", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "memset"};
	return dir < sizeof names / sizeof *names ? names[dir] : "other";
}

/* SPDX-License-Identifier: MIT */
/* The OTF2 export's definitions (ot_internal.h), written in finish once
 * every shard is done: the clock, the paradigms, the system tree (the
 * run, a node per host, a process per rank or pid), a location group per
 * process and a location per shard with its event count, the regions (the
 * functions by their ids, the API calls by ot_region's), the thread
 * contingent of each process (ThreadCreate's communicator), then what the
 * families define; then each location's local definitions: the mapping
 * tables from the events' refs of regions and communicators to the
 * definitions' dense ones (ot.h). A string is written just before the
 * first record that names it. */
#define _GNU_SOURCE
#include "ot_internal.h"

#include "pt_fw_mpi.h"
#include "pt_fw_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

OTF2_StringRef ot_string(ot_defs *d, const char *s)
{
	int added;
	ot_name *e = ot_names_get(&d->tool->strings, s ? s : "", &added);
	if (!e)
		return OTF2_UNDEFINED_STRING;
	if (added)
		OTF2_GlobalDefWriter_WriteString(d->w, e->ref, e->s);
	return e->ref;
}

OTF2_GroupRef ot_group(ot_defs *d)
{
	return d->tool->ngroups++;
}

/* The definition's ref of a communicator the events name `local`. */
static uint64_t comm_global(const ot_tool *t, uint64_t local)
{
	for (size_t i = 0; i < t->ncomm_map; i++)
		if (t->comm_map[2 * i] == local)
			return t->comm_map[2 * i + 1];
	return OTF2_UNDEFINED_COMM;
}

int ot_comm_def(ot_defs *d, uint32_t local, OTF2_StringRef name, OTF2_GroupRef group,
                uint32_t parent)
{
	ot_tool *t = d->tool;
	if (t->ncomm_map == t->cap_comm_map) {
		size_t ncap = t->cap_comm_map ? 2 * t->cap_comm_map : 64;
		uint64_t *v = realloc(t->comm_map, 2 * ncap * sizeof *v);
		if (!v)
			return -1;
		t->comm_map = v;
		t->cap_comm_map = ncap;
	}
	uint64_t global = t->ncomm_map;
	t->comm_map[2 * t->ncomm_map] = local;
	t->comm_map[2 * t->ncomm_map + 1] = global;
	t->ncomm_map++;
	OTF2_GlobalDefWriter_WriteComm(d->w, (OTF2_CommRef)global, name, group,
	                               parent == OTF2_UNDEFINED_COMM
	                                   ? OTF2_UNDEFINED_COMM
	                                   : (OTF2_CommRef)comm_global(t, parent),
	                               OTF2_COMM_FLAG_NONE);
	return 0;
}

uint64_t ot_process_location(const pt_trace_ctx *ctx, size_t process)
{
	const pt_process_info *p = &ctx->processes[process];
	for (size_t i = p->first_shard; i < p->first_shard + p->nshards; i++)
		if (ctx->shards[i].kind == PT_FILE_THREAD)
			return i;
	return OTF2_UNDEFINED_LOCATION;
}

static void paradigms(ot_defs *d)
{
	static const struct {
		OTF2_Paradigm p;
		const char *name;
		OTF2_ParadigmClass c;
	} v[] = {
	    {OTF2_PARADIGM_MEASUREMENT_SYSTEM, "Measurement", OTF2_PARADIGM_CLASS_PROCESS},
	    {OTF2_PARADIGM_COMPILER, "Compiler", OTF2_PARADIGM_CLASS_PROCESS},
	    {OTF2_PARADIGM_PTHREAD, "Pthread", OTF2_PARADIGM_CLASS_THREAD_CREATE_WAIT},
	    {OTF2_PARADIGM_MPI, "MPI", OTF2_PARADIGM_CLASS_PROCESS},
	    {OTF2_PARADIGM_OPENMP, "OpenMP", OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN},
	    {OTF2_PARADIGM_CUDA, "CUDA", OTF2_PARADIGM_CLASS_ACCELERATOR},
	    {OTF2_PARADIGM_OPENCL, "OpenCL", OTF2_PARADIGM_CLASS_ACCELERATOR},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		OTF2_GlobalDefWriter_WriteParadigm(d->w, v[i].p, ot_string(d, v[i].name), v[i].c);
}

static const char *host_of(const pt_trace_ctx *ctx, size_t p)
{
	const pt_fw_mpi *m = pt_fw_mpi_process(ctx, p);
	return m && m->host ? m->host : "localhost";
}

/* The run, its nodes (one per host), its processes' groups. */
static int system_tree(ot_defs *d)
{
	const pt_trace_ctx *ctx = d->tool->ctx;
	OTF2_GlobalDefWriter *w = d->w;
	OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, ot_string(d, "paratrace run"),
	                                         ot_string(d, "machine"),
	                                         OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	ot_names hosts = {0};
	char name[512];
	for (size_t p = 0; p < ctx->nprocesses; p++) {
		int added;
		ot_name *h = ot_names_get(&hosts, host_of(ctx, p), &added);
		if (!h) {
			ot_names_free(&hosts);
			return -1;
		}
		if (added)
			OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 1 + h->ref, ot_string(d, h->s),
			                                         ot_string(d, "node"), 0);
		const pt_process_info *pi = &ctx->processes[p];
		const pt_fw_mpi *m = pt_fw_mpi_process(ctx, p);
		if (m)
			snprintf(name, sizeof name, "MPI Rank %d", m->rank);
		else
			snprintf(name, sizeof name, "%s %u", pi->program, pi->pid);
		OTF2_GlobalDefWriter_WriteLocationGroup(
		    w, p, ot_string(d, name), OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + h->ref,
		    pi->parent >= 0 ? (OTF2_LocationGroupRef)pi->parent
		                    : OTF2_UNDEFINED_LOCATION_GROUP);
	}
	ot_names_free(&hosts);
	for (size_t i = 0; i < ctx->nshards; i++) {
		const pt_shard_info *s = &ctx->shards[i];
		if (s->kind == PT_FILE_GPU)
			snprintf(name, sizeof name, "GPU stream %llu",
			         (unsigned long long)s->gpu_stream);
		else if (s->tid == s->pid)
			snprintf(name, sizeof name, "Master thread %u", s->tid);
		else
			snprintf(name, sizeof name, "Thread %u", s->tid);
		OTF2_GlobalDefWriter_WriteLocation(w, i, ot_string(d, name),
		                                   s->kind == PT_FILE_GPU
		                                       ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
		                                       : OTF2_LOCATION_TYPE_CPU_THREAD,
		                                   d->tool->nevents[i], s->process);
	}
	return 0;
}

/* A registry of every process (API regions or metrics), by name: the
 * definitions' refs are the places in name order, the same whichever
 * process or worker met a name first. */
typedef struct ot_union {
	ot_names names;   /* ref: the order met */
	uint32_t *sorted; /* by place: the ref */
	uint32_t *place;  /* by ref */
} ot_union;

static void union_free(ot_union *u)
{
	ot_names_free(&u->names);
	free(u->sorted);
	free(u->place);
}

static const ot_names *cmp_names;
static int cmp_by_name(const void *a, const void *b)
{
	const ot_names *n = cmp_names;
	return strcmp(n->v[n->by[*(const uint32_t *)a]].s, n->v[n->by[*(const uint32_t *)b]].s);
}

static int union_sort(ot_union *u)
{
	size_t n = u->names.n;
	u->sorted = malloc((n + 1) * sizeof *u->sorted);
	u->place = malloc((n + 1) * sizeof *u->place);
	if (!u->sorted || !u->place)
		return -1;
	for (size_t k = 0; k < n; k++)
		u->sorted[k] = (uint32_t)k;
	cmp_names = &u->names; /* finish runs on one thread */
	pt_qsort(u->sorted, n, sizeof *u->sorted, cmp_by_name);
	for (size_t k = 0; k < n; k++)
		u->place[u->sorted[k]] = (uint32_t)k;
	return 0;
}

static const ot_name *union_at(const ot_union *u, size_t place)
{
	return &u->names.v[u->names.by[u->sorted[place]]];
}

static const pt_trace_ctx *cmp_ctx;
static int cmp_func_ids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const pt_func_info *fx = pt_ctx_func_info(cmp_ctx, x), *fy = pt_ctx_func_info(cmp_ctx, y);
	int c = 0;
	if (fx && fy && !(c = strcmp(fx->name, fy->name)) && !(c = strcmp(fx->file, fy->file)) &&
	    fx->line != fy->line)
		c = fx->line < fy->line ? -1 : 1;
	if (fx && fy && !c)
		c = strcmp(fx->module, fy->module);
	if (!c && !fx != !fy)
		c = fx ? -1 : 1;
	return c ? c : (x > y) - (x < y);
}

/* t->func_def: the functions' definitions in name order (their ids are
 * the order the workers met them in, where they are named by address or
 * not named). Every process computes it from the same table. */
static int func_defs(ot_tool *t, uint32_t n)
{
	uint32_t *by = malloc((n + 1) * sizeof *by);
	t->func_def = malloc((n + 1) * sizeof *t->func_def);
	if (!by || !t->func_def) {
		free(by);
		return -1;
	}
	for (uint32_t k = 0; k < n; k++)
		by[k] = k + 1;
	cmp_ctx = t->ctx; /* finish runs on one thread */
	pt_qsort(by, n, sizeof *by, cmp_func_ids);
	t->func_def[0] = 0;
	for (uint32_t k = 0; k < n; k++)
		t->func_def[by[k]] = k;
	free(by);
	return 0;
}

/* The functions (id 1..n: definitions 0..n-1, t->func_def), then the API
 * regions (definitions n..). */
static int regions(ot_defs *d, uint32_t n, const ot_union *api)
{
	const pt_trace_ctx *ctx = d->tool->ctx;
	OTF2_StringRef empty = ot_string(d, "");
	uint32_t *by = malloc((n + 1) * sizeof *by);
	if (!by)
		return -1;
	for (uint32_t id = 1; id <= n; id++)
		by[d->tool->func_def[id]] = id;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t id = by[k];
		const pt_func_info *fi = pt_ctx_func_info(ctx, id);
		OTF2_StringRef name = ot_string(d, fi ? fi->name : "?");
		OTF2_GlobalDefWriter_WriteRegion(
		    d->w, k, name, name, empty, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER,
		    OTF2_REGION_FLAG_NONE, ot_string(d, fi ? fi->file : ""), fi ? fi->line : 0,
		    fi ? fi->line : 0);
	}
	free(by);
	for (size_t k = 0; k < api->names.n; k++) {
		const ot_name *e = union_at(api, k);
		OTF2_StringRef name = ot_string(d, e->s);
		OTF2_GlobalDefWriter_WriteRegion(d->w, n + (uint32_t)k, name, name, empty, e->role,
		                                 e->paradigm, OTF2_REGION_FLAG_NONE, empty, 0, 0);
	}
	return 0;
}

/* Each counter a metric member and a class of its own (role: a PAPI
 * preset; paradigm: a manual counter). */
static void metrics(ot_defs *d, const ot_union *m)
{
	OTF2_StringRef unit = ot_string(d, "#"), empty = ot_string(d, "");
	for (uint32_t i = 0; i < m->names.n; i++) {
		const ot_name *e = union_at(m, i);
		int papi = e->role, manual = e->paradigm;
		OTF2_GlobalDefWriter_WriteMetricMember(
		    d->w, i, ot_string(d, e->s), empty,
		    papi     ? OTF2_METRIC_TYPE_PAPI
		    : manual ? OTF2_METRIC_TYPE_USER
		             : OTF2_METRIC_TYPE_OTHER,
		    manual ? OTF2_METRIC_ABSOLUTE_POINT : OTF2_METRIC_ACCUMULATED_START,
		    OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, unit);
		OTF2_MetricMemberRef member = i;
		OTF2_GlobalDefWriter_WriteMetricClass(d->w, i, 1, &member,
		                                      manual ? OTF2_METRIC_ASYNCHRONOUS
		                                             : OTF2_METRIC_SYNCHRONOUS,
		                                      OTF2_RECORDER_KIND_CPU);
	}
}

/* Each location's mapping tables (the same for all the process's), for
 * the locations this process wrote (alone: all of them). */
static int local_defs(ot_tool *t, uint32_t nfuncs, char *err, size_t errlen)
{
	const pt_trace_ctx *ctx = t->ctx;
	if (OTF2_Archive_OpenDefFiles(t->ar)) {
		snprintf(err, errlen, "%s: the OTF2 library cannot open the definition files",
		         t->path);
		return -1;
	}
	int *owner = malloc((ctx->nshards + 1) * sizeof *owner);
	OTF2_IdMap *regions = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, nfuncs + t->regions.n + 1);
	OTF2_IdMap *comms = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, t->ncomm_map + 1);
	OTF2_IdMap *metrics = OTF2_IdMap_Create(OTF2_ID_MAP_SPARSE, t->metrics.n + 1);
	/* no mapping (exchange_names failed): the files still opened and
	 * closed, with every process, and the error said */
	int rc =
	    owner && regions && comms && metrics && t->region_def && t->metric_def && t->func_def
	        ? 0
	        : -1;
	if (!rc && t->dist)
		pt_dist_assign(ctx->shards, ctx->nshards, t->dist->size, owner);
	else if (owner)
		memset(owner, 0, (ctx->nshards + 1) * sizeof *owner);
	for (uint32_t id = 1; !rc && id <= nfuncs; id++)
		rc = OTF2_IdMap_AddIdPair(regions, id, t->func_def[id]) ? -1 : 0;
	for (size_t k = 0; !rc && k < t->regions.n; k++)
		rc = OTF2_IdMap_AddIdPair(regions, OT_API_REGIONS + k, nfuncs + t->region_def[k])
		         ? -1
		         : 0;
	for (size_t k = 0; !rc && k < t->metrics.n; k++)
		rc = OTF2_IdMap_AddIdPair(metrics, k, t->metric_def[k]) ? -1 : 0;
	for (size_t k = 0; !rc && k < t->ncomm_map; k++)
		rc = OTF2_IdMap_AddIdPair(comms, t->comm_map[2 * k], t->comm_map[2 * k + 1]) ? -1
		                                                                             : 0;
	int me = t->dist ? t->dist->rank : 0;
	for (size_t i = 0; !rc && i < ctx->nshards; i++) {
		if (owner[i] != me)
			continue;
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(t->ar, i);
		/* an empty table is one the readers cannot read */
		rc = !dw ||
		             (nfuncs + t->regions.n &&
		              OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, regions)) ||
		             (t->ncomm_map &&
		              OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, comms)) ||
		             (t->metrics.n &&
		              OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_METRIC, metrics)) ||
		             OTF2_Archive_CloseDefWriter(t->ar, dw)
		         ? -1
		         : 0;
	}
	free(owner);
	if (regions)
		OTF2_IdMap_Free(regions);
	if (comms)
		OTF2_IdMap_Free(comms);
	if (metrics)
		OTF2_IdMap_Free(metrics);
	if (OTF2_Archive_CloseDefFiles(t->ar) || rc) {
		snprintf(err, errlen, "%s: the OTF2 library could not write the local definitions",
		         t->path);
		return -1;
	}
	return 0;
}

int ot_thread_comms(ot_defs *d, OTF2_Paradigm paradigm, uint32_t base, const char *what)
{
	const pt_trace_ctx *ctx = d->tool->ctx;
	uint64_t *m = malloc((ctx->nshards + 1) * sizeof *m);
	uint32_t *index = malloc((ctx->nshards + 1) * sizeof *index);
	if (!m || !index) {
		free(m);
		free(index);
		return -1;
	}
	uint32_t n = 0;
	for (size_t i = 0; i < ctx->nshards; i++)
		if (ctx->shards[i].kind == PT_FILE_THREAD) {
			index[i] = n;
			m[n++] = i;
		}
	OTF2_GlobalDefWriter_WriteGroup(d->w, ot_group(d), ot_string(d, what),
	                                OTF2_GROUP_TYPE_COMM_LOCATIONS, paradigm,
	                                OTF2_GROUP_FLAG_NONE, n, m);
	char name[128];
	size_t p = 0;
	for (; p < ctx->nprocesses; p++) {
		const pt_process_info *pi = &ctx->processes[p];
		uint32_t k = 0;
		for (size_t i = pi->first_shard; i < pi->first_shard + pi->nshards; i++)
			if (ctx->shards[i].kind == PT_FILE_THREAD)
				m[k++] = index[i];
		snprintf(name, sizeof name, "%s of %u", what, pi->pid);
		OTF2_StringRef s = ot_string(d, name);
		OTF2_GroupRef g = ot_group(d);
		OTF2_GlobalDefWriter_WriteGroup(d->w, g, s, OTF2_GROUP_TYPE_COMM_GROUP, paradigm,
		                                OTF2_GROUP_FLAG_NONE, k, m);
		if (ot_comm_def(d, base + (uint32_t)p, s, g, OTF2_UNDEFINED_COMM))
			break;
	}
	int rc = p < ctx->nprocesses ? -1 : 0;
	free(m);
	free(index);
	return rc;
}

/* A registry's names, in the order of their numbers, with their two
 * bytes. */
static void put_names(pt_buf *b, const ot_names *n)
{
	pt_buf_u64(b, n->n);
	for (size_t k = 0; k < n->n; k++) {
		const ot_name *e = &n->v[n->by[k]];
		pt_buf_str(b, e->s);
		pt_buf_u64(b, (uint64_t)e->role << 8 | e->paradigm);
	}
}

/* One process's names into the union; map (when not NULL): each of its
 * numbers' ref in u. -1: out of memory or damaged. */
static int get_names(pt_rbuf *r, ot_union *u, uint32_t **map)
{
	uint64_t n = pt_rbuf_u64(r);
	if (r->err || n > (uint64_t)(r->end - r->p))
		return -1;
	if (map && !(*map = malloc((n + 1) * sizeof **map)))
		return -1;
	for (uint64_t k = 0; k < n; k++) {
		char *s = pt_rbuf_str(r);
		uint64_t bytes = pt_rbuf_u64(r);
		int added;
		ot_name *e = s && !r->err ? ot_names_get(&u->names, s, &added) : NULL;
		free(s);
		if (!e)
			return -1;
		if (added) {
			e->role = (uint8_t)(bytes >> 8);
			e->paradigm = (uint8_t)bytes;
		}
		if (map)
			(*map)[k] = e->ref;
	}
	return 0;
}

static int cmp_lock(const void *a, const void *b)
{
	const ot_lock_key *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if ((uint32_t)x->object != (uint32_t)y->object)
		return (uint32_t)x->object < (uint32_t)y->object ? -1 : 1;
	return x->object < y->object ? -1 : x->object > y->object;
}

/* The locks (every process's) whose id another of their process's has. */
static int count_clashes(ot_tool *t)
{
	ot_lock_key *v = malloc((t->locks.n + 1) * sizeof *v);
	if (!v)
		return -1;
	size_t n = 0;
	for (size_t i = 0; i < t->locks.cap; i++)
		if (t->locks.v[i].id)
			v[n++] = t->locks.v[i];
	pt_qsort(v, n, sizeof *v, cmp_lock);
	t->lock_clashes = 0;
	for (size_t i = 0; i < n; i++) {
		int prev = i > 0 && v[i].pid == v[i - 1].pid &&
		           (uint32_t)v[i].object == (uint32_t)v[i - 1].object;
		int next = i + 1 < n && v[i].pid == v[i + 1].pid &&
		           (uint32_t)v[i].object == (uint32_t)v[i + 1].object;
		t->lock_clashes += prev || next;
	}
	free(v);
	return 0;
}

/* What every process met (API regions, metrics, locks) and wrote (each
 * location's events), to every process: the unions in name order, this
 * process's numbers' refs in them (t->region_def, t->metric_def), every
 * location's event count, the locks' clashes. */
static int exchange_names(ot_tool *t, ot_union *api, ot_union *met)
{
	const pt_trace_ctx *ctx = t->ctx;
	pt_buf b = {0};
	put_names(&b, &t->regions);
	put_names(&b, &t->metrics);
	for (size_t i = 0; i < ctx->nshards; i++)
		pt_buf_u64(&b, t->nevents[i]);
	pt_buf_u64(&b, t->locks.n);
	for (size_t i = 0; i < t->locks.cap; i++)
		if (t->locks.v[i].id) {
			pt_buf_u64(&b, t->locks.v[i].pid);
			pt_buf_u64(&b, t->locks.v[i].object);
		}
	char *all = NULL;
	size_t *lens = NULL;
	int rc = ot_exchange(t, &b, &all, &lens);
	free(b.d);
	uint32_t *rmap = NULL, *mmap_ = NULL;
	size_t off = 0;
	int me = t->dist ? t->dist->rank : 0;
	for (int p = 0; !rc && p < ot_nprocs(t); p++) {
		pt_rbuf r = {all + off, all + off + lens[p], 0};
		off += lens[p];
		rc = get_names(&r, api, p == me ? &rmap : NULL) ||
		     get_names(&r, met, p == me ? &mmap_ : NULL);
		for (size_t i = 0; !rc && i < ctx->nshards; i++) {
			uint64_t n = pt_rbuf_u64(&r);
			if (p != me)
				t->nevents[i] += n;
		}
		uint64_t nlocks = pt_rbuf_u64(&r);
		for (uint64_t i = 0; !rc && !r.err && i < nlocks; i++) {
			uint64_t pid = pt_rbuf_u64(&r), object = pt_rbuf_u64(&r);
			if (p != me && !r.err)
				rc = ot_locks_add(&t->locks, (uint32_t)pid, object);
		}
		if (r.err)
			rc = -1;
	}
	free(all);
	free(lens);
	if (!rc)
		rc = count_clashes(t);
	if (!rc)
		rc = union_sort(api) || union_sort(met) ? -1 : 0;
	if (!rc) {
		for (size_t k = 0; k < t->regions.n; k++)
			rmap[k] = api->place[rmap[k]];
		for (size_t k = 0; k < t->metrics.n; k++)
			mmap_[k] = met->place[mmap_[k]];
		t->region_def = rmap;
		t->metric_def = mmap_;
		t->events = 0;
		for (size_t i = 0; i < ctx->nshards; i++)
			t->events += t->nevents[i];
	} else {
		free(rmap);
		free(mmap_);
	}
	return rc;
}

/* The global definitions (the primary archive's). 0 or -1. */
static int global_defs(ot_tool *t, const ot_union *api, const ot_union *met)
{
	const pt_trace_ctx *ctx = t->ctx;
	ot_defs d = {OTF2_Archive_GetGlobalDefWriter(t->ar), t};
	if (!d.w)
		return -1;
	uint64_t end = ctx->t_end_ns > ctx->t0_ns ? ctx->t_end_ns : ctx->t0_ns;
	OTF2_GlobalDefWriter_WriteClockProperties(
	    d.w, 1000000000ull, ctx->t0_ns, end - ctx->t0_ns + 1,
	    ctx->realtime0_ns ? ctx->realtime0_ns : OTF2_UNDEFINED_TIMESTAMP);
	paradigms(&d);
	OTF2_GlobalDefWriter_WriteAttribute(d.w, OT_ATTR_BYTES, ot_string(&d, "bytes"),
	                                    ot_string(&d, "bytes moved or asked for"),
	                                    OTF2_TYPE_UINT64);
	OTF2_GlobalDefWriter_WriteAttribute(
	    d.w, OT_ATTR_OBJECT, ot_string(&d, "object"),
	    ot_string(&d, "address of the lock, condition or barrier"), OTF2_TYPE_UINT64);
	int rc = system_tree(&d);
	if (!rc)
		rc = regions(&d, pt_ctx_func_count(ctx), api);
	metrics(&d, met);
	if (!rc)
		rc = ot_thread_comms(&d, OTF2_PARADIGM_PTHREAD, 0, "threads");
	for (size_t i = 0; !rc && i < t->nfam; i++)
		if (ot_fam(i) && ot_fam(i)->defs)
			rc = ot_fam(i)->defs(t->fam[i], &d);
	ot_names_free(&t->strings);
	return rc;
}

/* Under mpirun: the primary's communicator mapping (what its
 * definitions made of the events' refs) and whether it wrote them, to
 * every process. */
static int share_comm_map(ot_tool *t, int rc)
{
	pt_buf b = {0};
	if (t->primary) {
		pt_buf_u64(&b, (uint64_t)rc);
		pt_buf_u64(&b, t->ncomm_map);
		pt_buf_put(&b, t->comm_map, 2 * t->ncomm_map * sizeof *t->comm_map);
	}
	char *all = NULL;
	size_t *lens = NULL;
	int xrc = ot_exchange(t, &b, &all, &lens);
	free(b.d);
	if (!xrc) {
		pt_rbuf r = {all, all + lens[0], 0}; /* rank 0's, the primary's */
		rc = (int)pt_rbuf_u64(&r);
		uint64_t n = pt_rbuf_u64(&r);
		if (!t->primary && !r.err && n <= (uint64_t)(r.end - r.p) / 16) {
			free(t->comm_map);
			t->comm_map = malloc((2 * n + 1) * sizeof *t->comm_map);
			if (t->comm_map &&
			    !pt_rbuf_get(&r, t->comm_map, 2 * n * sizeof *t->comm_map))
				t->ncomm_map = t->cap_comm_map = n;
		}
		if (r.err || (!t->primary && !t->comm_map))
			xrc = -1;
	}
	free(all);
	free(lens);
	return rc || xrc ? -1 : 0;
}

int ot_write_defs(ot_tool *t, char *err, size_t errlen)
{
	ot_union api = {0}, met = {0};
	/* every step is collective: a process that failed still takes part */
	int rc = exchange_names(t, &api, &met);
	rc = rc || func_defs(t, pt_ctx_func_count(t->ctx)) ? -1 : 0;
	if (t->primary)
		rc = rc || global_defs(t, &api, &met) ? -1 : 0;
	union_free(&api);
	union_free(&met);
	if (t->dist)
		rc = share_comm_map(t, rc);
	int lrc = local_defs(t, pt_ctx_func_count(t->ctx), err, errlen);
	if (rc)
		snprintf(err, errlen,
		         "%s: the global definitions could not be made (out of memory)", t->path);
	return rc || lrc ? -1 : 0;
}

/* SPDX-License-Identifier: MIT */
/* OpenMP analysis shared by the Paraver extension, the profile and the
 * timelines (omp_common.h): names of code locations, a thread's nesting. */
#define _GNU_SOURCE
#include "omp_common.h"
#include "pt_fw_util.h"
#include "pt_symbols.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------ */
/* Memory here is bounded by the number of OMP_LOC_DEF records, never by a
 * value read from a log: a process's locations are kept as (loc, value)
 * pairs sorted by loc, looked up by bisection. A location id the runtime
 * cannot have written (0, or past what a task id holds) is refused with a
 * warning naming the file and offset; that location stays unnamed. */
typedef struct loc_def {
	uint32_t loc, flags;
	uint64_t codeptr, fn;
} loc_def;

typedef struct loc_value {
	uint32_t loc;
	uint32_t value; /* finish: the def's index, then its label's value */
} loc_value;

typedef struct omp_proc {
	pt_symtab *st;
	loc_def *defs;
	size_t n, cap;
	loc_value *map; /* after finish: one per loc, sorted by loc */
	size_t nmap;
} omp_proc;

typedef struct omp_label {
	char *label, *place;
	uint32_t construct;
} omp_label;

struct omp_names {
	const pt_trace_ctx *ctx;
	size_t nproc;
	omp_proc *p;
	pthread_mutex_t lock;
	int done;   /* finish ran: read without the lock */
	int failed; /* out of memory: finish says so */
	omp_label *labels;
	size_t nlabels, cap;
	uint32_t *index; /* open addressing over labels: value, 0 = free */
	size_t index_cap;
	int any;
};

omp_names *omp_names_new(const pt_trace_ctx *ctx)
{
	omp_names *n = calloc(1, sizeof *n);
	if (!n || !(n->p = calloc(ctx->nprocesses + 1, sizeof *n->p))) {
		free(n);
		return NULL;
	}
	n->ctx = ctx;
	n->nproc = ctx->nprocesses;
	pthread_mutex_init(&n->lock, NULL);
	return n;
}

void omp_names_free(omp_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nproc; i++) {
		if (n->p[i].st)
			pt_symtab_free(n->p[i].st);
		free(n->p[i].defs);
		free(n->p[i].map);
	}
	for (size_t i = 0; i < n->nlabels; i++) {
		free(n->labels[i].label);
		free(n->labels[i].place);
	}
	free(n->labels);
	free(n->index);
	free(n->p);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

static void refuse(const omp_names *n, size_t process, const pt_event *ev, const char *msg)
{
	const pt_trace_ops *ops = n->ctx ? n->ctx->ops : NULL;
	if (ops && ops->warn_process_record)
		ops->warn_process_record(n->ctx, process, ev->offset, msg);
}

void omp_names_process_event(omp_names *n, size_t process, const pt_event *ev)
{
	if (!n || process >= n->nproc)
		return;
	omp_proc *p = &n->p[process];
	switch (ev->kind) {
	case PT_REC_MODULE_MAP:
	case PT_REC_MODULE_UNMAP:
		if (!p->st && !(p->st = pt_symtab_new())) {
			n->failed = 1;
			break;
		}
		pt_symtab_add(p->st, ev);
		break;
	case PT_REC_OMP_LOC_DEF: {
		const pt_rec_omp_loc *l = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_loc);
		if (!l)
			break;
		if (!l->loc || l->loc > PT_OMP_LOC_MAX) {
			char msg[160];
			snprintf(msg, sizeof msg,
			         "OpenMP location id %u out of range (1..%u): the location is left "
			         "unnamed",
			         l->loc, PT_OMP_LOC_MAX);
			refuse(n, process, ev, msg);
			break;
		}
		if (p->n == p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 64;
			loc_def *d = realloc(p->defs, cap * sizeof *d);
			if (!d) {
				n->failed = 1;
				break;
			}
			p->defs = d;
			p->cap = cap;
		}
		p->defs[p->n++] = (loc_def){l->loc, l->flags, l->codeptr, l->fn};
		n->any = 1;
		break;
	}
	default:
		break;
	}
}

const char *omp_work_name(unsigned type)
{
	static const char *const names[] = {"work",   "loop",      "sections",   "single",
	                                    "single", "workshare", "distribute", "taskloop",
	                                    "scope",  "masked"};
	return type < sizeof names / sizeof names[0] ? names[type] : "work";
}

const char *omp_sched_name(unsigned sched)
{
	static const char *const names[] = {"", "static", "dynamic", "guided", "runtime"};
	return sched < sizeof names / sizeof names[0] ? names[sched] : "";
}

const char *omp_sync_name(unsigned kind)
{
	switch (kind) {
	case PT_OMP_SYNC_TASKWAIT:
		return "taskwait";
	case PT_OMP_SYNC_TASKGROUP:
		return "taskgroup";
	case PT_OMP_SYNC_REDUCTION:
		return "reduction";
	default:
		return "barrier";
	}
}

const char *omp_lock_name(unsigned type)
{
	switch (type) {
	case PT_LOCK_OMP_LOCK:
		return "omp lock";
	case PT_LOCK_OMP_NEST_LOCK:
		return "nest lock";
	case PT_LOCK_OMP_CRITICAL:
	case PT_LOCK_OMP_CRITICAL_NAMED:
		return "critical";
	case PT_LOCK_OMP_ATOMIC:
		return "atomic";
	case PT_LOCK_OMP_ORDERED:
		return "ordered";
	default:
		return "lock";
	}
}

static const char *construct_name(uint32_t flags)
{
	unsigned kind = pt_omp_loc_kind(flags), arg = pt_omp_loc_arg(flags);
	switch (kind) {
	case PT_REC_OMP_PARALLEL_BEGIN:
		return arg & PT_OMP_PAR_LOOP       ? "parallel loop"
		       : arg & PT_OMP_PAR_SECTIONS ? "parallel sections"
		                                   : "parallel";
	case PT_REC_OMP_WORK_BEGIN:
		return omp_work_name(arg);
	case PT_REC_OMP_WAIT_BEGIN:
		return omp_sync_name(arg);
	case PT_REC_OMP_TASK_CREATE:
		return "task";
	default:
		return "construct";
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The function a construct is written in, from the symbol of its code:
 * gcc's outlined bodies are "main._omp_fn.0", clang's ".omp_outlined.*"
 * (no name of the function around it: none is given). */
static void enclosing_function(char *out, size_t len, const char *sym)
{
	out[0] = 0;
	if (!sym || sym[0] == '.' || (sym[0] == '_' && sym[1] == '_'))
		return;
	const char *cut = strstr(sym, "._omp_fn.");
	size_t n = cut ? (size_t)(cut - sym) : strlen(sym);
	snprintf(out, len, "%.*s", (int)n, sym);
}

/* Where a location is: the declaration of its outlined body when the
 * runtime knew it (gcc's main._omp_fn.N is declared on its pragma's line,
 * where a return address at -O2 may land on a neighbouring statement),
 * else the line of its return address. */
static char *make_label(omp_proc *p, const loc_def *d, char **place)
{
	const char *file = NULL;
	unsigned line = 0;
	char func[256] = "", where[512];
	pt_sym s;
	if (p->st && d->fn && pt_symtab_pc(p->st, d->fn, &s) == 0) {
		enclosing_function(func, sizeof func, s.name);
		file = s.file;
		line = s.line;
	}
	if (p->st && d->codeptr && !(file && line)) {
		uint64_t pc = d->flags & PT_OMP_LOC_RETURN_ADDRESS ? d->codeptr - 1 : d->codeptr;
		/* the symbol first: it opens the module the line is read from */
		if (pt_symtab_pc(p->st, pc, &s) == 0 && !func[0])
			enclosing_function(func, sizeof func, s.name);
		if (pt_symtab_pc_line(p->st, pc, &file, &line) != 0)
			file = NULL;
	}
	if (file && line)
		snprintf(where, sizeof where, "%s:%u", base_name(file), line);
	else if (func[0])
		snprintf(where, sizeof where, "%s", func);
	else
		snprintf(where, sizeof where, "0x%llx",
		         (unsigned long long)(d->codeptr ? d->codeptr : d->fn));
	*place = strdup(where);
	char *label = NULL;
	if (func[0] && file && line) {
		if (asprintf(&label, "%s @ %s in %s", construct_name(d->flags), where, func) < 0)
			label = NULL;
	} else if (asprintf(&label, "%s @ %s", construct_name(d->flags), where) < 0) {
		label = NULL;
	}
	return label;
}

static uint64_t label_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The index's slot for `label`: its value, or the free slot to put it. */
static size_t index_slot(const omp_names *n, const char *label)
{
	size_t mask = n->index_cap - 1, i = (size_t)label_hash(label) & mask;
	while (n->index[i] && strcmp(n->labels[n->index[i] - 1].label, label))
		i = (i + 1) & mask;
	return i;
}

static int index_grow(omp_names *n)
{
	size_t cap = n->index_cap ? n->index_cap * 2 : 256;
	uint32_t *old = n->index;
	size_t old_cap = n->index_cap;
	if (!(n->index = calloc(cap, sizeof *n->index))) {
		n->index = old;
		return -1;
	}
	n->index_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			n->index[index_slot(n, n->labels[old[i] - 1].label)] = old[i];
	free(old);
	return 0;
}

/* The value of a label (label and place are taken over); 0 when out of
 * memory. Equal labels share one value. */
static uint32_t intern_label(omp_names *n, char *label, char *place, uint32_t construct)
{
	if ((n->nlabels + 1) * 2 > n->index_cap && index_grow(n))
		goto oom;
	size_t i = index_slot(n, label);
	if (n->index[i]) {
		free(label);
		free(place);
		return n->index[i];
	}
	if (n->nlabels == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 64;
		omp_label *l = realloc(n->labels, cap * sizeof *l);
		if (!l)
			goto oom;
		n->labels = l;
		n->cap = cap;
	}
	n->labels[n->nlabels++] = (omp_label){label, place, construct};
	n->index[i] = (uint32_t)n->nlabels;
	return (uint32_t)n->nlabels;
oom:
	free(label);
	free(place);
	return 0;
}

static int cmp_loc_value(const void *a, const void *b)
{
	const loc_value *x = a, *y = b;
	if (x->loc != y->loc)
		return x->loc < y->loc ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static loc_value *map_find(const omp_proc *p, uint32_t loc)
{
	size_t lo = 0, hi = p->nmap;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->map[mid].loc < loc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nmap && p->map[lo].loc == loc ? &p->map[lo] : NULL;
}

/* A process's map: the first def of each loc (a later one of the same loc
 * is ignored), named in the order of the defs. */
static int name_process(omp_names *n, omp_proc *p)
{
	if (!p->n)
		return 0;
	if (!(p->map = malloc(p->n * sizeof *p->map)))
		return -1;
	for (size_t k = 0; k < p->n; k++)
		p->map[k] = (loc_value){p->defs[k].loc, (uint32_t)k};
	pt_qsort(p->map, p->n, sizeof *p->map, cmp_loc_value);
	size_t m = 0;
	for (size_t k = 0; k < p->n; k++)
		if (!m || p->map[m - 1].loc != p->map[k].loc)
			p->map[m++] = p->map[k];
	p->nmap = m;
	/* (def index, map entry), in definition order */
	loc_value *order = malloc(m * sizeof *order);
	if (!order)
		return -1;
	for (size_t j = 0; j < m; j++)
		order[j] = (loc_value){p->map[j].value, (uint32_t)j};
	pt_qsort(order, m, sizeof *order, cmp_loc_value);
	for (size_t j = 0; j < m; j++) {
		const loc_def *d = &p->defs[order[j].loc];
		loc_value *e = &p->map[order[j].value];
		char *place = NULL, *label = make_label(p, d, &place);
		e->value = label && place ? intern_label(n, label, place, d->flags) : 0;
		if (!label || !place) {
			free(label);
			free(place);
		}
		if (!e->value) {
			free(order);
			return -1;
		}
	}
	free(order);
	return 0;
}

int omp_names_finish(omp_names *n)
{
	if (!n)
		return -1;
	pthread_mutex_lock(&n->lock);
	if (n->done) {
		pthread_mutex_unlock(&n->lock);
		return n->failed ? -1 : 0;
	}
	/* processes in order, locations in order of their definition: the
	 * values do not depend on which worker asks first */
	for (size_t i = 0; i < n->nproc && !n->failed; i++)
		if (name_process(n, &n->p[i]))
			n->failed = 1;
	n->done = 1;
	pthread_mutex_unlock(&n->lock);
	return n->failed ? -1 : 0;
}

uint32_t omp_names_value(const omp_names *n, size_t process, uint32_t loc)
{
	if (!n || process >= n->nproc)
		return 0;
	const loc_value *e = map_find(&n->p[process], loc);
	return e ? e->value : 0;
}

uint32_t omp_names_count(const omp_names *n)
{
	return n ? (uint32_t)n->nlabels : 0;
}

const char *omp_names_label(const omp_names *n, uint32_t value)
{
	return n && value && value <= n->nlabels ? n->labels[value - 1].label : NULL;
}

const char *omp_names_place(const omp_names *n, uint32_t value)
{
	return n && value && value <= n->nlabels ? n->labels[value - 1].place : NULL;
}

uint32_t omp_names_construct(const omp_names *n, uint32_t value)
{
	return n && value && value <= n->nlabels ? n->labels[value - 1].construct : 0;
}

int omp_names_any(const omp_names *n)
{
	return n && n->any;
}

/* ---- nesting ------------------------------------------------------------------ */
const omp_frame *omp_track_find(const omp_track *t, unsigned kind)
{
	unsigned d = t->depth < OMP_TRACK_DEPTH ? t->depth : OMP_TRACK_DEPTH;
	while (d--)
		if (t->f[d].kind == kind)
			return &t->f[d];
	return NULL;
}

enum omp_cat omp_track_category(const omp_track *t)
{
	if (!t->depth)
		return t->worker ? OMP_CAT_IDLE : OMP_CAT_SERIAL;
	const omp_frame *f = t->depth <= OMP_TRACK_DEPTH ? &t->f[t->depth - 1] : NULL;
	switch (f ? f->kind : OMP_FR_IMPLICIT) {
	case OMP_FR_FORK:
		return OMP_CAT_FORKJOIN;
	case OMP_FR_WAIT:
		return f->arg == PT_OMP_SYNC_TASKWAIT || f->arg == PT_OMP_SYNC_TASKGROUP
		           ? OMP_CAT_TASKWAIT
		           : OMP_CAT_BARRIER;
	case OMP_FR_LOCK:
		return OMP_CAT_LOCK;
	default:
		return t->core ? OMP_CAT_OTHER : OMP_CAT_WORK;
	}
}

unsigned omp_track_state(const omp_track *t)
{
	switch (omp_track_category(t)) {
	case OMP_CAT_IDLE:
		return OMP_STATE_IDLE;
	case OMP_CAT_SERIAL:
		return t->core ? OMP_STATE_SYNC : OMP_STATE_RUNNING;
	case OMP_CAT_FORKJOIN:
		return OMP_STATE_FORK_JOIN;
	case OMP_CAT_WORK:
		return OMP_STATE_RUNNING;
	default:
		return OMP_STATE_SYNC;
	}
}

/* Time up to `now` goes to the current category, for the thread and for
 * every open frame; an other wait inside an OpenMP wait or idle time is
 * noted (the profile counts it there rather than where the other wait's
 * own records put it). */
static void account(omp_track *t, uint64_t now)
{
	if (now <= t->since) {
		return;
	}
	uint64_t dt = now - t->since;
	t->since = now;
	if (!t->active)
		return;
	enum omp_cat c = omp_track_category(t);
	t->cat[c] += dt;
	unsigned d = t->depth < OMP_TRACK_DEPTH ? t->depth : OMP_TRACK_DEPTH;
	for (unsigned i = 0; i < d; i++)
		t->f[i].cat[c] += dt;
	if (t->core && (c == OMP_CAT_BARRIER || c == OMP_CAT_TASKWAIT || c == OMP_CAT_IDLE))
		t->moved[__builtin_ctz(t->core)] += dt;
}

static omp_frame *push(omp_track *t, unsigned kind, unsigned arg, uint32_t loc, uint64_t id,
                       uint64_t now)
{
	if (t->depth++ >= OMP_TRACK_DEPTH)
		return NULL;
	omp_frame *f = &t->f[t->depth - 1];
	memset(f, 0, sizeof *f);
	f->kind = (uint8_t)kind;
	f->arg = (uint8_t)arg;
	f->loc = loc;
	f->id = id;
	f->t = now;
	return f;
}

/* Pops frames down to and including the innermost one of `kind` (with
 * that id when match_id); nothing if there is none. The last one popped
 * is kept for the caller. */
static const omp_frame *pop_to(omp_track *t, unsigned kind, int match_id, uint64_t id,
                               omp_step *step)
{
	step->pop_from = step->pop_to = t->depth;
	if (t->depth > OMP_TRACK_DEPTH) { /* frames not kept: the innermost goes */
		step->pop_to = --t->depth;
		return NULL;
	}
	unsigned d = t->depth;
	while (d && !(t->f[d - 1].kind == kind && (!match_id || t->f[d - 1].id == id)))
		d--;
	if (!d)
		return NULL;
	t->popped = t->f[d - 1];
	t->depth = d - 1;
	step->pop_to = t->depth;
	return &t->popped;
}

static uint64_t lock_object(const pt_event *ev)
{
	pt_rec_lock lk;
	const pt_rec_lock *l = pt_rec_lock_get(ev->rec, &lk);
	return l ? l->object : 0;
}

void omp_track_event(omp_track *t, const pt_event *ev, omp_step *step)
{
	step->popped = step->pushed = NULL;
	step->pop_from = step->pop_to = t->depth;
	uint64_t now = ev->time_ns;
	unsigned k = ev->kind;
	int omp = k >= PT_REC_RANGE_OPENMP_FIRST && k <= PT_REC_RANGE_OPENMP_LAST &&
	          k != PT_REC_OMP_LOC_DEF;
	int omp_lock = (k == PT_REC_LOCK_REQUEST || k == PT_REC_LOCK_ACQUIRED ||
	                k == PT_REC_LOCK_FAILED || k == PT_REC_LOCK_RELEASED) &&
	               pt_lock_is_omp(ev->rec->arg);
	if (!t->active) {
		if (!omp && !omp_lock)
			goto core;
		t->active = 1;
		t->since = now;
	}
	account(t, now);
	if (omp_lock) {
		if (k == PT_REC_LOCK_REQUEST)
			step->pushed = push(t, OMP_FR_LOCK, ev->rec->arg, 0, lock_object(ev), now);
		else if (k != PT_REC_LOCK_RELEASED)
			step->popped = pop_to(t, OMP_FR_LOCK, 0, 0, step);
		return;
	}
	switch (k) {
	case PT_REC_OMP_PARALLEL_BEGIN: {
		const pt_rec_omp_parallel *p = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_parallel);
		if (p)
			step->pushed = push(t, OMP_FR_FORK, p->flags, p->loc, p->id, now);
		return;
	}
	case PT_REC_OMP_PARALLEL_END: {
		const pt_rec_omp_parallel *p = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_parallel);
		if (p)
			step->popped = pop_to(t, OMP_FR_FORK, 1, p->id, step);
		return;
	}
	case PT_REC_OMP_IMPLICIT_BEGIN: {
		const pt_rec_omp_implicit *p = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_implicit);
		if (!p)
			return;
		/* not the thread that encountered the region, outside any: a worker */
		if (!t->depth)
			t->worker = 1;
		omp_frame *f = push(t, OMP_FR_IMPLICIT, 0, p->loc, p->parallel, now);
		if (f)
			f->team = p->team;
		step->pushed = f;
		return;
	}
	case PT_REC_OMP_IMPLICIT_END: {
		const pt_rec_omp_implicit *p = PT_REC_PAYLOAD(ev->rec, pt_rec_omp_implicit);
		if (p)
			step->popped = pop_to(t, OMP_FR_IMPLICIT, 1, p->parallel, step);
		return;
	}
	case PT_REC_OMP_WAIT_BEGIN:
		step->pushed = push(t, OMP_FR_WAIT, ev->rec->arg, 0, 0, now);
		return;
	case PT_REC_OMP_WAIT_END:
		step->popped = pop_to(t, OMP_FR_WAIT, 0, 0, step);
		return;
	case PT_REC_OMP_TASK_SCHEDULE: {
		const pt_rec_omp_task_schedule *s =
		    PT_REC_PAYLOAD(ev->rec, pt_rec_omp_task_schedule);
		/* a fulfilled event is no switch: the thread goes on with what it
		 * runs (the task fulfilled may be that one, or another's) */
		if (!s || ev->rec->arg == PT_OMP_TASK_EARLY_FULFILL ||
		    ev->rec->arg == PT_OMP_TASK_LATE_FULFILL)
			return;
		if (s->prior & PT_OMP_TASK_EXPLICIT)
			step->popped = pop_to(t, OMP_FR_TASK, 1, s->prior, step);
		if (s->next & PT_OMP_TASK_EXPLICIT)
			step->pushed =
			    push(t, OMP_FR_TASK, 0, pt_omp_task_loc(s->next), s->next, now);
		return;
	}
	default:
		break;
	}
core:
	switch (k) {
	case PT_REC_LOCK_REQUEST:
		if (!omp_lock)
			t->core |= OMP_CORE_LOCK;
		break;
	case PT_REC_LOCK_ACQUIRED:
	case PT_REC_LOCK_FAILED:
		if (!omp_lock)
			t->core &= ~OMP_CORE_LOCK;
		break;
	case PT_REC_COND_WAIT_BEGIN:
		t->core |= OMP_CORE_COND;
		break;
	case PT_REC_COND_WAIT_END:
		t->core &= ~OMP_CORE_COND;
		break;
	case PT_REC_THREAD_JOIN_BEGIN:
		t->core |= OMP_CORE_JOIN;
		break;
	case PT_REC_THREAD_JOIN_END:
		t->core &= ~OMP_CORE_JOIN;
		break;
	case PT_REC_BARRIER_BEGIN:
		t->core |= OMP_CORE_BARRIER;
		break;
	case PT_REC_BARRIER_END:
		t->core &= ~OMP_CORE_BARRIER;
		break;
	default:
		break;
	}
}

void omp_track_advance(omp_track *t, uint64_t now)
{
	account(t, now);
}

void omp_track_end(omp_track *t, uint64_t last)
{
	account(t, last);
	t->depth = 0;
	t->core = 0;
}

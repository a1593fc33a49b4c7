/* SPDX-License-Identifier: MIT */
/* The MPI facts of a rank's process log, read while the model is built
 * (pt_fw_mpi.h): before the pre-pass, because they decide the order of
 * tasks and every time the tools see. */
#define _GNU_SOURCE
#include "fw_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_host(pt_fw_mpi *m, const pt_event *ev, size_t off)
{
	const char *h = pt_event_string(ev, off);
	if (!h || !*h)
		return;
	free((char *)m->host);
	m->host = strdup(h);
}

/* Clock readings from a log are checked before any arithmetic on them: a
 * damaged word would otherwise move a rank by centuries (or overflow). Both
 * are CLOCK_MONOTONIC readings (time since a host's boot): PT_FW_MPI_MAX_NS
 * (73 years) is more than any of them, and keeps every sum below of two
 * offsets and two half widths within int64_t. */
#define PT_FW_MPI_MAX_NS (1ull << 61)
/* Two CLOCK_MONOTONIC clocks drift apart by less than 0.1% (the kernel
 * slews by at most 500 ppm); offsets that change by more than 1% of the
 * time between the two points are not a drift but a damaged point. */
#define DRIFT_MAX_DIV 100

static void refuse(pt_fw_mpi *m, const char *path, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One line of m->refused (the model warns about them): the file and the
 * record's offset, why, and what is done instead. */
static void refuse(pt_fw_mpi *m, const char *path, uint64_t off, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	size_t had = m->refused ? strlen(m->refused) : 0;
	size_t n = had + strlen(path) + strlen(why) + 64;
	char *r = realloc(m->refused, n);
	if (!r)
		return;
	snprintf(r + had, n - had, "%s%s: offset %llu: %s", had ? "\n" : "", path,
	         (unsigned long long)off, why);
	m->refused = r;
}

/* Whether an MPI_CLOCK point (at time `at` of a log that began at `first`)
 * can be a real one; else refused, with the reason. Its local time and its
 * exchange's round trips (all but the first, which may have waited for
 * this process to start) lie within the log, up to when it was written
 * (with the calibration's slack: the log's times are converted from
 * another clock). */
static int clock_point_ok(pt_fw_mpi *m, const char *path, const pt_event *ev, uint64_t first,
                          const pt_rec_mpi_clock *c)
{
	static const char *const field[3] = {"this process's clock read", "rank 0's clock read",
	                                     "its round trip took"};
	const uint64_t v[3] = {c->local_ns, c->ref_ns, c->rtt_ns};
	const char *what = ev->rec->arg ? "MPI_Finalize" : "MPI_Init";
	for (int i = 0; i < 3; i++)
		if (v[i] >= PT_FW_MPI_MAX_NS) {
			refuse(m, path, ev->offset,
			       "damaged MPI clock point at %s (%s %llu ns: 73 years or more)", what,
			       field[i], (unsigned long long)v[i]);
			return 0;
		}
	uint64_t at = ev->time_ns, span = at > first ? at - first : 0;
	uint64_t slack = 1000000 + span / 1000, spent;
	if (c->local_ns + slack < first || c->local_ns > at + slack) {
		refuse(m, path, ev->offset,
		       "damaged MPI clock point at %s (local time %llu ns, outside the log's %llu "
		       "to %llu)",
		       what, (unsigned long long)c->local_ns, (unsigned long long)first,
		       (unsigned long long)at);
		return 0;
	}
	if (__builtin_mul_overflow(c->rtt_ns, c->rounds > 1 ? c->rounds - 1 : 1, &spent) ||
	    spent > span + slack) {
		refuse(m, path, ev->offset,
		       "damaged MPI clock point at %s (%u round trips of at least %llu ns, in a "
		       "log of %llu ns)",
		       what, c->rounds, (unsigned long long)c->rtt_ns, (unsigned long long)span);
		return 0;
	}
	return 1;
}

static void clock_point(pt_fw_mpi *m, const char *path, const pt_event *ev, uint64_t first)
{
	const pt_rec_mpi_clock *c = PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_clock);
	if (!c || !clock_point_ok(m, path, ev, first, c))
		return;
	unsigned at = ev->rec->arg ? 1 : 0;
	/* the init point first; a finalize point without one counts alone */
	unsigned slot = at && m->clocks ? 1 : 0;
	if (slot && c->local_ns <= m->l[0]) {
		refuse(m, path, ev->offset,
		       "damaged MPI clock point at MPI_Finalize (local time %llu ns, not after the "
		       "point at MPI_Init, %llu ns)",
		       (unsigned long long)c->local_ns, (unsigned long long)m->l[0]);
		return;
	}
	m->l[slot] = c->local_ns;
	/* both below PT_FW_MPI_MAX_NS: no overflow */
	m->off[slot] = (int64_t)c->ref_ns - (int64_t)c->local_ns;
	m->rtt[slot] = c->rtt_ns;
	m->at_offset[slot] = ev->offset;
	if (m->clocks < (int)slot + 1)
		m->clocks = (int)slot + 1;
}

int pt_fw_mpi_rank_check(int64_t rank, uint32_t size, uint32_t world, int size_unknown, char *why,
                         size_t len)
{
	const char *bad = NULL;
	if (rank < 0 || rank >= PT_FW_MPI_WORLD_RANKS)
		bad = "a rank no world can have";
	else if (!size && !size_unknown)
		bad = "a world of no ranks";
	else if (size > PT_FW_MPI_WORLD_RANKS)
		bad = "more ranks than a world can have, 16777216";
	else if (size && rank >= size)
		bad = "a rank not below the size";
	else if (world > PT_MPI_WORLDS_MAX)
		bad = "a world past the last one, 127";
	if (bad)
		snprintf(why, len, "rank %lld of %u in world %u: %s", (long long)rank, size, world,
		         bad);
	return bad ? -1 : 0;
}

int pt_fw_mpi_record_check(const pt_event *ev, char *msg, size_t len)
{
	const pt_rec_mpi_job *j =
	    ev->kind == PT_REC_MPI_JOB ? PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_job) : NULL;
	const pt_rec_mpi_init *i =
	    ev->kind == PT_REC_MPI_INIT ? PT_REC_PAYLOAD(ev->rec, pt_rec_mpi_init) : NULL;
	char why[160];
	/* a launcher that does not say the job's size (PMIx) writes 0 */
	if ((j && pt_fw_mpi_rank_check(j->rank, j->size, j->world, 1, why, sizeof why)) ||
	    (i && pt_fw_mpi_rank_check(i->rank, i->size, i->world, 0, why, sizeof why))) {
		snprintf(msg, len, "damaged %s record (%s); this process is counted as no MPI rank",
		         j ? "MPI_JOB" : "MPI_INIT", why);
		return -1;
	}
	return 0;
}

/* Whether an MPI_JOB or MPI_INIT record's rank can be this process's;
 * else refused, and the process is no rank: what else of it would say
 * which rank it is came from the same damaged log. */
static int rank_ok(pt_fw_mpi *m, const char *path, const pt_event *ev)
{
	char msg[256];
	if (!pt_fw_mpi_record_check(ev, msg, sizeof msg))
		return 1;
	refuse(m, path, ev->offset, "%s", msg);
	m->no_rank = 1;
	return 0;
}

static size_t refused_len(const pt_fw_mpi *m)
{
	return m->refused ? strlen(m->refused) : 0;
}

/* What is done instead of the refused clock points, said at the end of
 * the last of them (the line at `at` of m->refused). */
static void clock_refusals_end(pt_fw_mpi *m, size_t at)
{
	const char *then = m->clocks ? "; the other point is used alone"
	                             : "; this rank's times stay on its own clock";
	size_t had = strlen(m->refused), add = strlen(then);
	char *r = realloc(m->refused, had + add + 1);
	if (!r)
		return;
	memmove(r + at + add, r + at, had - at + 1);
	memcpy(r + at, then, add);
	m->refused = r;
}

int fw_mpi_scan(const char *path, pt_fw_mpi *m)
{
	char err[256];
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	if (!log)
		return -1;
	pt_event ev;
	uint64_t first = 0;
	int any = 0;
	size_t clock_end = 0; /* where the last refused clock point's line ends, 0 none */
	while (pt_log_read(log, &ev) == 0) {
		if (!any++)
			first = ev.time_ns;
		switch (ev.kind) {
		case PT_REC_MPI_JOB: {
			const pt_rec_mpi_job *j = PT_REC_PAYLOAD(ev.rec, pt_rec_mpi_job);
			if (!rank_ok(m, path, &ev))
				break;
			if (!m->confirmed) {
				m->rank = j->rank;
				m->size = j->size;
				m->world = j->world;
			}
			if (!m->host)
				set_host(m, &ev, sizeof *j);
			break;
		}
		case PT_REC_MPI_INIT: {
			const pt_rec_mpi_init *i = PT_REC_PAYLOAD(ev.rec, pt_rec_mpi_init);
			if (!rank_ok(m, path, &ev))
				break;
			m->rank = i->rank;
			m->size = i->size;
			m->world = i->world;
			m->confirmed = 1;
			set_host(m, &ev, sizeof *i);
			break;
		}
		case PT_REC_MPI_UNTRACED: {
			const pt_rec_mpi_untraced *u = PT_REC_PAYLOAD(ev.rec, pt_rec_mpi_untraced);
			const char *lib = pt_event_string(&ev, sizeof *u);
			m->untraced = u->why;
			free((char *)m->untraced_lib);
			m->untraced_lib = lib && *lib ? strdup(lib) : NULL;
			break;
		}
		case PT_REC_MPI_CLOCK: {
			size_t had = refused_len(m);
			clock_point(m, path, &ev, first);
			if (refused_len(m) != had)
				clock_end = refused_len(m);
			break;
		}
		default:
			break;
		}
	}
	pt_log_close(log);
	pt_fw_mpi_fit(m);
	/* two points whose offsets no drift explains: one of them is
	 * damaged; the one at MPI_Init is kept (a rank killed before
	 * MPI_Finalize has only that one anyway) */
	if (m->clocks == 2) {
		uint64_t dl = m->l[1] - m->l[0];
		int64_t du = m->use[1] - m->use[0];
		uint64_t adu = du < 0 ? -(uint64_t)du : (uint64_t)du;
		if (adu > dl / DRIFT_MAX_DIV) {
			refuse(
			    m, path, m->at_offset[1],
			    "damaged MPI clock point at MPI_Finalize (its offset onto rank 0's "
			    "clock, %lld ns, is %llu ns from the one at MPI_Init, %lld ns, %llu ns "
			    "before: no two clocks drift apart that fast)",
			    (long long)m->off[1], (unsigned long long)adu, (long long)m->off[0],
			    (unsigned long long)dl);
			m->clocks = 1;
			pt_fw_mpi_fit(m);
			clock_end = refused_len(m);
		}
	}
	if (clock_end)
		clock_refusals_end(m, clock_end);
	if (m->no_rank) {
		m->rank = -1;
		m->confirmed = 0;
	}
	return 0;
}

void pt_fw_mpi_fit(pt_fw_mpi *m)
{
	m->use[0] = m->off[0];
	m->use[1] = m->off[1];
	if (m->clocks < 2 || m->l[1] <= m->l[0])
		return;
	/* offsets and widths are under PT_FW_MPI_MAX_NS (fw_mpi_scan): none
	 * of these sums and differences overflows */
	int64_t e0 = (int64_t)(m->rtt[0] / 2), e1 = (int64_t)(m->rtt[1] / 2);
	int64_t lo0 = m->off[0] - e0, hi0 = m->off[0] + e0;
	int64_t lo1 = m->off[1] - e1, hi1 = m->off[1] + e1;
	if (hi1 < lo0) { /* the offset fell by more than both bounds allow */
		m->use[0] = lo0;
		m->use[1] = hi1;
	} else if (hi0 < lo1) { /* rose */
		m->use[0] = hi0;
		m->use[1] = lo1;
	} else { /* no drift needed: the middle of where both agree */
		int64_t lo = lo0 > lo1 ? lo0 : lo1, hi = hi0 < hi1 ? hi0 : hi1;
		m->use[0] = m->use[1] = lo + (hi - lo) / 2;
	}
}

void fw_mpi_number(fw *w)
{
	/* the processes say their rank in their world; a world's size is the
	 * largest its ranks give (or know of) */
	uint32_t size[PT_MPI_WORLDS_MAX + 1] = {0};
	for (size_t p = 0; p < w->nprocs; p++) {
		pt_fw_mpi *m = &w->procs[p].mpi;
		if (m->rank < 0)
			continue;
		if (m->world > PT_MPI_WORLDS_MAX)
			m->world = PT_MPI_WORLDS_MAX;
		m->world_rank = m->rank;
		uint32_t need = m->size > (uint32_t)m->rank ? m->size : (uint32_t)m->rank + 1;
		if (need > size[m->world])
			size[m->world] = need;
	}
	/* a world's size is at most PT_FW_MPI_WORLD_RANKS (the ranks are
	 * checked as they are read): the run's are at most 2^31, and every
	 * rank below within int32_t */
	uint32_t next = 0;
	for (unsigned k = 0; k <= PT_MPI_WORLDS_MAX; k++) {
		w->mpi_first[k] = size[k] || !k ? (int32_t)next : -1;
		next += size[k];
	}
	for (size_t p = 0; p < w->nprocs; p++) {
		pt_fw_mpi *m = &w->procs[p].mpi;
		if (m->rank < 0)
			continue;
		m->rank = w->mpi_first[m->world] + m->world_rank;
		m->size = next;
	}
}

int32_t pt_fw_mpi_rank_of(const pt_trace_ctx *ctx, int32_t job_rank)
{
	const fw *w = ctx ? ctx->framework : NULL;
	uint32_t world = (uint32_t)job_rank >> PT_MPI_WORLD_SHIFT;
	if (job_rank < 0 || !world)
		return job_rank;
	if (!w || world > PT_MPI_WORLDS_MAX || w->mpi_first[world] < 0)
		return -1;
	return w->mpi_first[world] + (job_rank & ((1 << PT_MPI_WORLD_SHIFT) - 1));
}

/* What the runtimes of untraced ranks found, most likely cause first. */
static const char *untraced_cause(uint32_t why)
{
	switch (why) {
	case PT_MPI_UNTRACED_BYPASSED:
		return "their MPI library was loaded but no MPI call went through libtrace.so's MPI "
		       "functions: the program calls the PMPI_* entry points itself, or MPI is linked "
		       "statically into it";
	case PT_MPI_UNTRACED_NO_LIBRARY:
		return "no MPI library was loaded in them: the program does not use MPI, or links it "
		       "statically (its calls cannot be interposed)";
	case PT_MPI_UNTRACED_OTHER_MPI:
		return "their MPI library has an ABI the libtrace.so that traced them was not built for "
		       "(it knows Open MPI's and, built with MPICH's mpi.h, MPICH's): its calls were "
		       "passed on untraced";
	default:
		return "their processes did not say why (killed before they ended, or traced by an "
		       "older libtrace.so)";
	}
}

void fw_mpi_warn_untraced(fw *w)
{
	/* a rank counts as traced when any process of it was (an image
	 * before exec, or a process killed before MPI_Init, may share it) */
	char list[160] = "";
	size_t used = 0, n = 0, all = 0;
	uint32_t why = 0, size = 0;
	const char *lib = NULL;
	for (size_t p = 0; p < w->nprocs; p++) {
		const pt_fw_mpi *m = &w->procs[p].mpi;
		if (m->rank < 0)
			continue;
		if (m->size > size)
			size = m->size;
		int traced = 0, first = 1;
		for (size_t q = 0; q < w->nprocs; q++) {
			if (w->procs[q].mpi.rank != m->rank)
				continue;
			traced |= w->procs[q].mpi.confirmed;
			if (q < p)
				first = 0;
		}
		if (!first)
			continue;
		all++;
		if (traced)
			continue;
		if (!why || m->untraced == PT_MPI_UNTRACED_BYPASSED) {
			why = m->untraced;
			lib = m->untraced_lib ? m->untraced_lib : lib;
		}
		if (used + 24 < sizeof list)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%d", n ? ", " : "",
						 m->rank);
		else if (!strstr(list, "..."))
			snprintf(list + used, sizeof list - used, ", ...");
		n++;
	}
	if (!n)
		return;
	char where[600] = "";
	if (lib && why == PT_MPI_UNTRACED_BYPASSED)
		snprintf(where, sizeof where, " (%s)", lib);
	fw_warnf(w,
		 "%s: %zu of %u MPI ranks (%s) ran in an MPI job (their launcher said so) but no MPI "
		 "call of theirs was traced: %s%s; see docs/MPI.md, \"When no MPI call is traced\"",
		 w->o->dir, n, size > all ? size : (unsigned)all, list, untraced_cause(why), where);
}

const pt_fw_mpi *pt_fw_mpi_process(const pt_trace_ctx *ctx, size_t process)
{
	const fw *w = ctx->framework;
	if (!w || process >= w->nprocs || w->procs[process].mpi.rank < 0)
		return NULL;
	return &w->procs[process].mpi;
}

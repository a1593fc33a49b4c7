/* SPDX-License-Identifier: MIT */
/* The MPI facts of a rank's process log, read while the model is built
 * (pt_fw_mpi.h): before the pre-pass, because they decide the order of
 * tasks and every time the tools see. */
#define _GNU_SOURCE
#include "fw_internal.h"

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

int fw_mpi_scan(const char *path, pt_fw_mpi *m)
{
	char err[256];
	pt_log *log = pt_log_open_path(path, 0, err, sizeof err);
	if (!log)
		return -1;
	pt_event ev;
	while (pt_log_read(log, &ev) == 0) {
		switch (ev.kind) {
		case PT_REC_MPI_JOB: {
			const pt_rec_mpi_job *j = PT_REC_PAYLOAD(ev.rec, pt_rec_mpi_job);
			if (!m->confirmed) {
				m->rank = j->rank;
				m->size = j->size;
			}
			if (!m->host)
				set_host(m, &ev, sizeof *j);
			break;
		}
		case PT_REC_MPI_INIT: {
			const pt_rec_mpi_init *i = PT_REC_PAYLOAD(ev.rec, pt_rec_mpi_init);
			m->rank = i->rank;
			m->size = i->size;
			m->confirmed = 1;
			set_host(m, &ev, sizeof *i);
			break;
		}
		case PT_REC_MPI_CLOCK: {
			const pt_rec_mpi_clock *c = PT_REC_PAYLOAD(ev.rec, pt_rec_mpi_clock);
			unsigned at = ev.rec->arg ? 1 : 0;
			/* the init point first; a finalize point without one counts alone */
			unsigned slot = at && m->clocks ? 1 : 0;
			m->l[slot] = c->local_ns;
			m->off[slot] = (int64_t)(c->ref_ns - c->local_ns);
			m->rtt[slot] = c->rtt_ns;
			if (m->clocks < (int)slot + 1)
				m->clocks = (int)slot + 1;
			break;
		}
		default:
			break;
		}
	}
	pt_log_close(log);
	pt_fw_mpi_fit(m);
	return 0;
}

void pt_fw_mpi_fit(pt_fw_mpi *m)
{
	m->use[0] = m->off[0];
	m->use[1] = m->off[1];
	if (m->clocks < 2 || m->l[1] <= m->l[0])
		return;
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

const pt_fw_mpi *pt_fw_mpi_process(const pt_trace_ctx *ctx, size_t process)
{
	const fw *w = ctx->framework;
	if (!w || process >= w->nprocs || w->procs[process].mpi.rank < 0)
		return NULL;
	return &w->procs[process].mpi;
}

/* SPDX-License-Identifier: MIT */
/* The "offcpu" family: the stretches a thread spent off its CPU (OFFCPU,
 * OFFCPU_SOURCE; <paratrace/format/offcpu.h>), in each output.
 *
 *   paraver  state OC_STATE ("Off-CPU", ours: Extrae has no such state)
 *            over each stretch of a thread that was Running then; a
 *            thread in a wait (Synchronization, an MPI or OpenMP state)
 *            keeps that state, which says more
 *   report   a section: per thread and per function, the time running,
 *            waiting (locks, conditions, joins, barriers) and off-CPU
 *            (offcpu_report.c)
 * docs/ANALYZER.md, "Off-CPU time", says what the figures mean. */
#ifndef PT_OFFCPU_FAMILY_H
#define PT_OFFCPU_FAMILY_H

#include <paratrace/log.h>
#include <paratrace/tool.h>

#define OC_STATE 100u /* Paraver state: off the CPU */

/* The stretch of an OFFCPU record of shard `in`, in ns as the record's own
 * time (never after it). 0, or -1 for a record too small. */
static inline int oc_stretch(const pt_shard_info *in, const pt_event *ev, uint64_t *out_ns,
                             uint64_t *in_ns)
{
	uint64_t a, b;
	if (ev->kind != PT_REC_OFFCPU || pt_rec_offcpu_span(ev->rec, ev->ticks, &a, &b))
		return -1;
	*out_ns = pt_ticks_to_ns(in->header, a);
	*in_ns = pt_ticks_to_ns(in->header, b);
	if (*in_ns > ev->time_ns)
		*in_ns = ev->time_ns;
	if (*out_ns > *in_ns)
		*out_ns = *in_ns;
	return 0;
}

/* The report's section (offcpu_report.c). Options: "text" (default),
 * "json", "top=N". */
const pt_tool *pt_tool_offcpu(void);

#endif

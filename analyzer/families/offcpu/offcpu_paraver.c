/* SPDX-License-Identifier: MIT */
/* Off-CPU stretches as a Paraver state of their own, OC_STATE. Only a
 * Running thread's stretch becomes one: in a wait the thread's state
 * (Synchronization, an MPI call's, OpenMP's) already says why it is not
 * running. A stretch written after later records (a preemption the runtime
 * learned of late) cannot go back before them, as a row's states are
 * written in time order: it starts at the last of them, or is dropped when
 * it ended before (pv_set_state). The report counts it whole. */
#include "offcpu.h"
#include "pv.h"

static const pv_state_def oc_states[] = {{OC_STATE, "Off-CPU", {160, 160, 160}}};

static int oc_pv_event(void *global, void *state, pv_shard *s, const pt_event *ev)
{
	(void)global, (void)state;
	uint64_t out, in;
	if (s->state != PV_STATE_RUNNING || oc_stretch(s->info, ev, &out, &in) || in <= out)
		return 0;
	pv_set_state(s, out, OC_STATE);
	pv_set_state(s, in, PV_STATE_RUNNING);
	return 0;
}

const pv_family offcpu_paraver = {
    .name = "offcpu",
    .kind_first = PT_REC_OFFCPU,
    .kind_last = PT_REC_OFFCPU_SOURCE,
    .states = oc_states,
    .nstates = sizeof oc_states / sizeof oc_states[0],
    .event = oc_pv_event,
};

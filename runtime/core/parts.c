/* SPDX-License-Identifier: MIT */
/* The table of the runtime's parts (pt_runtime.h, "parts of the runtime"),
 * and what some parts offer the others through the core (counters, call
 * stacks), so that no part calls another by name.
 *
 * The table is the linker section pt_subsys: every PT_SUBSYSTEM adds a
 * pointer to it, and the linker defines its bounds. It is sorted once, at
 * init, into pt_parts; from then on it is only read, so walking it is
 * async-signal-safe (the fatal-signal shutdown does). */
#define _GNU_SOURCE
#include "pt_runtime.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Hidden: each module that links this file walks its own section. */
extern const pt_subsystem *const __start_pt_subsys[] __attribute__((visibility("hidden")));
extern const pt_subsystem *const __stop_pt_subsys[] __attribute__((visibility("hidden")));

/* An empty slot, skipped: the section, and so its bounds, exist in any
 * program that links this file, even with no part in it. */
static const pt_subsystem *const pt_parts_none
    __attribute__((used, section("pt_subsys"), aligned(sizeof(void *)))) = NULL;

#define PT_MAX_PARTS 64
static const pt_subsystem *pt_parts[PT_MAX_PARTS];
static size_t pt_nparts;

static int before(const pt_subsystem *a, const pt_subsystem *b)
{
	return a->order != b->order ? a->order < b->order : strcmp(a->name, b->name) < 0;
}

size_t pt_parts_collect(void)
{
	size_t n = 0;
	for (const pt_subsystem *const *p = __start_pt_subsys; p < __stop_pt_subsys; p++) {
		const pt_subsystem *s = *p;
		if (!s)
			continue;
		if (n == PT_MAX_PARTS) {
			pt_warn("more than %d parts in this build; part %s and the ones after it "
			        "are left out",
			        PT_MAX_PARTS, s->name);
			break;
		}
		/* Insertion by order, then name: the section's own order (link
		 * order, and within a file the compiler's) is not one to rely on. */
		size_t i = n++;
		for (; i > 0 && before(s, pt_parts[i - 1]); i--)
			pt_parts[i] = pt_parts[i - 1];
		pt_parts[i] = s;
	}
	pt_nparts = n;
	return n;
}

size_t pt_parts_count(void)
{
	return pt_nparts;
}

const pt_subsystem *pt_part_at(size_t i)
{
	return i < pt_nparts ? pt_parts[i] : NULL;
}

const pt_subsystem *pt_part_find(const char *name)
{
	for (size_t i = 0; i < pt_nparts; i++)
		if (!strcmp(pt_parts[i]->name, name))
			return pt_parts[i];
	return NULL;
}

static void debug_list(void)
{
	const pt_config *cfg = pt_config_get();
	if (!cfg || cfg->verbose < 2)
		return;
	char buf[1024];
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < pt_nparts && len + 1 < sizeof buf; i++) {
		int n =
		    snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "", pt_parts[i]->name);
		if (n < 0)
			break;
		len += (size_t)n;
	}
	pt_debug(2, "parts: %s", buf);
}

void pt_parts_init(void)
{
	debug_list();
	for (size_t i = 0; i < pt_nparts; i++)
		if (pt_parts[i]->init)
			pt_parts[i]->init();
}

void pt_parts_thread_start(pt_thread *t)
{
	for (size_t i = 0; i < pt_nparts; i++)
		if (pt_parts[i]->thread_start)
			pt_parts[i]->thread_start(t);
}

void pt_parts_thread_end(pt_thread *t)
{
	for (size_t i = pt_nparts; i-- > 0;)
		if (pt_parts[i]->thread_end)
			pt_parts[i]->thread_end(t);
}

void pt_parts_fork_child(void)
{
	for (size_t i = 0; i < pt_nparts; i++)
		if (pt_parts[i]->fork_child)
			pt_parts[i]->fork_child();
}

void pt_parts_exec(void)
{
	for (size_t i = 0; i < pt_nparts; i++)
		if (pt_parts[i]->exec)
			pt_parts[i]->exec();
}

void pt_parts_modules_changed(void)
{
	for (size_t i = 0; i < pt_nparts; i++)
		if (pt_parts[i]->modules_changed)
			pt_parts[i]->modules_changed();
}

void pt_parts_shutdown(int in_signal)
{
	for (size_t i = pt_nparts; i-- > 0;)
		if (pt_parts[i]->shutdown)
			pt_parts[i]->shutdown(in_signal);
}

/* ---- services ------------------------------------------------------------ */

unsigned pt_counters_at_mask;
void (*pt_counters_reader)(pt_thread *t);
static int (*pt_counter_by_name)(pt_thread *t, const char *name);
void (*pt_callstack_emitter)(pt_thread *t);
void (*pt_switches_reader)(pt_thread *t);

void pt_counters_provide(unsigned at_mask, void (*reader)(pt_thread *t),
                         int (*manual)(pt_thread *t, const char *name))
{
	/* The functions before the mask: a thread that sees the mask set
	 * finds the reader (the hot path reads the mask with a plain load). */
	__atomic_store_n(&pt_counters_reader, reader, __ATOMIC_RELAXED);
	__atomic_store_n(&pt_counter_by_name, manual, __ATOMIC_RELAXED);
	__atomic_store_n(&pt_counters_at_mask, reader ? at_mask : 0, __ATOMIC_RELEASE);
}

int pt_counter_manual(pt_thread *t, const char *name)
{
	int (*f)(pt_thread *, const char *) =
	    __atomic_load_n(&pt_counter_by_name, __ATOMIC_ACQUIRE);
	return f ? f(t, name) : -ENOSYS;
}

void pt_parts_join(pt_run_job *job)
{
	for (size_t i = 0; i < pt_nparts && !job->run_id; i++)
		if (pt_parts[i]->join)
			pt_parts[i]->join(job);
}

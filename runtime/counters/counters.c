/* SPDX-License-Identifier: MIT */
/* Performance counters through libpfm4 and perf_event_open(2).
 *
 * PARATRACE_COUNTERS=name,name,... names anything libpfm4 encodes for
 * perf_event (generic "cycles", "instructions", PMU-specific events,
 * software events such as "page-faults"). At init every name is encoded and
 * probed once on the initialising thread, so a counter the machine cannot
 * give (unknown name, no PMU, perf_event_paranoid) is dropped with one
 * warning and never retried per thread. Each thread opens its own counters
 * at its first event (pid 0, cpu -1: the kernel follows the thread across
 * CPUs) as at most two groups, software and everything else, because a
 * group is scheduled all-or-nothing and a hardware sibling could keep a
 * software leader off. A group is read with one read(2) of its leader.
 *
 * Reads happen where PARATRACE_COUNTERS_AT says (functions, sync, threads;
 * default sync,threads) and are stored as deltas in COUNTERS records.
 * Per-thread state lives in initial-exec TLS, touched only by its thread
 * (and by a fork child, which closes what it inherited). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "pt_fd.h"
#include "pt_runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PT_MAX_COUNTERS 16 /* configured counters per thread */
#define PT_MAX_MANUAL 8    /* distinct PT_COUNTER(name) names per process */
#define PT_NAME_MAX 64

/* Groups read with one read(2) each. The clock events (task-clock,
 * cpu-clock) each lead a group of their own: on Linux 6.18 a clock event
 * read as a group sibling, or as a leader's siblings, reads 0 or a stale
 * value whenever an exclude_* bit is set (libpfm4 always sets exclude_hv
 * and exclude_guest), while the same event read alone is exact. */
enum { PT_GROUP_SW, PT_GROUP_OTHER, PT_GROUP_CLOCK0,
       PT_NGROUPS = PT_GROUP_CLOCK0 + PT_MAX_COUNTERS };

typedef struct pt_cdesc {
	char name[PT_NAME_MAX];
	struct perf_event_attr attr;
	uint32_t flags; /* PT_COUNTER_* */
	int group;
} pt_cdesc;

/* Configured counters that passed the probe, fixed after counters_init. */
static pt_cdesc pt_cdescs[PT_MAX_COUNTERS];
static int pt_ncdescs;

/* PT_COUNTER names: appended under pt_manual_lock, never removed; readers
 * go by pt_nmanual (release/acquire) so a published entry is complete. */
typedef struct pt_manual_desc {
	pt_cdesc d;
	int error; /* 0 usable, else negative errno (already warned) */
} pt_manual_desc;
static pt_manual_desc pt_manual[PT_MAX_MANUAL];
static _Atomic int pt_nmanual;
/* Held only while a new name is encoded and probed. */
static pt_spin pt_manual_lock;

typedef struct pt_cthread {
	int active;
	pid_t pid;                      /* process that opened these counters */
	int n;                          /* counters open on this thread */
	int fd[PT_MAX_COUNTERS];        /* by index; group leaders first in their group */
	int leader[PT_NGROUPS];         /* index of the leader in fd[], -1 when the group is empty */
	int nmembers[PT_NGROUPS];
	int slot[PT_MAX_COUNTERS];      /* index -> position in its group's read */
	int group[PT_MAX_COUNTERS];
	uint64_t last[PT_MAX_COUNTERS]; /* value at the previous COUNTERS record */
	/* PT_COUNTER: fd and first value per pt_manual entry; def index written */
	int mfd[PT_MAX_MANUAL];
	uint64_t mbase[PT_MAX_MANUAL];
	int mindex[PT_MAX_MANUAL]; /* COUNTER_DEF index, -1 = not opened yet */
	int next_index;
	int listed;              /* in pt_threads_list (has or had an fd open) */
	struct pt_cthread *next; /* pt_threads_list, for the fork child */
} pt_cthread;

static __thread pt_cthread pt_ct __attribute__((tls_model("initial-exec")));

/* Every thread with open counters, so a fork child can close the fds the
 * other (vanished) threads left it. */
static pt_cthread *pt_threads_list;
static pt_spin pt_threads_lock;

/* Joins the list at its first counter fd: threads with none (no counters
 * configured) never touch the list's lock. */
static void list_add_once(pt_cthread *c)
{
	if (c->listed)
		return;
	pt_spin_lock(&pt_threads_lock);
	c->next = pt_threads_list;
	pt_threads_list = c;
	pt_spin_unlock(&pt_threads_lock);
	c->listed = 1;
}

/* libpfm4, loaded the first time a counter is asked for: its event tables
 * cost every program about 1 ms of relocations at start-up (41,000 of them)
 * when it is linked in. */
static struct {
	pfm_err_t (*initialize)(void);
	const char *(*strerror)(int);
	pfm_err_t (*encode)(const char *, int, pfm_os_t, void *);
} pfm;

/* pfm_initialize once. Callers are serialised: counters_init runs before
 * any thread is traced, PT_COUNTER lookups hold pt_manual_lock. */
static int pfm_ready(void)
{
	static int done, status;
	if (!done) {
		void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
		if (h) {
			pfm.initialize = (pfm_err_t(*)(void))dlsym(h, "pfm_initialize");
			pfm.strerror = (const char *(*)(int))dlsym(h, "pfm_strerror");
			pfm.encode = (pfm_err_t(*)(const char *, int, pfm_os_t, void *))dlsym(
				h, "pfm_get_os_event_encoding");
		}
		status = pfm.initialize && pfm.strerror && pfm.encode ? pfm.initialize()
								     : PFM_ERR_NOINIT;
		done = 1;
	}
	return status;
}

static const char *pfm_message(int err)
{
	return pfm.strerror ? pfm.strerror(err) : "libpfm.so.4 cannot be loaded";
}

/* Why opening a counter failed, in words a user can act on. */
static void warn_open_failure(const char *name, int err, int user_only_tried)
{
	if (err == EACCES || err == EPERM) {
		int level = pt_perf_paranoid();
		pt_warn("counter '%s' not available: permission denied (kernel.perf_event_paranoid "
			"is %d%s); lower it with `sysctl kernel.perf_event_paranoid=1` (or grant "
			"CAP_PERFMON); tracing goes on without it",
			name, level, user_only_tried ? ", user-space-only counting was refused too" : "");
	} else if (err == ENOENT || err == EOPNOTSUPP || err == ENODEV) {
		pt_warn("counter '%s' not available: not supported by this machine (no PMU or "
			"event unknown to the kernel, as on VMs without PMU virtualization); "
			"tracing goes on without it",
			name);
	} else if (err == EMFILE || err == ENFILE) {
		pt_warn("counter '%s' not available: out of file descriptors; tracing goes on "
			"without it",
			name);
	} else {
		pt_warn("counter '%s' not available: perf_event_open: %s; tracing goes on "
			"without it",
			name, strerror(err));
	}
}

/* Encodes `name` with libpfm4 and opens it once to see whether this machine
 * and these permissions allow it. 0 with d filled, or negative errno
 * (warned). */
static int is_clock(const struct perf_event_attr *a)
{
	return a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK;
}

static int encode_and_probe(const char *name, pt_cdesc *d)
{
	memset(d, 0, sizeof *d);
	if (strlen(name) >= PT_NAME_MAX) {
		pt_warn("counter '%s': name too long (at most %d characters); tracing goes on "
			"without it",
			name, PT_NAME_MAX - 1);
		return -ENAMETOOLONG;
	}
	strcpy(d->name, name);
	int ret = pfm_ready();
	if (ret != PFM_SUCCESS) {
		pt_warn("counter '%s' not available: libpfm4 failed to initialise (%s); tracing "
			"goes on without it",
			name, pfm_message(ret));
		return -ENOSYS;
	}
	pfm_perf_encode_arg_t arg;
	memset(&arg, 0, sizeof arg);
	arg.attr = &d->attr;
	arg.size = sizeof arg;
	/* User and kernel: software events such as context-switches happen in
	 * the kernel and would always read 0 counted in user space only. */
	ret = pfm.encode(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		if (ret == PFM_ERR_NOTFOUND)
			pt_warn("counter '%s' not available: unknown event name (not a libpfm4 "
				"event for this machine; `perf list` shows generic names); tracing "
				"goes on without it",
				name);
		else
			pt_warn("counter '%s' not available: libpfm4 cannot encode it (%s); "
				"tracing goes on without it",
				name, pfm_message(ret));
		return -EINVAL;
	}
	d->attr.size = sizeof d->attr;
	d->attr.disabled = 0;
	d->attr.inherit = 0; /* per thread: every thread opens its own */
	d->attr.read_format = PERF_FORMAT_GROUP;
	d->attr.sample_period = 0;
	d->attr.sample_type = 0;
	if (d->attr.type == PERF_TYPE_SOFTWARE) {
		d->flags |= PT_COUNTER_SOFTWARE;
		d->group = is_clock(&d->attr) ? PT_GROUP_CLOCK0 : PT_GROUP_SW;
	} else {
		d->group = PT_GROUP_OTHER;
	}
	/* Context switches and migrations happen in the kernel: counted in user
	 * space only they would always read 0, so they get no such fallback. */
	int kernel_only = d->attr.type == PERF_TYPE_SOFTWARE &&
			  (d->attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
			   d->attr.config == PERF_COUNT_SW_CPU_MIGRATIONS);
	int fd = -1;
	int r = pt_fd_perf_open(&fd, &d->attr, NULL);
	if ((r == -EACCES || r == -EPERM) && !kernel_only) {
		/* perf_event_paranoid >= 2 still lets a user count its own user space. */
		d->attr.exclude_kernel = 1;
		d->attr.exclude_hv = 1;
		r = pt_fd_perf_open(&fd, &d->attr, NULL);
		if (r == 0)
			d->flags |= PT_COUNTER_USER_ONLY;
		else if (r == -EACCES || r == -EPERM) {
			warn_open_failure(name, -r, 1);
			return -EACCES;
		}
	}
	if (r != 0) {
		warn_open_failure(name, -r, 0);
		return r;
	}
	pt_fd_close(&fd);
	return 0;
}

static void counters_read(pt_thread *t);
static int counter_manual(pt_thread *t, const char *name);

static void counters_init(void)
{
	const pt_config *cfg = pt_config_get();
	pt_ncdescs = 0;
	/* PT_COUNTER works whether or not counters are configured. */
	pt_counters_provide(0, counters_read, counter_manual);
	if (!cfg || !cfg->counters || !*cfg->counters)
		return;

	unsigned mask = cfg->counters_at ? cfg->counters_at
					 : PT_COUNTERS_AT_SYNC | PT_COUNTERS_AT_THREADS;

	const char *s = cfg->counters;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char name[256];
		if (len >= sizeof name)
			len = sizeof name - 1;
		memcpy(name, s, len);
		name[len] = 0;
		s = end ? end + 1 : s + strlen(s);
		if (!name[0])
			continue;
		int dup = 0;
		for (int i = 0; i < pt_ncdescs; i++)
			dup |= !strcmp(pt_cdescs[i].name, name);
		if (dup)
			continue;
		if (pt_ncdescs == PT_MAX_COUNTERS) {
			pt_warn("counter '%s' ignored: at most %d counters", name, PT_MAX_COUNTERS);
			continue;
		}
		pt_cdesc *d = &pt_cdescs[pt_ncdescs];
		if (encode_and_probe(name, d) == 0) {
			if (d->group == PT_GROUP_CLOCK0)
				d->group = PT_GROUP_CLOCK0 + pt_ncdescs;
			pt_ncdescs++;
		}
	}
	pt_counters_provide(pt_ncdescs ? mask : 0, counters_read, counter_manual);
	pt_debug(1, "counters: %d open, read at mask %#x", pt_ncdescs, pt_counters_at_mask);
}

static void write_def(pt_thread *t, int index, const pt_cdesc *d, uint32_t extra_flags)
{
	pt_rec_counter_def def = {d->attr.config, d->attr.type, d->flags | extra_flags};
	pt_emit2(t, PT_REC_COUNTER_DEF, (unsigned)index, &def, sizeof def, d->name,
		 strlen(d->name) + 1);
}

static void close_thread_fds(pt_cthread *c)
{
	for (int i = 0; i < c->n; i++)
		pt_fd_close(&c->fd[i]);
	for (int i = 0; i < PT_MAX_MANUAL; i++)
		if (c->mindex[i] >= 0)
			pt_fd_close(&c->mfd[i]);
}

static void reset_thread(pt_cthread *c)
{
	memset(c, 0, sizeof *c);
	for (int g = 0; g < PT_NGROUPS; g++)
		c->leader[g] = -1;
	for (int i = 0; i < PT_MAX_MANUAL; i++) {
		c->mindex[i] = -1;
		c->mfd[i] = -1;
	}
}

/* After fork: every counter fd this process inherited counts one of the
 * parent's threads (only the forking thread survives here, with the
 * parent's TLS). Closes them, keeping only state opened in this process
 * (idempotent). The list's lock may have been held by a thread that no
 * longer exists here. */
static void forget_parent_counters(void)
{
	pid_t me = getpid();
	pt_spin_reset(&pt_threads_lock);
	for (pt_cthread *c = pt_threads_list; c; c = c->next)
		if (c->pid != me)
			close_thread_fds(c);
	pt_threads_list = NULL;
	if (pt_ct.active && pt_ct.pid == me) {
		pt_ct.next = NULL;
		if (pt_ct.listed)
			pt_threads_list = &pt_ct;
	} else {
		reset_thread(&pt_ct);
	}
}

static void counters_thread_start(pt_thread *t)
{
	pt_cthread *c = &pt_ct;
	if (c->active && c->pid == getpid())
		return;
	if (c->active)
		forget_parent_counters();
	reset_thread(c);
	c->active = 1;
	c->pid = getpid();
	for (int i = 0; i < pt_ncdescs; i++) {
		pt_cdesc *d = &pt_cdescs[i];
		int k = c->n, lead = c->leader[d->group];
		int r = pt_fd_perf_open(&c->fd[k], &d->attr, lead >= 0 ? &c->fd[lead] : NULL);
		if (r != 0) {
			/* Passed the probe, so this is a per-thread limit (fds). */
			pt_debug(1, "counter '%s' not opened on thread %u: %s", d->name,
				 pt_thread_tid(t), strerror(-r));
			continue;
		}
		c->n++;
		c->group[k] = d->group;
		if (lead < 0)
			c->leader[d->group] = k;
		c->slot[k] = c->nmembers[d->group]++;
		write_def(t, k, d, 0);
	}
	c->next_index = c->n;
	if (c->n)
		list_add_once(c);
	pt_counters_at(t, PT_COUNTERS_AT_THREADS);
}

/* Reads every group into v (by counter index). 0, or -1 if a read failed. */
static int read_all(pt_cthread *c, uint64_t *v)
{
	for (int g = 0; g < PT_NGROUPS; g++) {
		if (c->leader[g] < 0)
			continue;
		uint64_t buf[1 + PT_MAX_COUNTERS];
		ssize_t want = (ssize_t)((1 + c->nmembers[g]) * sizeof(uint64_t));
		if (pt_fd_read(&c->fd[c->leader[g]], buf, sizeof buf) < want ||
		    buf[0] != (uint64_t)c->nmembers[g])
			return -1;
		for (int k = 0; k < c->n; k++)
			if (c->group[k] == g)
				v[k] = buf[1 + c->slot[k]];
	}
	return 0;
}

static void counters_read(pt_thread *t)
{
	pt_cthread *c = &pt_ct;
	if (!c->active || c->n == 0)
		return;
	int saved = errno;
	uint64_t v[PT_MAX_COUNTERS], delta[PT_MAX_COUNTERS];
	if (read_all(c, v) == 0) {
		for (int k = 0; k < c->n; k++) {
			delta[k] = v[k] - c->last[k];
			c->last[k] = v[k];
		}
		pt_emit(t, PT_REC_COUNTERS, (unsigned)c->n, delta, (size_t)c->n * sizeof delta[0]);
	}
	errno = saved;
}

static void counters_thread_end(pt_thread *t)
{
	pt_cthread *c = &pt_ct;
	if (!c->active)
		return;
	if (t)
		pt_counters_at(t, PT_COUNTERS_AT_THREADS);
	/* In a fatal signal's handler, which may have interrupted this very
	 * thread inside the list's lock: the process is ending, the kernel
	 * closes the descriptors. */
	if (pt_in_signal_shutdown())
		return;
	int saved = errno;
	if (c->listed) {
		pt_spin_lock(&pt_threads_lock);
		for (pt_cthread **p = &pt_threads_list; *p; p = &(*p)->next)
			if (*p == c) {
				*p = c->next;
				break;
			}
		pt_spin_unlock(&pt_threads_lock);
	}
	close_thread_fds(c);
	reset_thread(c);
	errno = saved;
}

static void counters_fork_child(void)
{
	forget_parent_counters();
	pt_spin_reset(&pt_manual_lock);
}

/* Index of `name` in pt_manual, encoding and probing it on first use. */
static int manual_lookup(const char *name)
{
	int n = atomic_load_explicit(&pt_nmanual, memory_order_acquire);
	for (int i = 0; i < n; i++)
		if (!strcmp(pt_manual[i].d.name, name))
			return i;
	pt_spin_lock(&pt_manual_lock);
	n = atomic_load_explicit(&pt_nmanual, memory_order_relaxed);
	int found = -1;
	for (int i = 0; i < n && found < 0; i++)
		if (!strcmp(pt_manual[i].d.name, name))
			found = i;
	if (found < 0 && n < PT_MAX_MANUAL) {
		pt_manual_desc *m = &pt_manual[n];
		m->error = encode_and_probe(name, &m->d);
		if (m->error) /* keep the name so the warning is given once */
			snprintf(m->d.name, sizeof m->d.name, "%s", name);
		atomic_store_explicit(&pt_nmanual, n + 1, memory_order_release);
		found = n;
	} else if (found < 0) {
		static int warned;
		if (!warned++)
			pt_warn("PT_COUNTER('%s') ignored: at most %d distinct PT_COUNTER names", name,
				PT_MAX_MANUAL);
	}
	pt_spin_unlock(&pt_manual_lock);
	return found;
}

static int counter_manual(pt_thread *t, const char *name)
{
	pt_cthread *c = &pt_ct;
	if (!name || !c->active)
		return -EINVAL;
	int saved = errno, ret = 0;
	int cancel = pt_nocancel_begin(); /* libpfm4 reads sysfs with stdio */
	int i = manual_lookup(name);
	if (i < 0 || pt_manual[i].error) {
		ret = i < 0 ? -ENOSPC : pt_manual[i].error;
		goto out;
	}
	uint64_t buf[2];
	if (c->mindex[i] < 0) {
		/* On its own, not in a group: PT_COUNTER reads one value. */
		ret = pt_fd_perf_open(&c->mfd[i], &pt_manual[i].d.attr, NULL);
		if (ret != 0)
			goto out;
		if (pt_fd_read(&c->mfd[i], buf, sizeof buf) < (ssize_t)sizeof buf) {
			pt_fd_close(&c->mfd[i]);
			ret = -EIO;
			goto out;
		}
		c->mbase[i] = buf[1];
		list_add_once(c);
		c->mindex[i] = c->next_index++;
		write_def(t, c->mindex[i], &pt_manual[i].d, PT_COUNTER_MANUAL);
	} else if (pt_fd_read(&c->mfd[i], buf, sizeof buf) < (ssize_t)sizeof buf) {
		ret = -EIO;
		goto out;
	}
	pt_rec_counter_value val = {buf[1] - c->mbase[i]};
	pt_emit(t, PT_REC_COUNTER_VALUE, (unsigned)c->mindex[i], &val, sizeof val);
out:
	pt_nocancel_end(cancel);
	errno = saved;
	return ret;
}

PT_SUBSYSTEM(counters_part) = {
	.name = "counters",
	.order = PT_ORDER_COUNTERS,
	.init = counters_init,
	.thread_start = counters_thread_start,
	.thread_end = counters_thread_end,
	.fork_child = counters_fork_child,
};

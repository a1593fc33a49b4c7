/* SPDX-License-Identifier: MIT */
/* Where a run writes: the run variable a traced parent hands its children
 * (PARATRACE_RUN), the trace directory and each process's folder in it. */
#define _GNU_SOURCE
#include "core.h"
#include "pt_fd.h"
#include "pt_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- PARATRACE_RUN ----------------------------------------------------- */

int pt_run_env_format(char *buf, size_t len)
{
	pt_clock_cal cal;
	uint64_t at;
	pt_clock_current(&cal, &at);
	int n = snprintf(buf, len, "v2:%016" PRIx64 ":%u:%" PRIu64 ":%u:%" PRIu64 ":%" PRIu64 ":%s",
	                 pt_run_info.run_id, cal.source, cal.mult, cal.shift, cal.anchor_ticks,
	                 cal.anchor_ns, pt_run_info.dir);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int pt_run_env_parse(const char *s, uint64_t *run_id, pt_clock_cal *cal, char *dir, size_t dirlen)
{
	unsigned src, shift;
	uint64_t id, mult, aticks = 0, ans = 0;
	int off = 0;
	if (!strncmp(s, "v2:", 3)) {
		if (sscanf(s, "v2:%16" SCNx64 ":%u:%" SCNu64 ":%u:%" SCNu64 ":%" SCNu64 ":%n", &id,
		           &src, &mult, &shift, &aticks, &ans, &off) != 6 ||
		    !off)
			return -1;
	} else if (sscanf(s, "v1:%16" SCNx64 ":%u:%" SCNu64 ":%u:%n", &id, &src, &mult, &shift,
	                  &off) != 4 ||
	           !off) {
		return -1;
	}
	const char *d = s + off;
	if ((src != PT_CLOCK_TSC && src != PT_CLOCK_MONOTONIC) || !mult || shift > 63 ||
	    d[0] != '/' || strlen(d) >= dirlen || (!aticks) != (!ans))
		return -1;
	*run_id = id;
	cal->source = src;
	cal->mult = mult;
	cal->shift = shift;
	cal->anchor_ticks = aticks;
	cal->anchor_ns = ans;
	strcpy(dir, d);
	return 0;
}

/* ---- trace directory --------------------------------------------------- */

/* mkdir -p for the parents of the trace directory (these may be symlinks:
 * /tmp -> /private/tmp is normal; only the trace directory itself must not). */
static void make_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
}

/* Opens (creating it 0700 if missing) the trace directory `path` without
 * following a symlink at its last component, into *slot. A directory that
 * already exists must belong to us. 0, or -1 with err set. */
int pt_open_trace_dir(const char *path, int *slot, char *err, size_t errlen)
{
	char buf[sizeof pt_run_info.dir];
	snprintf(buf, sizeof buf, "%s", path);
	size_t n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	char *slash = strrchr(buf, '/');
	const char *name = buf, *parent = ".";
	if (slash) {
		*slash = '\0';
		name = slash + 1;
		parent = slash == buf ? "/" : buf;
		char tmp[sizeof buf + 2];
		snprintf(tmp, sizeof tmp, "%s/", parent);
		make_parents(tmp);
	}
	int pfd = -1;
	int r = pt_fd_openat(&pfd, NULL, parent, O_RDONLY | O_DIRECTORY, 0);
	if (r != 0) {
		snprintf(err, errlen, "cannot open the parent of trace directory %.300s: %s", path,
		         strerror(-r));
		return -1;
	}
	r = pt_fd_mkdirat(&pfd, name, 0700);
	int created = r == 0;
	if (!created && r != -EEXIST) {
		snprintf(err, errlen, "cannot create trace directory %.300s: %s", path,
		         strerror(-r));
		pt_fd_close(&pfd);
		return -1;
	}
	r = pt_fd_openat(slot, &pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	pt_fd_close(&pfd);
	if (r != 0) {
		if (r == -ELOOP || r == -ENOTDIR)
			snprintf(err, errlen,
			         "trace directory %.300s is a symbolic link or not a directory; "
			         "refusing it",
			         path);
		else
			snprintf(err, errlen, "cannot open trace directory %.300s: %s", path,
			         strerror(-r));
		return -1;
	}
	struct stat st;
	pt_fd_use_begin();
	int owned = fstat(*slot, &st) == 0 && st.st_uid == geteuid();
	if (owned && created)
		fchmod(*slot, 0700); /* exactly 0700 whatever the umask */
	pt_fd_use_end();
	if (!owned) {
		snprintf(err, errlen, "trace directory %.300s belongs to another user; refusing it",
		         path);
		pt_fd_close(slot);
		return -1;
	}
	return 0;
}

/* p<pid>, or p<pid>.<n> when an earlier image of this pid used it (exec);
 * a rank of a parallel job: p<pid>-r<rank>[.<n>] (two hosts may have the
 * same pid), of a job it spawned: p<pid>-w<world>-r<rank>[.<n>]. */
int pt_make_process_dir(char *err, size_t errlen)
{
	pt_fd_close(&pt_run_info.pdirfd);
	char job[32] = "";
	if (pt_run_info.job_rank1 && pt_run_info.job_world)
		snprintf(job, sizeof job, "-w%u-r%u", pt_run_info.job_world,
		         pt_run_info.job_rank1 - 1);
	else if (pt_run_info.job_rank1)
		snprintf(job, sizeof job, "-r%u", pt_run_info.job_rank1 - 1);
	for (unsigned n = 0; n < 1000; n++) {
		char name[sizeof pt_run_info.pdir_name];
		if (n)
			snprintf(name, sizeof name, "p%u%s.%u", pt_run_info.pid, job, n);
		else
			snprintf(name, sizeof name, "p%u%s", pt_run_info.pid, job);
		int r = pt_fd_mkdirat(&pt_run_info.dirfd, name, 0700);
		if (r != 0) {
			if (r == -EEXIST)
				continue;
			snprintf(err, errlen, "cannot create %.300s/%s: %s", pt_run_info.dir, name,
			         strerror(-r));
			return -1;
		}
		r = pt_fd_openat(&pt_run_info.pdirfd, &pt_run_info.dirfd, name,
		                 O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
		if (r != 0) {
			snprintf(err, errlen, "cannot open %.300s/%s: %s", pt_run_info.dir, name,
			         strerror(-r));
			return -1;
		}
		memcpy(pt_run_info.pdir_name, name, sizeof name);
		return 0;
	}
	snprintf(err, errlen, "too many process folders for pid %u", pt_run_info.pid);
	return -1;
}

void pt_default_dir(char *out, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char stamp[32];
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(out, len, "paratrace-%s-%u-%s", pt_run_info.program, pt_run_info.pid, stamp);
}

/* Absolute, so an exec'd image finds the run after a chdir. */
void pt_absolutize(char *path, size_t len)
{
	if (path[0] == '/')
		return;
	char cwd[PATH_MAX], tmp[sizeof pt_run_info.dir];
	if (!getcwd(cwd, sizeof cwd))
		return;
	const char *rel = path;
	if (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", strcmp(cwd, "/") ? cwd : "", rel) <
	    sizeof tmp)
		snprintf(path, len, "%s", tmp);
}

/* SPDX-License-Identifier: MIT */
/* Trace directories as paratrace record names them, and the newest one in
 * the current directory, which the analysis commands read when given no
 * path. */
#define _GNU_SOURCE
#include "commands.h"
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Wrappers that run the rest of their command line: how many words each
 * takes before the program (its options aside). */
static const struct {
	const char *name;
	int args;           /* words after the options: timeout's DURATION */
	const char *valued; /* its options that take the next word */
} wrappers[] = {
    {"env", 0, "-u -C -S --unset --chdir --split-string"},
    {"timeout", 1, "-s -k --signal --kill-after"},
    {"time", 0, "-f -o --format --output"},
    {"nice", 0, "-n --adjustment"},
};

static int takes_value(const char *list, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = list; (p = strstr(p, opt)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
			return 1;
	return 0;
}

const char *record_program_name(char **argv)
{
	size_t i = 0;
	for (;;) {
		const char *base = strrchr(argv[i], '/');
		base = base ? base + 1 : argv[i];
		size_t w = 0;
		while (w < sizeof wrappers / sizeof wrappers[0] && strcmp(base, wrappers[w].name))
			w++;
		if (w == sizeof wrappers / sizeof wrappers[0])
			return *base ? base : argv[i];
		size_t j = i + 1;
		while (argv[j] && argv[j][0] == '-' && strcmp(argv[j], "--")) {
			if (takes_value(wrappers[w].valued, argv[j]) && argv[j + 1])
				j++;
			j++;
		}
		if (argv[j] && !strcmp(argv[j], "--"))
			j++;
		if (!strcmp(wrappers[w].name, "env"))
			while (argv[j] && strchr(argv[j], '='))
				j++;
		for (int a = 0; a < wrappers[w].args && argv[j]; a++)
			j++;
		if (!argv[j])
			return base; /* the wrapper alone */
		i = j;
	}
}

/* MPICH's Hydra (mpiexec.mpich) names no job in its ranks' environment
 * (PMI_RANK, PMI_SIZE, PMI_FD): its proxy, hydra_pmi_proxy, the parent of
 * the ranks it starts, has the address of its mpiexec on its command line
 * (--control-port HOST:PORT), the same for all of one mpiexec's proxies
 * and no other's. The runtime joins the job from it too (mpi_job.c). */
static const char *hydra_port(char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)getppid());
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *exe = strrchr(buf, '/');
	if (strncmp(exe ? exe + 1 : buf, "hydra_pmi_proxy", 15))
		return NULL;
	for (size_t at = strlen(buf) + 1; at < n; at += strlen(buf + at) + 1)
		if (!strcmp(buf + at, "--control-port") && at + strlen(buf + at) + 1 < n)
			return buf + at + strlen(buf + at) + 1;
	return NULL;
}

/* The variables the runtime joins a job from (docs/MPI.md): Open MPI,
 * Slurm, PMIx; and Hydra's proxy. */
int record_mpi_rank(char *job, size_t len)
{
	static char cmdline[4096];
	const char *hydra = getenv("PMI_RANK") && getenv("PMI_SIZE")
	                        ? hydra_port(cmdline, sizeof cmdline)
	                        : NULL;
	static const struct {
		const char *rank, *job, *step;
	} launchers[] = {
	    {"OMPI_COMM_WORLD_RANK", "OMPI_MCA_ess_base_jobid", NULL},
	    {"SLURM_PROCID", "SLURM_JOB_ID", "SLURM_STEP_ID"},
	    {"PMIX_RANK", "PMIX_NAMESPACE", NULL},
	    {"PMI_RANK", NULL, NULL},
	};
	for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
		const char *r = getenv(launchers[i].rank);
		const char *j = launchers[i].job ? getenv(launchers[i].job) : hydra;
		const char *s = launchers[i].step ? getenv(launchers[i].step) : "";
		if (!r || !*r || !j || !*j || !s)
			continue;
		snprintf(job, len, "%s%s%s", j, *s ? "." : "", s);
		/* a name of letters, digits, '.' and '-' */
		for (char *p = job; *p; p++)
			if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
			      (*p >= 'A' && *p <= 'Z') || *p == '.' || *p == '-'))
				*p = '_';
		return atoi(r);
	}
	return -1;
}

int record_make_dir(const char *base, char *out, size_t len)
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd)) {
		pt_cli_error("record: cannot tell the current directory: %s", strerror(errno));
		return -1;
	}
	for (unsigned n = 0; n < 10000; n++) {
		char suffix[16] = "";
		if (n)
			snprintf(suffix, sizeof suffix, ".%u", n);
		if ((size_t)snprintf(out, len, "%s/%s.paratrace%s", strcmp(cwd, "/") ? cwd : "",
		                     base, suffix) >= len) {
			pt_cli_error("record: the path of the trace directory is too long");
			return -1;
		}
		/* mkdir claims the name: two records started at once get two */
		if (mkdir(out, 0700) == 0)
			return 0;
		if (errno != EEXIST) {
			pt_cli_error("record: cannot create %s: %s", out, strerror(errno));
			return -1;
		}
	}
	pt_cli_error("record: %s.paratrace to %s.paratrace.9999 all exist", base, base);
	return -1;
}

/* A process folder of a trace: p<pid>... holding process.ptl. */
static int is_trace(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	int found = 0;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] != 'p' || e->d_name[1] < '0' || e->d_name[1] > '9')
			continue;
		char path[NAME_MAX + 16];
		snprintf(path, sizeof path, "%s/process.ptl", e->d_name);
		found = faccessat(dirfd(d), path, R_OK, 0) == 0;
	}
	closedir(d);
	return found;
}

int record_holds_trace(const char *path)
{
	return is_trace(AT_FDCWD, path);
}

int record_newest_trace(char *out, size_t len)
{
	DIR *d = opendir(".");
	if (!d)
		return -1;
	struct timespec best = {0, 0};
	int found = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, 0) != 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		/* newest by the time its last process folder was made */
		if (found &&
		    (st.st_mtim.tv_sec < best.tv_sec ||
		     (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec <= best.tv_nsec)))
			continue;
		if (!is_trace(dirfd(d), e->d_name))
			continue;
		best = st.st_mtim;
		snprintf(out, len, "%s", e->d_name);
		found = 1;
	}
	closedir(d);
	return found ? 0 : -1;
}

/* SPDX-License-Identifier: MIT */
/* `mpirun -np M paratrace analyze`: finding that mpirun started this
 * process among others, and loading the MPI plugin (paratrace-mpi.so,
 * framework/pt_dist.h) that connects them. The paratrace executable never
 * links libmpi: without the plugin it runs alone, as it always did. */
#define _GNU_SOURCE
#include "commands.h"
#include "pt_dist.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The number of processes the launcher started, from its environment
 * (Open MPI, MPICH's Hydra, Slurm); 1 when there is none. */
static long launched(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strtol(v, NULL, 10);
	}
	return 1;
}

long pt_cli_launch_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"};
	if (launched() <= 1)
		return 0;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strtol(v, NULL, 10);
	}
	return 0;
}

/* The plugin for the launcher's MPI: a process MPICH's Hydra started
 * (PMI_SIZE without Open MPI's variables) must join the others through
 * MPICH's library, paratrace-mpich.so; any other, Open MPI's. */
static int hydra(void)
{
	return !getenv("OMPI_COMM_WORLD_SIZE") && getenv("PMI_SIZE") && getenv("PMI_RANK");
}

/* Beside the executable (build/bin -> build/lib), then where it is installed. */
static void *load_plugin(const char *plugin, char *tried, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	tried[0] = 0;
	if (n > 0) {
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			char path[PATH_MAX + 64];
			snprintf(path, sizeof path, "%s/../lib/%s", exe, plugin);
			snprintf(tried, len, "%s", path);
			/* GLOBAL: the MPI library's own plugins need its symbols */
			void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
			if (h)
				return h;
		}
	}
#ifdef PT_LIBDIR
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", PT_LIBDIR, plugin);
	void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (h)
		return h;
	size_t used = strlen(tried);
	snprintf(tried + used, len - used, "%s%s", used ? ", " : "", path);
#endif
	return NULL;
}

pt_dist *pt_cli_dist_open(int *argc, char ***argv, int *failed)
{
	*failed = 0;
	if (launched() <= 1)
		return NULL;
	char tried[2 * PATH_MAX + 128], err[512];
	int mpich = hydra();
	const char *plugin = mpich ? "paratrace-mpich.so" : "paratrace-mpi.so";
	void *h = load_plugin(plugin, tried, sizeof tried);
	pt_dist_open_fn open_fn = h ? (pt_dist_open_fn)dlsym(h, PT_DIST_ENTRY) : NULL;
	if (!open_fn) {
		const char *fix = "this paratrace was built without MPI: configure it where "
		                  "Open MPI's development files are installed (PT_WITH_MPI=ON)";
#ifdef PT_MPI_PLUGIN_TARGET
		/* built with MPI: the plugin was not built, or not installed */
		if (!mpich)
			fix = "build the target " PT_MPI_PLUGIN_TARGET
			      " (cmake --build BUILD_DIR --target " PT_MPI_PLUGIN_TARGET
			      ") or install paratrace (cmake --install BUILD_DIR)";
		else
			fix = "this paratrace was built without MPICH: configure it where MPICH's "
			      "development files are installed (libmpich-dev, PT_WITH_MPICH=ON), "
			      "or run it alone";
#endif
#ifdef PT_MPICH_PLUGIN_TARGET
		if (mpich)
			fix = "build the target " PT_MPICH_PLUGIN_TARGET
			      " (cmake --build BUILD_DIR --target " PT_MPICH_PLUGIN_TARGET
			      ") or install paratrace (cmake --install BUILD_DIR)";
#endif
		pt_cli_error("started by %s with several processes, but this paratrace cannot "
		             "load its MPI plugin (%s: %s); %s",
		             mpich ? "MPICH's mpiexec" : "mpirun", tried, dlerror(), fix);
		*failed = 1;
		return NULL;
	}
	pt_dist *d = open_fn(argc, argv, err, sizeof err);
	if (!d) {
		pt_cli_error("%s", err);
		*failed = 1;
	}
	return d;
}

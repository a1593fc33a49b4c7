/* SPDX-License-Identifier: MIT */
/* When libomp's tool interface is not libtrace.so's (pt_omp.h,
 * pt_omp_no_ompt). libomp gives OMPT to one tool, found at its start in
 * this order: none if OMP_TOOL=disabled; the first ompt_start_tool of the
 * process that returns a tool (a program's own comes before libtrace.so's);
 * the libraries OMP_TOOL_LIBRARIES names. A program with its own tool keeps
 * it; so does one run with OMP_TOOL_LIBRARIES, whose tool would not load if
 * libtrace.so's took the interface first (ompt.c then declines it). The
 * OpenMP records then come from the entry points libtrace.so wraps alone,
 * which one line on stderr says, once.
 *
 * Decided from what libomp itself reads, so the answer is the same before
 * and after libomp's start (its constructor may run before or after
 * libtrace.so's). */
#define _GNU_SOURCE
#include "pt_omp.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The object that holds `addr`, NULL if none. */
static const void *object_of(const void *addr)
{
	Dl_info info;
	return addr && dladdr(addr, &info) ? info.dli_fbase : NULL;
}

/* OMP_TOOL_LIBRARIES names a library other than libtrace.so. */
static int tool_libraries(void)
{
	const char *libs = getenv("OMP_TOOL_LIBRARIES");
	if (!libs || !*libs)
		return 0;
	Dl_info self;
	if (!dladdr((const void *)(uintptr_t)&tool_libraries, &self) || !self.dli_fname)
		return 1;
	const char *base = strrchr(self.dli_fname, '/');
	base = base ? base + 1 : self.dli_fname;
	/* a list of paths separated by ':'; libtrace.so alone is no other tool */
	for (const char *p = libs; *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *b = memrchr(p, '/', n);
		b = b ? b + 1 : p;
		size_t bn = n - (size_t)(b - p);
		if (n && (bn != strlen(base) || memcmp(b, base, bn)))
			return 1;
		p += n + (end != NULL);
	}
	return 0;
}

int pt_omp_tool_libraries(void)
{
	const char *t = getenv("OMP_TOOL");
	return !(t && !strcasecmp(t, "disabled")) && tool_libraries();
}

/* Why OMPT is not libtrace.so's, or NULL when it is. fork_call: libomp's. */
static const char *elsewhere(const void *fork_call)
{
	const char *t = getenv("OMP_TOOL");
	if (t && !strcasecmp(t, "disabled"))
		return "OMP_TOOL=disabled turns libomp's tool interface off";
	/* the first definition, unless it is ours or libomp's own (weak, it
	 * looks for the next one: ours) */
	const void *start = object_of(dlsym(RTLD_DEFAULT, "ompt_start_tool"));
	if (start && start != object_of((const void *)(uintptr_t)&elsewhere) &&
	    start != object_of(fork_call))
		return "the program's own OMPT tool (its ompt_start_tool) has libomp's tool "
		       "interface";
	if (tool_libraries())
		return "the OMPT tool OMP_TOOL_LIBRARIES names has libomp's tool interface";
	return NULL;
}

static int state; /* 0 not decided, 1 OMPT is ours (or no libomp), 2 it is not */
static const char *why_not;
static int said;

/* The line on stderr, once, when tracing is on (an entry point may ask
 * before tracing starts: init says it then). */
static void say(void)
{
	if (pt_tracing() && pt_config_get()->openmp &&
	    !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		pt_warn("%s: OpenMP is recorded only from the entry points libtrace.so wraps "
		        "(loops and taskloops; the constructs of gcc-built code), not the parallel "
		        "regions, tasks and waits of clang-built code",
		        __atomic_load_n(&why_not, __ATOMIC_RELAXED));
}

int pt_omp_no_ompt(void)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	if (pt_likely(s)) {
		if (pt_unlikely(s == 2 && !__atomic_load_n(&said, __ATOMIC_RELAXED)))
			say();
		return s == 2;
	}
	/* libomp not loaded (yet: it may come with a dlopen): nothing to decide */
	void *fork_call = pt_omp_lookup("__kmpc_fork_call");
	if (!fork_call)
		return 0;
	const char *why = elsewhere(fork_call);
	if (why) /* the same text whichever thread decides */
		__atomic_store_n(&why_not, why, __ATOMIC_RELAXED);
	__atomic_store_n(&state, why ? 2 : 1, __ATOMIC_RELEASE);
	if (why)
		say();
	return why != NULL;
}

/* Said when tracing starts, if libomp is there already; else at the first
 * entry point that asks (not after a dlopen: what the program's dlerror()
 * says next must be about its own call). */
static void elsewhere_check(void)
{
	if (pt_config_get()->openmp)
		pt_omp_no_ompt();
}

/* The new image decides anew. */
static void elsewhere_exec(void)
{
	__atomic_store_n(&state, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&said, 0, __ATOMIC_RELAXED);
}

PT_SUBSYSTEM(ompt_elsewhere_part) = {
    .name = "ompt_elsewhere",
    .order = PT_ORDER_INTERPOSE,
    .init = elsewhere_check,
    .exec = elsewhere_exec,
};

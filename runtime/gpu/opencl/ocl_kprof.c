/* SPDX-License-Identifier: MIT */
/* OpenCL kernel profiling (PARATRACE_GPU_KERNELS=entries|blocks): programs
 * the application builds from source at run time get their kernels
 * instrumented by instrument.so, without rebuilding the application.
 *
 * clCreateProgramWithSource keeps a copy of the source. When clBuildProgram
 * of that program succeeds, the source is compiled again by clang with
 * instrument.so, to SPIR bitcode (spir64/spir as the device's address bits
 * say), which the device loads through clCreateProgramWithBinary (PoCL:
 * cl_khr_spir, build options "-x spir -spir-std=1.2"). That program holds
 * each kernel K unchanged plus its instrumented twin and the kernel
 * __paratrace_gpu_info, run once here to read the module's block table
 * (include/paratrace/gpu_abi.h). The application's own program stays what
 * it built, for every query it makes; only clCreateKernel and
 * clCreateKernelsInProgram hand out twins instead of K. The twins' extra
 * trailing arguments are hidden: clGetKernelInfo answers K's name, argument
 * count and program, and clSetKernelArg / clGetKernelArgInfo refuse their
 * indices as for a kernel without them.
 *
 * Separate compilation: clCompileProgram of a source program remembers
 * its options and embedded headers; clLinkProgram (once the application's
 * link succeeded) compiles its inputs' sources the same way into one module
 * (the first with instrument.so, the others linked into it before the
 * optimiser runs), and a -create-library link keeps copies of its inputs'
 * sources for the link that uses it.
 *
 * Per launch (opencl.c's clEnqueueNDRangeKernel calls begin/end): a zeroed
 * buffer becomes the profile argument, then a non-blocking read of it waits
 * for the kernel's event; its completion callback writes a GPU_PROF record
 * to the queue's GPU log, tied to the launch by its correlation id.
 *
 * Anything that fails (no clang, no plugin, a compile error, a device that
 * refuses the binary) leaves the program as the application built it, with
 * one warning, and the source and compiler output kept in the process's
 * folder of the trace (ocl-<n>.cl, ocl-<n>.log). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "ocl_kprof.h"

#include "kprof.h"
#include "pt_fd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REAL(fn)                                                                                   \
	static __typeof__(fn) *real_##fn;                                                          \
	if (pt_unlikely(!real_##fn))                                                               \
		real_##fn = (__typeof__(fn) *)pt_real(#fn);

#ifndef PT_GPU_CLANG_DEFAULT
#define PT_GPU_CLANG_DEFAULT "clang"
#endif

/* ---- bookkeeping ----------------------------------------------------------- */

typedef struct kp_twin {
	char *name;       /* the application's name for the kernel */
	char *twin;       /* the instrumented kernel's name */
	uint32_t prof;    /* GPU_PROF_DEF id */
	uint32_t nblocks; /* 0: work-group counts only */
} kp_twin;

/* One compilation unit: a source as clCompileProgram compiled it (or as
 * clBuildProgram builds it), with its options and embedded headers. */
typedef struct kp_header {
	char *name; /* include name */
	char *text;
	size_t len;
} kp_header;

typedef struct kp_unit {
	char *source;
	size_t len;
	char *options;
	kp_header *headers;
	uint32_t nheaders;
} kp_unit;

/* KP_LIBRARY: made by clLinkProgram -create-library, holds the units it
 * joined (copies: the inputs may be released before the final link). */
enum { KP_SOURCE, KP_BINARY, KP_INSTRUMENTED, KP_FAILED, KP_DEAD, KP_LIBRARY };

typedef struct kp_program {
	cl_program user; /* the application's handle */
	cl_program ours; /* instrumented build (KP_INSTRUMENTED); user itself for a binary
	                    compiled with instrument.so */
	int state;
	char *source;
	size_t len;
	kp_unit *compiled; /* after clCompileProgram of the source */
	kp_unit *units;    /* KP_LIBRARY */
	uint32_t nunits;
	const char *why; /* a library whose units are not all known: why */
	kp_twin *twins;
	uint32_t ntwins;
	struct kp_program *next;
} kp_program;

typedef struct kp_kernel {
	cl_kernel k; /* a twin, as handed to the application */
	const kp_twin *twin;
	cl_program user; /* the application's program */
	cl_context ctx;
	cl_uint user_args; /* arguments the application sees */
	cl_mem dummy;      /* profile argument between launches */
	struct kp_kernel *next;
} kp_kernel;

/* Programs and kernels are few and long-lived; lists under one lock. A
 * program entry is never freed (kernels point into its twins and may
 * outlive it); a kernel entry goes when the application releases it. */
static pt_spin kp_lock;
static kp_program *programs;
static kp_kernel *kernels;
static _Atomic int any_kernels; /* a twin was ever handed out */
static _Atomic long kp_pending; /* read-backs whose callback has not run */
static _Atomic uint32_t program_seq;

static int kp_mode(void)
{
	const pt_config *c = pt_config_get();
	return c && c->gpu && pt_tracing() ? c->gpu_kernels : PT_GPU_KERNELS_OFF;
}

static kp_program *program_find(cl_program p)
{
	kp_program *e;
	pt_spin_lock(&kp_lock);
	for (e = programs; e; e = e->next)
		if (e->user == p && e->state != KP_DEAD)
			break;
	pt_spin_unlock(&kp_lock);
	return e;
}

static kp_kernel *kernel_find(cl_kernel k)
{
	if (!atomic_load_explicit(&any_kernels, memory_order_relaxed))
		return NULL;
	kp_kernel *e;
	pt_spin_lock(&kp_lock);
	for (e = kernels; e; e = e->next)
		if (e->k == k)
			break;
	pt_spin_unlock(&kp_lock);
	return e;
}

static void warn_once(const char *fmt, const char *a, const char *b)
{
	static _Atomic int warned;
	if (!atomic_exchange(&warned, 1))
		pt_warn(fmt, a, b);
	else
		pt_debug(1, fmt, a, b);
}

/* ---- compiling the source with instrument.so ---------------------------------- */

/* instrument.so: PARATRACE_PLUGIN, else next to libtrace.so (the build
 * tree) or in its paratrace/ folder (installed). */
static int plugin_path(char *buf, size_t len)
{
	const char *env = getenv("PARATRACE_PLUGIN");
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	Dl_info info;
	if (!dladdr((void *)plugin_path, &info) || !info.dli_fname)
		return -1;
	const char *slash = strrchr(info.dli_fname, '/');
	int dir = slash ? (int)(slash - info.dli_fname) : 1;
	const char *base = slash ? info.dli_fname : ".";
	static const char *const where[] = {"/instrument.so", "/paratrace/instrument.so"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(buf, len, "%.*s%s", dir, base, where[i]);
		if (access(buf, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* clang: PARATRACE_GPU_CLANG, else the one instrument.so was built for;
 * a name without '/' is looked up in PATH. */
static int clang_path(char *buf, size_t len)
{
	const char *c = getenv("PARATRACE_GPU_CLANG");
	if (!c || !*c)
		c = PT_GPU_CLANG_DEFAULT;
	if (strchr(c, '/')) {
		snprintf(buf, len, "%s", c);
		return access(buf, X_OK);
	}
	const char *path = getenv("PATH");
	while (path && *path) {
		const char *end = strchr(path, ':');
		int n = end ? (int)(end - path) : (int)strlen(path);
		snprintf(buf, len, "%.*s/%s", n, path, c);
		if (n && access(buf, X_OK) == 0)
			return 0;
		path = end ? end + 1 : NULL;
	}
	return -1;
}

size_t pt_ocl_kprof_options(const char *options, char *words, const char **argv, size_t max,
                            int *has_std)
{
	size_t n = 0;
	*has_std = 0;
	if (!options)
		return 0;
	strcpy(words, options);
	char *save = NULL;
	int take_next = 0;
	for (char *w = strtok_r(words, " \t\n", &save); w && n + 1 < max;
	     w = strtok_r(NULL, " \t\n", &save)) {
		int keep = take_next || !strncmp(w, "-D", 2) || !strncmp(w, "-I", 2) ||
		           !strncmp(w, "-cl-", 4) || !strcmp(w, "-w") || !strcmp(w, "-Werror");
		take_next = !take_next && (!strcmp(w, "-D") || !strcmp(w, "-I"));
		if (!strncmp(w, "-cl-std=", 8))
			*has_std = 1;
		if (keep)
			argv[n++] = w;
	}
	if (take_next) /* no room for the value of a final -D or -I */
		n--;
	return n;
}

static int write_file(const char *path, const void *data, size_t len)
{
	int fd = -1;
	int r = pt_fd_openat(&fd, NULL, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
	if (r)
		return r;
	ssize_t w = len ? pt_fd_pwrite(&fd, data, len, 0) : 0;
	pt_fd_close(&fd);
	return w == (ssize_t)len ? 0 : -EIO;
}

/* The whole file at path (malloc'ed), or NULL. */
static void *read_file(const char *path, size_t *len)
{
	struct stat st;
	if (stat(path, &st) != 0 || st.st_size <= 0 || st.st_size > (1 << 30))
		return NULL;
	void *buf = malloc((size_t)st.st_size);
	if (buf && pt_fd_read_file(path, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	*len = (size_t)st.st_size;
	return buf;
}

/* The paths of u's source, ocl-<seq>.cl, into src, and of the folder of
 * its embedded headers, ocl-<seq>.include/, into inc ("" when u has none);
 * with `write`, writes them, each header at its include name. */
static int unit_files(const kp_unit *u, uint32_t seq, int write, char *src, char *inc,
                      size_t pathlen, const char **why)
{
	char name[64];
	inc[0] = 0;
	snprintf(name, sizeof name, "ocl-%u.cl", seq);
	if (pt_process_file_path(name, src, pathlen) ||
	    (write && write_file(src, u->source, u->len))) {
		*why = "cannot write the kernel source into the trace";
		return -1;
	}
	if (!u->nheaders)
		return 0;
	snprintf(name, sizeof name, "ocl-%u.include", seq);
	if (pt_process_file_path(name, inc, pathlen) ||
	    (write && mkdir(inc, 0700) && errno != EEXIST)) {
		*why = "cannot write the kernel source into the trace";
		return -1;
	}
	if (!write)
		return 0;
	for (uint32_t h = 0; h < u->nheaders; h++) {
		const kp_header *hd = &u->headers[h];
		char path[4096];
		if (snprintf(path, sizeof path, "%s/%s", inc, hd->name) >= (int)sizeof path) {
			*why = "trace path too long";
			return -1;
		}
		/* folders of a name like "dir/x.h" (names that climb out
		 * were refused when the program was compiled) */
		for (char *slash = strchr(path + strlen(inc) + 1, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			*slash = 0;
			int r = mkdir(path, 0700);
			*slash = '/';
			if (r && errno != EEXIST)
				break;
		}
		if (write_file(path, hd->text, hd->len)) {
			*why = "cannot write the kernel source into the trace";
			return -1;
		}
	}
	return 0;
}

/* One run of clang on unit u into out: with instrument.so in `mode` and
 * the bitcode files links[0..nlinks) linked in before the optimiser (so
 * the plugin sees the whole program), or, mode NULL, to bitcode before any
 * optimisation, to be linked so. extra: the link's options. */
static int run_clang(const char *cc, const char *plugin, int bits64, const kp_unit *u,
                     const char *extra, const char *mode, char *const *links, uint32_t nlinks,
                     const char *out, const char *src, const char *inc, const char *log)
{
	static const char *const fixed[] = {
	    "-x", "cl",         "-Xclang", "-finclude-default-header",
	    "-c", "-emit-llvm", "-O2",     "-gline-tables-only",
	    "-I."};
	size_t olen = u->options ? strlen(u->options) : 0, elen = extra ? strlen(extra) : 0;
	/* room for every word of the options (one in two characters at
	 * most), and after them -cl-std, the links, -o, out, src, NULL */
	size_t tail = 6 + 4 * (size_t)nlinks;
	size_t max = 24 + (olen + 1) / 2 + (elen + 1) / 2 + tail;
	const char **argv = malloc(max * sizeof *argv);
	char *words = malloc(olen + 1), *ewords = malloc(elen + 1);
	char fplugin[4200], fmode[64], finc[4200];
	int status = -1;
	if (!argv || !words || !ewords)
		goto out;
	size_t n = 0;
	argv[n++] = cc;
	argv[n++] = "-target";
	argv[n++] = bits64 ? "spir64-unknown-unknown" : "spir-unknown-unknown";
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		argv[n++] = fixed[i];
	if (inc[0]) {
		snprintf(finc, sizeof finc, "-I%s", inc);
		argv[n++] = finc;
	}
	if (mode) {
		snprintf(fplugin, sizeof fplugin, "-fplugin=%s", plugin);
		snprintf(fmode, sizeof fmode, "-fplugin-arg-instrument-gpu=%s", mode);
		argv[n++] = fplugin;
		argv[n++] = fmode;
	} else {
		argv[n++] = "-Xclang";
		argv[n++] = "-disable-llvm-passes";
	}
	int has_std = 0, ehas = 0;
	n += pt_ocl_kprof_options(u->options, words, argv + n, max - tail - n, &has_std);
	n += pt_ocl_kprof_options(extra, ewords, argv + n, max - tail - n, &ehas);
	if (!has_std)
		argv[n++] = "-cl-std=CL1.2";
	for (uint32_t l = 0; l < nlinks; l++) {
		argv[n++] = "-Xclang";
		argv[n++] = "-mlink-bitcode-file";
		argv[n++] = "-Xclang";
		argv[n++] = links[l];
	}
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n++] = src;
	argv[n] = NULL;
	status = pt_kprof_run((char *const *)argv, log);
out:
	free(argv);
	free(words);
	free(ewords);
	return status;
}

/* Compiles units[0..n) (one program: clBuildProgram's source, or the
 * compiled sources a clLinkProgram joins) into one module of SPIR bitcode
 * (malloc'ed, *bclen bytes), or NULL with *why set. Each unit gets the
 * next number of program_seq (ocl-<n>.cl). src, log: the paths of the
 * source and compiler output to name in a warning (log "" when there is
 * none to keep). extra: clLinkProgram's options. *seq: unit 0's number. */
static void *compile(const kp_unit *units, uint32_t nunits, const char *extra, int bits64,
                     const char *mode, size_t *bclen, const char **why, char *src, char *log,
                     size_t pathlen, uint32_t *seq)
{
	char name[64], out[4096], plugin[4096], cc[4096], inc[4096];
	char **links = calloc(nunits, sizeof *links);
	void *bc = NULL;
	*seq = atomic_fetch_add(&program_seq, nunits) + 1;
	log[0] = 0;
	src[0] = 0;
	if (!links) {
		*why = "out of memory";
		return NULL;
	}
	/* the sources are kept whatever happens next (unit 0's named last) */
	for (uint32_t k = nunits; k-- > 0;)
		if (unit_files(&units[k], *seq + k, 1, src, inc, pathlen, why))
			goto done;
	if (plugin_path(plugin, sizeof plugin)) {
		*why = "instrument.so not found (set PARATRACE_PLUGIN)";
		goto done;
	}
	if (clang_path(cc, sizeof cc)) {
		*why = "clang not found (set PARATRACE_GPU_CLANG)";
		goto done;
	}
	/* the other units first, unoptimised; unit 0 with the plugin, the
	 * others linked into it */
	for (uint32_t k = nunits; k-- > 0;) {
		int last = k == 0;
		if (unit_files(&units[k], *seq + k, 0, src, inc, pathlen, why))
			goto done;
		snprintf(name, sizeof name, "ocl-%u.bc", *seq + k);
		if (pt_process_file_path(name, out, sizeof out) ||
		    (!last && !(links[k - 1] = strdup(out)))) {
			*why = "trace path too long";
			goto done;
		}
		snprintf(name, sizeof name, "ocl-%u.log", *seq + k);
		pt_process_file_path(name, log, pathlen);
		int status = run_clang(cc, plugin, bits64, &units[k], extra, last ? mode : NULL,
		                       links, last ? nunits - 1 : 0, out, src, inc, log);
		if (status != 0) {
			*why = status < 0 ? "clang could not be run" : "clang failed";
			unlink(out);
			goto done;
		}
		unlink(log); /* the compile succeeded: nothing worth keeping */
		log[0] = 0;
	}
	bc = read_file(out, bclen);
	unlink(out);
	if (!bc)
		*why = "clang failed";
done:
	for (uint32_t k = 0; k + 1 < nunits; k++) {
		if (links[k])
			unlink(links[k]);
		free(links[k]);
	}
	free(links);
	return bc;
}

/* Runs __paratrace_gpu_info on dev and parses what it returns. */
static int read_table(cl_context ctx, cl_device_id dev, cl_program prog, pt_kprof_table *t,
                      const char **why)
{
	REAL(clCreateCommandQueue);
	REAL(clCreateKernel);
	REAL(clCreateBuffer);
	REAL(clSetKernelArg);
	REAL(clEnqueueNDRangeKernel);
	REAL(clEnqueueReadBuffer);
	REAL(clReleaseMemObject);
	REAL(clReleaseKernel);
	REAL(clReleaseCommandQueue);
	cl_int e = CL_SUCCESS;
	cl_command_queue q = real_clCreateCommandQueue(ctx, dev, 0, &e);
	cl_kernel k = q ? real_clCreateKernel(prog, PT_GPU_INFO_KERNEL, &e) : NULL;
	int rc = -1;
	*why = "the instrumented program has no block table";
	cl_ulong cap = 1 << 16, len = 0;
	for (int attempt = 0; k && attempt < 2; attempt++) {
		cl_mem out = real_clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, cap, NULL, &e);
		cl_mem lenb = real_clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof len, NULL, &e);
		char *text = malloc(cap);
		size_t global = cap;
		if (out && lenb && text &&
		    real_clSetKernelArg(k, 0, sizeof out, &out) == CL_SUCCESS &&
		    real_clSetKernelArg(k, 1, sizeof lenb, &lenb) == CL_SUCCESS &&
		    real_clSetKernelArg(k, 2, sizeof cap, &cap) == CL_SUCCESS &&
		    real_clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) ==
		        CL_SUCCESS &&
		    real_clEnqueueReadBuffer(q, lenb, CL_TRUE, 0, sizeof len, &len, 0, NULL,
		                             NULL) == CL_SUCCESS &&
		    real_clEnqueueReadBuffer(q, out, CL_TRUE, 0, len < cap ? len : cap, text, 0,
		                             NULL, NULL) == CL_SUCCESS) {
			if (len <= cap) {
				rc = pt_kprof_parse(text, len, t, why);
				attempt = 2;
			} else {
				cap = (len + 63) / 64 * 64;
			}
		}
		free(text);
		if (out)
			real_clReleaseMemObject(out);
		if (lenb)
			real_clReleaseMemObject(lenb);
	}
	if (k)
		real_clReleaseKernel(k);
	if (q)
		real_clReleaseCommandQueue(q);
	return rc;
}

/* Twins of the kernels of `t` in the requested mode (blocks falls back to
 * entries for a kernel too large for block counters), each announced by
 * its GPU_PROF_DEF. */
static int make_twins(kp_program *kp, const pt_kprof_table *t, int mode)
{
	kp_twin *tw = calloc(t->nkernels ? t->nkernels : 1, sizeof *tw);
	if (!tw)
		return -1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->nkernels; i++) {
		const pt_kprof_kernel *k = &t->kernels[i];
		const pt_kprof_kernel *want =
		    pt_kprof_find(t, k->name, mode == PT_GPU_KERNELS_BLOCKS ? 'b' : 'e');
		if (!want)
			want = pt_kprof_find(t, k->name, 'e');
		if (want != k || !k->twin)
			continue;
		tw[n].name = strdup(k->name);
		tw[n].twin = strdup(k->twin);
		tw[n].nblocks = k->mode == 'b' ? k->nblocks : 0;
		if (!tw[n].name || !tw[n].twin ||
		    !(tw[n].prof = pt_kprof_define(PT_GPU_API_OPENCL, t, k, 0))) {
			free(tw[n].name);
			free(tw[n].twin);
			continue;
		}
		n++;
	}
	kp->twins = tw;
	kp->ntwins = n;
	return 0;
}

/* After the application's clBuildProgram or clLinkProgram of kp succeeded:
 * builds the instrumented program from the sources `units` (link_options:
 * clLinkProgram's). On failure kp stays as the application built it
 * (KP_FAILED). */
static void instrument_program(kp_program *kp, cl_uint ndev, const cl_device_id *devs,
                               const kp_unit *units, uint32_t nunits, const char *link_options,
                               int mode)
{
	REAL(clGetProgramInfo);
	REAL(clGetProgramBuildInfo);
	REAL(clGetDeviceInfo);
	REAL(clCreateProgramWithBinary);
	REAL(clBuildProgram);
	REAL(clReleaseProgram);
	kp->state = KP_FAILED;
	cl_context ctx = NULL;
	cl_device_id own[16];
	cl_uint nd = ndev;
	if (!devs) {
		if (real_clGetProgramInfo(kp->user, CL_PROGRAM_NUM_DEVICES, sizeof nd, &nd, NULL) !=
		        CL_SUCCESS ||
		    nd == 0 || nd > 16 ||
		    real_clGetProgramInfo(kp->user, CL_PROGRAM_DEVICES, nd * sizeof *own, own,
		                          NULL) != CL_SUCCESS)
			return;
		devs = own;
	}
	if (nd == 0 || nd > 16 ||
	    real_clGetProgramInfo(kp->user, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL) !=
	        CL_SUCCESS)
		return;
	cl_uint bits = 64;
	real_clGetDeviceInfo(devs[0], CL_DEVICE_ADDRESS_BITS, sizeof bits, &bits, NULL);
	uint32_t seq = 0;
	char src[4096], log[4096];
	const char *why = NULL;
	size_t len = 0;
	void *bc = compile(units, nunits, link_options, bits == 64,
	                   mode == PT_GPU_KERNELS_BLOCKS ? "blocks" : "entries", &len, &why, src,
	                   log, sizeof src, &seq);
	cl_program ours = NULL;
	pt_kprof_table table = {0};
	if (bc) {
		const size_t *lens = NULL;
		const unsigned char **bins = NULL;
		size_t lv[16];
		const unsigned char *bv[16];
		for (cl_uint i = 0; i < nd; i++) {
			lv[i] = len;
			bv[i] = bc;
		}
		lens = lv;
		bins = bv;
		cl_int e = CL_SUCCESS;
		ours = real_clCreateProgramWithBinary(ctx, nd, devs, lens, bins, NULL, &e);
		if (!ours || e != CL_SUCCESS) {
			why = "the device does not load SPIR bitcode (cl_khr_spir)";
			ours = NULL;
		} else if (real_clBuildProgram(ours, nd, devs, "-x spir -spir-std=1.2", NULL,
		                               NULL) != CL_SUCCESS) {
			why = "the device could not build the instrumented program";
			size_t blen = 0;
			char *blog = NULL;
			if (real_clGetProgramBuildInfo(ours, devs[0], CL_PROGRAM_BUILD_LOG, 0, NULL,
			                               &blen) == CL_SUCCESS &&
			    blen && (blog = malloc(blen)) &&
			    real_clGetProgramBuildInfo(ours, devs[0], CL_PROGRAM_BUILD_LOG, blen,
			                               blog, NULL) == CL_SUCCESS) {
				char name[64];
				snprintf(name, sizeof name, "ocl-%u.log", seq);
				if (pt_process_file_path(name, log, sizeof log) == 0)
					write_file(log, blog, strnlen(blog, blen));
			}
			free(blog);
		} else if (read_table(ctx, devs[0], ours, &table, &why) == 0 &&
		           make_twins(kp, &table, mode) == 0) {
			kp->ours = ours;
			kp->state = KP_INSTRUMENTED;
			pt_debug(1, "OpenCL program %u instrumented (%s): %u kernels", seq, src,
			         kp->ntwins);
		}
		free(bc);
	}
	pt_kprof_table_free(&table);
	if (kp->state != KP_INSTRUMENTED) {
		if (ours)
			real_clReleaseProgram(ours);
		char what[8300];
		snprintf(what, sizeof what, "%s%s%s", src, log[0] ? ", compiler output in " : "",
		         log);
		warn_once(
		    "cannot instrument the kernels of an OpenCL program (%s; source %s): they run "
		    "uninstrumented",
		    why ? why : "unknown error", what);
	}
}

/* ---- the application's calls ------------------------------------------------ */

static void unit_free(kp_unit *u)
{
	for (uint32_t h = 0; u && h < u->nheaders; h++) {
		free(u->headers[h].name);
		free(u->headers[h].text);
	}
	if (u) {
		free(u->headers);
		free(u->source);
		free(u->options);
	}
}

static char *copy_bytes(const char *p, size_t len)
{
	char *c = malloc(len + 1);
	if (c) {
		memcpy(c, p, len);
		c[len] = 0;
	}
	return c;
}

/* *to = a copy of `from` (0), or nothing allocated (-1). */
static int unit_copy(kp_unit *to, const kp_unit *from)
{
	memset(to, 0, sizeof *to);
	to->len = from->len;
	to->source = copy_bytes(from->source, from->len);
	to->options = from->options ? strdup(from->options) : NULL;
	to->headers = from->nheaders ? calloc(from->nheaders, sizeof *to->headers) : NULL;
	int ok = to->source && (to->options || !from->options) && (to->headers || !from->nheaders);
	for (uint32_t h = 0; ok && h < from->nheaders; h++) {
		kp_header *d = &to->headers[h];
		const kp_header *f = &from->headers[h];
		d->len = f->len;
		d->name = strdup(f->name);
		d->text = copy_bytes(f->text, f->len);
		ok = d->name && d->text;
	}
	if (to->headers)
		to->nheaders = from->nheaders;
	if (!ok) {
		unit_free(to);
		memset(to, 0, sizeof *to);
	}
	return ok ? 0 : -1;
}

static void program_add(kp_program *kp)
{
	pt_spin_lock(&kp_lock);
	kp->next = programs;
	programs = kp;
	pt_spin_unlock(&kp_lock);
}

PT_EXPORT cl_program clCreateProgramWithSource(cl_context ctx, cl_uint count, const char **strings,
                                               const size_t *lengths, cl_int *errcode_ret)
{
	REAL(clCreateProgramWithSource);
	if (!real_clCreateProgramWithSource) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_CONTEXT;
		return NULL;
	}
	cl_program p = real_clCreateProgramWithSource(ctx, count, strings, lengths, errcode_ret);
	if (!p || !kp_mode())
		return p;
	int saved = errno;
	pt_thread *t = pt_enter();
	/* The source as the implementation sees it: each string up to its
	 * length, or to its NUL when the length is 0 or not given. */
	size_t total = 0;
	for (cl_uint i = 0; i < count; i++)
		total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
	kp_program *kp = calloc(1, sizeof *kp);
	char *src = malloc(total + 1);
	if (kp && src) {
		size_t off = 0;
		for (cl_uint i = 0; i < count; i++) {
			size_t l = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
			memcpy(src + off, strings[i], l);
			off += l;
		}
		src[total] = 0;
		kp->user = p;
		kp->source = src;
		kp->len = total;
		kp->state = KP_SOURCE;
		program_add(kp);
	} else {
		free(kp);
		free(src);
	}
	if (t)
		pt_leave(t);
	errno = saved;
	return p;
}

/* A binary may be SPIR bitcode compiled offline with instrument.so: it then
 * holds the twins and __paratrace_gpu_info itself (found at its build). */
PT_EXPORT cl_program clCreateProgramWithBinary(cl_context ctx, cl_uint ndev,
                                               const cl_device_id *devs, const size_t *lengths,
                                               const unsigned char **binaries, cl_int *status,
                                               cl_int *errcode_ret)
{
	REAL(clCreateProgramWithBinary);
	if (!real_clCreateProgramWithBinary) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_CONTEXT;
		return NULL;
	}
	cl_program p =
	    real_clCreateProgramWithBinary(ctx, ndev, devs, lengths, binaries, status, errcode_ret);
	if (!p || !kp_mode())
		return p;
	int saved = errno;
	kp_program *kp = calloc(1, sizeof *kp);
	if (kp) {
		kp->user = p;
		kp->state = KP_BINARY;
		program_add(kp);
	}
	errno = saved;
	return p;
}

/* After the application built a binary: is it one instrument.so compiled? */
static void adopt_binary(kp_program *kp, int mode)
{
	REAL(clGetProgramInfo);
	kp->state = KP_FAILED;
	char *names = NULL;
	size_t len = 0;
	cl_context ctx = NULL;
	cl_device_id devs[16];
	cl_uint nd = 0;
	if (real_clGetProgramInfo(kp->user, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &len) != CL_SUCCESS ||
	    !len || !(names = malloc(len)) ||
	    real_clGetProgramInfo(kp->user, CL_PROGRAM_KERNEL_NAMES, len, names, NULL) !=
	        CL_SUCCESS ||
	    real_clGetProgramInfo(kp->user, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL) !=
	        CL_SUCCESS ||
	    real_clGetProgramInfo(kp->user, CL_PROGRAM_NUM_DEVICES, sizeof nd, &nd, NULL) !=
	        CL_SUCCESS ||
	    nd == 0 || nd > 16 ||
	    real_clGetProgramInfo(kp->user, CL_PROGRAM_DEVICES, nd * sizeof *devs, devs, NULL) !=
	        CL_SUCCESS) {
		free(names);
		return;
	}
	int has_info = 0;
	char *save = NULL;
	for (char *n = strtok_r(names, ";", &save); n; n = strtok_r(NULL, ";", &save))
		has_info |= !strcmp(n, PT_GPU_INFO_KERNEL);
	free(names);
	if (!has_info)
		return;
	pt_kprof_table table = {0};
	const char *why = NULL;
	if (read_table(ctx, devs[0], kp->user, &table, &why) == 0 &&
	    make_twins(kp, &table, mode) == 0) {
		kp->ours = kp->user;
		kp->state = KP_INSTRUMENTED;
		pt_debug(1, "OpenCL binary compiled with instrument.so: %u kernels", kp->ntwins);
	} else {
		warn_once("cannot read the kernels' table of an OpenCL binary compiled with "
		          "instrument.so (%s%s): they run uninstrumented",
		          why ? why : "unknown error", "");
	}
	pt_kprof_table_free(&table);
}

PT_EXPORT cl_int clBuildProgram(cl_program program, cl_uint ndev, const cl_device_id *devs,
                                const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                                void *user_data)
{
	REAL(clBuildProgram);
	REAL(clReleaseProgram);
	if (!real_clBuildProgram)
		return CL_INVALID_PROGRAM;
	cl_int err = real_clBuildProgram(program, ndev, devs, options, notify, user_data);
	int mode = kp_mode();
	if (err != CL_SUCCESS || !mode)
		return err;
	kp_program *kp = program_find(program);
	if (!kp || (!kp->source && kp->state != KP_BINARY && kp->ours != kp->user))
		return err;
	int saved = errno;
	pt_thread *t = pt_enter();
	/* A rebuild (new options) replaces the previous instrumented build;
	 * kernels made from that one keep it alive as long as they need it
	 * (and its twins' descriptions stay). */
	if (kp->state == KP_INSTRUMENTED && kp->ours && kp->ours != kp->user)
		real_clReleaseProgram(kp->ours);
	kp->ours = NULL;
	if (kp->source) {
		kp_unit u = {kp->source, kp->len, (char *)options, NULL, 0};
		instrument_program(kp, ndev, devs, &u, 1, NULL, mode);
	} else {
		adopt_binary(kp, mode);
	}
	if (t)
		pt_leave(t);
	errno = saved;
	return err;
}

/* An include name the compile of a unit can use as a path below its own
 * folder: relative, never climbing out. */
static int header_name_ok(const char *n)
{
	if (!n || !*n || *n == '/')
		return 0;
	for (const char *p = n; p; p = strchr(p, '/'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return 0;
	return 1;
}

/* The unit clCompileProgram compiled: kp's source with options and the
 * headers (each a program made from source); NULL with *why set when a
 * header is not known or its name is unusable. */
static kp_unit *compiled_unit(const kp_program *kp, const char *options, cl_uint nheaders,
                              const cl_program *headers, const char **names, const char **why)
{
	kp_unit from = {kp->source, kp->len, (char *)options, NULL, 0};
	kp_header *hs = nheaders ? calloc(nheaders, sizeof *hs) : NULL;
	kp_unit *u = malloc(sizeof *u);
	*why = "out of memory";
	if (!u || (nheaders && !hs)) {
		free(hs);
		free(u);
		return NULL;
	}
	for (cl_uint h = 0; h < nheaders; h++) {
		const kp_program *hk = program_find(headers[h]);
		if (!hk || !hk->source || !header_name_ok(names ? names[h] : NULL)) {
			*why =
			    "a header given to clCompileProgram was not made from source, or its "
			    "include name leaves the folder";
			free(hs);
			free(u);
			return NULL;
		}
		hs[h] = (kp_header){(char *)names[h], hk->source, hk->len};
	}
	from.headers = hs;
	from.nheaders = nheaders;
	int r = unit_copy(u, &from);
	free(hs);
	if (r) {
		free(u);
		return NULL;
	}
	return u;
}

/* Separate compilation: remembers what was compiled (the source, options
 * and headers); clLinkProgram compiles it again with instrument.so. */
PT_EXPORT cl_int clCompileProgram(cl_program program, cl_uint ndev, const cl_device_id *devs,
                                  const char *options, cl_uint nheaders, const cl_program *headers,
                                  const char **names, void(CL_CALLBACK *notify)(cl_program, void *),
                                  void *user_data)
{
	REAL(clCompileProgram);
	if (!real_clCompileProgram)
		return CL_INVALID_PROGRAM;
	cl_int err = real_clCompileProgram(program, ndev, devs, options, nheaders, headers, names,
	                                   notify, user_data);
	kp_program *kp = err == CL_SUCCESS && kp_mode() ? program_find(program) : NULL;
	if (!kp || !kp->source)
		return err;
	int saved = errno;
	pt_thread *t = pt_enter();
	const char *why = NULL;
	kp_unit *u = compiled_unit(kp, options, nheaders, headers, names, &why);
	if (!u)
		pt_debug(1, "OpenCL compile not remembered for linking: %s", why);
	pt_spin_lock(&kp_lock);
	kp_unit *old = kp->compiled;
	kp->compiled = u;
	pt_spin_unlock(&kp_lock);
	unit_free(old);
	free(old);
	if (t)
		pt_leave(t);
	errno = saved;
	return err;
}

/* Appends copies of the units of input program p to *units; -1 with *why
 * set when p's sources are not known. */
static int add_units(cl_program p, kp_unit **units, uint32_t *n, const char **why)
{
	kp_program *kp = program_find(p);
	int rc = -1;
	*why = "an input of clLinkProgram was not compiled from source at run time";
	pt_spin_lock(&kp_lock);
	const kp_unit *from = NULL;
	uint32_t count = 0;
	if (kp && kp->compiled) {
		from = kp->compiled;
		count = 1;
	} else if (kp && kp->state == KP_LIBRARY) {
		from = kp->units;
		count = kp->nunits;
		if (kp->why)
			*why = kp->why;
	}
	kp_unit *more = from ? realloc(*units, (*n + count + 1) * sizeof **units) : NULL;
	if (more) {
		*units = more;
		rc = 0;
		for (uint32_t i = 0; i < count && !rc; i++) {
			rc = unit_copy(&more[*n], &from[i]);
			*n += !rc;
		}
		if (rc)
			*why = "out of memory";
	}
	pt_spin_unlock(&kp_lock);
	return rc;
}

/* The link's executable (or library) gets the units of its inputs: an
 * executable is instrumented from them at once, as clBuildProgram's source
 * is; a library keeps them for the link that uses it. */
PT_EXPORT cl_program clLinkProgram(cl_context ctx, cl_uint ndev, const cl_device_id *devs,
                                   const char *options, cl_uint ninputs, const cl_program *inputs,
                                   void(CL_CALLBACK *notify)(cl_program, void *), void *user_data,
                                   cl_int *errcode_ret)
{
	REAL(clLinkProgram);
	if (!real_clLinkProgram) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_OPERATION;
		return NULL;
	}
	cl_int err = CL_SUCCESS;
	cl_program p =
	    real_clLinkProgram(ctx, ndev, devs, options, ninputs, inputs, notify, user_data, &err);
	if (errcode_ret)
		*errcode_ret = err;
	int mode = kp_mode();
	if (!p || err != CL_SUCCESS || !mode)
		return p;
	int saved = errno;
	pt_thread *t = pt_enter();
	kp_program *kp = calloc(1, sizeof *kp);
	kp_unit *units = NULL;
	uint32_t n = 0;
	const char *why = NULL;
	for (cl_uint i = 0; i < ninputs && !why; i++)
		if (add_units(inputs[i], &units, &n, &why) == 0)
			why = NULL;
	int library = 0;
	for (const char *o = options ? strstr(options, "-create-library") : NULL; o;
	     o = strstr(o + 1, "-create-library"))
		library |= (o == options || o[-1] == ' ' || o[-1] == '\t') &&
		           (!o[15] || o[15] == ' ' || o[15] == '\t' || o[15] == '\n');
	if (kp) {
		kp->user = p;
		if (library) {
			kp->state = KP_LIBRARY;
			kp->units = units;
			kp->nunits = n;
			kp->why = why;
			units = NULL;
			n = 0;
		} else if (why) {
			kp->state = KP_FAILED;
			warn_once(
			    "cannot instrument the kernels of a linked OpenCL program (%s%s): they "
			    "run uninstrumented",
			    why, "");
		} else {
			instrument_program(kp, ndev, devs, units, n, options, mode);
		}
		program_add(kp);
	}
	for (uint32_t i = 0; i < n; i++)
		unit_free(&units[i]);
	free(units);
	if (t)
		pt_leave(t);
	errno = saved;
	return p;
}

static const kp_twin *twin_of(const kp_program *kp, const char *name)
{
	if (!kp || kp->state != KP_INSTRUMENTED || !name)
		return NULL;
	for (uint32_t i = 0; i < kp->ntwins; i++)
		if (!strcmp(kp->twins[i].name, name))
			return &kp->twins[i];
	return NULL;
}

static const uint64_t zeros[PT_GPU_PROF_HEADER_WORDS + PT_GPU_MAX_BLOCKS];

static size_t prof_bytes(const kp_twin *tw)
{
	return pt_kprof_words(tw->nblocks) * sizeof(uint64_t);
}

/* Between launches (and for launches that do not come through
 * clEnqueueNDRangeKernel here) the twin writes into a buffer of its own
 * and counts no blocks (0 scratch items). */
static void set_default_args(kp_kernel *e)
{
	REAL(clSetKernelArg);
	cl_uint idx = e->user_args;
	real_clSetKernelArg(e->k, idx, sizeof e->dummy, &e->dummy);
	if (e->twin->nblocks) {
		cl_uint zero = 0;
		real_clSetKernelArg(e->k, idx + 1, sizeof(cl_uint), NULL);
		real_clSetKernelArg(e->k, idx + 2, sizeof zero, &zero);
	}
}

/* Makes the twin of kp's kernel `tw`; NULL if that fails. */
static cl_kernel make_twin_kernel(kp_program *kp, const kp_twin *tw)
{
	REAL(clCreateKernel);
	REAL(clGetKernelInfo);
	REAL(clCreateBuffer);
	REAL(clReleaseKernel);
	cl_int e = CL_SUCCESS;
	cl_kernel k = real_clCreateKernel(kp->ours, tw->twin, &e);
	kp_kernel *ke = k ? calloc(1, sizeof *ke) : NULL;
	cl_uint nargs = 0;
	if (ke &&
	    real_clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL) == CL_SUCCESS &&
	    real_clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof ke->ctx, &ke->ctx, NULL) ==
	        CL_SUCCESS &&
	    nargs >= (tw->nblocks ? 3u : 1u)) {
		ke->k = k;
		ke->twin = tw;
		ke->user = kp->user;
		ke->user_args = nargs - (tw->nblocks ? 3 : 1);
		ke->dummy =
		    real_clCreateBuffer(ke->ctx, CL_MEM_READ_WRITE, prof_bytes(tw), NULL, &e);
		if (ke->dummy) {
			set_default_args(ke);
			pt_spin_lock(&kp_lock);
			ke->next = kernels;
			kernels = ke;
			pt_spin_unlock(&kp_lock);
			atomic_store(&any_kernels, 1);
			return k;
		}
	}
	free(ke);
	if (k)
		real_clReleaseKernel(k);
	return NULL;
}

PT_EXPORT cl_kernel clCreateKernel(cl_program program, const char *name, cl_int *errcode_ret)
{
	REAL(clCreateKernel);
	if (!real_clCreateKernel) {
		if (errcode_ret)
			*errcode_ret = CL_INVALID_PROGRAM;
		return NULL;
	}
	kp_program *kp = kp_mode() ? program_find(program) : NULL;
	const kp_twin *tw = twin_of(kp, name);
	if (!tw)
		return real_clCreateKernel(program, name, errcode_ret);
	int saved = errno;
	pt_thread *t = pt_enter();
	cl_kernel k = make_twin_kernel(kp, tw);
	if (t)
		pt_leave(t);
	errno = saved;
	if (!k)
		return real_clCreateKernel(program, name, errcode_ret);
	if (errcode_ret)
		*errcode_ret = CL_SUCCESS;
	return k;
}

PT_EXPORT cl_int clCreateKernelsInProgram(cl_program program, cl_uint num, cl_kernel *out,
                                          cl_uint *num_ret)
{
	REAL(clCreateKernelsInProgram);
	REAL(clGetKernelInfo);
	REAL(clReleaseKernel);
	if (!real_clCreateKernelsInProgram)
		return CL_INVALID_PROGRAM;
	cl_int err = real_clCreateKernelsInProgram(program, num, out, num_ret);
	kp_program *kp = err == CL_SUCCESS && out && kp_mode() ? program_find(program) : NULL;
	if (!kp || kp->state != KP_INSTRUMENTED)
		return err;
	cl_uint n = num;
	if (num_ret && *num_ret < n)
		n = *num_ret;
	int saved = errno;
	pt_thread *t = pt_enter();
	for (cl_uint i = 0; i < n; i++) {
		char name[256];
		const kp_twin *tw = NULL;
		if (real_clGetKernelInfo(out[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name,
		                         NULL) == CL_SUCCESS)
			tw = twin_of(kp, name);
		cl_kernel k = tw ? make_twin_kernel(kp, tw) : NULL;
		if (k) {
			real_clReleaseKernel(out[i]);
			out[i] = k;
		}
	}
	if (t)
		pt_leave(t);
	errno = saved;
	return err;
}

PT_EXPORT cl_int clGetKernelInfo(cl_kernel kernel, cl_kernel_info param, size_t size, void *value,
                                 size_t *size_ret)
{
	REAL(clGetKernelInfo);
	if (!real_clGetKernelInfo)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kernel_find(kernel);
	if (e) {
		switch (param) {
		case CL_KERNEL_FUNCTION_NAME:
			return pt_ocl_info_answer(e->twin->name, strlen(e->twin->name) + 1, size,
			                          value, size_ret);
		case CL_KERNEL_NUM_ARGS:
			return pt_ocl_info_answer(&e->user_args, sizeof e->user_args, size, value,
			                          size_ret);
		case CL_KERNEL_PROGRAM:
			return pt_ocl_info_answer(&e->user, sizeof e->user, size, value, size_ret);
		default:
			break;
		}
	}
	return real_clGetKernelInfo(kernel, param, size, value, size_ret);
}

PT_EXPORT cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value)
{
	REAL(clSetKernelArg);
	if (!real_clSetKernelArg)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kernel_find(kernel);
	if (e && index >= e->user_args)
		return CL_INVALID_ARG_INDEX;
	return real_clSetKernelArg(kernel, index, size, value);
}

PT_EXPORT cl_int clGetKernelArgInfo(cl_kernel kernel, cl_uint index, cl_kernel_arg_info param,
                                    size_t size, void *value, size_t *size_ret)
{
	REAL(clGetKernelArgInfo);
	if (!real_clGetKernelArgInfo)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kernel_find(kernel);
	if (e && index >= e->user_args)
		return CL_INVALID_ARG_INDEX;
	return real_clGetKernelArgInfo(kernel, index, param, size, value, size_ret);
}

PT_EXPORT cl_int clReleaseKernel(cl_kernel kernel)
{
	REAL(clReleaseKernel);
	REAL(clReleaseMemObject);
	if (!real_clReleaseKernel)
		return CL_INVALID_KERNEL;
	kp_kernel *e = kernel_find(kernel);
	cl_uint refs = 0;
	REAL(clGetKernelInfo);
	if (e &&
	    real_clGetKernelInfo(kernel, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
	        CL_SUCCESS &&
	    refs == 1) {
		pt_spin_lock(&kp_lock);
		for (kp_kernel **pp = &kernels; *pp; pp = &(*pp)->next)
			if (*pp == e) {
				*pp = e->next;
				break;
			}
		pt_spin_unlock(&kp_lock);
	} else {
		e = NULL;
	}
	cl_int err = real_clReleaseKernel(kernel);
	if (e) {
		int saved = errno;
		pt_thread *t = pt_enter();
		real_clReleaseMemObject(e->dummy);
		if (t)
			pt_leave(t);
		errno = saved;
		free(e);
	}
	return err;
}

PT_EXPORT cl_int clReleaseProgram(cl_program program)
{
	REAL(clReleaseProgram);
	REAL(clGetProgramInfo);
	if (!real_clReleaseProgram)
		return CL_INVALID_PROGRAM;
	kp_program *kp = programs ? program_find(program) : NULL;
	cl_uint refs = 0;
	if (kp &&
	    real_clGetProgramInfo(program, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs, NULL) ==
	        CL_SUCCESS &&
	    refs == 1) {
		/* Kernels made from our build hold references of their own. */
		pt_spin_lock(&kp_lock);
		cl_program ours = kp->ours != kp->user ? kp->ours : NULL;
		kp->ours = NULL;
		kp->state = KP_DEAD;
		free(kp->source);
		kp->source = NULL;
		kp_unit *compiled = kp->compiled, *units = kp->units;
		uint32_t nunits = kp->nunits;
		kp->compiled = kp->units = NULL;
		kp->nunits = 0;
		pt_spin_unlock(&kp_lock);
		unit_free(compiled);
		free(compiled);
		for (uint32_t i = 0; i < nunits; i++)
			unit_free(&units[i]);
		free(units);
		if (ours) {
			int saved = errno;
			pt_thread *t = pt_enter();
			real_clReleaseProgram(ours);
			if (t)
				pt_leave(t);
			errno = saved;
		}
	}
	return real_clReleaseProgram(program);
}

/* ---- launches (from opencl.c) ------------------------------------------------ */

struct pt_ocl_kprof_launch {
	kp_kernel *e;
	uint32_t prof, nblocks;
	cl_mem buf;
	uint64_t *host;
	pt_gpu_stream *stream;
	uint64_t correlation;
};

const char *pt_ocl_kprof_name(cl_kernel kernel)
{
	kp_kernel *e = kernel_find(kernel);
	return e ? e->twin->name : NULL;
}

pt_ocl_kprof_launch *pt_ocl_kprof_begin(cl_kernel kernel, cl_command_queue queue, cl_uint work_dim,
                                        const size_t *local_size)
{
	REAL(clCreateBuffer);
	REAL(clSetKernelArg);
	REAL(clGetCommandQueueInfo);
	REAL(clGetDeviceInfo);
	REAL(clGetKernelWorkGroupInfo);
	REAL(clReleaseMemObject);
	kp_kernel *e = kernel_find(kernel);
	if (!e)
		return NULL;
	const kp_twin *tw = e->twin;
	pt_ocl_kprof_launch *l = calloc(1, sizeof *l);
	size_t bytes = prof_bytes(tw);
	if (l)
		l->host = malloc(bytes);
	cl_int err = CL_SUCCESS;
	if (l && l->host)
		l->buf = real_clCreateBuffer(e->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
		                             bytes, (void *)zeros, &err);
	if (!l || !l->host || !l->buf ||
	    real_clSetKernelArg(kernel, e->user_args, sizeof l->buf, &l->buf) != CL_SUCCESS) {
		if (l && l->buf)
			real_clReleaseMemObject(l->buf);
		if (l)
			free(l->host);
		free(l);
		return NULL;
	}
	l->e = e;
	l->prof = tw->prof;
	l->nblocks = tw->nblocks;
	if (tw->nblocks) {
		/* One 32-bit count per block and work-item of a group, in local
		 * memory; as many work-items as fit beside what the kernel
		 * uses itself (the group size when the application gives it,
		 * else the kernel's largest). */
		cl_device_id dev = NULL;
		size_t items = 1, max_wg = 0;
		cl_ulong dev_local = 0, used = 0;
		real_clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
		real_clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev_local, &dev_local,
		                     NULL);
		real_clSetKernelArg(kernel, e->user_args + 1, sizeof(cl_uint), NULL);
		real_clGetKernelWorkGroupInfo(kernel, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used,
		                              &used, NULL);
		if (local_size)
			for (cl_uint d = 0; d < work_dim; d++)
				items *= local_size[d];
		else if (real_clGetKernelWorkGroupInfo(kernel, dev, CL_KERNEL_WORK_GROUP_SIZE,
		                                       sizeof max_wg, &max_wg, NULL) == CL_SUCCESS)
			items = max_wg;
		size_t per_item = (size_t)tw->nblocks * sizeof(cl_uint);
		size_t room =
		    dev_local > used + 64 ? (size_t)(dev_local - used - 64) / per_item : 0;
		if (items > room)
			items = room;
		if (items > UINT32_MAX / 2)
			items = UINT32_MAX / 2;
		cl_uint n = (cl_uint)items;
		real_clSetKernelArg(kernel, e->user_args + 1,
		                    items ? items * per_item : sizeof(cl_uint), NULL);
		real_clSetKernelArg(kernel, e->user_args + 2, sizeof n, &n);
	}
	return l;
}

static void CL_CALLBACK read_done(cl_event ev, cl_int status, void *data)
{
	REAL(clReleaseMemObject);
	REAL(clReleaseEvent);
	pt_ocl_kprof_launch *l = data;
	pt_thread *self = pt_enter();
	if (status == CL_COMPLETE && l->stream)
		pt_kprof_emit(l->stream, PT_GPU_API_OPENCL, pt_now(), l->correlation, l->prof,
		              l->nblocks, 0, l->host);
	real_clReleaseMemObject(l->buf);
	real_clReleaseEvent(ev);
	free(l->host);
	free(l);
	atomic_fetch_sub(&kp_pending, 1);
	if (self)
		pt_leave(self);
}

void pt_ocl_kprof_end(pt_ocl_kprof_launch *l, cl_int err, cl_command_queue queue, cl_event ev,
                      pt_gpu_stream *stream, uint64_t correlation)
{
	REAL(clEnqueueReadBuffer);
	REAL(clSetEventCallback);
	REAL(clReleaseMemObject);
	REAL(clReleaseEvent);
	set_default_args(l->e);
	l->e = NULL; /* the application may release the kernel before the read completes */
	l->stream = stream;
	l->correlation = correlation;
	cl_event rev = NULL;
	if (err == CL_SUCCESS && ev &&
	    real_clEnqueueReadBuffer(queue, l->buf, CL_FALSE, 0,
	                             pt_kprof_words(l->nblocks) * sizeof(uint64_t), l->host, 1, &ev,
	                             &rev) == CL_SUCCESS) {
		atomic_fetch_add(&kp_pending, 1);
		if (real_clSetEventCallback(rev, CL_COMPLETE, read_done, l) == CL_SUCCESS)
			return;
		atomic_fetch_sub(&kp_pending, 1);
		/* No callback: this profile is lost; the read still writes
		 * into l->host, so wait for it before freeing. */
		REAL(clWaitForEvents);
		real_clWaitForEvents(1, &rev);
		real_clReleaseEvent(rev);
	}
	real_clReleaseMemObject(l->buf);
	free(l->host);
	free(l);
}

/* ---- lifecycle ---------------------------------------------------------------- */

static void kprof_shutdown(int in_signal)
{
	if (!in_signal)
		pt_gpu_drain(
		    &kp_pending,
		    "OpenCL kernel profiles had not been read back at exit; they are missing");
}

static void kprof_fork_child(void)
{
	/* The parent's programs and kernels are not the child's to use. */
	pt_spin_reset(&kp_lock);
	programs = NULL;
	kernels = NULL;
	atomic_store(&any_kernels, 0);
	atomic_store(&kp_pending, 0);
}

PT_SUBSYSTEM(opencl_kernels_part) = {
    .name = "opencl-kernels",
    .order = PT_ORDER_GPU_API,
    .fork_child = kprof_fork_child,
    .shutdown = kprof_shutdown,
};

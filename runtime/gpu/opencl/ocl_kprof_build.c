/* SPDX-License-Identifier: MIT */
/* OpenCL kernel profiling: the program rebuilt from its source with
 * instrument.so, loaded as SPIR, and its table of instrumented kernels. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "ocl_kprof_int.h"

/* The numbers of the rebuilt programs (ocl-<n>.cl), and the one warning
 * of kernel profiling: here, at the bottom of the kernel profiling files
 * (ocl_kprof.c calls down into this one, never the other way). */
_Atomic uint32_t kp_program_seq;

void kp_warn_once(const char *fmt, const char *a, const char *b)
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
	const char *env = pt_config_get()->plugin;
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
	const char *c = pt_config_get()->gpu_clang;
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
 * next number of kp_program_seq (ocl-<n>.cl). src, log: the paths of the
 * source and compiler output to name in a warning (log "" when there is
 * none to keep). extra: clLinkProgram's options. *seq: unit 0's number. */
void *kp_compile(const kp_unit *units, uint32_t nunits, const char *extra, int bits64,
                 const char *mode, size_t *bclen, const char **why, char *src, char *log,
                 size_t pathlen, uint32_t *seq)
{
	char name[64], out[4096], plugin[4096], cc[4096], inc[4096];
	char **links = calloc(nunits, sizeof *links);
	void *bc = NULL;
	*seq = atomic_fetch_add(&kp_program_seq, nunits) + 1;
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
int kp_read_table(cl_context ctx, cl_device_id dev, cl_program prog, pt_kprof_table *t,
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
int kp_make_twins(kp_program *kp, const pt_kprof_table *t, int mode)
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
void kp_instrument_program(kp_program *kp, cl_uint ndev, const cl_device_id *devs,
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
	void *bc = kp_compile(units, nunits, link_options, bits == 64,
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
		} else if (kp_read_table(ctx, devs[0], ours, &table, &why) == 0 &&
		           kp_make_twins(kp, &table, mode) == 0) {
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
		kp_warn_once(
		    "cannot instrument the kernels of an OpenCL program (%s; source %s): they run "
		    "uninstrumented",
		    why ? why : "unknown error", what);
	}
}

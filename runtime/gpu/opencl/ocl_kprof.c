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
#include "ocl_kprof_int.h"

/* ---- bookkeeping ----------------------------------------------------------- */

pt_spin kp_lock;
kp_program *kp_programs;
kp_kernel *kp_kernels;
_Atomic int kp_any_kernels; /* a twin was ever handed out */
_Atomic long kp_pending;    /* read-backs whose callback has not run */

int kp_mode(void)
{
	const pt_config *c = pt_config_get();
	return c && c->gpu && pt_tracing() ? c->gpu_kernels : PT_GPU_KERNELS_OFF;
}

kp_program *kp_program_find(cl_program p)
{
	kp_program *e;
	pt_spin_lock(&kp_lock);
	for (e = kp_programs; e; e = e->next)
		if (e->user == p && e->state != KP_DEAD)
			break;
	pt_spin_unlock(&kp_lock);
	return e;
}

kp_kernel *kp_kernel_find(cl_kernel k)
{
	if (!atomic_load_explicit(&kp_any_kernels, memory_order_relaxed))
		return NULL;
	kp_kernel *e;
	pt_spin_lock(&kp_lock);
	for (e = kp_kernels; e; e = e->next)
		if (e->k == k)
			break;
	pt_spin_unlock(&kp_lock);
	return e;
}

/* ---- the application's calls ------------------------------------------------ */

void kp_unit_free(kp_unit *u)
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
		kp_unit_free(to);
		memset(to, 0, sizeof *to);
	}
	return ok ? 0 : -1;
}

static void program_add(kp_program *kp)
{
	pt_spin_lock(&kp_lock);
	kp->next = kp_programs;
	kp_programs = kp;
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
	if (kp_read_table(ctx, devs[0], kp->user, &table, &why) == 0 &&
	    kp_make_twins(kp, &table, mode) == 0) {
		kp->ours = kp->user;
		kp->state = KP_INSTRUMENTED;
		pt_debug(1, "OpenCL binary compiled with instrument.so: %u kernels", kp->ntwins);
	} else {
		kp_warn_once("cannot read the kernels' table of an OpenCL binary compiled with "
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
	kp_program *kp = kp_program_find(program);
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
		kp_instrument_program(kp, ndev, devs, &u, 1, NULL, mode);
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
		const kp_program *hk = kp_program_find(headers[h]);
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
	kp_program *kp = err == CL_SUCCESS && kp_mode() ? kp_program_find(program) : NULL;
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
	kp_unit_free(old);
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
	kp_program *kp = kp_program_find(p);
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
			kp_warn_once(
			    "cannot instrument the kernels of a linked OpenCL program (%s%s): they "
			    "run uninstrumented",
			    why, "");
		} else {
			kp_instrument_program(kp, ndev, devs, units, n, options, mode);
		}
		program_add(kp);
	}
	for (uint32_t i = 0; i < n; i++)
		kp_unit_free(&units[i]);
	free(units);
	if (t)
		pt_leave(t);
	errno = saved;
	return p;
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
	kp_programs = NULL;
	kp_kernels = NULL;
	atomic_store(&kp_any_kernels, 0);
	atomic_store(&kp_pending, 0);
}

PT_SUBSYSTEM(opencl_kernels_part) = {
    .name = "opencl-kernels",
    .order = PT_ORDER_GPU_API,
    .fork_child = kprof_fork_child,
    .shutdown = kprof_shutdown,
};

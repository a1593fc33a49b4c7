/* SPDX-License-Identifier: MIT */
/* dlopen / dlmopen / dlclose: after each, the module map is resynchronised
 * (MODULE_MAP / MODULE_UNMAP records with path, load address and build id,
 * written by the core's pt_modules_sync). Instrumented modules register
 * their functions themselves, from their constructors, during the real
 * dlopen.
 *
 * The catch: glibc resolves a dlopen'ed name with the *calling object's*
 * DT_RPATH / DT_RUNPATH (and $ORIGIN, and namespace), and it identifies the
 * caller by dlopen's return address. Forwarding from this wrapper would make
 * libtrace.so the caller, so a library that dlopens a sibling through
 * RUNPATH=$ORIGIN would no longer find it (uftrace's known bug). The
 * wrapper therefore does that part of the lookup for the real caller:
 *  - a name with a '/' and without a dynamic string token needs no caller;
 *  - $ORIGIN / ${ORIGIN} in the name is expanded to the caller's folder;
 *  - a bare name already loaded (by path or soname) is passed as is (glibc
 *    matches loaded objects before any search);
 *  - a bare name is searched, in glibc's order, through the caller's
 *    DT_RPATH (when it has no DT_RUNPATH), LD_LIBRARY_PATH and the caller's
 *    DT_RUNPATH, with $ORIGIN expanded; the first existing ELF file of this
 *    machine's class is passed by full path;
 *  - otherwise the name goes to glibc unchanged (ld.so.cache, default
 *    folders, the executable's DT_RPATH: the same for every caller);
 *  - a caller in another link-map namespace gets its dlmopen namespace.
 * What is not reproduced: the DT_RPATH of the caller's own loaders (only
 * consulted when the caller has DT_RPATH and not DT_RUNPATH) and the
 * $LIB/$PLATFORM tokens in the caller's paths (such entries are skipped,
 * and glibc's own search still runs last). */
#define _GNU_SOURCE
#include "pt_fd.h"
#include "pt_interpose.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

PT_REAL_DECL(dlopen);
PT_REAL_DECL(dlmopen);
PT_REAL_DECL(dlclose);

typedef struct caller_info {
	struct link_map *map;
	const char *rpath;   /* DT_RPATH string, NULL if none */
	const char *runpath; /* DT_RUNPATH string, NULL if none */
	char origin[PATH_MAX];
	Lmid_t lmid;
} caller_info;

static int caller_origin(const struct link_map *map, char *out, size_t len)
{
	const char *name = map->l_name;
	char exe[PATH_MAX];
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return -1;
		exe[n] = '\0';
		name = exe;
	}
	const char *slash = strrchr(name, '/');
	if (!slash)
		return -1;
	size_t n = (size_t)(slash - name);
	if (n == 0)
		n = 1; /* "/" */
	if (n >= len)
		return -1;
	memcpy(out, name, n);
	out[n] = '\0';
	return 0;
}

static int find_caller(const void *addr, caller_info *c)
{
	Dl_info info;
	struct link_map *map = NULL;
	if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
		return -1;
	c->map = map;
	c->rpath = c->runpath = NULL;
	c->lmid = LM_ID_BASE;
	dlinfo(map, RTLD_DI_LMID, &c->lmid); /* a link_map is a valid handle in glibc */
	uintptr_t strtab = 0, rpath = 0, runpath = 0;
	int has_rpath = 0, has_runpath = 0;
	for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_RPATH)
			rpath = d->d_un.d_val, has_rpath = 1;
		else if (d->d_tag == DT_RUNPATH)
			runpath = d->d_un.d_val, has_runpath = 1;
	}
	/* glibc relocates the pointers of a writable dynamic section in place;
	 * a read-only one still holds link-time addresses. */
	if (strtab && strtab < map->l_addr)
		strtab += map->l_addr;
	if (strtab && has_rpath)
		c->rpath = (const char *)(strtab + rpath);
	if (strtab && has_runpath)
		c->runpath = (const char *)(strtab + runpath);
	if (caller_origin(map, c->origin, sizeof c->origin) != 0)
		c->origin[0] = '\0';
	return 0;
}

/* `in` with $ORIGIN / ${ORIGIN} replaced by origin. -1 if another token is
 * present, if origin is unknown, or if it does not fit. */
static int expand_origin(const char *in, size_t inlen, const char *origin, char *out, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < inlen;) {
		if (in[i] == '$') {
			size_t skip = 0;
			if (inlen - i >= 7 && strncmp(in + i, "$ORIGIN", 7) == 0 &&
			    (inlen - i == 7 || !(in[i + 7] == '_' || (in[i + 7] >= 'A' && in[i + 7] <= 'Z') ||
						 (in[i + 7] >= 'a' && in[i + 7] <= 'z') ||
						 (in[i + 7] >= '0' && in[i + 7] <= '9'))))
				skip = 7;
			else if (inlen - i >= 9 && strncmp(in + i, "${ORIGIN}", 9) == 0)
				skip = 9;
			if (!skip || !*origin)
				return -1;
			size_t ol = strlen(origin);
			if (k + ol >= len)
				return -1;
			memcpy(out + k, origin, ol);
			k += ol;
			i += skip;
			continue;
		}
		if (k + 1 >= len)
			return -1;
		out[k++] = in[i++];
	}
	out[k] = '\0';
	return 0;
}

/* An ELF file of this process's class and machine, as glibc's search
 * requires before it accepts a candidate. */
static int loadable(const char *path)
{
	ElfW(Ehdr) eh;
	if (pt_fd_read_file(path, &eh, sizeof eh) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return 0;
#if __SIZEOF_POINTER__ == 8
	if (eh.e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
#else
	if (eh.e_ident[EI_CLASS] != ELFCLASS32)
		return 0;
#endif
#if defined(__x86_64__)
	if (eh.e_machine != EM_X86_64)
		return 0;
#elif defined(__aarch64__)
	if (eh.e_machine != EM_AARCH64)
		return 0;
#endif
	return eh.e_type == ET_DYN;
}

/* Searches `list` (':' or ';' separated) for `name`; the first hit goes
 * to out. 1 found, 0 not. */
static int search_list(const char *list, const char *name, const char *origin, char *out,
		       size_t len)
{
	if (!list)
		return 0;
	for (const char *p = list;;) {
		const char *end = p + strcspn(p, ":;");
		char dir[PATH_MAX];
		size_t dl = (size_t)(end - p);
		if (dl == 0) {
			/* An empty entry is the current folder. */
			dir[0] = '.';
			dir[1] = '\0';
		} else if (expand_origin(p, dl, origin, dir, sizeof dir) != 0) {
			dir[0] = '\0';
		}
		if (dir[0]) {
			size_t l = strlen(dir);
			size_t nl = strlen(name);
			if (l + 1 + nl < len) {
				memcpy(out, dir, l);
				out[l] = '/';
				memcpy(out + l + 1, name, nl + 1);
				if (loadable(out))
					return 1;
			}
		}
		if (!*end)
			return 0;
		p = end + 1;
	}
}

typedef struct loaded_match {
	const char *name;
	int found;
} loaded_match;

/* The soname of a loaded object, from its dynamic section. */
static const char *soname_of(const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *dyn = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return NULL;
	uintptr_t strtab = 0, soname = 0;
	int has = 0;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_SONAME)
			soname = d->d_un.d_val, has = 1;
	}
	if (!has || !strtab)
		return NULL;
	if (strtab < info->dlpi_addr)
		strtab += info->dlpi_addr;
	return (const char *)(strtab + soname);
}

static int match_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	loaded_match *m = arg;
	const char *n = info->dlpi_name;
	if (n && *n) {
		const char *base = strrchr(n, '/');
		if (strcmp(n, m->name) == 0 || (base && strcmp(base + 1, m->name) == 0)) {
			m->found = 1;
			return 1;
		}
	}
	const char *so = soname_of(info);
	if (so && strcmp(so, m->name) == 0) {
		m->found = 1;
		return 1;
	}
	return 0;
}

/* What to pass to the real dlopen so that it resolves `file` as it would
 * for `caller`. Returns file itself or buf. */
static const char *resolve_for(const char *file, const void *caller, char *buf, size_t len,
			       Lmid_t *lmid)
{
	*lmid = LM_ID_BASE;
	if (!file || !*file)
		return file;
	int has_slash = strchr(file, '/') != NULL;
	int has_token = strchr(file, '$') != NULL;
	if (has_slash && !has_token)
		return file;
	caller_info c;
	if (find_caller(caller, &c) != 0)
		return file;
	*lmid = c.lmid;
	if (has_token) {
		/* $ORIGIN in the name itself; other tokens glibc expands alike
		 * for every caller. */
		if (expand_origin(file, strlen(file), c.origin, buf, len) == 0)
			return buf;
		return file;
	}
	/* libtrace.so itself, or an object with no search path of its own:
	 * glibc's search would be the same from here. */
	if (!c.rpath && !c.runpath)
		return file;
	loaded_match m = {file, 0};
	dl_iterate_phdr(match_loaded, &m);
	if (m.found)
		return file;
	if (!c.runpath && search_list(c.rpath, file, c.origin, buf, len))
		return buf;
	if (c.runpath) {
		if (search_list(getenv("LD_LIBRARY_PATH"), file, c.origin, buf, len))
			return buf;
		if (search_list(c.runpath, file, c.origin, buf, len))
			return buf;
	}
	return file;
}

static void after_map_change(void)
{
	int e = errno;
	pt_modules_sync();
	errno = e;
}

/* dlerror's state is left as the real call set it: nothing here calls a
 * dl function that can fail after it (dladdr1/dlinfo run before). */
PT_EXPORT void *dlopen(const char *file, int mode)
{
	void *(*real)(const char *, int) = PT_REAL(dlopen);
	void *(*real_m)(Lmid_t, const char *, int) = PT_REAL(dlmopen);
	const void *caller = __builtin_return_address(0);
	char buf[PATH_MAX];
	Lmid_t lmid;
	int e = errno;
	const char *use = resolve_for(file, caller, buf, sizeof buf, &lmid);
	errno = e;
	void *h = lmid == LM_ID_BASE ? real(use, mode) : real_m(lmid, use, mode);
	if (h)
		after_map_change();
	return h;
}

PT_EXPORT void *dlmopen(Lmid_t lmid, const char *file, int mode)
{
	void *(*real)(Lmid_t, const char *, int) = PT_REAL(dlmopen);
	const void *caller = __builtin_return_address(0);
	char buf[PATH_MAX];
	Lmid_t caller_lmid;
	int e = errno;
	const char *use = resolve_for(file, caller, buf, sizeof buf, &caller_lmid);
	errno = e;
	void *h = real(lmid, use, mode);
	if (h)
		after_map_change();
	return h;
}

PT_EXPORT int dlclose(void *handle)
{
	int (*real)(void *) = PT_REAL(dlclose);
	pt_dlclose_depth++;
	int r = real(handle);
	pt_dlclose_depth--;
	if (r == 0)
		after_map_change();
	return r;
}

PT_SUBSYSTEM(dl_part) = {
	.name = "dl",
	.order = PT_ORDER_INTERPOSE,
};

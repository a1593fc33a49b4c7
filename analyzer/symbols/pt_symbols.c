/* SPDX-License-Identifier: MIT */
/* ptsym: FUNC_DEF tables and address lookups through elfutils libdwfl.
 *
 * One Dwfl session per module (opened at its first lookup) rather than one
 * for the whole process: modules unmapped and replaced at the same address
 * during the run would otherwise overlap in a single session.
 */
#define _GNU_SOURCE
#include "pt_symbols.h"

#include "pt_log_internal.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler (the ABI function, callable from C), loaded at the
 * first mangled name: linked, libstdc++ cost every start of the analyzer
 * about 2 ms of CPU (its relocations and initialisation), and most runs of
 * `paratrace` (C programs, the CLI's small commands) demangle nothing. */
typedef char *demangle_fn(const char *mangled, char *out, size_t *len, int *status);
static demangle_fn *cxa_demangle;
static pthread_once_t cxa_demangle_once = PTHREAD_ONCE_INIT;

static void cxa_demangle_load(void)
{
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		f = h ? dlsym(h, "__cxa_demangle") : NULL;
	}
	cxa_demangle = (demangle_fn *)f;
}

typedef struct module {
	uint64_t base, lo, hi;
	char *path;
	uint8_t *build_id;
	uint32_t build_id_len;
	int unmapped;
	int opened; /* Dwfl session attempted */
	Dwfl *dwfl;
	Dwfl_Module *mod;
} module;

/* Named ids: FUNC_DEF functions, GPU API functions and GPU kernels, each
 * in its own key space. */
enum { SPACE_FUNC, SPACE_GPU_FUNC, SPACE_GPU_KERNEL };
#define KEY(space, id) ((uint64_t)(space) << 32 | (id))

typedef struct func {
	uint64_t key;
	int used;
	pt_sym sym;
} func;

typedef struct pc_entry {
	uint64_t pc;
	int used;
	int found;
	pt_sym sym;
} pc_entry;

struct pt_symtab {
	pthread_mutex_t lock;
	module *mods;
	size_t nmods, cap_mods;
	func *funcs; /* open addressing on id */
	size_t nfuncs, cap_funcs;
	pc_entry *pcs; /* open addressing on pc: the lookup cache */
	size_t npcs, cap_pcs;
	char **strings; /* everything handed out, freed with the symtab */
	size_t nstrings, cap_strings;
	char *warnings;
	size_t warn_len;
};

char *pt_demangle(const char *name)
{
	if (!name || name[0] != '_' || name[1] != 'Z')
		return NULL;
	pthread_once(&cxa_demangle_once, cxa_demangle_load);
	if (!cxa_demangle)
		return NULL;
	int status = 0;
	char *d = cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(d);
		return NULL;
	}
	return d;
}

/* Keeps s (malloc'ed) until the symtab is freed. */
static const char *keep(pt_symtab *st, char *s)
{
	if (!s)
		return NULL;
	if (st->nstrings == st->cap_strings) {
		size_t cap = st->cap_strings ? st->cap_strings * 2 : 64;
		char **n = realloc(st->strings, cap * sizeof *n);
		if (!n) {
			free(s);
			return NULL;
		}
		st->strings = n;
		st->cap_strings = cap;
	}
	st->strings[st->nstrings++] = s;
	return s;
}

static const char *keep_copy(pt_symtab *st, const char *s)
{
	return s ? keep(st, strdup(s)) : NULL;
}

static const char *keep_name(pt_symtab *st, const char *mangled)
{
	char *d = pt_demangle(mangled);
	return d ? keep(st, d) : keep_copy(st, mangled);
}

/* Out of memory, a warning is dropped: the lookups still work. */
static void warnf(pt_symtab *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warnf(pt_symtab *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	(void)pt_warn_vappend(&st->warnings, &st->warn_len, fmt, ap);
	va_end(ap);
}

pt_symtab *pt_symtab_new(void)
{
	pt_symtab *st = calloc(1, sizeof *st);
	if (!st)
		return NULL;
	pthread_mutex_init(&st->lock, NULL);
	return st;
}

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int grow_funcs(pt_symtab *st)
{
	size_t cap = st->cap_funcs ? st->cap_funcs * 2 : 256;
	func *n = calloc(cap, sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < st->cap_funcs; i++) {
		if (!st->funcs[i].used)
			continue;
		size_t j = hash64(st->funcs[i].key) & (cap - 1);
		while (n[j].used)
			j = (j + 1) & (cap - 1);
		n[j] = st->funcs[i];
	}
	free(st->funcs);
	st->funcs = n;
	st->cap_funcs = cap;
	return 0;
}

static func *func_slot(pt_symtab *st, uint64_t key)
{
	if (!st->cap_funcs)
		return NULL;
	size_t j = hash64(key) & (st->cap_funcs - 1);
	while (st->funcs[j].used && st->funcs[j].key != key)
		j = (j + 1) & (st->cap_funcs - 1);
	return &st->funcs[j];
}

static module *module_by_base(pt_symtab *st, uint64_t base, int mapped_only)
{
	for (size_t i = st->nmods; i-- > 0;) {
		if (st->mods[i].base == base && (!mapped_only || !st->mods[i].unmapped))
			return &st->mods[i];
	}
	return NULL;
}

static func *new_slot(pt_symtab *st, uint64_t key)
{
	if ((st->nfuncs + 1) * 2 > st->cap_funcs && grow_funcs(st) < 0)
		return NULL;
	func *f = func_slot(st, key);
	if (!f->used)
		st->nfuncs++;
	f->used = 1;
	f->key = key;
	memset(&f->sym, 0, sizeof f->sym);
	return f;
}

/* GPU_FUNC_DEF / GPU_KERNEL_DEF: a 32-bit id, padding, then the name. */
static void add_gpu_name(pt_symtab *st, const pt_event *ev, int space)
{
	const pt_rec_gpu_func_def *d = PT_REC_PAYLOAD(ev->rec, pt_rec_gpu_func_def);
	const char *name = d ? pt_event_string(ev, sizeof *d) : NULL;
	if (!name)
		return;
	func *f = new_slot(st, KEY(space, d->func));
	if (f)
		f->sym.name = keep_name(st, name);
}

static void add_func(pt_symtab *st, const pt_event *ev)
{
	const pt_rec_func_def *fd = PT_REC_PAYLOAD(ev->rec, pt_rec_func_def);
	if (!fd || fd->id == 0)
		return;
	const char *name = pt_event_string(ev, sizeof *fd);
	if (!name)
		return;
	const char *file = pt_event_string(ev, sizeof *fd + strlen(name) + 1);
	func *f = new_slot(st, KEY(SPACE_FUNC, fd->id));
	if (!f)
		return;
	f->sym.name = keep_name(st, name);
	f->sym.file = file && *file ? keep_copy(st, file) : NULL;
	f->sym.line = fd->line;
	module *m = fd->module_base ? module_by_base(st, fd->module_base, 0) : NULL;
	f->sym.module = m ? m->path : NULL;
}

static void add_module(pt_symtab *st, const pt_event *ev)
{
	const pt_rec_module_map *mm = PT_REC_PAYLOAD(ev->rec, pt_rec_module_map);
	if (!mm)
		return;
	size_t payload = ev->size - sizeof(pt_rec_head);
	if (mm->build_id_len > payload - sizeof *mm)
		return;
	const char *path = pt_event_string(ev, sizeof *mm + mm->build_id_len);
	if (!path || !*path)
		return;
	if (st->nmods == st->cap_mods) {
		size_t cap = st->cap_mods ? st->cap_mods * 2 : 16;
		module *n = realloc(st->mods, cap * sizeof *n);
		if (!n)
			return;
		st->mods = n;
		st->cap_mods = cap;
	}
	module *m = &st->mods[st->nmods];
	memset(m, 0, sizeof *m);
	m->base = mm->base;
	m->lo = mm->lo;
	m->hi = mm->hi;
	m->path = (char *)keep_copy(st, path);
	if (!m->path)
		return;
	if (mm->build_id_len) {
		m->build_id = malloc(mm->build_id_len);
		if (m->build_id) {
			memcpy(m->build_id, (const uint8_t *)(mm + 1), mm->build_id_len);
			m->build_id_len = mm->build_id_len;
		}
	}
	st->nmods++;
	/* A new mapping can change what a cached address means. */
	if (st->npcs) {
		memset(st->pcs, 0, st->cap_pcs * sizeof *st->pcs);
		st->npcs = 0;
	}
}

void pt_symtab_add(pt_symtab *st, const pt_event *ev)
{
	if (!st || !ev || ev->state != PT_LOG_OK || !ev->rec)
		return;
	pthread_mutex_lock(&st->lock);
	switch (ev->kind) {
	case PT_REC_FUNC_DEF:
		add_func(st, ev);
		break;
	case PT_REC_MODULE_MAP:
		add_module(st, ev);
		break;
	case PT_REC_GPU_FUNC_DEF:
		add_gpu_name(st, ev, SPACE_GPU_FUNC);
		break;
	case PT_REC_GPU_KERNEL_DEF:
		add_gpu_name(st, ev, SPACE_GPU_KERNEL);
		break;
	case PT_REC_MODULE_UNMAP: {
		const pt_rec_module_unmap *mu = PT_REC_PAYLOAD(ev->rec, pt_rec_module_unmap);
		module *m = mu ? module_by_base(st, mu->base, 1) : NULL;
		if (m)
			m->unmapped = 1;
		break;
	}
	default:
		break;
	}
	pthread_mutex_unlock(&st->lock);
}

static int lookup_named(pt_symtab *st, uint64_t key, pt_sym *out)
{
	int rc = -1;
	pthread_mutex_lock(&st->lock);
	func *f = func_slot(st, key);
	if (f && f->used && f->sym.name) {
		*out = f->sym;
		rc = 0;
	}
	pthread_mutex_unlock(&st->lock);
	return rc;
}

int pt_symtab_func(pt_symtab *st, uint32_t id, pt_sym *out)
{
	return lookup_named(st, KEY(SPACE_FUNC, id), out);
}

int pt_symtab_gpu_func(pt_symtab *st, uint32_t func, pt_sym *out)
{
	return lookup_named(st, KEY(SPACE_GPU_FUNC, func), out);
}

int pt_symtab_gpu_kernel(pt_symtab *st, uint32_t kernel, pt_sym *out)
{
	return lookup_named(st, KEY(SPACE_GPU_KERNEL, kernel), out);
}

/* Module paths come from the trace, which may come from anyone: a path
 * naming a FIFO (or a device) would block open() forever. Such a file is
 * opened only if it is a regular file, and without blocking. Returns the
 * fd, or -1 with errno set (EINVAL: not a regular file). */
static int open_regular(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* it may have been replaced since the stat */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Whether any place dwfl_standard_find_debuginfo may open for the separate
 * debug file of module file `file` (debug link `link`, or none) holds
 * something other than a regular file. It looks in the module's folder,
 * its .debug/ and .dwz/ subfolders, under the name of the link, the link's
 * base name, the module's base name and that name with ".debug"; and under
 * /usr/lib/debug (root's, not the trace's: not checked). */
static int debug_places_unsafe(const char *file, const char *link)
{
	if (!file)
		return 0;
	const char *base = strrchr(file, '/');
	int dirlen = base ? (int)(base - file) : 1;
	const char *dir = base ? file : ".";
	base = base ? base + 1 : file;
	const char *link_base = link ? strrchr(link, '/') : NULL;
	link_base = link_base ? link_base + 1 : link;
	static const char *const subdirs[] = {"", "/.debug", "/.dwz"};
	const char *names[] = {link, link_base, base, NULL};
	char path[PATH_MAX];
	struct stat st;
	if (link && link[0] == '/' && stat(link, &st) == 0 && !S_ISREG(st.st_mode))
		return 1;
	for (size_t d = 0; d < sizeof subdirs / sizeof subdirs[0]; d++) {
		for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
			const char *name = names[n] ? names[n] : base;
			const char *suffix = names[n] ? "" : ".debug";
			if (snprintf(path, sizeof path, "%.*s%s/%s%s", dirlen, dir, subdirs[d], name,
				     suffix) >= (int)sizeof path)
				continue;
			if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
				return 1;
		}
	}
	return 0;
}

/* libdwfl's standard search for separate debug files, unless a place it
 * would open holds a FIFO or the like (then: no separate debug file). */
static int find_debuginfo_checked(Dwfl_Module *mod, void **userdata, const char *modname,
				  GElf_Addr base, const char *file_name, const char *debuglink_file,
				  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	if (debug_places_unsafe(file_name, debuglink_file))
		return -1;
	char *canon = file_name ? realpath(file_name, NULL) : NULL;
	int unsafe = canon && debug_places_unsafe(canon, debuglink_file);
	free(canon);
	if (unsafe)
		return -1;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo_checked,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static void open_module(pt_symtab *st, module *m)
{
	m->opened = 1;
	int fd = open_regular(m->path);
	if (fd < 0) {
		warnf(st, "cannot read %s (%s): its addresses stay unresolved", m->path,
		      errno == EINVAL ? "not a regular file" : strerror(errno));
		return;
	}
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl) {
		close(fd);
		return;
	}
	dwfl_report_begin(m->dwfl);
	/* base is the load bias (dlpi_addr): run-time addresses then map
	 * directly onto the file's symbols. On success libdwfl owns fd. */
	m->mod = dwfl_report_elf(m->dwfl, m->path, m->path, fd, m->base, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod) {
		close(fd);
		warnf(st, "cannot read %s (%s): its addresses stay unresolved", m->path,
		      dwfl_errmsg(-1));
		dwfl_end(m->dwfl);
		m->dwfl = NULL;
		return;
	}
	if (m->build_id_len) {
		const unsigned char *bits;
		GElf_Addr vaddr;
		int len = dwfl_module_build_id(m->mod, &bits, &vaddr);
		if (len != (int)m->build_id_len || memcmp(bits, m->build_id, m->build_id_len) != 0)
			warnf(st,
			      "%s on disk is not the file that ran (build id differs): names may be wrong",
			      m->path);
	}
}

static module *module_for_pc(pt_symtab *st, uint64_t pc)
{
	/* Latest mapping first; unmapped modules still name addresses recorded
	 * while they were loaded. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = st->nmods; i-- > 0;) {
			module *m = &st->mods[i];
			if (m->unmapped != pass)
				continue;
			if (pc >= m->lo && pc < m->hi)
				return m;
		}
	}
	return NULL;
}

/* The compilation unit covering pc. libdw (0.188) finds it through
 * .debug_aranges, which clang does not emit: without it, the units' own
 * address ranges are searched. *die is where the unit is copied. */
static Dwarf_Die *unit_of(Dwfl_Module *mod, uint64_t pc, Dwarf_Die *die, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
	if (cu)
		return cu;
	Dwarf *dw = dwfl_module_getdwarf(mod, bias);
	if (!dw)
		return NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, die) && dwarf_haspc(die, pc - *bias) > 0)
			return die;
		off = next;
	}
	return NULL;
}

/* File and line of the statement at pc: dwfl_module_getsrc, or the line
 * table of the unit unit_of finds. 0, or -1. */
static int line_at(Dwfl_Module *mod, uint64_t pc, const char **file, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(mod, pc);
	if (l) {
		*file = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
		return *file ? 0 : -1;
	}
	Dwarf_Die die;
	Dwarf_Addr bias;
	Dwarf_Die *cu = unit_of(mod, pc, &die, &bias);
	Dwarf_Line *dl = cu ? dwarf_getsrc_die(cu, pc - bias) : NULL;
	if (!dl || dwarf_lineno(dl, line) != 0)
		return -1;
	*file = dwarf_linesrc(dl, NULL, NULL);
	return *file ? 0 : -1;
}

/* File and line where the function containing pc is declared (what
 * FUNC_DEF gives for instrumented code), rather than the line of pc itself,
 * which at -O2 is some statement of the body. */
static int decl_of(Dwfl_Module *mod, uint64_t pc, pt_sym *out, pt_symtab *st)
{
	Dwarf_Addr bias;
	Dwarf_Die die;
	Dwarf_Die *cu = unit_of(mod, pc, &die, &bias);
	if (!cu)
		return -1;
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc - bias, &scopes);
	int rc = -1;
	for (int i = 0; i < n; i++) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		int line = 0;
		const char *file = dwarf_decl_file(&scopes[i]);
		if (file && dwarf_decl_line(&scopes[i], &line) == 0 && line > 0) {
			out->file = keep_copy(st, file);
			out->line = (unsigned)line;
			rc = out->file ? 0 : -1;
		}
		break;
	}
	free(scopes);
	return rc;
}

static int resolve_pc(pt_symtab *st, uint64_t pc, pt_sym *out)
{
	module *m = module_for_pc(st, pc);
	if (!m)
		return -1;
	if (!m->opened)
		open_module(st, m);
	if (!m->mod)
		return -1;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m->mod, pc, &off, &sym, NULL, NULL, NULL);
	if (!name)
		return -1;
	memset(out, 0, sizeof *out);
	out->name = keep_name(st, name);
	if (!out->name)
		return -1;
	out->module = m->path;
	if (decl_of(m->mod, pc, out, st) == 0)
		return 0;
	int lineno = 0;
	const char *file;
	if (line_at(m->mod, pc, &file, &lineno) == 0) {
		out->file = keep_copy(st, file);
		out->line = lineno > 0 ? (unsigned)lineno : 0;
	}
	return 0;
}

const char *pt_symtab_data(pt_symtab *st, uint64_t addr, uint64_t *off)
{
	const char *name = NULL;
	pthread_mutex_lock(&st->lock);
	module *m = module_for_pc(st, addr);
	if (m && !m->opened)
		open_module(st, m);
	GElf_Off o;
	GElf_Sym sym;
	const char *n =
	    m && m->mod ? dwfl_module_addrinfo(m->mod, addr, &o, &sym, NULL, NULL, NULL) : NULL;
	/* an object's bytes, not code, nor a symbol without a size */
	if (n &&
	    (GELF_ST_TYPE(sym.st_info) == STT_OBJECT || GELF_ST_TYPE(sym.st_info) == STT_COMMON) &&
	    o < sym.st_size) {
		name = keep_name(st, n);
		*off = o;
	}
	pthread_mutex_unlock(&st->lock);
	return name;
}

static int grow_pcs(pt_symtab *st)
{
	size_t cap = st->cap_pcs ? st->cap_pcs * 2 : 1024;
	pc_entry *n = calloc(cap, sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < st->cap_pcs; i++) {
		if (!st->pcs[i].used)
			continue;
		size_t j = hash64(st->pcs[i].pc) & (cap - 1);
		while (n[j].used)
			j = (j + 1) & (cap - 1);
		n[j] = st->pcs[i];
	}
	free(st->pcs);
	st->pcs = n;
	st->cap_pcs = cap;
	return 0;
}

int pt_symtab_pc(pt_symtab *st, uint64_t pc, pt_sym *out)
{
	pthread_mutex_lock(&st->lock);
	if ((st->npcs + 1) * 2 > st->cap_pcs)
		grow_pcs(st);
	pc_entry *e = NULL;
	if (st->cap_pcs) {
		size_t j = hash64(pc) & (st->cap_pcs - 1);
		while (st->pcs[j].used && st->pcs[j].pc != pc)
			j = (j + 1) & (st->cap_pcs - 1);
		e = &st->pcs[j];
	}
	int rc;
	if (e && e->used) {
		rc = e->found ? 0 : -1;
		if (e->found)
			*out = e->sym;
	} else {
		pt_sym s;
		rc = resolve_pc(st, pc, &s);
		if (rc == 0)
			*out = s;
		if (e) {
			e->used = 1;
			e->pc = pc;
			e->found = rc == 0;
			if (rc == 0)
				e->sym = s;
			st->npcs++;
		}
	}
	pthread_mutex_unlock(&st->lock);
	return rc;
}

char *pt_symtab_take_warnings(pt_symtab *st)
{
	pthread_mutex_lock(&st->lock);
	char *w = st->warnings;
	st->warnings = NULL;
	st->warn_len = 0;
	pthread_mutex_unlock(&st->lock);
	return w;
}

void pt_symtab_free(pt_symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nmods; i++) {
		if (st->mods[i].dwfl)
			dwfl_end(st->mods[i].dwfl);
		free(st->mods[i].build_id);
	}
	for (size_t i = 0; i < st->nstrings; i++)
		free(st->strings[i]);
	free(st->strings);
	free(st->mods);
	free(st->funcs);
	free(st->pcs);
	free(st->warnings);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* For call stacks and samples: the line of the statement at pc itself,
 * where pt_symtab_pc gives the enclosing function's declaration. */
int pt_symtab_pc_line(pt_symtab *st, uint64_t pc, const char **file, unsigned *line)
{
	int rc = -1;
	pthread_mutex_lock(&st->lock);
	module *m = module_for_pc(st, pc);
	if (m && !m->opened)
		open_module(st, m);
	int lineno = 0;
	const char *f = NULL;
	if (m && m->mod && line_at(m->mod, pc, &f, &lineno) != 0)
		f = NULL;
	if (f && lineno > 0 && (*file = keep_copy(st, f)) != NULL) {
		*line = (unsigned)lineno;
		rc = 0;
	}
	pthread_mutex_unlock(&st->lock);
	return rc;
}

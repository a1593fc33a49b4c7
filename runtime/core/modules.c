/* SPDX-License-Identifier: MIT */
/* Module map: MODULE_MAP / MODULE_UNMAP records in the process log, so the
 * analyzer can turn addresses (cyg-profile hooks, call stacks, samples)
 * into names with the right file and build id. */
#define _GNU_SOURCE
#include "core.h"

#include <elf.h>
#include <link.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

typedef struct pt_mod {
	uint64_t base, lo, hi;
	int seen;
} pt_mod;

static pt_mod *pt_mods;
static size_t pt_nmods, pt_capmods;
static pt_spin pt_mods_lock;

void pt_modules_reset(void)
{
	pt_nmods = 0;
	pt_spin_reset(&pt_mods_lock);
}

static pt_mod *find(uint64_t base, uint64_t lo)
{
	for (size_t i = 0; i < pt_nmods; i++)
		if (pt_mods[i].base == base && pt_mods[i].lo == lo)
			return &pt_mods[i];
	return NULL;
}

static pt_mod *add(void)
{
	if (pt_nmods == pt_capmods) {
		size_t cap = pt_capmods ? pt_capmods * 2 : 128;
		pt_mod *n = pt_pages_alloc(cap * sizeof *n);
		if (!n)
			return NULL;
		if (pt_mods) {
			memcpy(n, pt_mods, pt_nmods * sizeof *n);
			pt_pages_free(pt_mods, pt_capmods * sizeof *n);
		}
		pt_mods = n;
		pt_capmods = cap;
	}
	return &pt_mods[pt_nmods++];
}

/* GNU build id from the module's PT_NOTE segments (already in memory). */
static size_t build_id(const struct dl_phdr_info *info, const unsigned char **out)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			ElfW(Nhdr) nh;
			memcpy(&nh, p, sizeof nh);
			const unsigned char *name = p + sizeof nh;
			const unsigned char *desc = name + ((nh.n_namesz + 3) & ~3u);
			const unsigned char *next = desc + ((nh.n_descsz + 3) & ~3u);
			if (next > end || next <= p)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh.n_descsz <= 64) {
				*out = desc;
				return nh.n_descsz;
			}
			p = next;
		}
	}
	return 0;
}

struct scan_ctx {
	int initial;
	int index;
};

int pt_module_extent(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t l = UINTPTR_MAX, h = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < l)
			l = a;
		if (a + ph->p_memsz > h)
			h = a + ph->p_memsz;
	}
	if (l >= h)
		return 0;
	*lo = l;
	*hi = h;
	return 1;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct scan_ctx *ctx = arg;
	int index = ctx->index++;
	uintptr_t lo, hi;
	if (!pt_module_extent(info, &lo, &hi))
		return 0;
	pt_mod *m = find(info->dlpi_addr, lo);
	if (m) {
		m->seen = 1;
		return 0;
	}
	m = add();
	if (m) {
		m->base = info->dlpi_addr;
		m->lo = lo;
		m->hi = hi;
		m->seen = 1;
	}
	/* The first object is the executable (empty name): record its real
	 * path, which is what a symbol reader can open. */
	int is_main = index == 0 && (!info->dlpi_name || !info->dlpi_name[0]);
	char path[PATH_MAX];
	size_t plen;
	if (is_main) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
		plen = n > 0 ? (size_t)n : 0;
		path[plen] = '\0';
	} else {
		plen = strnlen(info->dlpi_name ? info->dlpi_name : "", sizeof path - 1);
		memcpy(path, info->dlpi_name ? info->dlpi_name : "", plen);
		path[plen] = '\0';
	}
	const unsigned char *bid = NULL;
	size_t bid_len = build_id(info, &bid);
	unsigned char tail[64 + PATH_MAX];
	if (bid_len)
		memcpy(tail, bid, bid_len);
	memcpy(tail + bid_len, path, plen + 1);
	pt_rec_module_map rec = {info->dlpi_addr, lo, hi, (uint32_t)bid_len,
				 (is_main ? PT_MODULE_MAIN : 0) | (ctx->initial ? 0 : PT_MODULE_DLOPEN)};
	pt_process_emit(PT_REC_MODULE_MAP, 0, &rec, sizeof rec, tail, bid_len + plen + 1);
	return 0;
}

void pt_modules_scan(int initial)
{
	pt_spin_lock(&pt_mods_lock);
	for (size_t i = 0; i < pt_nmods; i++)
		pt_mods[i].seen = 0;
	struct scan_ctx ctx = {initial, 0};
	dl_iterate_phdr(scan_one, &ctx);
	for (size_t i = 0; i < pt_nmods;) {
		if (pt_mods[i].seen) {
			i++;
			continue;
		}
		pt_rec_module_unmap u = {pt_mods[i].base};
		pt_process_emit(PT_REC_MODULE_UNMAP, 0, &u, sizeof u, NULL, 0);
		pt_mods[i] = pt_mods[--pt_nmods];
	}
	pt_spin_unlock(&pt_mods_lock);
}

void pt_modules_sync(void)
{
	if (!pt_tracing())
		return;
	pt_modules_scan(0);
	pt_parts_modules_changed();
}

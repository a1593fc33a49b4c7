/* SPDX-License-Identifier: MIT */
/* The memory family's model (mem_common.h). */
#include "mem_common.h"

#include <stdlib.h>
#include <string.h>

const char *mem_op_name(unsigned op)
{
	static const char *const names[PT_MEM_OP_COUNT] = {
	    "?",        "malloc", "free", "realloc", "calloc", "posix_memalign", "aligned_alloc",
	    "memalign", "valloc"};
	return op < PT_MEM_OP_COUNT ? names[op] : "?";
}

static size_t mem_slot(uint64_t ptr, size_t cap)
{
	return (size_t)((ptr >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static int mem_grow(mem_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	mem_block *v = calloc(cap, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->v[i].ptr)
			continue;
		size_t j = mem_slot(m->v[i].ptr, cap);
		while (v[j].ptr)
			j = (j + 1) & (cap - 1);
		v[j] = m->v[i];
	}
	free(m->v);
	m->v = v;
	m->cap = cap;
	return 0;
}

int mem_map_put(mem_map *m, const mem_block *b)
{
	if ((m->n + 1) * 4 > m->cap * 3 && mem_grow(m))
		return -1;
	size_t i = mem_slot(b->ptr, m->cap);
	while (m->v[i].ptr && m->v[i].ptr != b->ptr)
		i = (i + 1) & (m->cap - 1);
	if (m->v[i].ptr) /* the same address again (its free was not seen) */
		m->bytes -= m->v[i].size;
	else
		m->n++;
	m->v[i] = *b;
	m->bytes += b->size;
	return 0;
}

int mem_map_take(mem_map *m, uint64_t ptr, mem_block *out)
{
	if (!m->cap || !ptr)
		return 0;
	size_t mask = m->cap - 1, i = mem_slot(ptr, m->cap);
	while (m->v[i].ptr != ptr) {
		if (!m->v[i].ptr)
			return 0;
		i = (i + 1) & mask;
	}
	*out = m->v[i];
	m->bytes -= out->size;
	m->n--;
	/* backward shift: the entries after it that could sit earlier move up */
	for (size_t j = (i + 1) & mask; m->v[j].ptr; j = (j + 1) & mask) {
		size_t home = mem_slot(m->v[j].ptr, m->cap);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->v[i] = m->v[j];
			i = j;
		}
	}
	m->v[i].ptr = 0;
	return 1;
}

void mem_map_free(mem_map *m)
{
	free(m->v);
	memset(m, 0, sizeof *m);
}

int mem_record(const pt_event *ev, unsigned *op, uint64_t *freed, uint64_t *alloc_ptr,
               uint64_t *alloc_size, uint64_t *pc)
{
	*op = ev->rec->arg;
	*freed = *alloc_ptr = *alloc_size = *pc = 0;
	if (ev->kind == PT_REC_MEM_FREE) {
		const pt_rec_mem_free *f = PT_REC_PAYLOAD(ev->rec, pt_rec_mem_free);
		if (!f)
			return 0;
		*freed = f->ptr;
		return 1;
	}
	/* The delivered record's size: a compact one takes fewer bytes in
	 * the file (ev->size). */
	size_t size = pt_rec_size(ev->rec);
	if (ev->kind != PT_REC_MEM_ALLOC || size < sizeof(pt_rec_head) + PT_REC_MEM_ALLOC_MIN)
		return 0;
	pt_rec_mem_alloc a = {0};
	memcpy(&a, ev->rec + 1,
	       size - sizeof(pt_rec_head) < sizeof a ? size - sizeof(pt_rec_head) : sizeof a);
	*alloc_ptr = a.ptr;
	*alloc_size = a.size;
	*pc = a.caller;
	if (*op == PT_MEM_OP_REALLOC)
		*freed = (a.ptr || a.size == 0) ? a.old : 0;
	return 1;
}

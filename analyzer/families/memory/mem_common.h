/* SPDX-License-Identifier: MIT */
/* What the memory family's parts share (Paraver: mem_paraver.c, the
 * report: mem_report.c, the timelines: mem_timeline.c): Extrae's numbering
 * of dynamic memory calls, a table of live blocks, one record read as a
 * change of live bytes. */
#ifndef PT_MEM_COMMON_H
#define PT_MEM_COMMON_H

#include <paratrace/tool.h>
#include <stdint.h>

/* Extrae's Paraver types for dynamic memory calls (its memory cfgs read them). */
#define MEM_EV_CALL 40000040u    /* the call (enum pt_mem_op), 0 = End */
#define MEM_EV_SIZE 40000041u    /* bytes asked */
#define MEM_EV_IN_PTR 40000042u  /* the block handed in (free, realloc) */
#define MEM_EV_OUT_PTR 40000043u /* the block returned (malloc, calloc, realloc...) */
#define MEM_EV_LIVE 40000081u    /* ours: live bytes this thread allocated (a counter) */
/* ours: what the .prv's budget left out of the calls, summarised on the
 * row's next line (pv_left_def): how many, the bytes they allocated and
 * freed (with MEM_EV_LIVE as it stands after them) */
#define MEM_EV_LEFT 40000094u
#define MEM_EV_LEFT_ALLOC 40000095u
#define MEM_EV_LEFT_FREED 40000096u
#define MEM_STATE_ALLOC 30       /* Extrae's "Allocating memory" */
#define MEM_STATE_FREE 31        /* Extrae's "Freeing memory" */

const char *mem_op_name(unsigned op);

/* Live blocks: address -> (bytes, where allocated). Open addressing with
 * backward-shift deletion. */
typedef struct mem_block {
	uint64_t ptr, size;
	uint32_t func;  /* the caller's function (analyzer id), 0 unknown */
	uint32_t shard; /* the thread that allocated it */
} mem_block;
typedef struct mem_map {
	mem_block *v; /* ptr 0: empty */
	size_t cap, n;
	uint64_t bytes; /* sum of the sizes */
} mem_map;
/* 0, or -1: out of memory (nothing changed). */
int mem_map_put(mem_map *m, const mem_block *b);
/* Removes ptr's block into *out; 0 if it was not there. */
int mem_map_take(mem_map *m, uint64_t ptr, mem_block *out);
void mem_map_free(mem_map *m);

/* One record as changes of the live blocks: a block freed (freed.ptr != 0)
 * and/or one allocated (alloc.ptr != 0; size and caller pc in alloc.size,
 * and in *pc). realloc(p, n) frees p and allocates the result (the same
 * address, resized, included); realloc(p, 0) that returned NULL only frees.
 * 0: not a memory record (or a damaged one). */
int mem_record(const pt_event *ev, unsigned *op, uint64_t *freed, uint64_t *alloc_ptr,
               uint64_t *alloc_size, uint64_t *pc);

#endif

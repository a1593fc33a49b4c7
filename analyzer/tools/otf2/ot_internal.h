/* SPDX-License-Identifier: MIT */
/* The OTF2 export's own parts (ot.h is what the families see): the tool's
 * state, a shard's, the registry of API regions, the locks' ids, the
 * core's events (ot_core.c) and the global definitions (ot_defs.c). */
#ifndef PT_OT_INTERNAL_H
#define PT_OT_INTERNAL_H

#include "ot.h"
#include "pt_callstack.h"
#include "pt_dist.h"
#include "pt_family.h"
#include "pt_func_lookup.h"

#include <pthread.h>
#include <stdatomic.h>

/* Names -> numbers, open addressing (the API regions, the strings). */
typedef struct ot_name {
	char *s;
	uint32_t ref;
	uint8_t role, paradigm; /* regions */
} ot_name;
typedef struct ot_names {
	ot_name *v;   /* by hash */
	uint32_t *by; /* by number: index into v */
	size_t n, cap;
} ot_names;
/* The entry of s, added (with the next number) when missing; NULL: out of
 * memory. *added tells. */
ot_name *ot_names_get(ot_names *t, const char *s, int *added);
void ot_names_free(ot_names *t);

/* Locks by (process, address) -> id: a shard's cache of the ids it met. */
typedef struct ot_lock_key {
	uint64_t object;
	uint32_t pid, id; /* id 0: a free slot */
} ot_lock_key;
typedef struct ot_locks {
	ot_lock_key *v;
	size_t n, cap;
} ot_locks;
void ot_locks_free(ot_locks *l);
/* (pid, object) into l (id 1). 0, or -1: out of memory. */
int ot_locks_add(ot_locks *l, uint32_t pid, uint64_t object);
typedef ot_locks ot_lock_cache;
static inline void ot_lock_cache_free(ot_lock_cache *c)
{
	ot_locks_free(c);
}

struct ot_tool {
	const pt_trace_ctx *ctx;
	OTF2_Archive *ar;
	char *path, *tmpdir;
	/* under mpirun: the analyzer processes, each writing its shards'
	 * locations (ot_dist.c); NULL alone */
	pt_dist *dist;
	int primary;          /* rank 0, or alone: the global definitions, the folder */
	pthread_mutex_t lock; /* the registries, the families' shard_exit, events */
	void *fam[PT_MAX_FAMILIES];
	size_t nfam;
	uint64_t *nevents; /* per shard (location) */
	uint64_t events;
	ot_names regions; /* the API regions: ref OT_API_REGIONS + number */
	ot_names metrics; /* the metrics: ref = number */
	ot_locks locks;   /* every lock the shards met (shard_exit) */
	/* finish: locks of one process whose ids (the low 32 bits of their
	 * addresses) another of its locks has too */
	uint64_t lock_clashes;
	/* finish: the strings, the groups */
	ot_names strings;
	uint32_t ngroups;
	uint32_t comm_blocks; /* handed out by ot_comm_block */
	uint64_t *comm_map;   /* pairs: events' ref, definition's ref */
	size_t ncomm_map, cap_comm_map;
	/* finish: the definition's ref of each API region's and metric's
	 * number (every process's, by name: ot_defs.c) */
	uint32_t *region_def, *metric_def;
	/* A function's global region ref (by its id, 1..): the functions in
	 * order of name, file, line and module, so that the definitions are
	 * the same whichever worker met a function first (the ids of
	 * functions named by address are handed out in that order) */
	uint32_t *func_def;
};

/* Lock types whose regions a shard keeps (enum pt_lock_type is below). */
#define OT_LOCK_TYPES 32

/* A lock held by the shard's thread: the order its acquisition got. */
typedef struct ot_held {
	uint32_t id;
	uint64_t order;
} ot_held;

typedef struct ot_shard {
	ot_tool *tool;
	ot_loc loc;
	pt_callstack calls;
	pt_func_lookup fl;
	void *fam[PT_MAX_FAMILIES];
	/* the core's state (ot_core.c) */
	ot_lock_cache cache;
	ot_held *held;
	size_t nheld, capheld;
	uint32_t lock_region; /* the lock call open (its region), 0 none */
	/* the regions of the calls that take and release each lock type
	 * (ot_core.c's TAKE, RELEASE), and of the waits, once asked for (no
	 * lock taken for them after that) */
	uint32_t lock_call_at[2][OT_LOCK_TYPES];
	uint32_t cond_region, barrier_region, join_region, create_region[2];
	unsigned lock_type;
	uint32_t wait_region;  /* a condition, join or barrier wait open, 0 none */
	uint32_t acquisitions; /* on this location: each one's order */
	uint64_t join_seq;
	uint64_t start_seq; /* THREAD_START's create_seq, for THREAD_END */
	int ended;
	char err[256];
} ot_shard;

/* Family i's part of the export (NULL: it has none). */
static inline const ot_family *ot_fam(size_t i)
{
	return pt_families[i]->otf2;
}
/* A thread's record that is no function record; `before`: the time of
 * the record before it (a LOST record's gap begins there). 0 or -1. */
int ot_core_event(ot_shard *s, const pt_event *ev, uint64_t before);
/* The shard ended at last_ns. */
void ot_core_end(ot_shard *s, uint64_t last_ns);
/* Global definitions, the local ones, in finish. 0, or -1 with err. */
int ot_write_defs(ot_tool *t, char *err, size_t errlen);

/* ot_dist.c: the archive's collective callbacks (serial alone, else over
 * t->dist). 0 or -1. */
int ot_set_collectives(ot_tool *t);
/* Every process's `mine`, in rank order (alone: a copy of it): *all and
 * *lens (one per process) malloc'ed. 0, or -1 (collective: every process
 * still takes part in the next). */
int ot_exchange(ot_tool *t, const pt_buf *mine, char **all, size_t **lens);
/* The number of processes writing the archive. */
static inline int ot_nprocs(const ot_tool *t)
{
	return t->dist ? t->dist->size : 1;
}

#endif

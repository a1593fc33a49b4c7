/* SPDX-License-Identifier: MIT */
/* The OTF2 export (paratrace export --format otf2): an OTF2 archive written
 * through the OTF2 library's writer API, shaped as Score-P writes one, so
 * that Vampir, Scalasca and the other tools built for Score-P's archives
 * read it.
 *
 * One location per shard (location id = the shard's index): a CPU thread
 * for a thread log, an accelerator stream for a GPU log. The workers write
 * their shards' locations at the same time (the library's locking
 * callbacks guard the archive); the global definitions are written in
 * finish, once every function, region, lock and communicator is known.
 * Under mpirun every analyzer process writes its shards' locations into
 * the one archive (the library's collective callbacks over the analyzer's
 * exchange, ot_dist.c) and rank 0 the global definitions: the archive is
 * the one a single process writes.
 *
 * Regions: a user function's region is its analyzer-wide function id; the
 * regions of API calls (pthread, MPI, OpenMP, CUDA, OpenCL) are handed out
 * by ot_region, by name, above OT_API_REGIONS, and metrics by ot_metric,
 * in the order the workers meet them. Those are the events' refs, known
 * while the workers write; the readers want the definitions' refs dense,
 * so the definitions get those (API regions and metrics in name order,
 * whichever worker or process met a name first), and each location's
 * local definitions hold the mapping tables (regions, communicators,
 * metrics) from the one to the other, which every OTF2 reader applies. Every Enter and Leave goes
 * through ot_enter/ot_leave, which keep the location's regions nested
 * (a Leave closes what was entered after its Enter first) and its times
 * never going back.
 *
 * A family adds to the archive through its ot_family part (pt_family.h):
 * its events on the shards' locations, through the OTF2 event writer
 * (ot_loc.w) between ot_time and the library's calls, and its global
 * definitions in finish (ot_defs). The part is compiled only where the
 * OTF2 library is (PT_WITH_OTF2); OT_PART names it in the family's
 * descriptor, NULL elsewhere. */
#ifndef PT_OT_H
#define PT_OT_H

#include "ot_config.h"

#ifdef PT_WITH_OTF2
#define OT_PART(part) (&(part))
#else
#define OT_PART(part) NULL
#endif

#ifdef PT_WITH_OTF2
#include <otf2/otf2.h>
#include <paratrace/tool.h>
#include <stddef.h>
#include <stdint.h>

/* The tool (otf2.c): writes the archive into the folder ctx->output. */
const pt_tool *pt_tool_otf2(void);

typedef struct ot_tool ot_tool;

/* Regions of API calls: refs from here up (function ids stay below). */
#define OT_API_REGIONS (1u << 24)

/* The location of a shard, as the tool and the families write it. */
typedef struct ot_loc {
	OTF2_EvtWriter *w;
	const pt_shard_info *info;
	const pt_trace_ctx *ctx;
	ot_tool *tool;
	uint64_t last;             /* the last time written: none goes back */
	OTF2_AttributeList *attrs; /* for ot_enter_with (the library empties it) */
	uint32_t *open;            /* the regions entered and not left, outermost first */
	size_t depth, cap;
	int oom;
} ot_loc;

/* A time for the writer: t, or the last time written when t is earlier
 * (two clocks of one thread: a record's time rounded, a GPU's). */
static inline OTF2_TimeStamp ot_time(ot_loc *l, uint64_t t)
{
	if (t < l->last)
		t = l->last;
	l->last = t;
	return t;
}

void ot_enter(ot_loc *l, uint64_t t, uint32_t region);
/* The attributes the archive defines (uint64 values): what an Enter may
 * carry besides its region. */
enum {
	OT_ATTR_BYTES,  /* bytes a copy, memset or API call moved or asked for */
	OT_ATTR_OBJECT, /* the lock, condition or barrier (its address) a call is on */
	OT_NATTRS
};
/* An Enter with the attribute `attr` set to value. */
void ot_enter_with(ot_loc *l, uint64_t t, uint32_t region, uint32_t attr, uint64_t value);
/* Leaves `region`, and first what was entered after it; nothing when it is
 * not open. */
void ot_leave(ot_loc *l, uint64_t t, uint32_t region);
/* Leaves everything open (the shard's end). */
void ot_leave_all(ot_loc *l, uint64_t t);

/* The region of an API call, by name (thread-safe, the same ref for the
 * same name): its canonical name is the name. */
uint32_t ot_region(ot_tool *t, const char *name, OTF2_RegionRole role, OTF2_Paradigm paradigm);

/* The metric of a counter, by name (thread-safe, the same ref for the
 * same name): a metric member and a metric class of its own, counted
 * from the thread's start (or, manual, an absolute value read at a
 * point). UINT32_MAX: out of memory. */
uint32_t ot_metric(ot_tool *t, const char *name, int papi, int manual);

/* What finish gives a family for its global definitions: strings by
 * value (ot_string), groups numbered by ot_group. */
typedef struct ot_defs {
	OTF2_GlobalDefWriter *w;
	ot_tool *tool;
} ot_defs;
OTF2_StringRef ot_string(ot_defs *d, const char *s);
OTF2_GroupRef ot_group(ot_defs *d);
/* A communicator whose events name it `local` (a ref of the family's
 * block): defined under the next of the archive's dense refs, which each
 * location's mapping table gives its readers. parent: a local ref defined
 * before, or OTF2_UNDEFINED_COMM. 0, or -1: out of memory. */
int ot_comm_def(ot_defs *d, uint32_t local, OTF2_StringRef name, OTF2_GroupRef group,
                uint32_t parent);
/* Each process's threads as a communicator (`what of PID`, ref base +
 * the process's index), over a COMM_LOCATIONS group of every thread
 * (`what`): the thread contingent of ThreadCreate and its kin (paradigm
 * pthread, base 0: the tool's), an OpenMP team. 0, or -1: out of memory. */
int ot_thread_comms(ot_defs *d, OTF2_Paradigm paradigm, uint32_t base, const char *what);
/* The first thread location of process `process` (its main thread's when
 * it has one), OTF2_UNDEFINED_LOCATION when it has none. */
uint64_t ot_process_location(const pt_trace_ctx *ctx, size_t process);

/* Communicator refs for a family: a block of OT_COMM_BLOCK of its own
 * (call it from init). The tool's own (a process's threads: the process's
 * index) are below the first block. */
#define OT_COMM_BLOCK (1u << 20)
uint32_t ot_comm_block(ot_tool *t);

/* A family's part of the OTF2 export (pt_family.h). Every hook is optional.
 * event gets a thread's records of kinds [kind_first, kind_last], and with
 * all_after_first every record (but function records) once *shard is set;
 * device_event every record of a GPU log. A shard's state (*shard) starts
 * NULL; the family sets it in shard_init or when it likes. */
typedef struct ot_family {
	unsigned kind_first, kind_last;
	int all_after_first;
	/* the paradigm of the family's lock types (pt_family.lock_first..) */
	OTF2_Paradigm lock_paradigm;
	int (*init)(const pt_trace_ctx *ctx, ot_tool *tool, void **global);
	void (*process_event)(void *global, size_t process, const pt_event *ev);
	int (*shard_init)(void *global, ot_loc *l, void **shard);
	int (*event)(void *global, void **shard, ot_loc *l, const pt_event *ev);
	int (*device_event)(void *global, void **shard, ot_loc *l, const pt_event *ev);
	/* The shard's records end at last_ns: what the family opened closes. */
	void (*shard_end)(void *global, void *shard, ot_loc *l, uint64_t last_ns);
	/* Under the tool's lock: the shard's findings into global; frees it. */
	int (*shard_exit)(void *global, void *shard);
	/* The family's global definitions. 0 or -1. */
	int (*defs)(void *global, ot_defs *d);
	void (*destroy)(void *global);
} ot_family;

#endif /* PT_WITH_OTF2 */
#endif

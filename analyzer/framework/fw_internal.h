/* SPDX-License-Identifier: MIT */
/* Private to analyzer/framework/. */
#ifndef PT_FW_INTERNAL_H
#define PT_FW_INTERNAL_H

#include "pt_framework.h"
#include "pt_fw_mpi.h"
#include "pt_select.h"
#include "pt_symbols.h"
#include "pt_workers.h"

#include <pthread.h>
#include <stdint.h>

typedef struct fw_block {
	void *p;
	struct fw_block *next;
} fw_block;

typedef struct fw_funcs {
	pthread_mutex_t lock;
	pt_func_info *info; /* [1..count] */
	size_t info_cap;
	uint32_t count;
	uint32_t *map; /* open addressing: (name, file) -> id */
	size_t map_cap;
	fw_block *old_blocks;
} fw_funcs;

typedef struct fw_cache_ent {
	uint64_t key;
	uint32_t id;
} fw_cache_ent;

typedef struct fw_process {
	pt_process_info info;
	pt_symtab *symtab;
	uint32_t *local; /* FUNC_DEF id -> analyzer id */
	size_t nlocal;
	fw_cache_ent *cache; /* ids made on demand, under funcs.lock */
	size_t cache_cap, cache_n;
	int parent; /* = info.parent */
	int scan_index;
	uint64_t start_ns;
	char *program, *exe, *args;
	pt_fw_mpi mpi; /* rank -1: not an MPI rank */
} fw_process;

typedef struct fw_snaps {
	pt_interval_snapshot **v;
	size_t n, cap;
} fw_snaps;

typedef struct fw {
	const pt_fw_options *o;
	pt_fw_tool *tools;
	size_t ntools;
	void **tool_state;
	pt_trace *trace;
	pt_trace_ctx ctx;
	fw_funcs funcs;
	fw_process *procs;
	size_t nprocs;
	pt_process_info *pinfo;
	pt_shard_info *shards;
	size_t nshards;
	pt_file_header *headers; /* one per shard */
	pt_fw_thread *threads;   /* one per shard (fw_names.c) */
	struct fw_name *names;   /* THREAD_NAME records of the process logs, in order */
	size_t nnames, names_cap;
	size_t *order;           /* shards, biggest first (load balance) */
	fw_snaps *snaps;         /* [tool * nshards + shard] */
	uint64_t *last_ns;       /* per shard */

	/* shared by workers */
	pthread_mutex_t lock; /* warnings, error */
	size_t next;          /* atomic: next index into order */
	uint64_t done_bytes;  /* atomic */
	uint64_t events;      /* atomic */
	unsigned data_errors; /* atomic: damaged logs */
	/* atomic: logs read, and those without their CLOSE record (the
	 * program still running, or killed) */
	unsigned logs, unclosed;
	int abort;            /* atomic */
	pt_workers_done done; /* workers that returned */
	char *error;          /* first fatal error (malloc'ed) */
	char *step;           /* label of the last finish-step progress */
	double step_t0;
	uint64_t prepass_end; /* the process logs' latest record */
	pt_select sel;        /* o->select, placed in the run (has_sel) */
	uint32_t static_funcs; /* function ids the process logs define (pt_fw_static_funcs) */
	int has_sel;
	size_t nrun;            /* shards this process runs (order[0..nrun)) */
	unsigned errors_shared; /* data_errors before the shards (every process finds them) */
	unsigned logs_shared, unclosed_shared; /* the same for logs, unclosed */
	int in_shards;          /* atomic: the shard pass is running */
	/* records tools refused (op warn_process_record), under lock: the
	 * last one, so that several tools refusing it warn once */
	size_t refused_process;
	uint64_t refused_offset;
	unsigned refused;
	/* the run rank of each MPI world's rank 0 (-1: no rank of it) */
	int32_t mpi_first[PT_MPI_WORLDS_MAX + 1];
} fw;

/* fw_warn.c: a warning (through the options' warn), and the first fatal
 * error. */
void fw_warnf(fw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fw_failf(fw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* fw_ctx.c: the ops of the tools' pt_trace_ctx; a monotonic clock in s. */
extern const pt_trace_ops fw_ops;
double fw_now_s(void);

/* fw_names.c: a process log's THREAD_NAME that names a thread by tid
 * (kept: 0, or -1 out of memory); once the pre-pass is done, each shard's
 * name; the end. */
int fw_threads_note(fw *w, size_t process, const pt_event *ev);
void fw_threads_assign(fw *w);
void fw_threads_free(fw *w);

/* model.c: processes and shards, ctx filled in; the pre-pass. */
int fw_build_model(fw *w, unsigned nworkers, char *err, size_t errlen);
int fw_prepass(fw *w);

/* fw_dist.c: the shards this process runs (w->order, w->nrun), and what
 * the processes tell each other once their shards are done (the run's
 * end, counts, failures). 0, or -1 with the error set everywhere. */
void fw_dist_select(fw *w);
int fw_dist_after_shards(fw *w, int failed);

/* fw_mpi.c: a rank's process log read for its MPI facts. -1 if unreadable. */
int fw_mpi_scan(const char *path, pt_fw_mpi *m);
/* The MPI ranks of the run, numbered: world 0's, then each spawned
 * world's (pt_fw_mpi.rank); after every process log was scanned. */
void fw_mpi_number(fw *w);
/* Ranks none of whose MPI calls was traced: one warning for them all,
 * with the likely cause their runtimes recorded (MPI_UNTRACED). */
void fw_mpi_warn_untraced(fw *w);

/* funcs.c */
int fw_funcs_init(fw_funcs *f);
void fw_funcs_free(fw_funcs *f);
int fw_funcs_define(fw_funcs *f, fw_process *p, uint32_t local_id);
uint32_t fw_func_id(fw *w, size_t process, uint32_t local_id);
uint32_t fw_func_id_pc(fw *w, size_t process, uint64_t pc);
const pt_func_info *fw_func_info(fw *w, uint32_t id);
uint32_t fw_func_count(fw *w);

#endif

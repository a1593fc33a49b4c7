/* SPDX-License-Identifier: MIT */
/* Profiles taken inside kernels (GPU_PROF_DEF / GPU_PROF records)
 * as the analyzer parts use them: the report's kernel section
 * (gpu_kernels.c), Paraver events on the stream rows (gpu_paraver.c) and
 * the timeline exports' counters (gpu_timeline.c). */
#ifndef PT_GPU_PROF_H
#define PT_GPU_PROF_H

#include <paratrace/tool.h>
#include <stdint.h>

/* One instrumented kernel of one program build / module (GPU_PROF_DEF). */
typedef struct gpu_prof_def {
	uint32_t kernel; /* the process's GPU_KERNEL_DEF id */
	uint32_t flags;  /* PT_GPU_PROF_F_* */
	uint32_t nblocks, nfiles;
	int32_t file; /* the kernel's definition, -1 unknown */
	uint32_t line;
	pt_gpu_prof_block *blocks;
	char **files;
} gpu_prof_def;

typedef struct gpu_profs gpu_profs;

gpu_profs *gpu_profs_new(size_t nprocesses);
void gpu_profs_free(gpu_profs *p);
/* Feed every process-log record (GPU_PROF_DEF records are kept). */
void gpu_profs_process_event(gpu_profs *p, size_t process, const pt_event *ev);
/* The definition of profile id `prof` of a process, NULL if none. */
const gpu_prof_def *gpu_profs_get(const gpu_profs *p, size_t process, uint32_t prof);
/* File name of a definition's file index, "" if unknown. */
const char *gpu_prof_file(const gpu_prof_def *d, int32_t file);

/* One launch's profile (a GPU_PROF record) read against its definition. */
typedef struct gpu_launch_prof {
	const pt_rec_gpu_prof *rec;
	const uint64_t *counts; /* nblocks counts; NULL when blocks were not counted */
	uint32_t nblocks;
	uint64_t instructions;     /* sum over blocks of executions x static instructions */
	uint32_t hot_block;        /* the block with the most executed instructions */
	uint64_t hot_instructions; /* ... and their number */
} gpu_launch_prof;

/* 0 with *out filled; -1 when the record is too short for what it says or
 * its counts do not fit its definition (then it is ignored). */
int gpu_launch_prof_read(const gpu_prof_def *d, const pt_rec_head *h, gpu_launch_prof *out);

/* What one launch's profile shows on its stream (Paraver row, timeline
 * counters). */
typedef struct gpu_prof_values {
	int counted;            /* blocks were counted: the next three mean something */
	uint64_t instructions;  /* executed */
	uint32_t hot_share_pct; /* of them, in the hottest block */
	uint32_t hot_line;      /* source line of the hottest block (0 unknown) */
	uint64_t groups;        /* work-groups that finished */
	int timed;              /* work-group times: the next two mean something */
	uint32_t imbalance_pct; /* longest / mean work-group time */
	uint64_t wg_mean_ns;
} gpu_prof_values;

void gpu_prof_values_of(const gpu_prof_def *d, const gpu_launch_prof *lp, gpu_prof_values *v);

/* Joining a GPU log's kernels and profiles by correlation id, in whichever
 * order the log has them (OpenCL writes a profile right after its kernel,
 * CUDA may write it before the kernel's activity record arrives). */
typedef struct gpu_prof_join gpu_prof_join;

gpu_prof_join *gpu_prof_join_new(void);
void gpu_prof_join_free(gpu_prof_join *j);
/* A kernel [start, end) (ns) of launch `corr`: returns the profile that
 * was waiting for it (a copy of the record, free() it) or NULL, in which
 * case the kernel is remembered for a profile to come. */
pt_rec_head *gpu_prof_join_kernel(gpu_prof_join *j, uint64_t corr, uint64_t start, uint64_t end);
/* A profile record: 1 with its kernel's times when the kernel came first;
 * 0 when it is kept (copied) for its kernel. */
int gpu_prof_join_profile(gpu_prof_join *j, const pt_rec_head *h, uint64_t *start, uint64_t *end);

#endif

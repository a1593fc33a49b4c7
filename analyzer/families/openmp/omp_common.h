/* SPDX-License-Identifier: MIT */
/* What the OpenMP analyzer parts share (its Paraver part
 * omp_paraver.c, the profile's OpenMP section omp_profile.c, the
 * timelines' slices omp_timeline.c): the names of code locations read from
 * the process logs, the Paraver numbering of OpenMP activity, and a
 * thread's OpenMP nesting (omp_track): in which region, task, wait or lock
 * acquisition it is, and so its state. docs/OPENMP.md describes them. */
#ifndef PT_OMP_COMMON_H
#define PT_OMP_COMMON_H

#include <paratrace/tool.h>
#include <stdint.h>

/* Paraver types. Extrae's where Extrae has one (its OpenMP merger), with
 * its values; ours in 62000000..62000099. */
#define OMP_EV_PARALLEL 60000001u      /* 1 parallel loop, 2 parallel sections, 3 region; 0 end */
#define OMP_EV_WORKSHARING 60000002u   /* 4 loop, 5 sections, 6 single; 0 end */
#define OMP_EV_BARRIER 60000005u       /* 1 in a barrier, 0 out */
#define OMP_EV_NAMED_LOCK 60000006u    /* locks, named critical: 3 acquiring, 6 held, 0 free */
#define OMP_EV_UNNAMED_LOCK 60000007u  /* unnamed critical: the same values */
#define OMP_EV_OUTLINED 60000018u      /* location of the region a thread runs, 0 out */
#define OMP_EV_OUTLINED_LINE 60000118u /* the same, labelled by line */
#define OMP_EV_TASK 60000021u          /* 1 creating a task, 0 done */
#define OMP_EV_TASKWAIT 60000022u      /* 1 in taskwait, 0 out */
#define OMP_EV_TASK_FUNC 60000023u     /* location of the task a thread runs, 0 out */
#define OMP_EV_TASK_FUNC_LINE 60000123u
#define OMP_EV_TASK_INST 60000024u /* location of the task created, 0 after */
#define OMP_EV_TASK_INST_LINE 60000124u
#define OMP_EV_TASKGROUP 60000025u       /* 2 waiting at the end of a taskgroup, 0 out */
#define OMP_EV_TASK_ID 60000028u         /* the task's number (its creation order), 0 out */
#define OMP_EV_TASKLOOP 60000029u        /* 1 in a taskloop construct, 0 out */
#define OMP_EV_SET_NUM_THREADS 60000030u /* 1 in omp_set_num_threads, 0 out */
#define OMP_EV_LOCK_NAME 60000032u       /* the lock's identity (hash of its address) */
#define OMP_EV_ORDERED 60000033u         /* 3 waiting to enter ordered, 6 inside, 0 out */
#define OMP_EV_OMPT_CRITICAL 60000050u   /* 1 inside critical (acquiring or holding), 0 out */
#define OMP_EV_OMPT_ATOMIC 60000051u
#define OMP_EV_OMPT_LOOP 60000052u
#define OMP_EV_OMPT_WORKSHARE 60000053u
#define OMP_EV_OMPT_SECTIONS 60000054u
#define OMP_EV_OMPT_SINGLE 60000055u
#define OMP_EV_OMPT_MASTER 60000056u
#define OMP_EV_LOOP_ITERATIONS 62000001u  /* ours: iterations of the whole loop, at its begin */
#define OMP_EV_SCHEDULE 62000002u         /* ours: 1 static, 2 dynamic, 3 guided, 4 runtime */
#define OMP_EV_CHUNK_SIZE 62000003u       /* ours: the schedule's chunk size */
#define OMP_EV_CHUNK_FIRST 62000004u      /* ours: first iteration of a chunk */
#define OMP_EV_CHUNK_ITERATIONS 62000005u /* ours: iterations of a chunk, 0 at the loop's end */
#define OMP_EV_TEAM_SIZE 62000006u        /* ours: threads of the team, at an implicit task */
#define OMP_EV_THREAD_NUM 62000007u       /* ours: the thread's number in the team + 1, 0 out */
#define OMP_EV_REQUESTED 62000008u        /* ours: threads asked for, at a parallel begin */
#define OMP_EV_NUM_THREADS 62000009u      /* ours: value given to omp_set_num_threads */
#define OMP_EV_TASK_DEPS 62000010u        /* ours: dependences of the task created */
#define OMP_EV_CONSTRUCT 62000011u        /* ours: location of the work-sharing or sync construct */

/* Extrae's values for the lock and ordered types. */
#define OMP_LOCK_FREE 0
#define OMP_LOCK_ACQUIRING 3
#define OMP_LOCK_HELD 6

/* Paraver states (Extrae's). */
#define OMP_STATE_IDLE 0
#define OMP_STATE_RUNNING 1
#define OMP_STATE_SYNC 5
#define OMP_STATE_FORK_JOIN 7

/* ---- names of code locations ----------------------------------------------- */
typedef struct omp_names omp_names;

omp_names *omp_names_new(const pt_trace_ctx *ctx);
void omp_names_free(omp_names *n);
/* Every process-log record (MODULE_MAP/UNMAP and OMP_LOC_DEF are kept). A
 * location definition the runtime cannot have written is refused (the
 * framework warns, with the file and offset) and that location unnamed. */
void omp_names_process_event(omp_names *n, size_t process, const pt_event *ev);
/* Names every location; idempotent and thread-safe: call it from shard_init
 * (the pre-pass is over), then the lookups below take no lock. Locations
 * with the same label (one construct in the code of two processes) share
 * a value. -1 when memory ran out (here or in the pre-pass): the names are
 * incomplete, the caller fails. */
int omp_names_finish(omp_names *n);
/* Trace-wide value (>= 1) of location `loc` of a process; 0 if unknown. */
uint32_t omp_names_value(const omp_names *n, size_t process, uint32_t loc);
uint32_t omp_names_count(const omp_names *n); /* values are 1..count */
/* "parallel @ solver.c:42 in main"; NULL for a value out of range. */
const char *omp_names_label(const omp_names *n, uint32_t value);
/* "solver.c:42" (or the label when the line is unknown). */
const char *omp_names_place(const omp_names *n, uint32_t value);
/* The construct: the OMP_LOC_DEF flags' kind and arg (pt_omp_loc_kind). */
uint32_t omp_names_construct(const omp_names *n, uint32_t value);
/* Any OMP_LOC_DEF seen (the trace has OpenMP). */
int omp_names_any(const omp_names *n);

const char *omp_work_name(unsigned type);   /* "loop", "sections", ... */
const char *omp_sched_name(unsigned sched); /* "static", ..., "" unknown */
const char *omp_sync_name(unsigned kind);   /* "barrier", "taskwait", "taskgroup", ... */
/* A lock type (enum pt_lock_type, OpenMP ones) as the profile names it. */
const char *omp_lock_name(unsigned type);

/* ---- a thread's OpenMP nesting ---------------------------------------------- */
enum omp_frame_kind {
	OMP_FR_FORK = 1, /* the encountering thread, outside its own part of the region */
	OMP_FR_IMPLICIT, /* the thread's part of a region */
	OMP_FR_WAIT,     /* waiting in a barrier, taskwait, taskgroup */
	OMP_FR_TASK,     /* running an explicit task */
	OMP_FR_LOCK,     /* acquiring an OpenMP lock, critical, ordered */
};

/* Where the time of a thread goes (omp_track_category). */
enum omp_cat {
	OMP_CAT_WORK,     /* in a region or task, not waiting: busy */
	OMP_CAT_SERIAL,   /* outside every region (not a worker) */
	OMP_CAT_FORKJOIN, /* starting or ending a region it encountered */
	OMP_CAT_BARRIER,  /* waiting in a barrier */
	OMP_CAT_TASKWAIT, /* waiting in taskwait or taskgroup */
	OMP_CAT_LOCK,     /* acquiring an OpenMP lock or critical */
	OMP_CAT_OTHER,    /* another wait (a mutex, condition, futex, join) inside OpenMP work */
	OMP_CAT_IDLE,     /* a worker between regions */
	OMP_CAT_N
};

typedef struct omp_frame {
	uint8_t kind;            /* enum omp_frame_kind */
	uint8_t arg;             /* WAIT: sync kind; LOCK: lock type */
	uint16_t team;           /* IMPLICIT: team size */
	uint32_t loc;            /* the process's location */
	uint64_t id;             /* region id, task id, lock object */
	uint64_t t;              /* when it began (ns) */
	uint64_t cat[OMP_CAT_N]; /* time spent inside it, by category */
} omp_frame;

#define OMP_TRACK_DEPTH 32
typedef struct omp_track {
	omp_frame f[OMP_TRACK_DEPTH];
	unsigned depth;          /* may pass OMP_TRACK_DEPTH: the frames beyond are not kept */
	int active;              /* an OpenMP record was seen */
	int worker;              /* ran a region's part it did not encounter itself */
	unsigned core;           /* other waits open: OMP_CORE_* bits */
	uint64_t since;          /* time of the last record (ns) */
	uint64_t cat[OMP_CAT_N]; /* the thread's time by category, from its first OpenMP record */
	uint64_t moved[4]; /* other waits' time inside OpenMP waits, by OMP_CORE_* bit index */
	omp_frame popped;  /* the frame the last record ended (omp_step) */
} omp_track;

#define OMP_CORE_LOCK 1u
#define OMP_CORE_COND 2u
#define OMP_CORE_JOIN 4u
#define OMP_CORE_BARRIER 8u

/* What a record did to the nesting, for the caller: the frame that ended
 * (popped, valid until the next call) or began (pushed: the top). */
typedef struct omp_step {
	const omp_frame *popped;
	const omp_frame *pushed;
	/* the frames popped were at depths [pop_to, pop_from) (the innermost
	 * first; none when equal); a push comes after them */
	unsigned pop_from, pop_to;
} omp_step;

/* Feeds one record of a thread log (every kind but the function records).
 * Time up to the record is first added to the categories of the thread and
 * of every open frame. */
void omp_track_event(omp_track *t, const pt_event *ev, omp_step *step);
/* Time up to `now` counted, as a record at `now` would first do; the frames
 * stay (the caller may read the ones still open at the end). */
void omp_track_advance(omp_track *t, uint64_t now);
/* The thread ended at `last`: its last slice of time counted, open frames
 * dropped. */
void omp_track_end(omp_track *t, uint64_t last);
/* Paraver state the nesting says the thread is in (OMP_STATE_*). */
unsigned omp_track_state(const omp_track *t);
/* The category the time from now on goes to. */
enum omp_cat omp_track_category(const omp_track *t);
/* Frame at depth d (0 outermost), or NULL past what is kept. */
static inline const omp_frame *omp_track_at(const omp_track *t, unsigned d)
{
	return d < t->depth && d < OMP_TRACK_DEPTH ? &t->f[d] : NULL;
}
/* The innermost frame of a kind, or NULL. */
const omp_frame *omp_track_find(const omp_track *t, unsigned kind);

#endif /* PT_OMP_COMMON_H */
